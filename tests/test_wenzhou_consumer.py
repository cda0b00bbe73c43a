"""A whole Wenzhou (温州麻将) hand over the room sockets (games/consumers.py through the real ASGI
app, in-memory channel layer), each seat sending only what its own page offers.

Four seated players connect and press Ready; the dealer's page asks 买底 (the others see whom
they wait for), the dealer buys; every page then shows 庄家买底 and the non-dealers are asked
顶底; one tops, and until the last answer nobody else sees who did; a stale answer (the version
of the previous question) and an answer by a seat that is not asked are refused with a toast to
the sender only and change nothing. Then the hand is played to the end by pressing the pages'
own buttons (a win when offered, a kong or pung when offered, else pass; the discard of
tests/e2e_policy.py among the page's discard buttons). With the seeded wall (SEED_BASE) a tile
added to a pung is robbed (抢杠: the window offers only 胡 or 过), and the result screen shows the
hand in 分 with its 财神钱.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from games import consumers
from games.engine import game as engine
from games.engine.tiles import face_name, parse_tile
from games.models import Hand, HandEvent, Room, Seat

from room_helpers import (
    act_buttons, connect, db, decide_buttons, hand_snapshot, legal_buttons, make_room, press, room_version, run,
    shown_buttons, start, sync_all, tiles_in, visible_tiles,
)
from tests.e2e_policy import choose_discard

# reset_sequences: the room is #1 whatever ran before, so its seeded wall (GAME_SEED_BASE:room:hand) is fixed
pytestmark = pytest.mark.django_db(transaction=True, reset_sequences=True)

# With this base, room 1's first hand (dealer: position 0, who buys; position 1 tops) played by
# `page_choice` has a tile added to a pung robbed (抢杠胡, 硬胡) and 财神钱 paid.
SEED_BASE = "wzc-60"
TOPS = {1}  # the non-dealers who answer 顶底 (the others 不顶)

INDICATOR = re.compile(r'class="bar-item indicator">.*?data-tile="([^"]+)"', re.S)
BADGE = re.compile(r'<span class="badge (bought|topped)">([^<]*)</span>')


@pytest.fixture(autouse=True)
def seeded(settings, monkeypatch):
    settings.GAME_SEED_BASE = SEED_BASE  # a fixed wall; the first dealer is position 0
    # the test presses faster than any person: the socket's flood limit is not what is tested here
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 1000)


def badges(html):
    return sorted(BADGE.findall(html))


def page_choice(player):
    """What this seat presses, from its own page only: a win; a kong, then a pung, on offer; else
    pass a claim; on its turn a kong of its own, else the policy's discard among the tiles the
    page lets it discard (the hand and the wild read off the page)."""
    buttons = player.buttons()
    by_kind = {}
    for b in buttons:
        by_kind.setdefault(b.get("action"), []).append(b)
    for kind in ("win", "kong", "pung", "akong", "ckong"):
        if kind in by_kind:
            return by_kind[kind][0]
    if "pass" in by_kind:
        return by_kind["pass"][0]
    allowed = {b["tile"]: b for b in by_kind.get("discard", [])}
    assert allowed, f"seat {player.position} must act but its page offers nothing"
    hand = [parse_tile(t) for t in tiles_in(player.page["hand"]).elements()]
    wild = parse_tile(INDICATOR.search(player.page["table"]).group(1))  # Wenzhou: the indicator is the wild
    choice = face_name(choose_discard(hand, wild))
    if choice not in allowed:  # the rules forbid it now (a wild, a forced honour): the last one allowed
        choice = max(allowed, key=parse_tile)
    return allowed[choice]


async def refused(players, room_id, sender, message, words):
    """`sender` sends `message`: a toast with `words` to the sender only; nothing changes."""
    hand_before, _state = await db(hand_snapshot, room_id)
    room_before = await db(room_version, room_id)
    await sender.send(message)
    parts = await sender.receive()
    assert set(parts) == {"toast"}, (message, sorted(parts))
    assert 'class="toast show error"' in parts["toast"] and words in parts["toast"], (message, parts["toast"])
    await asyncio.gather(*(p.nothing_more() for p in players))  # nobody else heard of it
    hand_after, _state = await db(hand_snapshot, room_id)
    assert hand_after.version == hand_before.version
    assert await db(room_version, room_id) == room_before
    assert await db(lambda: HandEvent.objects.filter(hand=hand_after).count()) == hand_before.version


def check_pages(players, state):
    for q in players:
        assert shown_buttons(q) == legal_buttons(state, q.position), (state.step, q.position)
        assert tiles_in(q.page["table"] + q.page["hand"]) == visible_tiles(state, q.position)


def test_a_wenzhou_hand_over_the_sockets():
    room, users = make_room(players=4, length=4, variant="wenzhou", settings={"odd_base": False})
    names = {s.position: s.user.profile.nickname
             for s in Seat.objects.filter(room=room).select_related("user__profile")}

    async def scenario():
        players = await start(room, users)  # everyone presses Ready over the socket
        hand, state = await db(hand_snapshot, room.pk)
        assert state.phase == engine.DECIDE and state.decision.name == "buy"
        dealer = players[hand.dealer]
        others = [p for p in players if p is not dealer]
        assert state.decision.seats == (dealer.position,)
        check_pages(players, state)

        # --- 买底: the dealer is asked, the others see whom they wait for ---
        asked = act_buttons(dealer.page["actions"])
        assert set(asked) == {"decide-yes", "decide-no"}, asked
        assert asked["decide-yes"] == [{"action": "decide", "value": "yes", "v": hand.version, "h": hand.pk}]
        assert 'id="decision-prompt"' in dealer.page["actions"] and "这一局买底吗" in dealer.page["actions"]
        for p in others:
            assert 'id="decision-prompt"' in p.page["actions"] and not decide_buttons(p.buttons())
            assert f"等待 {names[dealer.position]} 选择买底" in p.page["actions"]
        for p in players:
            assert 'class="hand-base">2<' in p.page["table"] and badges(p.page["table"]) == []

        # a seat that is not asked cannot answer
        await refused(players, room.pk, others[0], {"action": "decide", "value": "yes", "v": hand.version,
                                                     "h": hand.pk}, "不能这样做")
        buy_yes = asked["decide-yes"][0]
        await press(players, room.pk, dealer, buy_yes)

        # --- 顶底: every page shows the buy; the non-dealers are asked ---
        hand, state = await db(hand_snapshot, room.pk)
        assert state.phase == engine.DECIDE and state.decision.name == "top"
        assert set(state.decision.seats) == {p.position for p in others}
        check_pages(players, state)
        for p in players:
            assert badges(p.page["table"]) == [("bought", "庄家买底")], p.position
        assert not decide_buttons(dealer.buttons())
        assert "选择顶底" in dealer.page["actions"]
        for p in others:
            assert set(act_buttons(p.page["actions"])) == {"decide-yes", "decide-no"}
            assert f"庄家 {names[dealer.position]} 买了底" in p.page["actions"] and "你要顶底吗" in p.page["actions"]
        # the buy question's view is stale now, for the dealer and for an asked seat alike
        await refused(players, room.pk, dealer, buy_yes, "牌局已更新")
        await refused(players, room.pk, others[1], {**buy_yes, "value": "no"}, "牌局已更新")
        # the dealer is not asked to top
        await refused(players, room.pk, dealer, {**buy_yes, "v": hand.version}, "不能这样做")

        topper = next(p for p in others if p.position in TOPS)
        await press(players, room.pk, topper, decide_buttons(topper.buttons())["yes"])
        hand, state = await db(hand_snapshot, room.pk)
        assert state.phase == engine.DECIDE  # the others have not answered yet
        check_pages(players, state)
        assert "已选择，等待其他玩家" in topper.page["actions"] and not decide_buttons(topper.buttons())
        rest = [p for p in others if p is not topper]
        for p in players:  # nobody sees who topped before everyone answered
            assert badges(p.page["table"]) == [("bought", "庄家买底")], p.position
            assert f"{names[topper.position]} 顶底" not in p.html()
        assert f"等待 {'、'.join(names[p.position] for p in rest)} 选择顶底" in dealer.page["actions"]
        # who already answered cannot answer again
        await refused(players, room.pk, topper, {"action": "decide", "value": "no", "v": hand.version, "h": hand.pk},
                      "不能这样做")
        for p in rest:
            await press(players, room.pk, p, decide_buttons(p.buttons())["yes" if p.position in TOPS else "no"])

        # --- every answer is in: the table shows them, the dealer plays ---
        hand, state = await db(hand_snapshot, room.pk)
        assert state.phase == engine.DISCARD and state.turn == dealer.position
        assert state.rules.bought(state) and set(state.rules.topped(state)) == TOPS
        want = sorted([("bought", "庄家买底")] + [("topped", f"{names[q]} 顶底") for q in sorted(TOPS)])
        for p in players:
            assert badges(p.page["table"]) == want, p.position
            assert 'id="decision-prompt"' not in p.page["actions"]
        check_pages(players, state)

        # --- the hand to its end, each seat pressing what its own page offers ---
        robbed_window = False
        for step in range(400):
            hand, state = await db(hand_snapshot, room.pk)
            if hand.status != Hand.PLAYING:
                break
            check_pages(players, state)
            if state.phase == engine.CLAIM and state.robbing:  # 抢杠: only 胡 (or 过) on a tile added to a pung
                robbed_window = True
                for p in players:
                    assert 'class="claim-banner robbing"' in p.page["table"] and "加杠" in p.page["table"]
                    assert {b["action"] for b in p.buttons()} <= {"win", "pass"}
            p = players[engine.waiting_player(state)[0]]
            await press(players, room.pk, p, page_choice(p))
        else:
            pytest.fail("the hand did not end")

        hand, state = await db(hand_snapshot, room.pk)
        assert hand.status == Hand.ENDED and robbed_window, "the seeded hand no longer robs a kong: pick a new SEED_BASE"
        result = hand.result
        winner = result["winner"]
        assert winner is not None and any(t["why"] == "caishen" for t in result["transfers"])
        kind = result["scores"][winner]["kind"]
        for p in players:
            shown = p.page["result"]
            assert "第 1 局结果" in shown and "table-bar" not in p.page["table"]
            for q, n in enumerate(result["net"]):  # every player's net, in 分
                assert re.search(r"本局 [+-]?%s 分" % re.escape(str(n).removesuffix(".0")), shown), (q, n)
            assert " 胡（" not in shown  # never the Taizhou unit
            assert "财神钱" in shown and 'class="badge why-caishen"' in shown
            assert {"soft": "软胡 ×1", "hard": "硬胡 ×2", "double": "双翻 ×4"}[kind] in shown
            assert "抢杠胡" in shown
            assert f"{names[winner]} 胡 {names[result['discarder']]} 打出的" in shown
            assert "准备下一局" in p.page["actions"]
        assert await db(lambda: Room.objects.get(pk=room.pk).status) == Room.PLAYING
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_a_reconnect_during_the_question_gets_the_prompt_back():
    """A seat that drops its socket while asked gets the prompt and its buttons back on reconnect,
    and its answer (sent from the fresh page) counts."""
    room, users = make_room(players=2, length=4, variant="wenzhou", settings={"odd_base": False})

    async def scenario():
        players = await start(room, users)
        hand, state = await db(hand_snapshot, room.pk)
        dealer = players[hand.dealer]
        await dealer.comm.disconnect()
        fresh = await connect(room.pk, users[dealer.position], dealer.position)
        players[dealer.position] = fresh
        await sync_all(players, room.pk)
        assert set(act_buttons(fresh.page["actions"])) == {"decide-yes", "decide-no"}
        await press(players, room.pk, fresh, decide_buttons(fresh.buttons())["no"])
        hand, state = await db(hand_snapshot, room.pk)
        assert state.decision.name == "top" and not state.rules.bought(state)
        for p in players:
            assert badges(p.page["table"]) == []
            await p.comm.disconnect()

    run(scenario)
