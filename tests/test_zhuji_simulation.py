"""Seeded random play of whole Zhuji hands (诸暨麻将, shared/rules/zhuji.md) through the state
machine, checking invariants after every event, as tests/test_simulation.py does for Taizhou.

HANDS hands in all, spread evenly over the six settings (wild faces 0, 1, 2 × mode 翻, 包),
each with 2, 3 and 4 players and every dealer. The default 3,000 (about 48 s on one core) is
the issue's 1,000 hands per wild setting (0, 1, 2 faces) and 1,500 per mode; ZHUJI_SIM_HANDS=6000
plays 1,000 for every combination of the two. Hands are played in games of four, each hand
starting from the previous one's `next_hand` (dealer and carry: 老庄 hands come up). Even games
take a win whenever one is offered; odd ones pick uniformly among the legal actions (包 contracts
too); the seat answering a claim window first is random. After every applied action:
- all 136 tiles are accounted for, face by face (no indicator in Zhuji);
- `seen` is every discard ever made + every tile of exposed melds;
- each player's concealed tiles + 3 × melds = 13, or 14 for the player in turn to discard;
- legal_actions is non-empty exactly for waiting_player (the 包 question included);
- a wild is never claimed; only the lower player chows; the last discard is only won on;
- one random illegal action is refused with Illegal and leaves the state unchanged.
At the end: a win with the 台 the winner needs, or a drawn hand exactly at the end of the wall
(翻: nothing paid) or at 26 tiles (包: the dealer pays the contract to each); the transfers equal
an independent reading of §5 and net to zero; the dealer rotation and 老庄 carry of §1/§5; and
replay(options, seed, dealer, actions, carry) reproduces the final state and every event.
Split into chunks so pytest-xdist can spread them.
"""

from __future__ import annotations

import dataclasses
import os
import random

import pytest

from games.engine.game import (
    A_AKONG,
    A_CHOW,
    A_CKONG,
    A_DECIDE,
    A_DISCARD,
    A_KONG,
    A_PASS,
    A_PUNG,
    A_WIN,
    CLAIM,
    DECIDE,
    DISCARD,
    ENDED,
    Action,
    HandState,
    Illegal,
    Options,
    apply,
    legal_actions,
    new_hand,
    replay,
    tiles_accounted,
    waiting_player,
)
from games.engine.melds import CKONG
from games.engine.tiles import NUM_FACES

SETTINGS = [(faces, mode) for mode in ("fan", "bao") for faces in (0, 1, 2)]
HANDS = int(os.environ.get("ZHUJI_SIM_HANDS", "3000"))
GAME = 4  # hands in a row at one table (the carry passes between them)
CHUNKS = 24
GAMES = -(-HANDS // GAME)
CLAIM_KINDS = (A_WIN, A_PUNG, A_KONG, A_CHOW)
FIELDS = tuple(f.name for f in dataclasses.fields(HandState))


def table_for(g):
    """Game g: (players, faces, mode, first seed, first dealer, takes_wins)."""
    faces, mode = SETTINGS[g % 6]
    players = (4, 3, 2)[(g // 6) % 3]
    return players, faces, mode, 50_000 + g * GAME, (g // 18) % players, (g // 2) % 2 == 0


def all_faces(st):
    c = [0] * NUM_FACES
    for f in st.wall:
        c[f] += 1
    for p in range(st.n):
        for f in st.hands[p] + st.rivers[p]:
            c[f] += 1
        for m in st.melds[p]:
            for f in m.tiles:
                c[f] += 1
    if st.result is not None and st.result.winner is not None:
        c[st.result.win_tile] += 1
    return c


def check_invariants(st, discards, last_flags):
    n = st.n
    assert st.indicator is None and tiles_accounted(st) == 136
    assert all_faces(st) == [4] * NUM_FACES
    seen = [0] * NUM_FACES
    for f in discards:
        seen[f] += 1
    for p in range(n):
        for m in st.melds[p]:
            if m.kind != CKONG:
                for f in m.tiles:
                    seen[f] += 1
            if m.claimed is not None:
                seen[m.claimed] -= 1  # the claimed tile was counted as a discard
            assert not any(st.rules.is_wild(st, f) for f in m.tiles)  # never in a shown set
    assert list(st.seen) == seen
    for p in range(n):
        size = len(st.hands[p]) + 3 * len(st.melds[p])
        assert size == (14 if st.phase in (DISCARD, DECIDE) and p == st.turn else 13), (p, st.phase, st.turn)
        assert list(st.hands[p]) == sorted(st.hands[p])
    waiting = waiting_player(st)
    legal = [legal_actions(st, p) for p in range(n)]
    for p in range(n):
        assert bool(legal[p]) == (p in waiting), (p, waiting, st.phase)
    if st.phase == DECIDE:
        assert waiting == [st.dealer] and st.decision.name == "contract" and st.wilds == ()
    elif st.phase == DISCARD:
        assert waiting == [st.turn]
    elif st.phase == CLAIM:
        assert waiting and st.turn not in waiting and st.last_discard is not None
        assert not st.rules.is_wild(st, st.last_discard)  # a wild is never claimed
        if last_flags[0] or st.robbing:  # the last discard, or a tile added to a pung: wins only
            assert all(set(k) <= {A_WIN} for k in st.claim_options)
        for q in range(n):
            if A_CHOW in st.claim_options[q]:
                assert q == (st.turn + 1) % n
    else:
        assert waiting == [] and st.result is not None
    return legal


def illegal_candidates(st, p_pending, rng):
    n = st.n
    out = []
    waiting = waiting_player(st)
    others = [q for q in range(n) if q not in waiting]
    if st.phase == ENDED:
        return [Action(A_DISCARD, rng.randrange(n), 0), Action(A_PASS, rng.randrange(n)), Action(A_WIN, rng.randrange(n))]
    if others:
        q = rng.choice(others)
        out.append(Action(A_DISCARD, q, rng.choice(st.hands[q])))
        out.append(Action(A_PASS, q))
        out.append(Action(A_DECIDE, q, value="2:1"))
    if st.phase == DECIDE:
        p = st.dealer
        out.append(Action(A_DISCARD, p, st.hands[p][0]))
        out.append(Action(A_DECIDE, p, value="1:1"))  # below 2 台: not a choice
        out.append(Action(A_DECIDE, p, value="2:3"))
    elif st.phase == DISCARD:
        p = st.turn
        missing = [f for f in range(NUM_FACES) if f not in st.hands[p]]
        out.append(Action(A_DISCARD, p, rng.choice(missing)))
        out.append(Action(rng.choice((A_PASS, A_PUNG, A_CHOW, A_KONG)), p, st.hands[p][0]))
        no_kong = [f for f in range(NUM_FACES) if st.hands[p].count(f) < 4]
        out.append(Action(A_CKONG, p, rng.choice(no_kong)))
    else:
        p = p_pending
        not_offered = [k for k in CLAIM_KINDS if k not in st.claim_options[p]]
        if not_offered:
            out.append(Action(rng.choice(not_offered), p, st.last_discard))
        out.append(Action(A_DISCARD, p, st.hands[p][0]))
        out.append(Action(A_PASS, st.turn))
    return out


def try_illegal(st, p_pending, rng, deep):
    a = rng.choice(illegal_candidates(st, p_pending, rng))
    before = tuple(getattr(st, f) for f in FIELDS)
    text = repr(st) if deep else None
    out = apply(st, a)
    assert isinstance(out, Illegal), f"accepted an illegal action {a} in phase {st.phase}"
    assert not out and out.reason
    assert all(getattr(st, f) is v for f, v in zip(FIELDS, before))
    if deep:
        assert repr(st) == text


def play_hand(options, seed, dealer, carry, takes_wins):
    rng = random.Random(seed * 7 + 1)
    st, events = new_hand(options, seed, dealer, carry)
    discards, actions = [], []
    last = [False]  # was the discard now in a claim window the last one
    legal_now = check_invariants(st, discards, last)
    while st.phase != ENDED:
        p = rng.choice(waiting_player(st))
        try_illegal(st, p, rng, deep=len(actions) % 16 == 0)
        legal = legal_now[p]
        wins = [a for a in legal if a.kind == A_WIN]
        a = wins[0] if (takes_wins and wins) else rng.choice(legal)
        if a.kind == A_DISCARD:
            last[0] = st.rules.exhausted(st)
        out = apply(st, a)
        assert not isinstance(out, Illegal), f"refused a legal action {a}: {out}"
        new, ev = out
        assert ev and new.step == st.step + 1
        if a.kind == A_DISCARD:
            discards.append(a.tile)
        if a.kind == A_DECIDE:
            assert new.phase == DISCARD and len(new.wilds) == int(a.value.split(":")[1])
        kinds = [e["type"] for e in ev]
        if kinds[-1] == "draw" and ev[-1]["replacement"]:
            assert new.wall == st.wall[:-1] and new.drawn == st.wall[-1] and new.after_kong
        elif kinds[-1] == "draw":
            assert new.wall == st.wall[1:] and new.drawn == st.wall[0]
        else:
            assert new.wall == st.wall
        if a.kind in (A_CKONG, A_AKONG, A_KONG, A_PUNG, A_CHOW):
            assert not st.rules.exhausted(st) or a.kind in (A_PUNG, A_CHOW) and not last[0]
        st = new
        events += ev
        actions.append(a)
        legal_now = check_invariants(st, discards, last)
        assert len(actions) < 1000
    try_illegal(st, 0, rng, deep=True)
    return st, events, actions


def expected_net(st):
    """§5 read afresh: 翻 and 包 payments, 老庄 doubling, by player index."""
    n, r, rules = st.n, st.result, st.rules
    mode, unit = st.options.setting("mode"), st.options.setting("unit")
    mult = 2 if st.get_extra("laozhuang", False) else 1
    target = rules.target(st) or 2
    c = unit * 5 * 2 ** (target - 2)
    net = [0] * n
    if r.winner is None:
        if mode == "bao":
            for q in range(n):
                if q != st.dealer:
                    net[q] += c * mult
                    net[st.dealer] -= c * mult
        return tuple(net)
    s = r.scores[r.winner]
    w = unit * 2 ** (s.tai - 1)
    if r.winner == st.dealer:
        c = c * (2 if s.no_wild else 1) * (2 if s.single_wait else 1)
    for q in range(n):
        if q == r.winner:
            continue
        pay = 2 * w if r.discarder in (None, q) else w
        if mode == "bao":
            if r.discarder is not None:
                pay += (n - 1) * c if q == r.discarder else 0
            elif r.winner == st.dealer:
                pay += c
            elif q == st.dealer:
                pay += (n - 1) * c
        net[q] -= pay * mult
        net[r.winner] += pay * mult
    return tuple(net)


def check_end(options, seed, dealer, carry, st, events, actions):
    r = st.result
    n = st.n
    mode = options.setting("mode")
    assert st.phase == ENDED and r is not None
    assert sum(r.net) == 0 and tuple(r.net) == expected_net(st)
    for q in range(n):
        assert r.net[q] == sum(t["amount"] for t in r.transfers if t["to"] == q) - sum(
            t["amount"] for t in r.transfers if t["from"] == q)
    assert all(t["amount"] > 0 and t["why"] in ("win", "contract") for t in r.transfers)
    if r.winner is None:
        assert len(st.wall) == (26 if mode == "bao" else 0)
        assert events[-1] == {"type": "drawn_hand"}
        assert (r.transfers == ()) == (mode == "fan")
    else:
        w = r.winner
        s = r.scores[w]
        assert events[-1]["type"] == "win" and events[-1]["seat"] == w
        assert (r.discarder is None) == r.self_drawn and r.discarder != w
        assert s.winner and s.tai >= st.rules.need(st, w) and s.tai == sum(t for _, t in s.items)
        assert r.win_tile not in st.wilds or r.self_drawn  # a discarded wild is never won on
        assert r.net[w] > 0
    dealer_next, carry_next = st.rules.next_hand(st)
    kept = r.winner is None or r.winner == st.dealer
    assert dealer_next == (st.dealer if kept else (st.dealer + 1) % n)
    assert carry_next["laozhuang"] == kept
    again = replay(options, seed, dealer, actions, carry)
    assert not isinstance(again, Illegal)
    assert again == (st, events)
    return dealer_next, carry_next


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_hands(chunk):
    outcomes = {}
    for g in range(chunk, GAMES, CHUNKS):
        players, faces, mode, seed, dealer, takes_wins = table_for(g)
        options = Options(variant="zhuji", players=players, settings={"mode": mode, "wild_faces": faces})
        carry = None
        for k in range(min(GAME, HANDS - g * GAME)):
            st, events, actions = play_hand(options, seed + k, dealer, carry, takes_wins)
            dealer_next, carry_next = check_end(options, seed + k, dealer, carry, st, events, actions)
            key = (faces, mode, "win" if st.result.winner is not None else "drawn")
            outcomes[key] = outcomes.get(key, 0) + 1
            dealer, carry = dealer_next, carry_next
    assert sum(outcomes.values()) == len(range(chunk, GAMES, CHUNKS)) * GAME or HANDS % GAME


def test_the_table_mixes_settings_players_and_policies():
    combos = {}
    for g in range(GAMES):
        players, faces, mode, _seed, dealer, takes = table_for(g)
        combos.setdefault((faces, mode), set()).add((players, takes))
    assert set(combos) == set(SETTINGS)
    assert all(v == {(p, t) for p in (2, 3, 4) for t in (True, False)} for v in combos.values())
    per_setting = [sum(1 for g in range(GAMES) if SETTINGS[g % 6] == s) * GAME for s in SETTINGS]
    assert sum(per_setting) >= HANDS and min(per_setting) >= HANDS // 6 - GAME
