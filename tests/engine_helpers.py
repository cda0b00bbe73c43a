"""Fixture helpers for the hand state machine (games/engine/game.py).

`make_state` builds a HandState from mpsz strings so a test reads like the rules:

    st = make_state(hands={0: "123456789m1122z", 1: "...", 2: "...", 3: "..."},
                    wall="5p6p", indicator="9s", dealer=0, turn=0)

It starts from `new_hand` (so every field has a sane value) and replaces the hands, wall,
indicator, melds and rivers, recomputing `seen` (the indicator, every discard still in a river
and every tile of an exposed meld; a concealed kong lies face down and is not counted) and
`chows_from_upper`. With `wall=None` the wall is every tile not used elsewhere, sorted, so that
`tiles_accounted(state) == 136`.

No Django here: only the pure engine.
"""

from __future__ import annotations

from dataclasses import replace

from games.engine import game
from games.engine.game import Action, HandState, Illegal, Options, apply, new_hand
from games.engine.melds import CHOW, CKONG, Meld, make_meld, parse_meld
from games.engine.tiles import NUM_FACES, face_name, parse_tile, parse_tiles

__all__ = ["T", "TS", "W", "A", "make_state", "play", "must_fail", "snapshot", "hand_str", "all_faces", "expected_transfers"]


def T(text: str) -> int:
    """One tile face from mpsz: T('5p')."""
    return parse_tile(text)


def TS(text: str) -> tuple:
    """Sorted faces from mpsz: TS('46p')."""
    return tuple(sorted(parse_tiles(text)))


def W(text: str) -> tuple:
    """Faces from mpsz in written order (a wall, a river): W('8p1s')."""
    return tuple(parse_tiles(text))


def A(kind: str, seat: int, tile: str | None = None, tiles: str | None = None) -> Action:
    """An action from mpsz: A('chow', 1, '5p', '46p')."""
    return Action(kind, seat, None if tile is None else T(tile), TS(tiles) if tiles else ())


def hand_str(state: HandState, player: int) -> str:
    from games.engine.tiles import format_tiles

    return format_tiles(state.hands[player])


def _melds_for(player: int, n: int, specs, wild: int) -> tuple:
    out = []
    upper = (player - 1) % n
    for spec in specs or ():
        if isinstance(spec, Meld):
            out.append(spec)
            continue
        m = parse_meld(spec, wild)
        if m.kind == CKONG:
            out.append(m)
            continue
        # an exposed meld: its claimed tile came from a discard; a chow always from the upper
        # player, and pungs/kongs too unless the test builds its own Meld
        claimed = m.tiles[1] if m.kind == CHOW else m.tiles[0]
        out.append(make_meld(m.kind, m.tiles, wild, claimed=claimed, from_seat=upper))
    return tuple(out)


def make_state(hands: dict, wall: str | None = None, indicator: str = "9s", dealer: int = 0,
               turn: int | None = None, players: int = 4, melds: dict | None = None,
               rivers: dict | None = None, drawn: str | None = None, seed: int = 0,
               chows_from_upper: dict | None = None, furiten: dict | None = None,
               step: int | None = None, check: bool = True) -> HandState:
    """A HandState in the discard phase with exactly these tiles.

    hands: player -> mpsz concealed tiles (every player must be given).
    wall: mpsz in draw order (front first; kong replacements come from the end), or None for
        every unused tile, sorted.
    melds: player -> ["pung:777z", "chow:345p", "ckong:1111m", ...].
    rivers: player -> mpsz discards lying in front of them.
    furiten: player -> mpsz faces that player may not win on by discard.
    step: actions applied so far. By default 0 (the dealer's opening turn: a win with the dealt
        14 is allowed) when the dealer is in turn and nothing has been discarded or melded yet,
        else 1 (mid-hand: a self-drawn win then needs `drawn`).
    With check=True, the player in turn must hold 14 - 3 x melds tiles and everyone else
    13 - 3 x melds, and no face may be used more than four times.
    """
    n = players
    turn = dealer if turn is None else turn
    base, _ = new_hand(Options(players=n), seed, dealer)
    ind = T(indicator)
    melds = melds or {}
    rivers = rivers or {}
    hand_t = []
    for p in range(n):
        if p not in hands:
            raise ValueError(f"make_state: no hand for player {p}")
        hand_t.append(tuple(sorted(parse_tiles(hands[p]))))
    meld_t = tuple(_melds_for(p, n, melds.get(p), ind) for p in range(n))
    river_t = tuple(tuple(parse_tiles(rivers.get(p, ""))) for p in range(n))

    used = [0] * NUM_FACES
    used[ind] += 1
    for p in range(n):
        for f in hand_t[p] + river_t[p]:
            used[f] += 1
        for m in meld_t[p]:
            for f in m.tiles:
                used[f] += 1
    if wall is None:
        wall_t = tuple(f for f in range(NUM_FACES) for _ in range(4 - used[f]))
    else:
        wall_t = tuple(parse_tiles(wall))
    for f in wall_t:
        used[f] += 1
    if check:
        bad = [face_name(f) for f in range(NUM_FACES) if used[f] > 4]
        if bad:
            raise ValueError(f"make_state: more than four of {bad}")
        for p in range(n):
            size = len(hand_t[p]) + 3 * len(meld_t[p])
            want = 14 if p == turn else 13
            if size != want:
                raise ValueError(f"make_state: player {p} holds {size} (with 3 x melds), wants {want}")

    seen = [0] * NUM_FACES
    seen[ind] += 1
    for p in range(n):
        for f in river_t[p]:
            seen[f] += 1
        for m in meld_t[p]:
            if m.kind != CKONG:
                for f in m.tiles:
                    seen[f] += 1
    chows = tuple(
        (chows_from_upper or {}).get(p, sum(1 for m in meld_t[p] if m.kind == CHOW)) for p in range(n))
    fur = tuple(frozenset(parse_tiles((furiten or {}).get(p, ""))) for p in range(n))
    if step is None:
        opening = turn == dealer and not any(river_t) and not any(meld_t)
        step = 0 if opening else 1
    return replace(base, wall=wall_t, step=step, indicator=ind, hands=tuple(hand_t), melds=meld_t, rivers=river_t,
                   turn=turn, phase=game.DISCARD, drawn=None if drawn is None else T(drawn),
                   seen=tuple(seen), chows_from_upper=chows, furiten=fur,
                   claim_options=tuple(() for _ in range(n)), claim_responses=tuple(None for _ in range(n)))


def play(state: HandState, *actions: Action):
    """Apply legal actions in order; fails the test on the first Illegal. Returns (state, events)."""
    events = []
    for a in actions:
        out = apply(state, a)
        assert not isinstance(out, Illegal), f"{a} was refused: {out.reason if out is not None else out}"
        state, ev = out
        events += ev
    return state, events


def snapshot(state: HandState) -> str:
    """A deep, comparable picture of a state (repr of every field)."""
    return repr(state)


def must_fail(state: HandState, action: Action) -> Illegal:
    """The action is refused and the state is left exactly as it was."""
    before = snapshot(state)
    out = apply(state, action)
    assert isinstance(out, Illegal), f"{action} should be illegal, got {out!r:.200}"
    assert not out  # Illegal is falsy
    assert snapshot(state) == before
    return out


def all_faces(state: HandState) -> list:
    """Counts per face over wall, indicator, hands, rivers, melds (and the winning tile)."""
    c = [0] * NUM_FACES
    c[state.indicator] += 1
    for f in state.wall:
        c[f] += 1
    for p in range(state.n):
        for f in state.hands[p] + state.rivers[p]:
            c[f] += 1
        for m in state.melds[p]:
            for f in m.tiles:
                c[f] += 1
    if state.result is not None and state.result.winner is not None:
        c[state.result.win_tile] += 1
    return c


CAP = 100  # 臘子


def expected_transfers(result, dealer, liable):
    """The transfers taizhou.md §9 asks for, as a sorted list of (from, to, amount), computed from the
    result's totals independently of the engine's settle()."""
    n = len(result.scores)
    w = result.winner
    totals = [s.total for s in result.scores]
    capped = result.scores[w].capped or totals[w] >= CAP
    others = [q for q in range(n) if q != w]
    owed = {}
    for q in others:
        if capped:
            owed[q] = CAP
        elif dealer in (q, w):
            owed[q] = totals[w]
        else:
            owed[q] = totals[w] / 2
    out = []
    if liable is not None:
        out.append((liable, w, sum(owed.values())))
    else:
        out += [(q, w, owed[q]) for q in others]
    for i, a in enumerate(others):
        for b in others[i + 1:]:
            diff = min(totals[b], CAP) - min(totals[a], CAP)
            if dealer not in (a, b):
                diff /= 2
            if diff > 0:
                out.append((a, b, diff))
            elif diff < 0:
                out.append((b, a, -diff))
    return sorted((f, t, x) for f, t, x in out if x)
