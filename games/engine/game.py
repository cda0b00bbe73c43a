"""The state machine of one hand (一局): deal, draw, discard, claims, kongs, win or draw.

Pure and immutable: `apply(state, action)` returns `(new_state, events)` or an `Illegal`
value; the state never changes in place. A hand replays bit for bit from
(options, seed, dealer, carry, actions): the wall comes from the variant's seeded shuffle.

This module holds only what every Zhejiang rule set shares: the phases (an optional question
before the first turn, then turn -> discard -> claim window -> ...), turn order, claim windows
and their resolution, kongs and replacement draws, the bookkeeping (rivers, melds, `seen`,
furiten). Every rule question goes to the table's variant, `state.rules` (the registered
`variants.Variant` of `options.variant`; see variants/base.py for the list of hooks); no
variant is imported here. Commands, errors and events are those of events.py.

Players are table positions 0..n-1; the dealer (庄) is East and turn order runs
dealer -> dealer+1 -> ... (下家). Seat winds are relative to the dealer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import events as ev
from . import variants
from .events import (  # noqa: F401  (re-exported: the site and the tests import them from here)
    A_AKONG,
    A_CHOW,
    A_CKONG,
    A_DECIDE,
    A_DISCARD,
    A_KONG,
    A_PASS,
    A_PUNG,
    A_WIN,
    ACTION_KINDS,
    CODES,
    Action,
    Illegal,
)
from .melds import CHOW, CKONG, KONG, PUNG, Meld, make_meld
from .tiles import NUM_FACES, SEAT_NAMES, face_name  # noqa: F401  (face_name: re-exported)
from .variants import CLAIM_RANK, Decision, Result  # noqa: F401
from .variants.base import standard_wall

# phases
DECIDE = "decide"  # seats answer the variant's question before the first turn (none in Taizhou)
DISCARD = "discard"  # the player in turn must discard (or kong / win by self-draw)
CLAIM = "claim"  # the other players may claim the last discard (claim_window)
ENDED = "ended"


@dataclass(frozen=True)
class Options:
    """Rules of a table, fixed when the room is created: a registered variant, the number of
    players it allows, and the variant's own settings (Setting names -> values)."""

    variant: str = "taizhou"
    players: int = 4
    settings: tuple = ()  # sorted (name, value) pairs; a dict (or pairs) is accepted

    def __post_init__(self):
        rules = variants.get(self.variant)  # UnknownVariant (a ValueError) for any other name
        allowed = rules.room_options.players
        if self.players not in allowed or isinstance(self.players, bool):
            words = ", ".join(str(k) for k in allowed[:-1]) + f" or {allowed[-1]}" if len(allowed) > 1 else str(allowed[0])
            raise ValueError(f"a table has {words} players")
        settings = tuple(sorted(dict(self.settings).items()))
        object.__setattr__(self, "settings", settings)
        bad = rules.room_options.validate_settings(dict(settings))
        if bad:
            raise ValueError(f"bad settings for {self.variant}: {bad}")
        object.__setattr__(self, "_rules", rules)

    @property
    def rules(self):
        """The Variant object."""
        return self._rules

    def setting(self, name):
        return dict(self.settings).get(name, self._rules.room_options.default(name))

    def to_dict(self):
        d = {"variant": self.variant, "players": self.players}
        if self.settings:
            d["settings"] = dict(self.settings)
        return d

    @classmethod
    def from_dict(cls, d):
        return cls(variant=d.get("variant", "taizhou"), players=int(d.get("players", 4)),
                   settings=dict(d.get("settings") or {}))


@dataclass(frozen=True)
class HandState:
    options: Options
    seed: int
    dealer: int
    wall: tuple  # live wall; draws from the front, kong replacements from the back
    indicator: int | None  # 跳牌: face turned up (Taizhou: the other three of its face are wild)
    hands: tuple  # per player: sorted tuple of concealed tiles
    melds: tuple  # per player: tuple of Meld
    rivers: tuple  # per player: discards still lying in front of them
    turn: int
    phase: str
    drawn: int | None = None  # the tile the player in turn just drew (None after a claim)
    after_kong: bool = False
    robbing: bool = False  # the claim window is on a tile added to a shown pung (抢杠: wins only)
    last_discard: int | None = None
    claim_options: tuple = ()  # per player: tuple of legal claim kinds (empty = not asked)
    claim_responses: tuple = ()  # per player: None (pending) or an Action
    furiten: tuple = ()  # per player: frozenset of faces they may not win on by discard
    chows_from_upper: tuple = ()  # per player: chows taken from the upper player (全包 1)
    seen: tuple = ()  # counts per face of tiles shown on the table (生牌 check)
    discard_ready: bool = False  # was the last discarder ready (听牌) when discarding
    step: int = 0  # number of actions applied
    claim_opened: int = 0  # the step at which the current claim window opened (its discard)
    result: Result | None = None
    extra: tuple = ()  # the variant's own data: sorted (key, value) pairs (carry, decisions, ...)
    decision: Decision | None = None  # the question being answered (phase DECIDE)
    answers: tuple = ()  # per player: None or the value answered to `decision`
    play_from: int = 0  # the step at which play began (after any decisions): the dealer's opening turn

    @property
    def n(self):
        return self.options.players

    @property
    def rules(self):
        """The variant: every rule question goes here."""
        return self.options._rules

    @property
    def wild(self):
        return self.options._rules.wild(self)

    @property
    def wilds(self) -> tuple:
        return self.options._rules.wild_faces(self)

    def seat_wind(self, player: int) -> int:
        return 27 + (player - self.dealer) % self.n

    def seat_name(self, player: int) -> str:
        return SEAT_NAMES[(player - self.dealer) % self.n]

    @property
    def wall_count(self):
        return len(self.wall)

    def get_extra(self, key, default=None):
        for k, v in self.extra:
            if k == key:
                return v
        return default

    def with_extra(self, key, value) -> HandState:
        d = dict(self.extra)
        d[key] = value
        return replace(self, extra=tuple(sorted(d.items())))


# --- dealing -----------------------------------------------------------------------------

def build_wall(seed: int) -> list:
    """The shuffled 136 tiles of a hand with this seed (every variant so far)."""
    return standard_wall(seed)


def _frozen(value):
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value


def new_hand(options: Options, seed: int, dealer: int = 0, carry: dict | None = None):
    """Shuffle, deal hand_size + 1 to the dealer and hand_size to the others (in turn order
    from the dealer), let the variant turn up its indicator. `carry` is what the previous hand
    handed on (`next_hand`), e.g. the dealer's streak; Taizhou needs none. A variant with
    `decide_before_deal` asks its questions first and deals once they are answered."""
    if not 0 <= dealer < options.players:
        raise ValueError("dealer must be a player index")
    rules = options.rules
    wall = rules.build_wall(seed)
    if wall is None:
        wall = build_wall(seed)  # the standard wall (looked up here: tests patch game.build_wall)
    n = options.players
    state = HandState(
        options=options, seed=seed, dealer=dealer, wall=tuple(wall), indicator=None,
        hands=tuple(() for _ in range(n)), melds=tuple(() for _ in range(n)),
        rivers=tuple(() for _ in range(n)), turn=dealer, phase=DISCARD, drawn=None,
        claim_options=tuple(() for _ in range(n)), claim_responses=tuple(None for _ in range(n)),
        furiten=tuple(frozenset() for _ in range(n)), chows_from_upper=tuple(0 for _ in range(n)),
        seen=tuple(0 for _ in range(NUM_FACES)),
        extra=tuple(sorted((k, _frozen(v)) for k, v in (carry or {}).items())),
    )
    if rules.decide_before_deal:
        return _ask(state, [])
    return _deal(state, [])


def _undealt(state) -> bool:
    return state.rules.decide_before_deal and not any(state.hands)


def _deal(state, events):
    """Deal from the front of `state.wall`, turn up the indicator, let the variant see the deal
    (flowers), then ask its questions or start playing."""
    rules = state.rules
    wall = list(state.wall)
    n = state.n
    hands = [[] for _ in range(n)]
    pos = 0
    for k in range(n):
        p = (state.dealer + k) % n
        size = rules.hand_size + (1 if k == 0 else 0)
        hands[p] = wall[pos:pos + size]
        pos += size
    indicator, rest = rules.turn_up(wall[pos:])
    seen = list(state.seen)
    if indicator is not None:
        seen[indicator] += 1
    state = replace(state, wall=tuple(rest), indicator=indicator, hands=tuple(tuple(sorted(h)) for h in hands),
                    seen=tuple(seen))
    events = list(events) + [ev.deal(state.dealer, indicator, rules.wild(state), len(rest))]
    state, events = rules.after_deal(state, events)
    return _ask(state, events)


def _ask(state, events):
    """Ask the variant's next question before the first turn, or start playing (a variant that
    decides before the deal is dealt its tiles once its questions are answered)."""
    decision = state.rules.pre_hand(state)
    if decision is not None:
        return replace(state, phase=DECIDE, decision=decision, answers=tuple(None for _ in range(state.n))), events
    if _undealt(state):
        return _deal(state, events)
    state, events = state.rules.before_play(state, events)  # every question answered (Zhuji: draw the wilds)
    if state.phase != DISCARD:
        state = replace(state, phase=DISCARD, decision=None, answers=(), play_from=state.step)
    return state, events


# --- helpers -----------------------------------------------------------------------------

def _without(tiles, remove):
    out = list(tiles)
    for t in remove:
        out.remove(t)
    return tuple(out)


def _set(tup, i, value):
    lst = list(tup)
    lst[i] = value
    return tuple(lst)


# the rule questions, by their old names (the variant answers them)

def can_win_with(state: HandState, player: int, tile: int) -> bool:
    return state.rules.is_winning(state, player, list(state.hands[player]) + [tile])


def chow_options(state: HandState, player: int, tile: int):
    return state.rules.chow_options(state, player, tile)


def claim_options_for(state: HandState, player: int, tile: int, last: bool):
    return state.rules.claim_options(state, player, tile, last)


def self_kong_options(state: HandState, player: int):
    return state.rules.self_kong_options(state, player)


def claim_rank(state: HandState, q: int, kind: str) -> tuple:
    """Priority of player q's claim `kind` on the last discard (the variant's order)."""
    return state.rules.claim_rank(state, q, kind)


def legal_actions(state: HandState, player: int) -> list:
    """Every action `player` may take right now."""
    rules = state.rules
    if state.phase == DISCARD and player == state.turn:
        hand = state.hands[player]
        acts = [Action(A_DISCARD, player, f) for f in sorted(set(hand)) if rules.may_discard(state, player, f)]
        for kind, f in rules.self_kong_options(state, player):
            acts.append(Action(kind, player, f))
        if _may_self_win(state) and rules.is_winning(state, player, hand):
            acts.append(Action(A_WIN, player))
        return acts
    if state.phase == CLAIM and state.claim_options[player] and state.claim_responses[player] is None:
        tile = state.last_discard
        acts = []
        for kind in state.claim_options[player]:
            if kind == A_CHOW:
                acts += [Action(A_CHOW, player, tile, pair) for pair in rules.chow_options(state, player, tile)]
            else:
                acts.append(Action(kind, player, tile))
        acts.append(Action(A_PASS, player))
        return acts
    if state.phase == DECIDE and player in state.decision.seats and state.answers[player] is None:
        return [Action(A_DECIDE, player, value=c) for c in state.decision.choices]
    return []


def waiting_player(state: HandState) -> list:
    """Players who must act now (the one in turn, everyone still to answer a claim or a question)."""
    if state.phase == DISCARD:
        return [state.turn]
    if state.phase == CLAIM:
        return [p for p in range(state.n) if state.claim_options[p] and state.claim_responses[p] is None]
    if state.phase == DECIDE:
        return [p for p in state.decision.seats if state.answers[p] is None]
    return []


def auto_action(state: HandState, player: int) -> Action | None:
    """The automatic move when time runs out (托管): always take a win; otherwise discard the
    drawn tile (or the last non-wild tile) on one's turn if the rules allow it, else the last
    tile they allow; pass a claim; answer a question with its first choice."""
    acts = legal_actions(state, player)
    if not acts:
        return None
    for a in acts:
        if a.kind == A_WIN:
            return a
    if state.phase == DISCARD:
        rules = state.rules
        hand = state.hands[player]
        choice = state.drawn if state.drawn is not None and not rules.is_wild(state, state.drawn) else None
        if choice is None:
            non_wild = [t for t in hand if not rules.is_wild(state, t)]
            choice = non_wild[-1] if non_wild else hand[-1]
        allowed = [a.tile for a in acts if a.kind == A_DISCARD]
        if choice not in allowed and allowed:
            choice = allowed[-1]
        return Action(A_DISCARD, player, choice)
    if state.phase == DECIDE:
        return acts[0]
    return Action(A_PASS, player)


# --- applying actions --------------------------------------------------------------------

def apply(state: HandState, action: Action):
    """(new_state, events) or Illegal(code, params)."""
    if state.phase == ENDED:
        return Illegal("hand_over")
    if not isinstance(action, Action) or not isinstance(action.seat, int) or not 0 <= action.seat < state.n:
        return Illegal("no_such_seat")
    p = action.seat
    if action.tile is not None and not (isinstance(action.tile, int) and 0 <= action.tile < NUM_FACES):
        return Illegal("no_such_tile")
    if state.phase == DECIDE:
        return _decide(state, p, action)
    if state.phase == DISCARD:
        if p != state.turn:
            return Illegal("not_your_turn")
        if action.kind == A_DISCARD:
            return _discard(state, p, action.tile)
        if action.kind == A_WIN:
            return _self_win(state, p)
        if action.kind in (A_CKONG, A_AKONG):
            return _self_kong(state, p, action.kind, action.tile)
        return Illegal("cannot_now", {"kind": action.kind})
    # claim window
    opts = state.claim_options[p]
    if not opts:
        return Illegal("no_claim" if p != state.turn else "wait_for_claims")
    if state.claim_responses[p] is not None:
        return Illegal("already_answered")
    if action.kind == A_PASS:
        resp = action
    elif action.kind in opts:
        if action.tile is not None and action.tile != state.last_discard:
            return Illegal("not_last_discard")
        if action.kind == A_CHOW:
            if tuple(sorted(action.tiles)) not in state.rules.chow_options(state, p, state.last_discard):
                return Illegal("bad_chow")
        resp = Action(action.kind, p, state.last_discard, tuple(sorted(action.tiles)))
    else:
        return Illegal("cannot_claim", {"kind": action.kind})
    new = replace(state, claim_responses=_set(state.claim_responses, p, resp), step=state.step + 1)
    events = [ev.claim_answer(p, resp.kind == A_PASS)]
    if A_WIN in opts and resp.kind != A_WIN:
        # declining a win (pass or another claim): temporary furiten until their own next draw
        new = replace(new, furiten=_set(new.furiten, p, new.furiten[p] | {state.last_discard}))
    new = state.rules.answered(new, p, opts, resp)  # the variant may note the answer (a passed pung)
    return _resolve_claims(new, events)


def _decide(state, p, action):
    d = state.decision
    if p not in d.seats or state.answers[p] is not None:
        return Illegal("no_decision")
    if action.kind != A_DECIDE:
        return Illegal("must_decide", {"name": d.name})
    if action.value not in d.choices:
        return Illegal("bad_choice", {"value": action.value})
    answers = _set(state.answers, p, action.value)
    new = replace(state, answers=answers, step=state.step + 1)
    events = [ev.decide(p, d.name)]
    if any(answers[q] is None for q in d.seats):
        return new, events
    given = {q: answers[q] for q in d.seats}
    new = state.rules.decided(new, d, given)
    events.append(ev.decided(d.name, given))
    return _ask(replace(new, decision=None, answers=(), phase=DISCARD, play_from=new.step), events)


def _discard(state, p, tile):
    if tile is None or tile not in state.hands[p]:
        return Illegal("not_held")
    rules = state.rules
    refused = rules.check_discard(state, p, tile)
    if refused is not None:
        return refused
    hand = _without(state.hands[p], [tile])
    seen = _set(state.seen, tile, state.seen[tile] + 1)
    ready = bool(rules.waits(state, hand))
    new = replace(state, hands=_set(state.hands, p, hand), rivers=_set(state.rivers, p, state.rivers[p] + (tile,)),
                  last_discard=tile, drawn=None, after_kong=False, seen=seen, discard_ready=ready,
                  step=state.step + 1)
    events = [ev.discard(p, tile)]
    last = rules.exhausted(state)
    opts = tuple(() if q == p else rules.claim_options(new, q, tile, last) for q in range(state.n))
    if any(opts):
        new = replace(new, phase=CLAIM, claim_options=opts, claim_responses=tuple(None for _ in range(state.n)),
                      claim_opened=new.step)
        events.append(ev.claim_window(q for q in range(state.n) if opts[q]))
        return new, events
    return _next_draw(new, events)


def _next_draw(state, events):
    """No claim: the next player draws, or the hand is drawn when the wall is exhausted. The
    variant may first end the hand with a win that needs no tile (Wenzhou's 全球神)."""
    ended = state.rules.win_before_draw(state)
    if ended is not None:
        st, winner, tile = ended
        return _end_win(st, winner, tile, None, events)
    if state.rules.exhausted(state):
        return _end_drawn(state, events)
    nxt = (state.turn + 1) % state.n
    return _draw(replace(state, turn=nxt), nxt, events, from_back=False)


def _draw(state, p, events, from_back):
    wall = list(state.wall)
    tile = wall.pop() if from_back else wall.pop(0)
    new = replace(state, wall=tuple(wall), hands=_set(state.hands, p, tuple(sorted(state.hands[p] + (tile,)))),
                  phase=DISCARD, turn=p, drawn=tile, after_kong=from_back,
                  furiten=_set(state.furiten, p, frozenset()),
                  claim_options=tuple(() for _ in range(state.n)),
                  claim_responses=tuple(None for _ in range(state.n)))
    return state.rules.after_draw(new, p, tile, events + [ev.draw(p, tile, from_back, len(wall))])


def _self_kong(state, p, kind, face):
    if (kind, face) not in state.rules.self_kong_options(state, p):
        return Illegal("bad_kong")
    hand = state.hands[p]
    melds = list(state.melds[p])
    if kind == A_CKONG:
        hand = _without(hand, [face] * 4)
        melds.append(make_meld(CKONG, (face,) * 4, state.wild))
        shown = 0  # a concealed kong is shown face down
    else:
        hand = _without(hand, [face])
        i = next(k for k, m in enumerate(melds) if m.kind == PUNG and m.face == face)
        old = melds[i]
        melds[i] = Meld(KONG, old.tiles + (face,), face, old.claimed, old.from_seat)
        shown = 1
    seen = _set(state.seen, face, state.seen[face] + shown)
    new = replace(state, hands=_set(state.hands, p, hand), melds=_set(state.melds, p, tuple(melds)),
                  seen=seen, step=state.step + 1)
    events = [ev.self_kong(p, kind == A_CKONG, face)]
    if kind == A_AKONG and state.rules.robbing_kong:
        # 抢杠: the others may win on the added tile (never on a concealed kong); claim_options
        # sees the window's state (robbing, the added tile as last_discard)
        window = replace(new, robbing=True, last_discard=face, drawn=None)
        opts = tuple(() if q == p else state.rules.claim_options(window, q, face, True) for q in range(state.n))
        if any(opts):
            new = replace(window, phase=CLAIM, claim_options=opts,
                          claim_responses=tuple(None for _ in range(state.n)), claim_opened=new.step)
            return new, events + [ev.claim_window(q for q in range(state.n) if opts[q])]
    return _draw(new, p, events, from_back=True)


def _resolve_claims(state, events):
    """Decide the claim window once no pending player could beat the best claim so far
    (`claim_rank` is a total order, so a pending player is waited for exactly when one of the
    claims they may still make ranks above the best answer given)."""
    n = state.n
    discarder = state.turn
    rank = state.rules.claim_rank
    best = None
    for q in range(n):
        r = state.claim_responses[q]
        if r is not None and r.kind != A_PASS:
            if best is None or rank(state, q, r.kind) > rank(state, best.seat, best.kind):
                best = r
    pending = [q for q in range(n) if state.claim_options[q] and state.claim_responses[q] is None]
    for q in pending:
        top = max(rank(state, q, k) for k in state.claim_options[q])
        if best is None or top > rank(state, best.seat, best.kind):
            return state, events  # wait for q
    cleared = replace(state, claim_options=tuple(() for _ in range(n)),
                      claim_responses=tuple(None for _ in range(n)), robbing=False)
    if state.robbing:
        # a window on an added kong: nobody robbed it -> the replacement draw; else the tile
        # leaves the kong (a shown pung again) and wins
        if best is None:
            return _draw(replace(cleared, phase=DISCARD), discarder, events, from_back=True)
        melds = list(state.melds[discarder])
        i = next(k for k, m in enumerate(melds) if m.kind == KONG and m.face == state.last_discard)
        old = melds[i]
        melds[i] = Meld(PUNG, old.tiles[:3], old.face, old.claimed, old.from_seat)
        robbed = replace(cleared, melds=_set(cleared.melds, discarder, tuple(melds)), robbing=True)
        return _end_win(robbed, best.seat, state.last_discard, discarder, events)
    if best is None:
        return _next_draw(replace(cleared, phase=DISCARD), events)
    tile = state.last_discard
    q = best.seat
    river = state.rivers[discarder][:-1]
    cleared = replace(cleared, rivers=_set(cleared.rivers, discarder, river))
    if best.kind == A_WIN:
        return _end_win(cleared, q, tile, discarder, events)
    hand = state.hands[q]
    if best.kind == A_CHOW:
        used = best.tiles
        meld = make_meld(CHOW, tuple(sorted(used + (tile,))), state.wild, claimed=tile, from_seat=discarder)
    elif best.kind == A_PUNG:
        used = (tile, tile)
        meld = make_meld(PUNG, (tile,) * 3, state.wild, claimed=tile, from_seat=discarder)
    else:
        used = (tile, tile, tile)
        meld = make_meld(KONG, (tile,) * 4, state.wild, claimed=tile, from_seat=discarder)
    seen = list(cleared.seen)
    for t in used:
        seen[t] += 1
    chows = cleared.chows_from_upper
    if best.kind == A_CHOW:
        chows = _set(chows, q, chows[q] + 1)
    new = replace(cleared, hands=_set(cleared.hands, q, _without(hand, used)),
                  melds=_set(cleared.melds, q, cleared.melds[q] + (meld,)), seen=tuple(seen),
                  chows_from_upper=chows, turn=q, phase=DISCARD, drawn=None)
    events = events + [ev.claimed(best.kind, q, discarder, tile, meld)]
    if best.kind == A_KONG:
        return _draw(new, q, events, from_back=True)
    return new, events


def _may_self_win(state) -> bool:
    """A self-drawn win needs a tile just drawn (or the dealer's opening hand); after claiming a
    chow or pung the player must discard."""
    return state.drawn is not None or state.step == state.play_from


def _self_win(state, p):
    hand = state.hands[p]
    if not _may_self_win(state):
        return Illegal("must_discard")
    if not state.rules.is_winning(state, p, hand):
        return Illegal("not_winning")
    if state.drawn is not None and state.drawn in hand:
        win = state.drawn
    else:
        win = state.rules.opening_win_tile(state, p)  # 天胡: no tile was drawn
    rest = _without(hand, [win])
    st = replace(state, hands=_set(state.hands, p, rest), step=state.step + 1)
    return _end_win(st, p, win, None, [])


def _end_win(state, winner, tile, discarder, events):
    """The variant scores and settles (Taizhou: 全包 liability too)."""
    n = state.n
    result = state.rules.settle_win(state, winner, tile, discarder)
    new = replace(state, phase=ENDED, result=result, drawn=None,
                  claim_options=tuple(() for _ in range(n)), claim_responses=tuple(None for _ in range(n)))
    return new, events + [ev.win(winner, tile, discarder is None, discarder, state.rules.win_total(result, winner),
                                 result.liable)]


def _end_drawn(state, events):
    return replace(state, phase=ENDED, result=state.rules.settle_drawn(state)), events + [ev.drawn_hand()]


def next_dealer(state: HandState) -> int:
    """Who deals next (Taizhou 连庄: the dealer keeps the deal on a dealer win; else it passes on)."""
    return state.rules.next_dealer(state)


def next_hand(state: HandState):
    """(next dealer, carry) for `new_hand(options, seed, dealer, carry)`: the variant's dealer
    rotation and the state it carries over (a dealer streak)."""
    return state.rules.next_hand(state)


def replay(options: Options, seed: int, dealer: int, actions, carry: dict | None = None):
    """Re-run a hand from its inputs. Returns (state, all events) or Illegal at the first bad action."""
    state, events = new_hand(options, seed, dealer, carry)
    for a in actions:
        out = apply(state, a)
        if isinstance(out, Illegal):
            return out
        state, ev_ = out
        events += ev_
    return state, events


def tiles_accounted(state: HandState) -> int:
    """Every physical tile is somewhere: wall, indicator, hands, melds, rivers, claimed, set aside."""
    total = len(state.wall) + (state.indicator is not None)
    for p in range(state.n):
        total += len(state.hands[p]) + len(state.rivers[p]) + sum(len(m.tiles) for m in state.melds[p])
    if state.result is not None and state.result.winner is not None:
        total += 1  # the winning tile
    return total + state.rules.tiles_aside(state)  # flowers shown (traditional Taizhou)
