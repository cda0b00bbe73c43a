"""Hand-made positions for the bot and hint tests, in any registered variant (pure engine).

`position(variant, hands, ...)` starts from `new_hand` (every field sane), answers any question
before the hand with its default, then puts exactly these tiles on the table: hands, melds,
rivers, the indicator (Taizhou, Wenzhou) or the wild faces (Zhuji), the wall (every unused
tile, sorted, unless given), `seen` recomputed.

`shuffle_hidden(state, player, rnd)` deals the tiles `player` cannot see (the others' concealed
tiles and the wall) again at random, keeping every count: the leak test's method.
"""

from __future__ import annotations

import random
from dataclasses import replace

from games.engine import game
from games.engine.game import Options, apply, auto_action, new_hand, waiting_player
from games.engine.melds import CHOW, CKONG, make_meld, parse_meld
from games.engine.tiles import NUM_FACES, parse_tile, parse_tiles

HAND_SIZE = {"taizhou": 13, "wenzhou": 16, "zhuji": 13}


def T(text):
    return parse_tile(text)


def TS(text):
    return tuple(sorted(parse_tiles(text)))


def position(variant, hands, *, players=4, dealer=0, turn=0, indicator="9s", wilds=None, melds=None,
             rivers=None, drawn=None, wall=None, settings=None, step=9, seed=1):
    opts = Options(variant=variant, players=players, settings=settings or {})
    st, _ = new_hand(opts, seed, dealer)
    while st.phase == game.DECIDE:
        p = waiting_player(st)[0]
        st, _ = apply(st, auto_action(st, p))
    ind = None if wilds is not None or st.indicator is None else T(indicator)
    if wilds is not None:
        st = st.with_extra("wilds", tuple(T(w) for w in wilds))
    wild = ind
    melds = melds or {}
    rivers = rivers or {}
    hand_t = tuple(TS(hands[p]) for p in range(players))
    meld_t = []
    for p in range(players):
        ms = []
        for spec in melds.get(p, ()):
            m = parse_meld(spec, wild)
            if m.kind != CKONG:
                claimed = m.tiles[1] if m.kind == CHOW else m.tiles[0]
                m = make_meld(m.kind, m.tiles, wild, claimed=claimed, from_seat=(p - 1) % players)
            ms.append(m)
        meld_t.append(tuple(ms))
    river_t = tuple(tuple(parse_tiles(rivers.get(p, ""))) for p in range(players))
    used = [0] * NUM_FACES
    if ind is not None:
        used[ind] += 1
    for p in range(players):
        for f in hand_t[p] + river_t[p]:
            used[f] += 1
        for m in meld_t[p]:
            for f in m.tiles:
                used[f] += 1
    wall_t = tuple(parse_tiles(wall)) if wall is not None else \
        tuple(f for f in range(NUM_FACES) for _ in range(4 - used[f]))
    assert all(u <= 4 for u in used), "more than four of a face"
    seen = [0] * NUM_FACES
    if ind is not None:
        seen[ind] += 1
    for p in range(players):
        for f in river_t[p]:
            seen[f] += 1
        for m in meld_t[p]:
            if m.kind != CKONG:
                for f in m.tiles:
                    seen[f] += 1
    n = players
    return replace(st, indicator=ind, hands=hand_t, melds=tuple(meld_t), rivers=river_t, wall=wall_t,
                   seen=tuple(seen), turn=turn, phase=game.DISCARD,
                   drawn=None if drawn is None else T(drawn), step=step, play_from=0,
                   chows_from_upper=tuple(sum(1 for m in meld_t[p] if m.kind == CHOW) for p in range(n)),
                   furiten=tuple(frozenset() for _ in range(n)),
                   claim_options=tuple(() for _ in range(n)), claim_responses=tuple(None for _ in range(n)))


def discard_to(state, discarder, tile):
    """`discarder` (in turn) throws `tile`; returns the state (a claim window if anyone may claim)."""
    st = replace(state, turn=discarder)
    out = apply(st, game.Action(game.A_DISCARD, discarder, T(tile) if isinstance(tile, str) else tile))
    assert not isinstance(out, game.Illegal), out
    return out[0]


def shuffle_hidden(state, player, rnd: random.Random):
    """The same state from `player`'s seat, with everything hidden from it dealt again: the
    others' concealed tiles and the wall shuffled together and handed back in the same sizes
    (the others' concealed kongs stay: four alike, face down). The seed changes too."""
    n = state.n
    pool = list(state.wall) + [t for q in range(n) if q != player for t in state.hands[q]]
    rnd.shuffle(pool)
    hands = list(state.hands)
    pos = 0
    for q in range(n):
        if q != player:
            size = len(state.hands[q])
            hands[q] = tuple(sorted(pool[pos:pos + size]))
            pos += size
    drawn = state.drawn
    if drawn is not None and state.turn != player:
        drawn = hands[state.turn][0] if hands[state.turn] else None
    return replace(state, hands=tuple(hands), wall=tuple(pool[pos:]), drawn=drawn, seed=state.seed + 7919)
