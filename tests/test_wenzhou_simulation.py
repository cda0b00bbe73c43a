"""Seeded random play of whole Wenzhou games through the state machine, checking invariants after
every event (games/engine/game.py; shared/rules/wenzhou.md §1-§6, W-D4, W-D6, W-D11, W-D12).

1,000 hands in 200 games of 5 consecutive hands each: 2, 3 and 4 players, every starting dealer,
even and odd bases; every hand after the first starts from `next_hand` of the one before
(dealer and carry). Half the games take a win whenever one is offered, the others pick uniformly
among the legal actions; the 买底/顶底 questions (phase DECIDE) are answered at random. After
every applied action:
- all 136 tiles are accounted for, face by face;
- each player's concealed tiles + 3 x melds = 16, or 17 for the player in turn (the dealer
  while the questions are asked);
- the live wall never goes below 8 tiles;
- legal_actions is non-empty exactly for waiting_player, and its discards are exactly those
  the rules allow (an independent reading of §2 / W-D12 wilds and §3 / W-D6 forced honors);
- one random illegal action is refused with Illegal and leaves the state unchanged;
- an applied discard of a wild leaves a hand of exactly two wilds (W-D12), and never breaks the
  forced-honor rule.
At the end of a hand: a win whose kind the brute-force reference agrees with (tests/
wenzhou_reference.py) and whose transfers net to zero and equal wenzhou.settle with the hand's
base and the 买底/顶底 given or carried; or a drawn hand at exactly 8 tiles left, paying nothing;
replay(options, seed, dealer, actions, carry) reproduces the final state and every event. Between
hands: the dealer keeps the deal after a win of theirs (base + 2) or a drawn hand without a kong
(same base), at most four hands in a row (W-D4), otherwise passes to the lower player at the
starting base; a dealer who bought and a non-dealer who topped are not asked again and still pay
and are paid so. Split into chunks so pytest-xdist can spread them.
"""

from __future__ import annotations

import dataclasses
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
    next_hand,
    replay,
    tiles_accounted,
    waiting_player,
)
from games.engine.tiles import NUM_FACES, SEAT_NAMES
from games.engine.variants import wenzhou
from tests.engine_helpers import all_faces
from tests.wenzhou_reference import reference

GAMES = 200
HANDS_PER_GAME = 5
HANDS = GAMES * HANDS_PER_GAME
CHUNKS = 20
GAMES_PER_CHUNK = GAMES // CHUNKS
CLAIM_KINDS = (A_WIN, A_PUNG, A_KONG, A_CHOW)
FIELDS = tuple(f.name for f in dataclasses.fields(HandState))


def game_for(g):
    """Game g: (options, first seed, first dealer, takes_wins). Players cycle 4, 3, 2, 4; the
    policy alternates within each player count; one game in three uses odd bases."""
    players = (4, 3, 2, 4)[g % 4]
    takes_wins = (g // 4) % 2 == 0
    odd = g % 3 == 2
    options = Options(variant="wenzhou", players=players, settings={"odd_base": True} if odd else {})
    return options, 70_000 + g * HANDS_PER_GAME, (g // 8) % players, takes_wins


# --- the rules, read again independently ------------------------------------------------------

def allowed_discards(hand, wild, discarded):
    """Faces the player may discard (§2 / W-D12, §3 / W-D6), from the spec's words: a wild
    only from a hand of exactly two wilds; holding lone honors (one tile of a wind or dragon
    face that is not the wild's), an honor before any suit tile, and one of the lone honors whose
    face was discarded earlier in the hand (by anyone, claimed or not) when there is one."""
    faces = set(hand)
    out = set()
    lone = {f for f in faces if f >= 27 and f != wild and hand.count(f) == 1}
    follow = lone & discarded
    for f in faces:
        if f == wild:
            if sorted(hand) == [wild, wild]:
                out.add(f)
            continue
        if follow:
            if f in follow:
                out.add(f)
        elif lone:
            if f >= 27:
                out.add(f)
        else:
            out.add(f)
    return out


def check_invariants(st, log):
    n = st.n
    # every physical tile is in one place: the wall, the indicator, a hand, a river, a shown set,
    # or (a won hand) the winning tile. 全球神 (§4) has no winning tile: the winner's one wild
    # stays in hand and the result names it as the tile shown (result.win_tile = the wild's face),
    # which game.tiles_accounted and engine_helpers.all_faces count a second time.
    won = st.result is not None and st.result.winner is not None
    quanqiu = won and st.get_extra("quanqiu") == st.result.winner
    faces = [0] * NUM_FACES
    faces[st.indicator] += 1
    for f in st.wall:
        faces[f] += 1
    for p in range(n):
        for f in st.hands[p] + st.rivers[p]:
            faces[f] += 1
        for m in st.melds[p]:
            for f in m.tiles:
                faces[f] += 1
    if won and not quanqiu:
        faces[st.result.win_tile] += 1
    assert faces == [4] * NUM_FACES
    if not quanqiu:
        assert tiles_accounted(st) == 136
        assert all_faces(st) == faces
    assert len(st.wall) >= 8
    for p in range(n):
        size = len(st.hands[p]) + 3 * len(st.melds[p])
        in_turn = st.phase in (DISCARD, DECIDE) and p == st.turn
        assert size == (17 if in_turn else 16), (p, size, st.phase, st.turn)
        assert list(st.hands[p]) == sorted(st.hands[p])
        for m in st.melds[p]:
            assert st.indicator not in m.tiles  # wilds are never in a shown set
    waiting = waiting_player(st)
    legal = [legal_actions(st, p) for p in range(n)]
    for p in range(n):
        assert bool(legal[p]) == (p in waiting), (p, waiting, st.phase)
    if st.phase == DISCARD:
        p = st.turn
        assert waiting == [p]
        got = {a.tile for a in legal[p] if a.kind == A_DISCARD}
        assert got == allowed_discards(list(st.hands[p]), st.indicator, set(log["discards"])), (
            st.hands[p], st.indicator, log["discards"])
    elif st.phase == CLAIM:
        assert waiting and st.turn not in waiting and st.last_discard is not None
        assert st.last_discard != st.indicator  # a wild is never claimed
        for q in range(n):
            if A_CHOW in st.claim_options[q]:
                assert q == (st.turn + 1) % n  # only the lower player chows
            if st.robbing:
                assert set(st.claim_options[q]) <= {A_WIN}  # a tile added to a pung: wins only
    elif st.phase == DECIDE:
        d = st.decision
        assert d.name in ("buy", "top") and set(waiting) <= set(d.seats)
        if d.name == "buy":
            assert d.seats == (st.dealer,)
        else:
            assert st.dealer not in d.seats
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
        return [Action(A_DISCARD, rng.randrange(n), st.wall[0]), Action(A_PASS, rng.randrange(n)),
                Action(A_WIN, rng.randrange(n)), Action(A_DECIDE, rng.randrange(n), value="yes")]
    if st.phase == DECIDE:
        p = p_pending
        out.append(Action(A_DECIDE, p, value=rng.choice(("maybe", "", 1, "YES"))))  # not a choice
        out.append(Action(A_DISCARD, p, st.hands[p][0]))  # play has not begun
        out.append(Action(A_WIN, p))
        if others:
            out.append(Action(A_DECIDE, rng.choice(others), value="yes"))  # not asked (or answered)
        return out
    if others:  # wrong seat
        q = rng.choice(others)
        out.append(Action(A_DISCARD, q, rng.choice(st.hands[q])))
        out.append(Action(A_PASS, q))
        out.append(Action(A_WIN, q, st.last_discard))
    if st.phase == DISCARD:
        p = st.turn
        hand = st.hands[p]
        missing = [f for f in range(NUM_FACES) if f not in hand]
        out.append(Action(A_DISCARD, p, rng.choice(missing)))  # a tile not held
        out.append(Action(rng.choice((A_PASS, A_PUNG, A_CHOW, A_KONG)), p, hand[0]))
        out.append(Action(A_DECIDE, p, value="yes"))
        no_kong = [f for f in range(NUM_FACES) if hand.count(f) < 4]
        out.append(Action(A_CKONG, p, rng.choice(no_kong)))
        barred = sorted(set(hand) - {a.tile for a in legal_actions(st, p) if a.kind == A_DISCARD})
        if barred:  # a wild, or a suit tile while lone honors are held
            out.append(Action(A_DISCARD, p, rng.choice(barred)))
    else:
        p = p_pending
        opts = st.claim_options[p]
        not_offered = [k for k in CLAIM_KINDS if k not in opts]
        if not_offered:
            out.append(Action(rng.choice(not_offered), p, st.last_discard))
        out.append(Action(A_DISCARD, p, st.hands[p][0]))
        out.append(Action(A_PASS, st.turn))  # the discarder has no say
    return out


def try_illegal(st, p_pending, rng, deep):
    a = rng.choice(illegal_candidates(st, p_pending, rng))
    before = tuple(getattr(st, f) for f in FIELDS)
    text = repr(st) if deep else None
    out = apply(st, a)
    assert isinstance(out, Illegal), f"accepted an illegal action {a} in phase {st.phase}"
    assert not out and isinstance(out.reason, str) and out.reason
    assert all(getattr(st, f) is v for f, v in zip(FIELDS, before))
    if deep:
        assert repr(st) == text


# --- one hand --------------------------------------------------------------------------------

def play_hand(options, seed, dealer, carry, takes_wins):
    rng = random.Random(seed * 7 + 3)
    st, events = new_hand(options, seed, dealer, carry)
    log = {"discards": [], "discarders": set(), "answers": {}, "asked": [], "claimed": set(), "robbed": False}
    actions = []
    legal_now = check_invariants(st, log)
    while st.phase != ENDED:
        waiting = waiting_player(st)
        p = rng.choice(waiting)
        try_illegal(st, p, rng, deep=len(actions) % 16 == 0)
        legal = legal_now[p]
        wins = [a for a in legal if a.kind == A_WIN]
        a = wins[0] if (takes_wins and wins) else rng.choice(legal)
        if st.phase == DECIDE:
            log["asked"].append((st.decision.name, p))
            log["answers"][(st.decision.name, p)] = a.value
        if a.kind == A_DISCARD:
            hand = list(st.hands[p])
            if a.tile == st.indicator:
                assert hand == [a.tile, a.tile]  # W-D12
            assert a.tile in allowed_discards(hand, st.indicator, set(log["discards"]))
        was_robbing = st.phase == CLAIM and st.robbing
        out = apply(st, a)
        assert not isinstance(out, Illegal), f"refused a legal action {a}: {out}"
        new, ev = out
        assert ev and new.step == st.step + 1
        if a.kind == A_DISCARD:
            log["discards"].append(a.tile)
            log["discarders"].add(p)
            left = list(st.hands[p])
            left.remove(a.tile)
            assert new.rivers[p][-1] == a.tile and list(new.hands[p]) == left
        # a chow, pung or kong (claimed, or of one's own) is a claim or a meld: no 天胡/地胡 after it
        log["claimed"].update(e["seat"] for e in ev if e["type"] in ("chow", "pung", "kong"))
        if new.phase == ENDED and was_robbing:
            log["robbed"] = True
        st = new
        events += ev
        actions.append(a)
        legal_now = check_invariants(st, log)
        assert len(actions) < 1500
    try_illegal(st, 0, rng, deep=True)
    return st, events, actions, log


def check_end(options, seed, dealer, carry, st, events, actions, log):
    r = st.result
    n = st.n
    rules = st.rules
    b0 = 3 if options.setting("odd_base") else 2
    base = (carry or {}).get("base", b0)
    assert rules.base(st) == base
    # 买底/顶底: who was asked, and what this hand pays with
    carried_bought = bool((carry or {}).get("bought"))
    carried_topped = set((carry or {}).get("topped", ()))
    asked_buy = [q for name, q in log["asked"] if name == "buy"]
    asked_top = {q for name, q in log["asked"] if name == "top"}
    assert asked_buy == ([] if carried_bought else [st.dealer])
    assert asked_top == set(range(n)) - {st.dealer} - carried_topped
    bought = carried_bought or log["answers"].get(("buy", st.dealer)) == "yes"
    topped = carried_topped | {q for q in asked_top if log["answers"][("top", q)] == "yes"}
    assert rules.bought(st) == bought and set(rules.topped(st)) == topped
    if r.winner is None:
        assert len(st.wall) == 8  # §3: drawn at 8 tiles left
        assert r.transfers == () and tuple(r.net) == (0,) * n
        assert events[-1] == {"type": "drawn_hand"}
    else:
        w = r.winner
        assert events[-1]["type"] == "win" and events[-1]["seat"] == w
        assert (r.discarder is None) == r.self_drawn and r.discarder != w
        s = r.scores[w]
        assert s.winner and s.kind in ("soft", "hard", "double") and s.base == base
        wild = st.indicator
        concealed = list(st.hands[w])
        if st.get_extra("quanqiu") == w:
            assert concealed == [wild] and len(st.melds[w]) == 5 and s.kind == "double"
        else:
            assert s.wilds == (concealed + [r.win_tile]).count(wild)
            # 天胡 / 地胡 (§5, W-D10): no discard, no claim, no meld of the winner's yet; the
            # dealer's only self-drawn
            first = (not st.melds[w] and w not in log["discarders"] and w not in log["claimed"]
                     and (w != st.dealer or r.self_drawn))
            ref = reference(concealed, [m.kind for m in st.melds[w]], r.win_tile, wild, r.self_drawn,
                            first_turn=first, robbed_kong=log["robbed"])
            assert ref == ("win", s.kind), (concealed, [m.notation() for m in st.melds[w]], r.win_tile, wild,
                                             r.self_drawn, first, log["robbed"], s)
        names = [st.seat_name(q) for q in range(n)]
        order = sorted(range(n), key=lambda q: (q - st.dealer) % n)
        wilds = {names[q]: (list(st.hands[q]) + ([r.win_tile] if q == w else [])).count(wild) for q in range(n)}
        if st.get_extra("quanqiu") == w:
            wilds[names[w]] = 1
        transfers, net = wenzhou.settle([names[q] for q in order], names[st.dealer], names[w], base, s.kind, wilds,
                                        bought, [names[q] for q in topped])
        index = {names[q]: q for q in range(n)}
        want = sorted((index[t["from"]], index[t["to"]], t["amount"], t["why"]) for t in transfers)
        got = sorted((t["from"], t["to"], t["amount"], t["why"]) for t in r.transfers)
        assert got == want
        assert all(t["amount"] > 0 for t in r.transfers)
        assert sum(r.net) == 0 and r.net[w] > 0
        assert tuple(r.net) == tuple(net[names[q]] for q in range(n))
    again = replay(options, seed, dealer, actions, carry)
    assert not isinstance(again, Illegal)
    assert again == (st, events)


def check_next(st, carry, nxt_dealer, nxt_carry, log):
    """§1 / W-D4 / §6: the next dealer, base, streak and obligations."""
    n = st.n
    b0 = 3 if st.options.setting("odd_base") else 2
    carry = carry or {}
    streak = carry.get("streak", 1)
    base = carry.get("base", b0)
    assert 1 <= streak <= 4 and (base - b0) % 2 == 0 and b0 <= base <= b0 + 2 * (streak - 1)
    r = st.result
    kong_made = any(m.is_kong for ms in st.melds for m in ms)
    keeps = r.winner == st.dealer if r.winner is not None else not kong_made
    fresh = {"streak": 1, "base": b0}
    if not keeps:
        assert (nxt_dealer, nxt_carry) == ((st.dealer + 1) % n, fresh)
    elif streak == 4:
        assert nxt_carry == fresh and 0 <= nxt_dealer < n  # the dice choose among all seats
    else:
        assert nxt_dealer == st.dealer
        assert nxt_carry["streak"] == streak + 1
        assert nxt_carry["base"] == (base + 2 if r.winner is not None else base)
        assert nxt_carry["bought"] == st.rules.bought(st)
        assert set(nxt_carry["topped"]) == set(st.rules.topped(st))


def play_game(g, stats):
    options, seed, dealer, takes_wins = game_for(g)
    carry = None
    for h in range(HANDS_PER_GAME):
        st, events, actions, log = play_hand(options, seed + h, dealer, carry, takes_wins)
        check_end(options, seed + h, dealer, carry, st, events, actions, log)
        nxt_dealer, nxt_carry = next_hand(st)
        check_next(st, carry, nxt_dealer, nxt_carry, log)
        r = st.result
        stats["win" if r.winner is not None else "drawn"] += 1
        stats["kept"] += nxt_dealer == st.dealer and nxt_carry.get("streak", 1) > 1
        stats["bought"] += st.rules.bought(st)
        stats["carried_obligation"] += bool(carry and (carry.get("bought") or carry.get("topped")))
        if r.winner is not None:
            stats[r.scores[r.winner].kind] += 1
        stats["hands"] += 1
        dealer, carry = nxt_dealer, nxt_carry


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_games(chunk):
    stats = {k: 0 for k in ("hands", "win", "drawn", "kept", "bought", "carried_obligation",
                            "soft", "hard", "double")}
    for g in range(chunk * GAMES_PER_CHUNK, (chunk + 1) * GAMES_PER_CHUNK):
        play_game(g, stats)
    assert stats["hands"] == GAMES_PER_CHUNK * HANDS_PER_GAME
    assert stats["win"] and stats["drawn"], stats


def test_the_games_mix_players_dealers_policies_and_bases():
    combos = {}
    for g in range(GAMES):
        options, _seed, dealer, takes_wins = game_for(g)
        combos.setdefault((options.players, takes_wins), set()).add(dealer)
    assert set(combos) == {(p, t) for p in (2, 3, 4) for t in (True, False)}
    assert all(dealers == set(range(p)) for (p, _t), dealers in combos.items())
    assert sum(game_for(g)[3] for g in range(GAMES)) == GAMES // 2
    assert {game_for(g)[0].setting("odd_base") for g in range(GAMES)} == {False, True}
    assert HANDS == 1000
    assert SEAT_NAMES[:2] == ("E", "S")
