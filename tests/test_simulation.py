"""Seeded random play of whole hands through the state machine, checking invariants after
every event (games/engine/game.py; shared/rules/README.md, taizhou.md §2, §3, §9).

1,000 hands: 2, 3 and 4 players, every dealer; even hands use a policy that always takes a
win when one is offered, odd hands pick uniformly among the legal actions (the seat that
answers a claim window first is random too). After every applied action:
- all 136 tiles are accounted for, face by face (tiles_accounted and a per-face count);
- `seen` is exactly the indicator + every discard ever made + every tile of exposed melds;
- each player's concealed tiles + 3 x melds = 13, or 14 for the player in turn to discard;
- legal_actions is non-empty exactly for waiting_player;
- one random illegal action (wrong seat, a tile not held, a claim not offered) is refused
  with Illegal and leaves the state unchanged.
At the end: a win or a drawn hand (only with an empty wall), transfers that follow §9 and net
to zero, next_dealer, and replay(options, seed, dealer, actions) reproduces the final state and
every event. Split into chunks so pytest-xdist can spread them.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from games.engine.game import (
    A_AKONG,
    A_CHOW,
    A_CKONG,
    A_DISCARD,
    A_KONG,
    A_PASS,
    A_PUNG,
    A_WIN,
    CLAIM,
    DISCARD,
    ENDED,
    Action,
    HandState,
    Illegal,
    Options,
    apply,
    chow_options,
    legal_actions,
    new_hand,
    next_dealer,
    replay,
    tiles_accounted,
    waiting_player,
)
from games.engine.melds import CKONG
from games.engine.tiles import NUM_FACES

from tests.engine_helpers import all_faces, expected_transfers

HANDS = 1000
CHUNKS = 20
PER_CHUNK = HANDS // CHUNKS
CLAIM_KINDS = (A_WIN, A_PUNG, A_KONG, A_CHOW)


def table_for(i):
    """Hand i: (players, seed, dealer, takes_wins). Players cycle 4, 3, 2, 4 and the policy
    alternates within each player count, so every combination gets a fair share."""
    players = (4, 3, 2, 4)[i % 4]
    takes_wins = (i // 4) % 2 == 0
    return players, 10_000 + i, (i // 8) % players, takes_wins


def check_invariants(st, discards):
    n = st.n
    assert tiles_accounted(st) == 136
    assert all_faces(st) == [4] * NUM_FACES
    # seen: the indicator, every discard made so far (claimed or won ones included), every
    # tile of an exposed meld (a concealed kong lies face down)
    seen = [0] * NUM_FACES
    seen[st.indicator] += 1
    for f in discards:
        seen[f] += 1
    for p in range(n):
        for m in st.melds[p]:
            if m.kind != CKONG:
                for f in m.tiles:
                    seen[f] += 1
            if m.claimed is not None:
                seen[m.claimed] -= 1  # the claimed tile was already counted as a discard
    assert list(st.seen) == seen
    for p in range(n):
        size = len(st.hands[p]) + 3 * len(st.melds[p])
        assert size == (14 if st.phase == DISCARD and p == st.turn else 13), (p, st.phase, st.turn)
        assert list(st.hands[p]) == sorted(st.hands[p])
    waiting = waiting_player(st)
    legal = [legal_actions(st, p) for p in range(n)]
    for p in range(n):
        assert bool(legal[p]) == (p in waiting), (p, waiting, st.phase)
    if st.phase == DISCARD:
        assert waiting == [st.turn]
    elif st.phase == CLAIM:
        assert waiting and st.turn not in waiting and st.last_discard is not None
        assert st.last_discard != st.wild  # a wild is never claimed
        if not st.wall:
            assert all(set(k) <= {A_WIN} for k in st.claim_options)  # the final discard
        for q in range(n):
            if A_CHOW in st.claim_options[q]:
                assert q == (st.turn + 1) % n  # only the lower player chows
    else:
        assert waiting == [] and st.result is not None
    return legal


def illegal_candidates(st, p_pending, rng):
    """Actions the rules certainly refuse right now."""
    n = st.n
    out = []
    waiting = waiting_player(st)
    others = [q for q in range(n) if q not in waiting]
    if st.phase == ENDED:
        return [Action(A_DISCARD, rng.randrange(n), st.wall[0] if st.wall else 0),
                Action(A_PASS, rng.randrange(n)), Action(A_WIN, rng.randrange(n))]
    if others:  # wrong seat
        q = rng.choice(others)
        held = st.hands[q]
        out.append(Action(A_DISCARD, q, rng.choice(held)))
        out.append(Action(A_PASS, q))
        out.append(Action(A_WIN, q, st.last_discard))
    if st.phase == DISCARD:
        p = st.turn
        missing = [f for f in range(NUM_FACES) if f not in st.hands[p]]
        out.append(Action(A_DISCARD, p, rng.choice(missing)))  # a tile not held
        out.append(Action(rng.choice((A_PASS, A_PUNG, A_CHOW, A_KONG)), p, st.hands[p][0]))
        no_kong = [f for f in range(NUM_FACES) if st.hands[p].count(f) < 4]
        out.append(Action(A_CKONG, p, rng.choice(no_kong)))
    else:
        p = p_pending
        opts = st.claim_options[p]
        not_offered = [k for k in CLAIM_KINDS if k not in opts]
        if not_offered:  # a claim not offered
            out.append(Action(rng.choice(not_offered), p, st.last_discard))
        if A_CHOW in opts:
            good = set(chow_options(st, p, st.last_discard))
            pair = tuple(sorted((rng.randrange(NUM_FACES), rng.randrange(NUM_FACES))))
            if pair not in good:
                out.append(Action(A_CHOW, p, st.last_discard, pair))  # tiles that do not chow it
        out.append(Action(A_DISCARD, p, st.hands[p][0]))
        out.append(Action(A_PASS, st.turn))  # the discarder has no say
    return out


FIELDS = tuple(f.name for f in dataclasses.fields(HandState))


def try_illegal(st, p_pending, rng, deep):
    """One certainly-illegal action is refused and changes nothing. HandState is frozen and
    holds only immutable values, so every field still being the very same object means nothing
    changed; `deep` also compares the full repr (done on a sample of the steps, for speed)."""
    a = rng.choice(illegal_candidates(st, p_pending, rng))
    before = tuple(getattr(st, f) for f in FIELDS)
    text = repr(st) if deep else None
    out = apply(st, a)
    assert isinstance(out, Illegal), f"accepted an illegal action {a} in phase {st.phase}"
    assert not out and isinstance(out.reason, str) and out.reason
    assert all(getattr(st, f) is v for f, v in zip(FIELDS, before))
    if deep:
        assert repr(st) == text


def play_hand(players, seed, dealer, takes_wins):
    rng = random.Random(seed * 7 + 1)
    options = Options(players=players)
    st, events = new_hand(options, seed, dealer)
    discards = []
    actions = []
    legal_now = check_invariants(st, discards)
    while st.phase != ENDED:
        waiting = waiting_player(st)
        p = rng.choice(waiting)
        try_illegal(st, p, rng, deep=len(actions) % 16 == 0)
        legal = legal_now[p]
        wins = [a for a in legal if a.kind == A_WIN]
        a = wins[0] if (takes_wins and wins) else rng.choice(legal)
        out = apply(st, a)
        assert not isinstance(out, Illegal), f"refused a legal action {a}: {out}"
        new, ev = out
        assert ev, "every accepted action reports events"
        assert new.step == st.step + 1
        if a.kind == A_DISCARD:
            discards.append(a.tile)
            assert new.rivers[p][-1] == a.tile and new.last_discard == a.tile
        kinds = [e["type"] for e in ev]
        if a.kind in (A_CKONG, A_AKONG) or "kong" in kinds:
            # every kong (possibly resolved by another player's answer) draws its replacement
            # from the back of the wall
            assert kinds[-2:] == ["kong", "draw"] and ev[-1]["replacement"]
            assert new.wall == st.wall[:-1] and new.drawn == st.wall[-1]
        elif kinds[-1] == "draw":
            assert not ev[-1]["replacement"]
            assert new.wall == st.wall[1:] and new.drawn == st.wall[0]  # ordinary draws: the front
        else:
            assert new.wall == st.wall
        st = new
        events += ev
        actions.append(a)
        legal_now = check_invariants(st, discards)
        assert len(actions) < 1000
    try_illegal(st, 0, rng, deep=True)
    return options, st, events, actions


def check_end(options, seed, dealer, st, events, actions):
    r = st.result
    n = st.n
    assert st.phase == ENDED and r is not None
    if r.winner is None:
        # a drawn hand (流局) happens only when the wall has run out; nobody pays
        assert st.wall == ()
        assert r.transfers == () and tuple(r.net) == (0,) * n
        assert r.liable is None and events[-1] == {"type": "drawn_hand"}
        assert next_dealer(st) == (st.dealer + 1) % n
    else:
        w = r.winner
        assert events[-1]["type"] == "win" and events[-1]["seat"] == w
        assert (r.discarder is None) == r.self_drawn
        assert r.discarder != w
        assert r.scores[w].winner and r.scores[w].total >= 10  # at least the reward
        assert all(not r.scores[q].winner for q in range(n) if q != w)
        if r.liable is not None:
            assert r.liable != w
            assert r.liable_reason in ("full_flush_chows", "fresh_dragon", "third_dragon")
            if r.liable_reason != "full_flush_chows":
                assert r.liable == r.discarder
        got = sorted((t["from"], t["to"], t["amount"]) for t in r.transfers)
        assert got == expected_transfers(r, st.dealer, r.liable)
        assert all(t["amount"] > 0 for t in r.transfers)
        assert sum(r.net) == 0
        assert r.net[w] > 0
        for q in range(n):
            assert r.net[q] == sum(x for f, t, x in got if t == q) - sum(x for f, t, x in got if f == q)
        assert next_dealer(st) == (st.dealer if w == st.dealer else (st.dealer + 1) % n)
    again = replay(options, seed, dealer, actions)
    assert not isinstance(again, Illegal)
    assert again == (st, events)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_hands(chunk):
    outcomes = {"win": 0, "drawn": 0}
    for i in range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK):
        players, seed, dealer, takes_wins = table_for(i)
        options, st, events, actions = play_hand(players, seed, dealer, takes_wins)
        check_end(options, seed, dealer, st, events, actions)
        outcomes["win" if st.result.winner is not None else "drawn"] += 1
    assert sum(outcomes.values()) == PER_CHUNK


def test_the_table_mixes_players_dealers_and_policies():
    combos = {}
    for i in range(HANDS):
        players, seed, dealer, takes_wins = table_for(i)
        combos.setdefault((players, takes_wins), set()).add(dealer)
    assert set(combos) == {(p, t) for p in (2, 3, 4) for t in (True, False)}
    assert all(dealers == set(range(p)) for (p, _t), dealers in combos.items())
    assert sum(table_for(i)[3] for i in range(HANDS)) == HANDS // 2
