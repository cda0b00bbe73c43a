"""Seeded random play of whole traditional Taizhou hands (传统台州麻将) through the state machine,
checking invariants after every event, as tests/test_zhuji_simulation.py does for Zhuji.

HANDS hands (default 1,000) in games of GAME hands at one table (2, 3 and 4 players, every
dealer, 扔弹 on in most games and answered at random, 弹 varied), each hand starting from the
previous one's `next_hand` (dealer and carry: streak and throws). Even games take a win whenever
one is offered and mostly discard their loneliest tile (more wins, 点炮 and 生牌 hands); odd ones
pick uniformly among the legal actions. After every applied action:
- all 136 tiles are accounted for, face by face, the flowers shown included; no flower in a
  hand, a shown set or a river; the indicator out of play;
- each player's concealed tiles + 3 × melds = 13, or 14 for the player in turn (none before
  the deal);
- legal_actions is non-empty exactly for waiting_player (the 扔弹 questions included);
- a wild is never claimed; only the lower player chows; the last discard is only won on;
- one random illegal action is refused with Illegal and leaves the state unchanged.
At the end: a win (scored as the reference scores it, paid as §6 reads afresh, 点炮 when the
rules say) or 黄牌 at 16 tiles (17 when odd) paying nothing; the dealer rotation and carry; and
replay(options, seed, dealer, actions, carry) reproduces the final state and every event.
Split into chunks for pytest-xdist.
"""

from __future__ import annotations

import dataclasses
import os
import random

import pytest

from games.engine.game import (
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
from games.engine.tiles import NUM_FACES
from games.engine.variants.taizhou_trad import shengpai_faces
from tests.taizhou_trad_reference import reference_net, reference_nonwinner, reference_winner

HANDS = int(os.environ.get("TAIZHOU_TRAD_SIM_HANDS", "1000"))
GAME = 5
CHUNKS = 20
GAMES = -(-HANDS // GAME)
CLAIM_KINDS = (A_WIN, A_PUNG, A_KONG, A_CHOW)
FIELDS = tuple(f.name for f in dataclasses.fields(HandState))
DANS = (0, 2, 5, 10, 20, 50, 100)


def table_for(g):
    """Game g: (players, dan, throws on, first seed, first dealer, takes wins)."""
    players = (4, 3, 2)[g % 3]
    return players, DANS[g % 7], g % 4 != 3, 90_000 + g * GAME, (g // 3) % players, (g // 2) % 2 == 0


def all_faces(st):
    c = [0] * NUM_FACES
    for f in st.wall:
        c[f] += 1
    if st.indicator is not None:
        c[st.indicator] += 1
    for p in range(st.n):
        for f in st.hands[p] + st.rivers[p]:
            c[f] += 1
        for m in st.melds[p]:
            for f in m.tiles:
                c[f] += 1
    if st.result is not None and st.result.winner is not None:
        c[st.result.win_tile] += 1
    if st.indicator is not None:
        c[st.rules.flower(st)] += sum(st.rules.flowers(st))
    return c


def check_invariants(st, last):
    n = st.n
    assert tiles_accounted(st) == 136 and all_faces(st) == [4] * NUM_FACES
    dealt = any(st.hands)
    if dealt:
        flower = st.rules.flower(st)
        for p in range(n):
            assert flower not in st.hands[p] and flower not in st.rivers[p]
            assert all(flower not in m.tiles and st.indicator not in m.tiles for m in st.melds[p])
            size = len(st.hands[p]) + 3 * len(st.melds[p])
            assert size == (14 if st.phase in (DISCARD, DECIDE) and p == st.turn else 13), (p, st.phase)
    else:
        assert st.phase == DECIDE and st.indicator is None and len(st.wall) == 136
    waiting = waiting_player(st)
    legal = [legal_actions(st, p) for p in range(n)]
    for p in range(n):
        assert bool(legal[p]) == (p in waiting), (p, waiting, st.phase)
    if st.phase == DECIDE:
        assert st.decision.name.startswith("throw_") and not dealt and waiting
    elif st.phase == DISCARD:
        assert waiting == [st.turn]
    elif st.phase == CLAIM:
        assert waiting and st.turn not in waiting and st.last_discard != st.indicator
        if last[0] or st.robbing:
            assert all(set(k) <= {A_WIN} for k in st.claim_options)
        for q in range(n):
            if A_CHOW in st.claim_options[q]:
                assert q == (st.turn + 1) % n
    else:
        assert waiting == [] and st.result is not None
    return legal


def illegal_candidates(st, p_pending, rng):
    n = st.n
    waiting = waiting_player(st)
    others = [q for q in range(n) if q not in waiting]
    if st.phase == ENDED:
        return [Action(A_DISCARD, rng.randrange(n), 0), Action(A_PASS, rng.randrange(n)), Action(A_WIN, rng.randrange(n))]
    out = []
    if others:
        q = rng.choice(others)
        out.append(Action(A_PASS, q))
        out.append(Action(A_DECIDE, q, value="0"))
        if st.hands[q]:
            out.append(Action(A_DISCARD, q, rng.choice(st.hands[q])))
    if st.phase == DECIDE:
        p = rng.choice(waiting)
        out += [Action(A_DISCARD, p, 0), Action(A_DECIDE, p, value="3"), Action(A_DECIDE, p, value=5)]
    elif st.phase == DISCARD:
        p = st.turn
        missing = [f for f in range(NUM_FACES) if f not in st.hands[p]]
        out.append(Action(A_DISCARD, p, rng.choice(missing)))
        out.append(Action(rng.choice((A_PASS, A_PUNG, A_CHOW, A_KONG)), p, st.hands[p][0]))
        out.append(Action(A_CKONG, p, rng.choice([f for f in range(NUM_FACES) if st.hands[p].count(f) < 4])))
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
    assert isinstance(out, Illegal) and not out and out.reason, f"accepted an illegal action {a} in {st.phase}"
    assert all(getattr(st, f) is v for f, v in zip(FIELDS, before))
    if deep:
        assert repr(st) == text


def _loneliest(st, p, legal):
    """The discard with the fewest tiles of its own hand near it (a wild is kept)."""
    hand = st.hands[p]
    discards = [a for a in legal if a.kind == A_DISCARD]

    def near(t):
        if t == st.indicator:
            return 99
        if t >= 27:
            return 3 * (hand.count(t) - 1)
        return sum((3 if u == t else 1) for u in hand if u < 27 and u // 9 == t // 9 and abs(u - t) <= 2) - 3

    return min(discards, key=lambda a: (near(a.tile), a.tile))


def play_hand(options, seed, dealer, carry, takes_wins):
    rng = random.Random(seed * 7 + 1)
    st, events = new_hand(options, seed, dealer, carry)
    actions = []
    last = [False]
    legal_now = check_invariants(st, last)
    while st.phase != ENDED:
        p = rng.choice(waiting_player(st))
        try_illegal(st, p, rng, deep=len(actions) % 16 == 0)
        legal = legal_now[p]
        wins = [a for a in legal if a.kind == A_WIN]
        if takes_wins and wins:
            a = wins[0]
        elif st.phase == DECIDE:
            a = legal[0] if rng.random() < 0.7 else rng.choice(legal)
        elif takes_wins and st.phase == DISCARD and rng.random() < 0.9:
            a = _loneliest(st, p, legal)  # play towards a win: more wins, 点炮 and 生牌 hands
        else:
            a = rng.choice(legal)
        if a.kind == A_DISCARD:
            last[0] = st.rules.exhausted(st)
        out = apply(st, a)
        assert not isinstance(out, Illegal), f"refused a legal action {a}: {out}"
        new, ev = out
        assert ev and new.step == st.step + 1
        for e in ev:
            if e["type"] == "flower":
                assert e["tile"] == ("7z" if new.indicator == 31 else "5z")
        st = new
        events += ev
        actions.append(a)
        legal_now = check_invariants(st, last)
        assert len(actions) < 1000
    try_illegal(st, 0, rng, deep=True)
    return st, events, actions


def check_end(options, seed, dealer, carry, st, events, actions):
    r = st.result
    n = st.n
    rules = st.rules
    assert st.phase == ENDED and sum(r.net) == 0
    for q in range(n):
        assert r.net[q] == sum(t["amount"] for t in r.transfers if t["to"] == q) - sum(
            t["amount"] for t in r.transfers if t["from"] == q)
    flowers = rules.flowers(st)
    if r.winner is None:
        assert rules.exhausted(st) and len(st.wall) in (15, 16, 17) and r.transfers == () and set(r.net) == {0}
        assert events[-1] == {"type": "drawn_hand"}
    else:
        w = r.winner
        s = r.scores[w]
        assert events[-1]["type"] == "win" and events[-1]["seat"] == w and events[-1]["liable"] == r.liable
        assert (r.discarder is None) == r.self_drawn and r.win_tile != st.indicator or r.self_drawn
        hand = list(st.hands[w])
        melds = [(m.kind, min(m.tiles)) for m in st.melds[w]]
        if hand.count(st.indicator) + (r.win_tile == st.indicator) <= 2:
            from_draw = r.self_drawn and st.step - 1 != st.play_from  # not the dealt fourteen
            ref = reference_winner(hand, melds, r.win_tile, r.self_drawn, st.seat_wind(w), st.indicator, flowers[w],
                                   bool(st.robbing), from_draw and st.after_kong, from_draw and rules.exhausted(st))
            assert ref == (s.total, s.points, s.tai, s.capped), (ref, s)
        for q in range(n):
            if q != w:
                sq = r.scores[q]
                assert (sq.total, sq.points, sq.tai, sq.capped) == reference_nonwinner(
                    list(st.hands[q]), [(m.kind, min(m.tiles)) for m in st.melds[q]], st.seat_wind(q), st.indicator,
                    flowers[q])
        if r.liable is not None:
            assert r.liable == r.discarder and not st.robbing and len(st.wall) <= 31
            assert r.win_tile in shengpai_faces(st, r.liable)
        throws = rules.throws(st)
        net = reference_net(list(range(n)), st.dealer, w, {q: r.scores[q].total for q in range(n)}, r.self_drawn,
                            options.setting("dan"), rules.streak(st), throws, r.liable)
        assert tuple(net[q] for q in range(n)) == r.net
    dealer_next, carry_next = rules.next_hand(st)
    kept = r.winner == st.dealer
    assert dealer_next == (st.dealer if kept else (st.dealer + 1) % n)
    assert carry_next["streak"] == (rules.streak(st) + 1 if kept else 1)
    assert (carry_next["throws"] == []) or kept
    again = replay(options, seed, dealer, actions, carry)
    assert not isinstance(again, Illegal) and again == (st, events)
    return dealer_next, carry_next


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_hands(chunk):
    played = 0
    for g in range(chunk, GAMES, CHUNKS):
        players, dan, throws, seed, dealer, takes_wins = table_for(g)
        options = Options(variant="taizhou_trad", players=players, settings={"dan": dan, "throws": throws})
        carry = None
        for k in range(min(GAME, HANDS - g * GAME)):
            st, events, actions = play_hand(options, seed + k, dealer, carry, takes_wins)
            dealer, carry = check_end(options, seed + k, dealer, carry, st, events, actions)
            played += 1
    assert played


def test_the_table_mixes_players_dealers_and_policies():
    seen = set()
    for g in range(GAMES):
        players, dan, throws, _seed, dealer, takes = table_for(g)
        seen.add((players, dealer, takes))
    assert {(p, d) for p, d, _ in seen} == {(p, d) for p in (2, 3, 4) for d in range(p)}
    assert {t for _, _, t in seen} == {True, False}
