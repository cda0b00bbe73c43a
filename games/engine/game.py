"""The state machine of one hand (一局): deal, draw, discard, claims, kongs, win or draw.

Pure and immutable: `apply(state, action)` returns `(new_state, events)` or an `Illegal`
value; the state never changes in place. A hand replays bit for bit from
(options, seed, dealer, actions): the wall comes from `random.Random(seed)`.

Players are table positions 0..n-1; the dealer (庄) is East and turn order runs
dealer -> dealer+1 -> ... (下家). Seat winds are relative to the dealer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from .melds import CHOW, CKONG, KONG, PUNG, Meld, logical_chow_faces, make_meld
from .tiles import DRAGONS, NUM_FACES, SEAT_NAMES, WHITE, face_name
from .variants import taizhou
from .winning import is_winning_tiles, waits

# phases
DISCARD = "discard"  # the player in turn must discard (or kong / win by self-draw)
CLAIM = "claim"  # the other players may claim the last discard (claim_window)
ENDED = "ended"

# action kinds
A_DISCARD, A_WIN, A_PASS, A_CHOW, A_PUNG, A_KONG, A_CKONG, A_AKONG = (
    "discard", "win", "pass", "chow", "pung", "kong", "ckong", "akong")
ACTION_KINDS = (A_DISCARD, A_WIN, A_PASS, A_CHOW, A_PUNG, A_KONG, A_CKONG, A_AKONG)
CLAIM_RANK = {A_WIN: 3, A_PUNG: 2, A_KONG: 2, A_CHOW: 1}


@dataclass(frozen=True)
class Options:
    """Rules of a table, fixed when the room is created."""

    variant: str = "taizhou"
    players: int = 4

    def __post_init__(self):
        if self.variant != "taizhou":
            raise ValueError(f"unknown variant {self.variant!r}")
        if self.players not in (2, 3, 4):
            raise ValueError("a table has 2, 3 or 4 players")

    def to_dict(self):
        return {"variant": self.variant, "players": self.players}

    @classmethod
    def from_dict(cls, d):
        return cls(variant=d.get("variant", "taizhou"), players=int(d.get("players", 4)))


@dataclass(frozen=True)
class Action:
    kind: str
    seat: int
    tile: int | None = None  # discard / kong face / chow's claimed tile
    tiles: tuple = ()  # chow: the two tiles from hand

    def to_dict(self):
        d = {"kind": self.kind, "seat": self.seat}
        if self.tile is not None:
            d["tile"] = face_name(self.tile)
        if self.tiles:
            d["tiles"] = [face_name(t) for t in self.tiles]
        return d

    @classmethod
    def from_dict(cls, d):
        from .tiles import parse_tile

        kind = d.get("kind")
        if kind not in ACTION_KINDS:
            raise ValueError(f"unknown action {kind!r}")
        seat = d.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise ValueError("action seat must be an integer")
        tile = d.get("tile")
        tile = None if tile is None else parse_tile(tile)
        tiles = tuple(sorted(parse_tile(t) for t in d.get("tiles") or ()))
        return cls(kind, seat, tile, tiles)


@dataclass(frozen=True)
class Illegal:
    """An action the rules do not allow here; nothing changed."""

    reason: str

    def __bool__(self):
        return False


@dataclass(frozen=True)
class Result:
    winner: int | None
    discarder: int | None
    win_tile: int | None
    self_drawn: bool
    scores: tuple  # per player: taizhou.Score
    transfers: tuple  # ({"from": p, "to": p, "amount": x}, ...) in 胡, by player index
    net: tuple  # per player
    liable: int | None = None
    liable_reason: str | None = None


@dataclass(frozen=True)
class HandState:
    options: Options
    seed: int
    dealer: int
    wall: tuple  # live wall; draws from the front, kong replacements from the back
    indicator: int  # 跳牌: face turned up; the other three of its face are wild
    hands: tuple  # per player: sorted tuple of concealed tiles
    melds: tuple  # per player: tuple of Meld
    rivers: tuple  # per player: discards still lying in front of them
    turn: int
    phase: str
    drawn: int | None = None  # the tile the player in turn just drew (None after a claim)
    after_kong: bool = False
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

    @property
    def n(self):
        return self.options.players

    @property
    def wild(self):
        return self.indicator

    def seat_wind(self, player: int) -> int:
        return 27 + (player - self.dealer) % self.n

    def seat_name(self, player: int) -> str:
        return SEAT_NAMES[(player - self.dealer) % self.n]

    @property
    def wall_count(self):
        return len(self.wall)


# --- dealing -----------------------------------------------------------------------------

def build_wall(seed: int) -> list:
    tiles = [f for f in range(NUM_FACES) for _ in range(4)]
    random.Random(seed).shuffle(tiles)
    return tiles


def new_hand(options: Options, seed: int, dealer: int = 0):
    """Shuffle, deal 14 to the dealer and 13 to the others, turn up the indicator."""
    if not 0 <= dealer < options.players:
        raise ValueError("dealer must be a player index")
    wall = build_wall(seed)
    n = options.players
    hands = [[] for _ in range(n)]
    pos = 0
    for k in range(n):  # from the dealer, in turn order
        p = (dealer + k) % n
        size = 14 if k == 0 else 13
        hands[p] = wall[pos:pos + size]
        pos += size
    rest = wall[pos:]
    indicator = rest.pop()  # from the end of the wall; stays out of play
    seen = [0] * NUM_FACES
    seen[indicator] += 1
    state = HandState(
        options=options, seed=seed, dealer=dealer, wall=tuple(rest), indicator=indicator,
        hands=tuple(tuple(sorted(h)) for h in hands), melds=tuple(() for _ in range(n)),
        rivers=tuple(() for _ in range(n)), turn=dealer, phase=DISCARD, drawn=None,
        claim_options=tuple(() for _ in range(n)), claim_responses=tuple(None for _ in range(n)),
        furiten=tuple(frozenset() for _ in range(n)), chows_from_upper=tuple(0 for _ in range(n)),
        seen=tuple(seen),
    )
    events = [{"type": "deal", "dealer": dealer, "indicator": face_name(indicator),
               "wild": face_name(indicator), "wall": len(rest)}]
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


def can_win_with(state: HandState, player: int, tile: int) -> bool:
    return is_winning_tiles(list(state.hands[player]) + [tile], state.wild)


def chow_options(state: HandState, player: int, tile: int):
    """Pairs of hand tiles that chow `tile` (a white may stand in as the wild face, and a
    discarded white may be chowed as the wild face)."""
    wild = state.wild
    hand = [t for t in state.hands[player] if t != wild]
    logical = wild if (tile == WHITE and wild != WHITE) else tile
    if logical >= 27:
        return []
    out = set()
    uniq = sorted(set(hand))
    for i, a in enumerate(uniq):
        for b in uniq[i:]:
            if a == b and hand.count(a) < 2:
                continue
            if logical_chow_faces((tile, a, b), wild) is not None:
                out.add((a, b))
    return sorted(out)


def claim_options_for(state: HandState, player: int, tile: int, last: bool):
    """Claims `player` could make on `tile` just discarded by state.turn."""
    if tile == state.wild:
        return ()  # wilds are never claimed
    opts = []
    if tile not in state.furiten[player] and can_win_with(state, player, tile):
        opts.append(A_WIN)
    if not last:
        same = state.hands[player].count(tile)
        if same >= 2:
            opts.append(A_PUNG)
        if same >= 3 and state.wall:
            opts.append(A_KONG)
        if player == (state.turn + 1) % state.n and chow_options(state, player, tile):
            opts.append(A_CHOW)
    return tuple(opts)


def self_kong_options(state: HandState, player: int):
    """(kind, face) of concealed kongs (暗杠) and added kongs (加杠) possible now."""
    if not state.wall:
        return []
    hand = state.hands[player]
    out = []
    for f in sorted(set(hand)):
        if f != state.wild and hand.count(f) == 4:
            out.append((A_CKONG, f))
    for m in state.melds[player]:
        if m.kind == PUNG and m.face in hand:
            out.append((A_AKONG, m.face))
    return out


def legal_actions(state: HandState, player: int) -> list:
    """Every action `player` may take right now."""
    if state.phase == DISCARD and player == state.turn:
        acts = [Action(A_DISCARD, player, f) for f in sorted(set(state.hands[player]))]
        for kind, f in self_kong_options(state, player):
            acts.append(Action(kind, player, f))
        if _may_self_win(state) and is_winning_tiles(state.hands[player], state.wild):
            acts.append(Action(A_WIN, player))
        return acts
    if state.phase == CLAIM and state.claim_options[player] and state.claim_responses[player] is None:
        tile = state.last_discard
        acts = []
        for kind in state.claim_options[player]:
            if kind == A_CHOW:
                acts += [Action(A_CHOW, player, tile, pair) for pair in chow_options(state, player, tile)]
            else:
                acts.append(Action(kind, player, tile))
        acts.append(Action(A_PASS, player))
        return acts
    return []


def waiting_player(state: HandState) -> list:
    """Players who must act now (the one in turn, or everyone still to answer a claim)."""
    if state.phase == DISCARD:
        return [state.turn]
    if state.phase == CLAIM:
        return [p for p in range(state.n) if state.claim_options[p] and state.claim_responses[p] is None]
    return []


def auto_action(state: HandState, player: int) -> Action | None:
    """The automatic move when time runs out (托管): always take a win; otherwise discard the
    drawn tile (or the last tile) on one's turn, or pass a claim."""
    acts = legal_actions(state, player)
    if not acts:
        return None
    for a in acts:
        if a.kind == A_WIN:
            return a
    if state.phase == DISCARD:
        hand = state.hands[player]
        choice = state.drawn if state.drawn is not None and state.drawn != state.wild else None
        if choice is None:
            non_wild = [t for t in hand if t != state.wild]
            choice = non_wild[-1] if non_wild else hand[-1]
        return Action(A_DISCARD, player, choice)
    return Action(A_PASS, player)


# --- applying actions --------------------------------------------------------------------

def apply(state: HandState, action: Action):
    """(new_state, events) or Illegal(reason)."""
    if state.phase == ENDED:
        return Illegal("the hand is over")
    if not isinstance(action, Action) or not isinstance(action.seat, int) or not 0 <= action.seat < state.n:
        return Illegal("no such seat")
    p = action.seat
    if action.tile is not None and not (isinstance(action.tile, int) and 0 <= action.tile < NUM_FACES):
        return Illegal("no such tile")
    if state.phase == DISCARD:
        if p != state.turn:
            return Illegal("it is not your turn")
        if action.kind == A_DISCARD:
            return _discard(state, p, action.tile)
        if action.kind == A_WIN:
            return _self_win(state, p)
        if action.kind in (A_CKONG, A_AKONG):
            return _self_kong(state, p, action.kind, action.tile)
        return Illegal(f"you cannot {action.kind} now: discard a tile, kong or win")
    # claim window
    opts = state.claim_options[p]
    if not opts:
        return Illegal("you have no claim on this discard" if p != state.turn else "wait for the others to claim or pass")
    if state.claim_responses[p] is not None:
        return Illegal("you have already answered this discard")
    if action.kind == A_PASS:
        resp = action
    elif action.kind in opts:
        if action.tile is not None and action.tile != state.last_discard:
            return Illegal("that is not the tile just discarded")
        if action.kind == A_CHOW:
            if tuple(sorted(action.tiles)) not in chow_options(state, p, state.last_discard):
                return Illegal("those tiles do not chow the discard")
        resp = Action(action.kind, p, state.last_discard, tuple(sorted(action.tiles)))
    else:
        return Illegal(f"you cannot {action.kind} this discard")
    new = replace(state, claim_responses=_set(state.claim_responses, p, resp), step=state.step + 1)
    events = [{"type": "claim_answer", "seat": p, "kind": "pass" if resp.kind == A_PASS else "claim"}]
    if A_WIN in opts and resp.kind != A_WIN:
        # declining a win (pass or another claim): temporary furiten until their own next draw
        new = replace(new, furiten=_set(new.furiten, p, new.furiten[p] | {state.last_discard}))
    return _resolve_claims(new, events)


def _discard(state, p, tile):
    if tile is None or tile not in state.hands[p]:
        return Illegal("you do not hold that tile")
    hand = _without(state.hands[p], [tile])
    seen = _set(state.seen, tile, state.seen[tile] + 1)
    ready = bool(waits(hand, state.wild))
    new = replace(state, hands=_set(state.hands, p, hand), rivers=_set(state.rivers, p, state.rivers[p] + (tile,)),
                  last_discard=tile, drawn=None, after_kong=False, seen=seen, discard_ready=ready,
                  step=state.step + 1)
    events = [{"type": "discard", "seat": p, "tile": face_name(tile)}]
    last = not state.wall
    opts = tuple(() if q == p else claim_options_for(new, q, tile, last) for q in range(state.n))
    if any(opts):
        new = replace(new, phase=CLAIM, claim_options=opts, claim_responses=tuple(None for _ in range(state.n)),
                      claim_opened=new.step)
        events.append({"type": "claim_window", "seats": [q for q in range(state.n) if opts[q]]})
        return new, events
    return _next_draw(new, events)


def _next_draw(state, events):
    """No claim: the next player draws, or the hand is drawn when the wall is empty."""
    if not state.wall:
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
    return new, events + [{"type": "draw", "seat": p, "tile": face_name(tile), "replacement": from_back,
                           "wall": len(wall)}]


def _self_kong(state, p, kind, face):
    if (kind, face) not in self_kong_options(state, p):
        return Illegal("you cannot declare that kong")
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
    events = [{"type": "kong", "seat": p, "kind": "concealed" if kind == A_CKONG else "added",
               "tile": face_name(face) if kind == A_AKONG else None}]
    return _draw(new, p, events, from_back=True)


def claim_rank(state: HandState, q: int, kind: str) -> tuple:
    """Priority of player q's claim `kind` on the last discard; the higher tuple wins
    (taizhou.md §3, rules README "Claims"): win > pung/kong > chow. Among several wins the
    first claimant counting from the DEALER in turn order wins (seed 000, 捉冲 rule 6: 从庄家按
    逆时针方向，顺序在前者), whoever discarded. Other claims keep the discarder's turn order; it
    never decides anything (only one player can hold a pair of the discard, only the lower
    player may chow) but keeps the order total. The discarder never claims."""
    n = state.n
    origin = state.dealer if kind == A_WIN else state.turn
    return (CLAIM_RANK[kind], -((q - origin) % n))


def _resolve_claims(state, events):
    """Decide the claim window once no pending player could beat the best claim so far
    (`claim_rank` is a total order, so a pending player is waited for exactly when one of the
    claims they may still make ranks above the best answer given)."""
    n = state.n
    discarder = state.turn

    def rank(q, kind):
        return claim_rank(state, q, kind)

    best = None
    for q in range(n):
        r = state.claim_responses[q]
        if r is not None and r.kind != A_PASS:
            if best is None or rank(q, r.kind) > rank(best.seat, best.kind):
                best = r
    pending = [q for q in range(n) if state.claim_options[q] and state.claim_responses[q] is None]
    for q in pending:
        top = max(rank(q, k) for k in state.claim_options[q])
        if best is None or top > rank(best.seat, best.kind):
            return state, events  # wait for q
    cleared = replace(state, claim_options=tuple(() for _ in range(n)),
                      claim_responses=tuple(None for _ in range(n)))
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
    events = events + [{"type": best.kind, "seat": q, "from": discarder, "tile": face_name(tile),
                        "meld": meld.notation()}]
    if best.kind == A_KONG:
        return _draw(new, q, events, from_back=True)
    return new, events


def _may_self_win(state) -> bool:
    """A self-drawn win needs a tile just drawn (or the dealer's opening 14); after claiming a
    chow or pung the player must discard."""
    return state.drawn is not None or state.step == 0


def _self_win(state, p):
    hand = state.hands[p]
    if not _may_self_win(state):
        return Illegal("you drew no tile: after a claim you must discard")
    if not is_winning_tiles(hand, state.wild):
        return Illegal("your hand is not a winning hand")
    if state.drawn is not None and state.drawn in hand:
        win = state.drawn
    else:
        # the dealer's opening 14 (天胡): no tile was drawn, so take the tile that scores best
        sw = state.seat_wind(p)

        def value(t):
            s = taizhou.score_winner(_without(hand, [t]), state.melds[p], t, True, sw, state.wild)
            return (-1, 0, 0) if s is None else (s.total, s.points << s.tai, -t)

        win = max(sorted(set(hand)), key=value)
    rest = _without(hand, [win])
    st = replace(state, hands=_set(state.hands, p, rest), step=state.step + 1)
    return _end_win(st, p, win, None, [])


def _end_win(state, winner, tile, discarder, events):
    """Score everyone, apply 全包 liability, settle."""
    n = state.n
    self_drawn = discarder is None
    scores = []
    for q in range(n):
        sw = state.seat_wind(q)
        if q == winner:
            s = taizhou.score_winner(state.hands[q], state.melds[q], tile, self_drawn, sw, state.wild)
        else:
            s = taizhou.score_nonwinner(state.hands[q], state.melds[q], sw)
        scores.append(s)
    liable, reason = _liability(state, winner, tile, discarder, scores[winner])
    seats = [state.seat_name(q) for q in range(n)]
    order = sorted(range(n), key=lambda q: (q - state.dealer) % n)
    seat_names = [seats[q] for q in order]
    totals = {seats[q]: scores[q].total for q in range(n)}
    capped = {seats[q]: scores[q].capped for q in range(n)}
    transfers, net = taizhou.settle(seat_names, seats[state.dealer], seats[winner], totals, capped,
                                    None if liable is None else seats[liable])
    index = {seats[q]: q for q in range(n)}
    transfers = tuple({"from": index[t["from"]], "to": index[t["to"]], "amount": t["amount"]} for t in transfers)
    result = Result(winner, discarder, tile, self_drawn, tuple(scores), transfers,
                    tuple(net[seats[q]] for q in range(n)), liable, reason)
    new = replace(state, phase=ENDED, result=result, drawn=None,
                  claim_options=tuple(() for _ in range(n)), claim_responses=tuple(None for _ in range(n)))
    return new, events + [{"type": "win", "seat": winner, "tile": face_name(tile), "self_drawn": self_drawn,
                           "from": discarder, "total": scores[winner].total, "liable": liable}]


def _end_drawn(state, events):
    n = state.n
    result = Result(None, None, None, False, tuple(None for _ in range(n)), (), tuple(0 for _ in range(n)))
    return replace(state, phase=ENDED, result=result), events + [{"type": "drawn_hand"}]


def _liability(state, winner, tile, discarder, score):
    """全包: who pays for everyone, and why (taizhou.md §9)."""
    n = state.n
    candidate, reason = None, None
    upper = (winner - 1) % n
    if score.full_flush and state.chows_from_upper[winner] >= 3 and upper != winner:
        candidate, reason = upper, "full_flush_chows"
    elif discarder is not None and tile in DRAGONS:
        # only sets the discarder could see: claimed pungs, exposed or added kongs; a concealed
        # kong lies face down and does not count (taizhou.md §9 case 3; seed 000: 中發白任意兩者碰了)
        exposed_dragons = {m.face for m in state.melds[winner] if m.kind in (PUNG, KONG) and m.face in DRAGONS}
        desc = score.sets[0] if score.sets else None
        if len(exposed_dragons - {tile}) >= 2 and desc and desc[0] == "pung" and desc[1] == tile:
            candidate, reason = discarder, "third_dragon"
        elif state.seen[tile] == 1 and state.discard_ready:
            # the discard itself is the only one of its face shown: a fresh tile (生牌)
            candidate, reason = discarder, "fresh_dragon"
    if candidate is None:
        return None, None
    if _exempt(state, candidate):
        return None, None
    return candidate, reason


def _exempt(state, q):
    """A liable player with 3 台 of their own, or ready with a full flush, is exempt."""
    sw = state.seat_wind(q)
    if taizhou.score_nonwinner(state.hands[q], state.melds[q], sw).tai >= 3:
        return True
    hand = state.hands[q]
    for f in waits(hand, state.wild):
        s = taizhou.score_winner(hand, state.melds[q], f, True, sw, state.wild)
        if s is not None and s.full_flush:
            return True
    return False


def next_dealer(state: HandState) -> int:
    """连庄: the dealer keeps the deal on a dealer win; otherwise it passes on."""
    r = state.result
    if r is not None and r.winner == state.dealer:
        return state.dealer
    return (state.dealer + 1) % state.n


def replay(options: Options, seed: int, dealer: int, actions):
    """Re-run a hand from its inputs. Returns (state, all events) or Illegal at the first bad action."""
    state, events = new_hand(options, seed, dealer)
    for a in actions:
        out = apply(state, a)
        if isinstance(out, Illegal):
            return out
        state, ev = out
        events += ev
    return state, events


def tiles_accounted(state: HandState) -> int:
    """Every physical tile is somewhere: wall, indicator, hands, melds, rivers, claimed."""
    total = len(state.wall) + 1
    for p in range(state.n):
        total += len(state.hands[p]) + len(state.rivers[p]) + sum(len(m.tiles) for m in state.melds[p])
    if state.result is not None and state.result.winner is not None:
        total += 1  # the winning tile
    return total
