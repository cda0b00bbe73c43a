"""Answers to one claim window are judged against that window, not the hand's latest version.

Two players may answer the same discard (pass + pung, pung + win, two wins): in every order,
sent for the version that opened the window, the right claim wins and nobody is told their view
is stale. The hands are dealt from walls made for each case (engine.build_wall patched for one
seed), so the dealer's first discard opens the window."""

import asyncio
import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from games import consumers, services
from games.services import moves
from games.engine import game as engine
from games.engine.tiles import parse_tiles
from games.models import Hand

from tests.replay_helpers import fixed_seeds
from tests.room_helpers import connect, make_user, run, sync_all

pytestmark = pytest.mark.django_db(transaction=True)

SEED = 424242
INDICATOR = "9s"  # the three other 9s are wild; no hand holds one

# Dealer (position 0) holds 14 and discards DISCARD; the others hold 13.
CASES = {
    # seat 1 may chow 4p-6p, seat 2 may pung: 1 passes, 2 pungs
    "pass+pung": {
        "hands": ["1m1m2m2m3m3m7m8m1s2s3s1z2z5p", "4p6p1m4m7m2s5s8s1z2z3z4z6z",
                  "5p5p3m6m9m3s6s4z6z7z7z3p8p", "1p1p2p9p9p4m5m6m8s8s3z3z7z"],
        "answers": {1: {"action": "pass"}, 2: {"action": "pung"}},
        "expect": ("pung", 2),
    },
    # seat 1 may pung, seat 3 wins on 6p (4p5p waiting): the win takes it whatever the order
    "pung+win": {
        "hands": ["1m1m2m2m3m3m7m8m1s2s3s1z2z6p", "6p6p3m6m9m3s6s4z6z7z7z3p8p",
                  "4m7m2s5s8s1z2z3z4z6z1p9p7m", "1m2m3m4m5m6m7m8m9m1p1p4p5p"],
        "answers": {1: {"action": "pung"}, 3: {"action": "win"}},
        "expect": ("win", 3),
    },
    # seats 1 and 3 both win on 6p: the first from the dealer (position 0) in turn order wins
    "win+win": {
        "hands": ["2m2m3m3m7m8m1s2s3s1z2z6z7z6p", "1m2m3m4m5m6m7m8m9m1p1p4p5p",
                  "4m7m2s5s8s1z2z3z4z6z3m9p7m", "2p2p4s5s6s3p4p5p7s7s7s4p5p"],
        "answers": {1: {"action": "win"}, 3: {"action": "win"}},
        "expect": ("win", 1),
    },
}
DISCARD = {"pass+pung": "5p", "pung+win": "6p", "win+win": "6p"}


def designed_wall(hands):
    """14 + 13 + 13 + 13 tiles dealt from the front in seat order, the indicator at the back."""
    dealt = [t for h in hands for t in parse_tiles(h)]
    counts = {f: 4 for f in range(34)}
    for t in dealt:
        counts[t] -= 1
        assert counts[t] >= 0, f"more than four of {t}"
    indicator = parse_tiles(INDICATOR)[0]
    counts[indicator] -= 1
    # the live wall: whites last so no stand-in wild is drawn early; any order works
    rest = [f for f in range(34) for _ in range(counts[f])]
    return dealt + rest + [indicator]


@pytest.fixture
def designed(monkeypatch):
    """Use a made wall for SEED (the case is picked by setting designed.case)."""
    real = engine.build_wall

    class Holder:
        case = None

    def build_wall(seed):
        if seed == SEED and Holder.case:
            return designed_wall(CASES[Holder.case]["hands"])
        return real(seed)

    monkeypatch.setattr(engine, "build_wall", build_wall)
    fixed_seeds(monkeypatch, [SEED])
    return Holder


def deal(case, designed, tag=""):
    designed.case = case
    people = [make_user(f"p{i}{tag}") for i in range(4)]
    room = services.create_room(people[0], players=4, length=4)
    for user in people[1:]:
        services.join_room(user, room.token)
    users = dict(enumerate(people))
    for user in users.values():
        services.set_ready(user, room.pk)
    hand = Hand.objects.get(game__room=room, number=1)
    out = services.play(hand.pk, users[0], {"action": "discard", "tile": DISCARD[case]}, hand.version)
    assert out.ok, out.error
    hand.refresh_from_db()
    state = services.hand_state(hand)
    assert state.phase == engine.CLAIM
    asked = {p for p in range(4) if state.claim_options[p]}
    assert asked == set(CASES[case]["answers"]), (case, state.claim_options)
    return room, users, hand


def outcome(hand):
    """(kind, seat) of what took the discard."""
    hand.refresh_from_db()
    last = hand.events.order_by("-seq").first()
    for event in last.events:
        if event["type"] in ("pung", "chow", "kong"):
            return event["type"], event["seat"]
    if hand.status == Hand.ENDED:
        return "win", hand.result["winner"] if isinstance(hand.result.get("winner"), int) else _winner(hand)
    return None


def _winner(hand):
    state = services.hand_state(hand)
    return state.result.winner


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_order_of_answers_for_the_window_version(case, designed):
    for k, order in enumerate(itertools.permutations(sorted(CASES[case]["answers"]))):
        services.handstate._cache.clear()
        room, users, hand = deal(case, designed, tag=f"o{k}")
        window = hand.version
        for p in order:
            out = services.play(hand.pk, users[p], CASES[case]["answers"][p], window)
            assert out.ok or "牌局已更新" not in out.error, (case, order, p, out.error)
        assert outcome(hand) == CASES[case]["expect"], (case, order)
        # the log replays to the same state (nothing accepted that the rules refuse)
        hand.refresh_from_db()
        assert services.handstate.replay_log(hand).step == hand.version


def test_a_claim_after_the_window_closed_is_refused_with_the_reason(designed):
    room, users, hand = deal("pung+win", designed)
    window = hand.version
    assert services.play(hand.pk, users[3], {"action": "win"}, window).ok
    hand.refresh_from_db()
    assert hand.status == Hand.ENDED
    # seat 1's pung answered the window the win closed: told it was outranked, by either path
    out = services.play(hand.pk, users[1], {"action": "pung"}, window)
    assert not out.ok and out.code == "claim_outranked", out
    out = services.handle(room.pk, users[1], {"action": "pung", "v": window, "h": hand.pk})
    assert not out.ok and out.code == "claim_outranked", out
    # anything but an answer to that window: the hand is over, nothing to play
    out = services.play(hand.pk, users[1], {"action": "discard", "tile": "3m"}, window)
    assert not out.ok and out.code == "hand_over" and "已经结束" in out.error, out
    out = services.handle(room.pk, users[1], {"action": "discard", "tile": "3m", "v": window, "h": hand.pk})
    assert not out.ok and out.code == "no_hand", out
    out = services.play(hand.pk, users[1], {"action": "pung"}, window - 1)  # an older view
    assert not out.ok and out.code == "hand_over", out
    # the winner's own answer sent again (a second click): not told it lost
    out = services.handle(room.pk, users[3], {"action": "win", "v": window, "h": hand.pk})
    assert not out.ok and out.code == "already_answered" and "选择过" in out.error, out
    assert Hand.objects.get(pk=hand.pk).version == hand.version  # nothing written


def test_a_pung_that_lost_to_a_higher_claim_says_so_and_changes_nothing(designed):
    room, users, hand = deal("pass+pung", designed)
    window = hand.version
    assert services.play(hand.pk, users[2], {"action": "pung"}, window).ok
    hand.refresh_from_db()
    after = hand.version
    # seat 1's chow was outranked: the window closed at once; a late chow is told why
    out = services.play(hand.pk, users[1], {"action": "chow", "tiles": ["4p", "6p"]}, window)
    assert not out.ok and "优先级" in out.error
    # a late pass is moot: no error, nothing changes
    out = services.play(hand.pk, users[1], {"action": "pass"}, window)
    assert out.ok
    # the pung sent again by the seat whose pung it was: already answered, not outranked
    out = services.play(hand.pk, users[2], {"action": "pung"}, window)
    assert not out.ok and out.code == "already_answered", out
    hand.refresh_from_db()
    assert hand.version == after


def test_a_pass_does_not_restart_the_windows_countdown(designed):
    """The claim countdown starts when the discard opens the window and runs on through the
    answers: a pass does not give the players still deciding their time again."""
    room, users, hand = deal("pass+pung", designed)
    opened = hand.deadline
    assert opened is not None
    Hand.objects.filter(pk=hand.pk).update(deadline=opened - timedelta(seconds=5))  # 5 s have gone by
    assert services.play(hand.pk, users[1], {"action": "pass"}, hand.version).ok
    hand.refresh_from_db()
    assert services.hand_state(hand).phase == engine.CLAIM  # seat 2 still deciding
    assert hand.deadline == opened - timedelta(seconds=5)
    # the pung closes the window: the new turn's countdown is a new one
    assert services.play(hand.pk, users[2], {"action": "pung"}, hand.version).ok
    hand.refresh_from_db()
    assert hand.deadline > opened


def test_a_window_opened_by_a_discard_has_a_countdown_of_its_own(designed):
    """The discard that opens a window starts its countdown afresh (not the discarder's turn's)."""
    designed.case = "pass+pung"
    people = [make_user(f"q{i}") for i in range(4)]
    room = services.create_room(people[0], players=4, length=4)
    for user in people[1:]:
        services.join_room(user, room.token)
    for user in people:
        services.set_ready(user, room.pk)
    hand = Hand.objects.get(game__room=room, number=1)
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=1))  # the turn ran long
    before = timezone.now()
    out = services.play(hand.pk, people[0], {"action": "discard", "tile": DISCARD["pass+pung"]}, hand.version)
    assert out.ok, out.error
    hand.refresh_from_db()
    assert services.hand_state(hand).phase == engine.CLAIM
    assert before + timedelta(seconds=room.claim_seconds) <= hand.deadline <= timezone.now() + timedelta(seconds=room.claim_seconds)


def test_an_answer_from_before_the_window_is_stale(designed):
    room, users, hand = deal("pass+pung", designed)
    out = services.play(hand.pk, users[2], {"action": "pung"}, hand.version - 1)
    assert not out.ok and "牌局已更新" in out.error
    hand.refresh_from_db()
    assert services.hand_state(hand).phase == engine.CLAIM


def test_a_discard_on_an_old_version_is_still_stale(designed):
    room, users, hand = deal("pass+pung", designed)
    window = hand.version
    assert services.play(hand.pk, users[1], {"action": "pass"}, window).ok
    assert services.play(hand.pk, users[2], {"action": "pung"}, window).ok
    hand.refresh_from_db()
    state = services.hand_state(hand)
    assert state.phase == engine.DISCARD and state.turn == 2
    tile = engine.face_name(state.hands[2][0])
    out = services.play(hand.pk, users[2], {"action": "discard", "tile": tile}, window)
    assert not out.ok and "牌局已更新" in out.error


# --- over real sockets ------------------------------------------------------------------------
# A socket handles its messages one after another, so a ping sent after an answer is answered
# after the answer's own reply: the toasts before the pong are all the answer was told.

OUTRANKED = "这张牌已被其他玩家按优先级吃碰杠胡了"


async def answer_and_listen(player, message):
    """Send `message`, then a ping; the toasts this socket got before the pong."""
    start = len(player.messages)
    await player.send(message)
    await player.send({"action": "ping"})
    while (raw := await player.comm.receive_from(timeout=10)) != consumers.PONG:
        player.take(raw)
    return [m for m in player.messages[start:] if 'id="toast"' in m]


async def seated(room, users):
    players = [await connect(room.pk, users[p], p) for p in range(4)]
    await sync_all(players, room.pk)
    return players


def offered(players, case, window):
    for p, answer in CASES[case]["answers"].items():
        # every answer button the page offers carries the window's version
        assert any(b.get("action") == answer["action"] and int(b.get("v")) == window
                   for b in players[p].buttons()), players[p].buttons()


@pytest.mark.parametrize("case", sorted(CASES))
def test_simultaneous_answers_over_sockets(case, designed):
    """Both answers sent at once: the right claim wins; a pass is never refused, and a claim is
    told only that it was outranked (never that the view is stale or that no hand is in play)."""
    room, users, hand = deal(case, designed)
    answers = CASES[case]["answers"]

    async def scenario():
        players = await seated(room, users)
        window = hand.version
        offered(players, case, window)
        told = await asyncio.gather(*(answer_and_listen(players[p], {**a, "v": window, "h": hand.pk})
                                      for p, a in answers.items()))
        for p in players:
            await p.comm.disconnect()
        return dict(zip(answers, told))

    told = run(scenario)
    assert outcome(hand) == CASES[case]["expect"]
    winner = CASES[case]["expect"][1]
    for p, toasts in told.items():
        if p == winner or answers[p]["action"] == "pass":
            assert toasts == [], (p, toasts)
        else:
            assert all(OUTRANKED in t for t in toasts) and len(toasts) <= 1, (p, toasts)


@pytest.mark.parametrize("first", ["winner", "other"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_answers_over_sockets_in_each_order(case, first, designed):
    """The two answers for the window's version, one after the other, in each order. When the
    winning claim comes first and nobody outranks it, the window closes at once: the other seat's
    pass is moot, and its claim is told it was outranked, also when that claim was a win that
    ended the hand."""
    room, users, hand = deal(case, designed, tag=first)
    answers = CASES[case]["answers"]
    winner = CASES[case]["expect"][1]
    other = next(p for p in answers if p != winner)
    order = [winner, other] if first == "winner" else [other, winner]

    async def scenario():
        players = await seated(room, users)
        window = hand.version
        offered(players, case, window)
        told = {p: await answer_and_listen(players[p], {**answers[p], "v": window, "h": hand.pk}) for p in order}
        await sync_all(players, room.pk)
        for p in players:
            await p.comm.disconnect()
        return told

    told = run(scenario)
    assert outcome(hand) == CASES[case]["expect"]
    assert told[winner] == []
    if first == "winner" and answers[other]["action"] != "pass":
        assert len(told[other]) == 1 and OUTRANKED in told[other][0], told[other]
    else:
        assert told[other] == [], told[other]


@pytest.mark.parametrize("rows, expect", [
    # seat 2's pung closed the window; seat 2's discard and seat 1's pung of it belong to the next
    ([("pung", 2, False), ("discard", 2, False), ("pung", 1, False)], [("pung", 2)]),
    ([("pass", 1, True), ("pung", 2, False), ("discard", 2, False)], [("pass", 1), ("pung", 2)]),
    ([("win", 3, False)], [("win", 3)]),
    ([("pass", 1, False), ("pass", 1, False)], [("pass", 1)]),  # a seat answers a window once
    ([("discard", 0, False)], []),
])
def test_the_answers_of_one_window_in_the_log(rows, expect):
    got = moves._window_answers([({"kind": k, "seat": s}, auto) for k, s, auto in rows], 4)
    assert [(a["kind"], a["seat"]) for a, _auto in got] == expect
