"""No seat ever sees another seat's concealed tiles or the wall.

Whole seeded hands with 2, 3 and 4 players are played over the sockets. After every action, for
every seat:
  - each message that seat received shows no tile it may not see: its face-up tiles (every
    `data-tile` code) are a sub-multiset of the tiles visible to the seat at the version the
    message was rendered at (recomputed from the engine state, independently of the templates);
  - the page assembled from the messages (as htmx swaps them) and the room page fetched over HTTP
    show EXACTLY the visible tiles: own hand + every meld (others' concealed kongs face down) +
    every river + the indicator, + the discard on offer in a claim window;
  - there are no more face-down tiles than the others' concealed kongs.
Once a hand ends every hand is shown on the result screen, so the checks stop there.

The same runs over whole Wenzhou (温州麻将) hands, which open with questions (买底, then 顶底):
while a question is open nobody's answer is shown to anyone else before every asked seat has
answered. Independently of the templates, each seat's engine view is the same whatever the others
answered so far; on every message and page the badges (庄家买底, "<name> 顶底") are exactly the
public ones (a carried obligation, or a question already settled), and a seat has answer buttons
only while it is itself asked.

And over whole traditional Taizhou (传统台州麻将) hands, which open with the 扔弹 questions before
the deal (every seat, one question per other seat) and show flowers face up: a pending throw is
never shown to anyone (the throws on every message and page are exactly those of the questions
every seat has answered, carried ones included), answer buttons only while the seat is asked,
the flowers shown count as visible tiles and the faces still 生 are pictures, not tiles.
"""

import random
import re
from dataclasses import replace

import pytest
from django.test import Client

from games import consumers
from games.engine import game as engine
from games.engine.view import seat_view
from games.fragments import top_level
from games.models import Hand, HandEvent, Seat

from room_helpers import (
    act, choose, current_hand, db, decide_buttons, face_down, make_room, press, run, start, sync_all, tiles_in,
    visible_tiles,
)

# reset_sequences: the room is #1 whatever ran before, so its seeded walls (GAME_SEED_BASE:room:hand) are fixed
pytestmark = pytest.mark.django_db(transaction=True, reset_sequences=True)


def state_at(hand, version, cache):
    """The engine state of `hand` after its first `version` actions: from the log, through the
    engine, independently of the site (from the nearest earlier state this test computed)."""
    key = (hand.pk, version)
    if key not in cache:
        known = [v for (h, v) in cache if h == hand.pk and v < version]
        start = max(known, default=0)
        if start:
            state = cache[(hand.pk, start)]
        else:
            state = engine.new_hand(engine.Options.from_dict(hand.options), hand.seed, hand.dealer,
                                       hand.carry or None)[0]
        for e in HandEvent.objects.filter(hand=hand, seq__gt=start, seq__lte=version).order_by("seq"):
            out = engine.apply(state, engine.Action.from_dict(e.action))
            assert not isinstance(out, engine.Illegal), out
            state = out[0]
        assert state.step == version
        cache[key] = state
    return cache[key]


def page_html(client, room_id):
    response = client.get(f"/room/{room_id}/")
    assert response.status_code == 200
    return response.content.decode()


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def check_messages(player, hand, cache, checked, names=None, trad=False):
    """Every message not yet checked shows only tiles visible at the version it was rendered at
    (and, with `names`, only the public answers to the questions before a Wenzhou hand; with
    `trad`, only the public throws of traditional Taizhou)."""
    for message in player.messages[checked:]:
        m = re.search(r'data-hand-version="(\d+)"', message)
        if (names is not None or trad) and m and int(m.group(1)) <= hand.version:
            state = state_at(hand, int(m.group(1)), cache)
            if state.phase != engine.ENDED and names is not None:
                check_answers(message, state, player.position, names)
            elif state.phase != engine.ENDED:
                check_throws(message, state, player.position)
        if "data-tile" not in message:
            continue
        assert m, "a message with tiles but no version"
        state = state_at(hand, int(m.group(1)), cache)
        if state.phase == engine.ENDED:
            continue
        shown = tiles_in(message)
        allowed = visible_tiles(state, player.position)
        assert not shown - allowed, (player.position, shown - allowed)
        assert message.count('class="mtile back') <= face_down(state, player.position)
    return len(player.messages)


# --- the questions before a Wenzhou hand (买底 / 顶底): answers stay private until all are in ----

BADGE = re.compile(r'<span class="badge (bought|topped)">([^<]*)</span>')


def public_answers(state):
    """Independently of the site: (dealer bought?, {seats that top}) as every seat may know them
    in `state`: what the carry obliges, and a question's answers once every asked seat answered
    (the engine keeps settled answers as extras "buy" / "top"; an open one only in state.answers)."""
    bought = bool(state.get_extra("bought", False)) or "yes" in dict(state.get_extra("buy", ()) or ()).values()
    topped = set(state.get_extra("topped", ()) or ())
    topped |= {q for q, v in (state.get_extra("top", ()) or ()) if v == "yes"}
    return bought, topped


def check_answers(html, state, me, names):
    """`html` (a message or a page of seat `me`) shows only the public answers: the badges are
    exactly the public ones (where the table shows the hand's stakes), and answer buttons only
    while `me` itself is asked."""
    bought, topped = public_answers(state)
    badges = BADGE.findall(html)
    if '<section id="table" class="table' in html:
        assert 'id="hand-stakes"' in html, (me, state.step, "the table shows no base")
    if 'id="hand-stakes"' in html:
        want = ([("bought", "庄家买底")] if bought else []) + [("topped", f"{names[q]} 顶底") for q in sorted(topped)]
        assert sorted(badges) == sorted(want), (me, state.step, badges, want)
    else:
        assert not badges, (me, state.step, badges)
    asked = state.phase == engine.DECIDE and me in engine.waiting_player(state)
    if not asked:
        assert '&quot;decide&quot;' not in html and '"action": "decide"' not in html, (me, state.step)


def check_view_hides_answers(state):
    """In an open question, what each seat is shown (its engine view) is the same whatever the
    OTHER asked seats answered so far (each answer flipped, one at a time and all together)."""
    if state.phase != engine.DECIDE:
        return
    d = state.decision
    for me in range(state.n):
        others = [q for q in d.seats if q != me and state.answers[q] is not None]
        if not others:
            continue
        base = seat_view(state, me)
        flips = [[q] for q in others] + ([others] if len(others) > 1 else [])
        for group in flips:
            answers = list(state.answers)
            for q in group:
                answers[q] = next(c for c in d.choices if c != answers[q])
            assert seat_view(replace(state, answers=tuple(answers)), me) == base, (me, group, state.step)


THROW = re.compile(r'data-throw="(\d+)-(\d+):(\d+)"')


def public_throws(state):
    """Independently of the site: the throws every seat may know in `state`, per pair of seats
    (the engine records a question's answers once every seat answered; an open one's answers live
    only in state.answers)."""
    out = {}
    for by, at, amount in state.get_extra("throws", ()) or ():
        pair = tuple(sorted((by, at)))
        out[pair] = out.get(pair, 0) + amount
    return sorted((str(a), str(b), str(x)) for (a, b), x in out.items() if x)


STAKE = re.compile(r'data-stake="(\d+)"')


def check_throws(html, state, me):
    """`html` (a message or a page of seat `me`) shows exactly the public throws where it shows the
    ☰ drawer (every pair), on the table's heads exactly the public stakes between `me` and each
    other seat, and answer buttons only while `me` itself is asked."""
    if '<section id="status"' in html:
        assert sorted(THROW.findall(html)) == public_throws(state), (me, state.step)
    else:
        assert not THROW.findall(html), (me, state.step)
    if '<section id="table" class="table' in html:
        mine = sorted(x for a, b, x in public_throws(state) if me in (int(a), int(b)))
        assert sorted(STAKE.findall(html)) == mine, (me, state.step)
    else:  # a message with pieces of the table (RoomConsumer.deliver): each player's head its own stake
        for element_id, part in top_level(html):
            seat = re.fullmatch(r"player-(\d+)", element_id or "")
            other = int(seat.group(1)) if seat else None
            stake = [x for a, b, x in public_throws(state) if {me, other} == {int(a), int(b)}]
            assert STAKE.findall(part) == stake, (me, element_id, state.step)
    asked = state.phase == engine.DECIDE and me in engine.waiting_player(state)
    if not asked:
        assert '&quot;decide&quot;' not in html and '"action": "decide"' not in html, (me, state.step)


def seat_names(room_id):
    return {s.position: s.user.profile.nickname for s in Seat.objects.filter(room_id=room_id).select_related("user__profile")}


# (variant, players, hands, seed): Taizhou; Wenzhou with its questions before each hand (the second
# hand of a table carries the first's streak / base and obligations); at four players every variant
# plays a second hand (the dealer moved on, what the first hand carries shown), else one hand
CASES = [
    ("taizhou", 2, 1, 1), ("taizhou", 3, 1, 2), ("taizhou", 4, 2, 3),
    ("wenzhou", 2, 1, 4), ("wenzhou", 3, 1, 5), ("wenzhou", 4, 2, 6),
    ("zhuji", 2, 1, 7), ("zhuji", 3, 1, 8), ("zhuji", 4, 2, 9),
    ("taizhou_trad", 2, 1, 10), ("taizhou_trad", 3, 1, 11), ("taizhou_trad", 4, 2, 12),
]
# the Zhuji tables: 包 (the dealer's contract asked before each hand, wild faces drawn after it) at
# 2 and 4 players, 翻 with two wild faces at 3
ZHUJI_SETTINGS = {2: {"mode": "bao", "wild_faces": 1}, 3: {"mode": "fan", "wild_faces": 2},
                  4: {"mode": "bao", "wild_faces": 2, "unit": 2}}


# traditional Taizhou: 扔弹 on (asked before every hand), 弹 at 4 players
TRAD_SETTINGS = {2: {"throws": True}, 3: {"throws": True}, 4: {"throws": True, "dan": 10}}


@pytest.mark.parametrize("variant, n, hands, seed", CASES, ids=[f"{v}-{n}p" for v, n, _h, _s in CASES])
def test_no_seat_sees_hidden_tiles(settings, monkeypatch, variant, n, hands, seed):
    settings.GAME_SEED_BASE = f"leak-{n}" if variant == "taizhou" else f"leak-{variant}-{n}"
    # the test presses far faster than anyone could: the socket's flood limit is not under test here
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 1000)
    wenzhou = variant == "wenzhou"
    trad = variant == "taizhou_trad"
    own = {"wenzhou": {"odd_base": False}, "zhuji": ZHUJI_SETTINGS.get(n), "taizhou_trad": TRAD_SETTINGS.get(n)}.get(variant)
    room, users = make_room(players=n, length=4, **({"variant": variant, "settings": own} if own is not None else {}))
    clients = {p: logged_in(u) for p, u in users.items()}
    names = seat_names(room.pk) if wenzhou else None
    asked = []  # (hand number, question, seats asked) of every question the Wenzhou hands asked
    seen = {"throws": False, "flowers": False}  # traditional Taizhou: what the checks did meet

    async def scenario():
        players = await start(room, users)
        rng = random.Random(seed)
        checked = [0] * n
        for number in range(1, hands + 1):
            hand = await db(current_hand, room.pk)
            assert hand.number == number and hand.status == Hand.PLAYING
            cache = {}
            for step in range(500):
                hand = await db(current_hand, room.pk)
                state = await db(state_at, hand, hand.version, cache)
                if hand.status != Hand.PLAYING:
                    break
                deciding = state.phase == engine.DECIDE
                if deciding:
                    check_view_hides_answers(state)
                    if state.decision.seats and all(state.answers[q] is None for q in state.decision.seats):
                        asked.append((number, state.decision.name, state.decision.seats))
                for p in players:
                    q = p.position
                    checked[q] = await db(check_messages, p, hand, cache, checked[q], names, trad)
                    visible = visible_tiles(state, q)
                    assert tiles_in(p.html()) == visible, (number, step, q)
                    assert p.html().count('class="mtile back') == face_down(state, q)
                    if wenzhou:
                        check_answers(p.html(), state, q, names)
                    if trad:
                        check_throws(p.html(), state, q)
                        seen["throws"] |= bool(public_throws(state))
                        seen["flowers"] |= state.indicator is not None and sum(state.rules.flowers(state)) > 0
                    # the page over HTTP: every fourth step, every claim window and question (its
                    # own render path; every message is checked above at every step)
                    if step % 4 == 0 or state.phase == engine.CLAIM or deciding:
                        page = await db(page_html, clients[q], room.pk)
                        assert tiles_in(page) == visible, (number, step, q, "page")
                        assert page.count('class="mtile back') == face_down(state, q)
                        if wenzhou:
                            check_answers(page, state, q, names)
                        if trad:
                            check_throws(page, state, q)
                if deciding:  # any seat still asked answers, yes or no (seeded)
                    waiting = rng.choice(engine.waiting_player(state))
                    offered = decide_buttons(players[waiting].buttons())
                    assert set(offered) == set(state.decision.choices), (waiting, offered)
                    button = offered[rng.choice(sorted(offered))]
                else:
                    waiting = engine.waiting_player(state)[0]
                    button = choose(players[waiting].buttons(), rng)
                await press(players, room.pk, players[waiting], button)
            else:
                pytest.fail("the hand did not end")
            for p in players:
                checked[p.position] = await db(check_messages, p, hand, cache, checked[p.position], names, trad)
            if number < hands:
                for p in players:
                    await act(players, room.pk, p, {"action": "ready"})
        await sync_all(players, room.pk)
        for p in players:
            await p.comm.disconnect()

    run(scenario)
    if variant == "zhuji" and ZHUJI_SETTINGS[n]["mode"] == "bao":  # the dealer named each contract
        assert [name for _n, name, _s in asked] == ["contract"] * hands, asked
    if trad:  # every hand asked each seat about each other seat before the deal; throws and flowers shown
        assert [name for _n, name, _s in asked] == [f"throw_{k}" for _h in range(hands) for k in range(1, n)], asked
        assert seen == {"throws": True, "flowers": True}, seen
    if wenzhou:  # the hands did go through the questions, with several seats asked to top
        assert any(name == "buy" for _n, name, _s in asked), asked
        assert any(name == "top" and len(seats) == n - 1 for _n, name, seats in asked), asked
