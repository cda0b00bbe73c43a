"""A computer player (issue 15): `choose(state, player) -> Action`, for every registered variant.

Pure Python, no Django. The bot asks the rules only through the `Variant` hooks of
variants/base.py (`wild_faces`, `stand_in`, `waits`, `is_winning`, `settle_win`, ...) and the
state machine's `legal_actions`; it never names a variant.

What the bot may see (the same subset as view.seat_view): `visible_state(state, player)` is the
state with everything that seat may not see replaced by placeholders (other players' concealed
tiles emptied, the wall turned into a row of placeholders of the same length, other players'
concealed kongs face down, the seed zeroed, other players' drawn tile, claim options, answers,
furiten and the last discarder's readiness cleared). Every decision is computed from that
visible state only, so two states that differ only in what the seat cannot see get the same
move (tests/test_bot_engine.py shuffles the hidden tiles to prove it). The variant's own data
(`state.extra`) is kept: it holds public facts (decisions made, wild faces drawn, claims made)
and the hooks read only the asking player's part of it.

The decision rule:
- a win is always taken (self-drawn or on a discard): never stall a hand;
- a discard minimises the shanten (向听, counting wilds, whites read either way where they stand
  in for the wild's face), an exact "ready" (the variant's `waits` filtered by `is_winning` for
  this player: Zhuji's 台 minimum, Wenzhou's shapes) replacing the estimate at shanten 0; ties
  go to the most live useful tiles (not visible to this seat), then, when ready, the expected
  value of the waits (the variant's own `settle_win` on the visible state: the net this seat
  would collect self-drawn, weighted by live tiles), then the safest tile;
- late in the hand, far from ready, with a threat at the table, the safest tile that keeps the
  hand within one step of its best shanten (simple defence: faces seen most, honours, tiles the
  others discarded);
- a claim (chow / pung / kong) only when it lowers the shanten (or, ready either way, raises
  the value); kongs of one's own when they keep the shanten;
- a question before the hand (Wenzhou 买底/顶底, Zhuji's 包 contract): the first (default) choice,
  except "yes" to a yes/no question with a strong hand (ready or one from ready, two wilds).

Deterministic: no randomness (ties broken by face order), so a replay agrees.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from .events import A_AKONG, A_CHOW, A_CKONG, A_DISCARD, A_KONG, A_PASS, A_PUNG, A_WIN, Action
from .melds import CKONG, Meld
from .tiles import NUM_FACES, WHITE

__all__ = ["choose", "visible_state", "shanten", "hand_shanten", "useful_faces", "visible_counts",
           "unseen_counts", "real_waits", "win_value", "Analysis", "analyse_discards"]

# --- what the seat may see --------------------------------------------------------------------

_HIDDEN_KONG = Meld(CKONG, (), 0)  # another player's concealed kong: face down, face unknown


def visible_state(state, player: int):
    """The state as `player` may know it: everything hidden replaced by placeholders (see the
    module docstring). Idempotent. Only for deciding: never apply actions to it."""
    if getattr(state, "_bot_view_of", None) == player:
        return state
    n = state.n
    hands = tuple(state.hands[q] if q == player else () for q in range(n))
    melds = tuple(state.melds[q] if q == player else
                  tuple(_HIDDEN_KONG if m.kind == CKONG else m for m in state.melds[q]) for q in range(n))
    furiten = tuple(state.furiten[q] if q == player else frozenset() for q in range(n)) if state.furiten else ()
    claim_options = tuple(state.claim_options[q] if q == player else () for q in range(n)) \
        if state.claim_options else ()
    claim_responses = tuple(state.claim_responses[q] if q == player else None for q in range(n)) \
        if state.claim_responses else ()
    answers = tuple(state.answers[q] if q == player else None for q in range(n)) if state.answers else ()
    drawn = state.drawn if state.turn == player else None
    vs = replace(state, seed=0, wall=(0,) * len(state.wall), hands=hands, melds=melds, furiten=furiten,
                 claim_options=claim_options, claim_responses=claim_responses, answers=answers,
                 drawn=drawn, discard_ready=False)
    object.__setattr__(vs, "_bot_view_of", player)
    return vs


def visible_counts(state, player: int) -> list:
    """Tiles of each face `player` can see: own concealed tiles and own melds (concealed kongs
    included), every river, every exposed meld of the others (not their concealed kongs) and
    the indicator."""
    c = [0] * NUM_FACES
    for f in state.hands[player]:
        c[f] += 1
    for q in range(state.n):
        for f in state.rivers[q]:
            c[f] += 1
        for m in state.melds[q]:
            if m.kind == CKONG and q != player:
                continue
            for f in m.tiles:
                c[f] += 1
    if state.indicator is not None:
        c[state.indicator] += 1
    return c


def unseen_counts(state, player: int) -> list:
    """Per face, the tiles `player` has not seen (4 minus visible_counts, never below 0)."""
    return [max(0, 4 - v) for v in visible_counts(state, player)]


# --- shanten with wilds ---------------------------------------------------------------------
# A hand of 3k+1 (or 3k+2) concealed tiles, j of them wild, needs k sets and a pair. Keep as
# many natural tiles as possible in k "set groups" (a set 3, a partial set 2, a single 1) and one
# "pair group" (a pair 2, a single 1): with K natural tiles kept, the wilds and the draws fill
# the rest, and the shanten is 3k+1 - j - K (ready = 0, complete = -1). Each suit's ways of
# splitting into sets (m), partial sets (t) and the pair (p) are memoised as a Pareto set.

def _pareto(opts):
    out = []
    for o in sorted(set(opts), reverse=True):
        if not any(x[0] >= o[0] and x[1] >= o[1] and x[2] >= o[2] for x in out):
            out.append(o)
    return tuple(out)


@lru_cache(maxsize=None)
def _blocks(counts: tuple, honor: bool) -> tuple:
    """Pareto-best (sets, partial sets, pair 0/1) of one suit's (or the honours') counts."""
    i = next((k for k in range(len(counts)) if counts[k]), -1)
    if i < 0:
        return ((0, 0, 0),)
    out = []

    def sub(c, dm, dt, dp):
        for m, t, p in _blocks(tuple(c), honor):
            if p + dp <= 1:
                out.append((m + dm, t + dt, p + dp))

    c = list(counts)
    c[i] -= 1
    sub(c, 0, 0, 0)  # tile i stays a single
    if counts[i] >= 2:
        c = list(counts)
        c[i] -= 2
        sub(c, 0, 0, 1)
        sub(c, 0, 1, 0)
    if counts[i] >= 3:
        c = list(counts)
        c[i] -= 3
        sub(c, 1, 0, 0)
    if not honor:
        n = len(counts)
        if i + 2 < n and counts[i + 1] and counts[i + 2]:
            c = list(counts)
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            sub(c, 1, 0, 0)
        if i + 1 < n and counts[i + 1]:
            c = list(counts)
            c[i] -= 1
            c[i + 1] -= 1
            sub(c, 0, 1, 0)
        if i + 2 < n and counts[i + 2]:
            c = list(counts)
            c[i] -= 1
            c[i + 2] -= 1
            sub(c, 0, 1, 0)
    return _pareto(out)


@lru_cache(maxsize=200_000)
def _combine(a, b):
    return _pareto((x[0] + y[0], x[1] + y[1], x[2] + y[2]) for x in a for y in b if x[2] + y[2] <= 1)


_PARTS = ((0, 9, False), (9, 18, False), (18, 27, False), (27, 34, True))


def _kept(opts, n_natural: int, k: int) -> int:
    """Most natural tiles kept over the (m, t, p) options, with k set groups and a pair group."""
    best = 0
    for m, t, p in opts:
        m = min(m, k)
        t = min(t, k - m)
        used = 3 * m + 2 * t + 2 * p
        free = (k - m - t) + (1 - p)
        kept = used + min(n_natural - used, free)
        if kept > best:
            best = kept
    return best


def _parts(counts):
    return [_blocks(tuple(counts[lo:hi]), honor) for lo, hi, honor in _PARTS]


def _natural_shanten(counts, jokers: int, k: int) -> int:
    opts = ((0, 0, 0),)
    for part in _parts(counts):
        opts = _combine(opts, part)
    return 3 * k + 1 - jokers - _kept(opts, sum(counts), k)


def _splits(tiles, wilds, stand_in):
    """(natural counts, jokers) for every reading of the whites (the wild's face or a White)."""
    counts = [0] * NUM_FACES
    jokers = whites = 0
    for t in tiles:
        if t in wilds:
            jokers += 1
        elif stand_in is not None and t == WHITE:
            whites += 1
        else:
            counts[t] += 1
    if not whites:
        return [(counts, jokers)]
    out = []
    for a in range(whites + 1):
        c = list(counts)
        c[stand_in] += a
        c[WHITE] += whites - a
        out.append((c, jokers))
    return out


def shanten(tiles, wilds=(), stand_in=None) -> int:
    """Shanten of these concealed tiles (3k+1 or 3k+2 of them) as k sets and a pair: 0 = ready
    (3k+1) / one discard from ready (3k+2), -1 = complete. `wilds`: the wild faces; `stand_in`:
    the face a white may be read as (None = whites are Whites). Shape only (four sets + a pair;
    no special hands, no value minimum)."""
    return _shanten(tuple(sorted(tiles)), tuple(wilds), stand_in)


@lru_cache(maxsize=100_000)
def _shanten(tiles: tuple, wilds: tuple, stand_in) -> int:
    k = (len(tiles) - 1) // 3
    return min(_natural_shanten(c, j, k) for c, j in _splits(tiles, wilds, stand_in))


def useful_faces(tiles, wilds=(), stand_in=None) -> list:
    """Faces that lower the shanten of these 3k+1 concealed tiles when drawn (every wild face
    among them)."""
    return list(_useful(tuple(sorted(tiles)), tuple(wilds), stand_in))


@lru_cache(maxsize=50_000)
def _useful(tiles: tuple, wilds: tuple, stand_in) -> tuple:
    k = (len(tiles) - 1) // 3
    splits = _splits(tiles, wilds, stand_in)
    base = min(_natural_shanten(c, j, k) for c, j in splits)
    out = set(wilds)
    for c, j in splits:
        parts = _parts(c)
        n_nat = sum(c)
        for s, (lo, hi, honor) in enumerate(_PARTS):
            others = ((0, 0, 0),)
            for s2 in range(4):
                if s2 != s:
                    others = _combine(others, parts[s2])
            for i in _useful_in_part(tuple(c[lo:hi]), honor, others, n_nat, j, k, base):
                out.add(lo + i)
    out.difference_update(wilds)
    out.update(wilds)
    if stand_in is not None:
        out.discard(WHITE)  # a white is judged as either reading
        if _shanten(tuple(sorted(tiles + (WHITE,))), wilds, stand_in) < base:
            out.add(WHITE)
    return tuple(sorted(out))


@lru_cache(maxsize=200_000)
def _useful_in_part(part: tuple, honor: bool, others: tuple, n_nat: int, j: int, k: int, base: int) -> tuple:
    """Offsets in this part whose tile, drawn, lowers the shanten below `base` (the other parts
    summed up in `others`)."""
    out = []
    part = list(part)
    size = len(part)
    alone = None  # a face with no tile of its own part near it: one answer for all of them
    for i in range(size):
        isolated = not part[i] if honor else not any(part[max(0, i - 2):i + 3])
        if isolated and alone is not None:
            ok = alone
        else:
            part[i] += 1
            opts = _combine(others, _blocks(tuple(part), honor))
            part[i] -= 1
            ok = 3 * k + 1 - j - _kept(opts, n_nat + 1, k) < base
            if isolated:
                alone = ok
        if ok:
            out.append(i)
    return tuple(out)


# --- the rules' view of one hand ------------------------------------------------------------

def _rules_bits(vs):
    rules = vs.rules
    return rules, tuple(rules.wild_faces(vs)), rules.stand_in(vs)


def real_waits(vs, player: int, tiles) -> list:
    """Faces that would make these 3k+1 concealed tiles a win for `player` (the variant's own
    waits, kept only where `is_winning` agrees for this player: a 台 minimum, say)."""
    rules = vs.rules
    tiles = list(tiles)
    return [f for f in rules.waits(vs, tiles) if rules.is_winning(vs, player, tiles + [f])]


def hand_shanten(vs, player: int, tiles, exact: bool = True) -> int:
    """Shanten of `player`'s concealed `tiles` in this state; with `exact`, a 3k+1 hand is
    ready (0) only if it has a real wait (else 1), and a 3k+2 hand that wins is -1."""
    rules, wilds, stand_in = _rules_bits(vs)
    s = shanten(tiles, wilds, stand_in)
    if exact and s <= 0:
        if len(tiles) % 3 == 1:
            return 0 if real_waits(vs, player, tiles) else 1
        if s < 0 and not rules.is_winning(vs, player, list(tiles)):
            return 0
    return s


def win_value(vs, player: int, tiles, tile: int, discarder=None):
    """The Result of `player` winning with concealed `tiles` (3k+1, without `tile`) on `tile`,
    self-drawn (discarder None) or on `discarder`'s discard, scored by the variant's own
    `settle_win` on the visible state; None when the variant refuses it."""
    n = vs.n
    hands = tuple(tuple(sorted(tiles)) if q == player else vs.hands[q] for q in range(n))
    if discarder is None:
        st = replace(vs, hands=hands, turn=player, drawn=tile, after_kong=False, robbing=False,
                     last_discard=None)
    else:
        st = replace(vs, hands=hands, turn=discarder, drawn=None, after_kong=False, robbing=False,
                     last_discard=tile)
    try:
        return vs.rules.settle_win(st, player, tile, discarder)
    except (ValueError, KeyError, IndexError, AttributeError, TypeError):
        return None


_VALUE_CACHE: dict = {}


def _net(vs, player, tiles, tile):
    # everything the variant's settlement may read of the visible state (so the cache never
    # changes an answer: the bot stays a function of the state)
    key = (vs.options, vs.dealer, player, tuple(sorted(tiles)), tile, vs.melds, vs.rivers, vs.indicator,
           vs.extra, vs.seen, vs.chows_from_upper, len(vs.wall), vs.step)
    v = _VALUE_CACHE.get(key)
    if v is None:
        if len(_VALUE_CACHE) > 50_000:
            _VALUE_CACHE.clear()
        r = win_value(vs, player, tiles, tile, None)
        v = 0 if r is None else r.net[player]
        _VALUE_CACHE[key] = v
    return v


# --- one discard's worth ----------------------------------------------------------------------

class Analysis:
    """What discarding `tile` leaves: shanten, the useful faces, their live count and (when
    ready) the waits and the expected value."""

    __slots__ = ("tile", "shanten", "useful", "live", "waits", "value")

    def __init__(self, tile, shanten, useful, live, waits=(), value=0.0):
        self.tile, self.shanten, self.useful, self.live, self.waits, self.value = \
            tile, shanten, useful, live, waits, value

    def __repr__(self):
        return f"Analysis(tile={self.tile}, shanten={self.shanten}, live={self.live}, value={self.value})"


def analyse_rest(vs, player, rest, unseen, with_value=True) -> tuple:
    """(shanten, useful faces, live count, waits, value) of the 3k+1 concealed tiles `rest`
    (the bot's estimate: standard shapes; hints ask the variant's own `waits`)."""
    rules, wilds, stand_in = _rules_bits(vs)
    rest = list(rest)
    s = shanten(rest, wilds, stand_in)
    if s == 0:
        # the standard shape's winning faces, kept where the variant agrees (a 台 minimum)
        waits = [f for f in useful_faces(rest, wilds, stand_in) if rules.is_winning(vs, player, rest + [f])]
        if waits:
            live = sum(unseen[f] for f in waits)
            value = 0.0
            if with_value and live:
                # the expected net self-drawn: the most likely waits scored (cap: cheap)
                ranked = sorted((f for f in waits if unseen[f]), key=lambda f: (-unseen[f], f))[:6]
                scored = sum(unseen[f] * _net(vs, player, rest, f) for f in ranked)
                counted = sum(unseen[f] for f in ranked)
                value = scored / counted * live if counted else 0.0
            return 0, tuple(waits), live, tuple(waits), value
        s = 1  # ready in shape, but nothing wins (a 台 minimum): one step away
    useful = useful_faces(rest, wilds, stand_in)
    return s, tuple(useful), sum(unseen[f] for f in useful), (), 0.0


def analyse_discards(state, player, with_value=True, full=True) -> list:
    """An Analysis for every legal discard of `player` (in turn), best first (bot order). With
    `full=False` only the discards that can be best are analysed in depth; the others keep
    their shape shanten and live = -1 (the bot's shortcut; hints ask for everything)."""
    vs = visible_state(state, player)
    rules, wilds, stand_in = _rules_bits(vs)
    hand = list(vs.hands[player])
    unseen = unseen_counts(vs, player)
    shape = {}
    for f in sorted(set(hand)):
        if not rules.may_discard(vs, player, f):
            continue
        rest = list(hand)
        rest.remove(f)
        shape[f] = (shanten(rest, wilds, stand_in), rest)
    out = []
    done = None  # the best exact shanten so far
    for f in sorted(shape, key=lambda f: (shape[f][0], f)):
        s_shape, rest = shape[f]
        if not full and done is not None and s_shape > done:
            out.append(Analysis(f, s_shape, (), -1))
            continue
        s, useful, live, waits, value = analyse_rest(vs, player, rest, unseen, with_value)
        out.append(Analysis(f, s, useful, live, waits, value))
        done = s if done is None else min(done, s)
    out.sort(key=lambda a: _discard_key(a, wilds))
    return out


def _discard_key(a, wilds):
    if a.shanten == 0:
        return (0, -(a.value if a.value > 0 else 0), -a.live, a.tile in wilds, a.tile)
    return (a.shanten, 0, -a.live, a.tile in wilds, a.tile)


# --- defence ----------------------------------------------------------------------------------

def _danger(vs, player, face, visible) -> float:
    """A rough chance that `face` feeds someone's win: 0 for a wild (never claimed); else less
    for faces seen more often, honours and terminals, and faces the others threw."""
    if vs.rules.is_wild(vs, face):
        return 0.0
    left = 4 - visible[face]
    if left <= 0:
        return 0.1
    if face >= 27:
        shape = 1.0
    elif face % 9 in (0, 8):
        shape = 2.0
    elif face % 9 in (1, 7):
        shape = 3.0
    else:
        shape = 4.0
    thrown = sum(1 for q in range(vs.n) if q != player and face in vs.rivers[q])
    return shape * left / 4 / (1 + thrown)


def _threat(vs, player) -> bool:
    """Late in the hand with someone showing sets, or the wall nearly done."""
    live = len(vs.wall) - vs.rules.wall_reserve
    if live > 8 * vs.n:
        return False
    shown = max((len(vs.melds[q]) for q in range(vs.n) if q != player), default=0)
    return shown >= 2 or live <= 4 * vs.n


# --- the decisions ----------------------------------------------------------------------------

def choose(state, player: int) -> Action | None:
    """The bot's move for `player`: one of `legal_actions(state, player)` (None when it has none).
    Computed from `visible_state(state, player)` only."""
    from .game import CLAIM, DECIDE, DISCARD, legal_actions

    acts = legal_actions(state, player)
    if not acts:
        return None
    for a in acts:
        if a.kind == A_WIN:
            return a
    vs = visible_state(state, player)
    if vs.phase == DECIDE:
        return _decide(vs, player, acts)
    if vs.phase == DISCARD:
        return _turn(vs, player, acts)
    if vs.phase == CLAIM:
        return _claim(vs, player, acts)
    return acts[-1]


def _decide(vs, player, acts):
    choices = [a.value for a in acts]
    if set(choices) == {"no", "yes"}:
        rules, wilds, stand_in = _rules_bits(vs)
        hand = vs.hands[player]
        n_wild = sum(1 for t in hand if t in wilds)
        strong = shanten(hand, wilds, stand_in) <= 1 and n_wild >= 2
        want = "yes" if strong else "no"
        return next(a for a in acts if a.value == want)
    return acts[0]  # the variant's default (Zhuji: 2 台 with the room's faces)


def _turn(vs, player, acts):
    analyses = analyse_discards(vs, player, full=False)
    if not analyses:
        return next((a for a in acts if a.kind == A_DISCARD), acts[0])
    best = analyses[0]
    rules, wilds, stand_in = _rules_bits(vs)
    hand = list(vs.hands[player])
    # kongs of one's own: when the hand stays as close to ready (and an extra draw comes)
    for a in acts:
        if a.kind == A_CKONG:
            rest = [t for t in hand if t != a.tile]
        elif a.kind == A_AKONG:
            rest = list(hand)
            rest.remove(a.tile)
        else:
            continue
        s = hand_shanten(vs, player, rest)
        if s <= best.shanten:
            return a
    choice = best
    if best.shanten >= 2 and _threat(vs, player):
        visible = visible_counts(vs, player)
        keep = [a for a in analyses if a.shanten <= best.shanten + 1]
        unseen = unseen_counts(vs, player)
        for a in keep:
            if a.live < 0:
                rest = list(hand)
                rest.remove(a.tile)
                a.shanten, a.useful, a.live, a.waits, a.value = analyse_rest(vs, player, rest, unseen, False)
        keep = [a for a in keep if a.shanten <= best.shanten + 1]
        choice = min(keep, key=lambda a: (round(_danger(vs, player, a.tile, visible), 3), a.shanten, -a.live, a.tile))
    return Action(A_DISCARD, player, choice.tile)


def _claim(vs, player, acts):
    tile = vs.last_discard
    hand = list(vs.hands[player])
    unseen = unseen_counts(vs, player)
    s0, _u, live0, _w, value0 = analyse_rest(vs, player, hand, unseen)
    _rules, wilds, stand_in = _rules_bits(vs)
    best, best_key = None, None
    for a in acts:
        if a.kind == A_PUNG:
            used, meld_tiles = [tile, tile], (tile,) * 3
        elif a.kind == A_CHOW:
            used, meld_tiles = list(a.tiles), tuple(sorted(a.tiles + (tile,)))
        elif a.kind == A_KONG:
            used, meld_tiles = [tile] * 3, (tile,) * 4
        else:
            continue
        rest = list(hand)
        for t in used:
            rest.remove(t)
        after = _with_meld(vs, player, rest, a.kind, meld_tiles, tile)
        quick = shanten(rest, wilds, stand_in)  # after the best discard (3k+2) / as it is (3k+1)
        if quick > s0 or (quick == s0 and s0 > 0 and a.kind != A_KONG):
            continue  # cannot improve the hand
        if a.kind == A_KONG:
            s = hand_shanten(after, player, rest, exact=False)
            if s > s0:
                continue
            key = (s - 0.5, 0.0, 0)  # a kong keeping the shanten: worth its draw (and points)
        else:
            key = _after_claim(after, player, rest)
            if key is None:
                continue
        if best_key is None or key < best_key:
            best, best_key = a, key
    if best is not None:
        s, neg_value, _neg_live = best_key
        if s < s0 or (s == s0 == 0 and -neg_value > value0 * 1.2 + 1e-9):
            return best
    return next(a for a in acts if a.kind == A_PASS)


def _after_claim(vs, player, rest):
    """The best (shanten, -value, -live) over the discards allowed after a claim that leaves
    `rest` (3k+2) in hand; None if nothing may be discarded."""
    rules = vs.rules
    unseen = unseen_counts(vs, player)
    best = None
    for f in sorted(set(rest)):
        if not rules.may_discard(vs, player, f):
            continue
        r = list(rest)
        r.remove(f)
        s, _useful, live, _waits, value = analyse_rest(vs, player, r, unseen)
        key = (s, -value, -live)
        if best is None or key < best:
            best = key
    return best


def _with_meld(vs, player, rest, kind, meld_tiles, tile):
    """The visible state after `player` claims `tile` into a meld, holding `rest`."""
    meld = Meld(kind, tuple(meld_tiles), min(meld_tiles) if kind == A_CHOW else tile, tile, vs.turn)
    return replace(vs, hands=tuple(tuple(sorted(rest)) if q == player else vs.hands[q] for q in range(vs.n)),
                   melds=tuple(vs.melds[q] + (meld,) if q == player else vs.melds[q] for q in range(vs.n)),
                   turn=player, drawn=None, last_discard=None)
