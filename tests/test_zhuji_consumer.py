"""Whole Zhuji (诸暨麻将) hands over the room sockets (games/consumers.py through the real ASGI app,
in-memory channel layer), each seat sending only what its own page offers.

A 包 table of four: the dealer's page shows the contract grid (the others see whom they wait for,
no grid); a seat that is not asked and a stale answer are refused with a toast to the sender only;
the dealer names 3 台 with two wild faces; every page then shows 包 3 台, 底分 and the two faces,
and the hand is played to the end by pressing the pages' own buttons (a win when offered, a kong
or pung when offered, else pass; the discard of tests/e2e_policy.py among the page's discard
buttons). In the second hand a player leaves (逃跑) with the menu's button: the penalty moves
through the ledger, every page shows 已逃跑, the seat's own page has no 取消托管, and the hand
goes on with that seat played automatically.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from accounts.models import LedgerEntry
from games import consumers
from games.engine import game as engine
from games.engine.tiles import face_name, parse_tile
from games.models import Escape, Hand, HandEvent, Room, Seat

from room_helpers import (
    act, act_buttons, connect, db, decide_buttons, hand_snapshot, legal_buttons, make_room, press, room_version, run,
    shown_buttons, start, sync_all, tiles_in, visible_tiles,
)
from tests.e2e_policy import choose_discard

pytestmark = pytest.mark.django_db(transaction=True, reset_sequences=True)

WILD_FACES = re.compile(r'class="bar-item indicator wild-faces">(.*?)</div>', re.S)
TILE = re.compile(r'data-tile="([^"]+)"')


@pytest.fixture(autouse=True)
def seeded(settings, monkeypatch):
    settings.GAME_SEED_BASE = "zjc-1"
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 1000)


def check_pages(players, state):
    for q in players:
        assert shown_buttons(q) == legal_buttons(state, q.position), (state.step, q.position)
        assert tiles_in(q.page["table"] + q.page["hand"]) == visible_tiles(state, q.position)


def page_choice(player):
    """From this seat's own page: a win; a kong, then a pung; else pass; on its turn the policy's
    discard among the page's discard buttons (the wild faces read off the table's bar)."""
    by_kind = {}
    for b in player.buttons():
        by_kind.setdefault(b.get("action"), []).append(b)
    for kind in ("win", "kong", "pung", "akong", "ckong"):
        if kind in by_kind:
            return by_kind[kind][0]
    if "pass" in by_kind:
        return by_kind["pass"][0]
    if "decide" in by_kind:  # the contract: the default (first) choice
        return by_kind["decide"][0]
    allowed = {b["tile"]: b for b in by_kind.get("discard", [])}
    assert allowed, f"seat {player.position} must act but its page offers nothing"
    hand = [parse_tile(t) for t in tiles_in(player.page["hand"]).elements()]
    bar = WILD_FACES.search(player.page["table"])
    wilds = [parse_tile(t) for t in TILE.findall(bar.group(1))] if bar else []
    choice = face_name(choose_discard(hand, wilds[0] if wilds else None))
    if choice not in allowed:
        choice = max(allowed, key=parse_tile)
    return allowed[choice]


async def refused(players, room_id, sender, message, words):
    hand_before, _state = await db(hand_snapshot, room_id)
    room_before = await db(room_version, room_id)
    await sender.send(message)
    parts = await sender.receive()
    assert set(parts) == {"toast"}, (message, sorted(parts))
    assert words in parts["toast"], (message, parts["toast"])
    await asyncio.gather(*(p.nothing_more() for p in players))
    hand_after, _state = await db(hand_snapshot, room_id)
    assert hand_after.version == hand_before.version
    assert await db(room_version, room_id) == room_before


async def play_out(players, room_id, limit=400, check=True):
    for _ in range(limit):
        hand, state = await db(hand_snapshot, room_id)
        if hand.status != Hand.PLAYING:
            return hand
        if check:
            check_pages(players, state)
        waiting = [p for p in engine.waiting_player(state)]
        auto = await db(lambda: set(Seat.objects.filter(room_id=room_id, auto_play=True).values_list("position", flat=True)))
        people = [q for q in waiting if q not in auto]
        if not people:  # only 托管 seats are asked: the timeout plays them (the test runs it now)
            from games import services

            await db(lambda: services.timeout(hand.pk, hand.version, now=hand.deadline))
            await sync_all(players, room_id)
            continue
        p = players[people[0]]
        await press(players, room_id, p, page_choice(p))
    pytest.fail("the hand did not end")


def test_a_zhuji_bao_game_over_the_sockets():
    room, users = make_room(players=4, length=4, variant="zhuji", settings={"mode": "bao", "wild_faces": 1, "unit": 2})
    names = {s.position: s.user.profile.nickname
             for s in Seat.objects.filter(room=room).select_related("user__profile")}

    async def scenario():
        players = await start(room, users)
        hand, state = await db(hand_snapshot, room.pk)
        assert state.phase == engine.DECIDE and state.decision.name == "contract"
        dealer = players[hand.dealer]
        others = [p for p in players if p is not dealer]
        check_pages(players, state)
        grid = act_buttons(dealer.page["actions"])["contract"]
        assert len(grid) == 15 and {b["value"] for b in grid} == set(state.decision.choices)
        assert 'id="contract-grid"' in dealer.page["actions"]
        for p in others:
            assert "contract-grid" not in p.page["actions"]
            assert f"等待 {names[dealer.position]} 选择定包" in p.page["actions"]
            assert "定包后翻出" in p.page["table"]
        choice = next(b for b in grid if b["value"] == "3:2")
        await refused(players, room.pk, others[0], choice, "不能这样做")
        await press(players, room.pk, dealer, choice)
        hand, state = await db(hand_snapshot, room.pk)
        assert state.phase == engine.DISCARD and state.rules.contract(state) == (3, 2)
        await refused(players, room.pk, dealer, choice, "牌局已更新")  # the question is gone
        faces = sorted(face_name(f) for f in state.rules.wild_faces(state))
        for p in players:
            assert "包 3 台" in p.page["table"] and "底分 2" in p.page["table"]
            assert sorted(TILE.findall(WILD_FACES.search(p.page["table"]).group(1))) == faces
        hand = await play_out(players, room.pk)
        result = hand.result
        assert sum(result["net"]) == 0
        for p in players:
            assert "第 1 局结果" in p.page["result"] and " 胡（" not in p.page["result"]
            if result["transfers"]:
                assert "金豆" in p.page["result"]

        # --- the second hand: a player leaves (逃跑) from the menu ---
        for p in players:
            await act(players, room.pk, p, {"action": "ready"})
        hand, state = await db(hand_snapshot, room.pk)
        assert hand.number == 2
        leaver = others[1]
        button = re.search(r"<button[^>]*escape-btn[^>]*>", leaver.page["status"])
        assert button and "逃跑要付 60 分（6,000 金豆）" in button.group(0)
        await act(players, room.pk, leaver, {"action": "escape"})
        assert await db(lambda: Escape.objects.filter(position=leaver.position).count()) == 1
        rows = await db(lambda: list(LedgerEntry.objects.filter(reason=LedgerEntry.ESCAPE).values_list("amount", flat=True)))
        assert sorted(rows) == [-6000, 2000, 2000, 2000]
        for p in players:
            assert "已逃跑" in p.page["table"] or "已逃跑" in p.html()
        assert "取消托管" not in leaver.page["actions"] and "escape-btn" not in leaver.page["status"]
        await refused(players, room.pk, leaver, {"action": "auto_off"}, "你已经离开了这场牌局")
        await refused(players, room.pk, leaver, {"action": "escape"}, "你已经离开了这场牌局")
        hand = await play_out(players, room.pk, check=False)
        assert hand.status == Hand.ENDED
        auto = await db(lambda: HandEvent.objects.filter(hand=hand, auto=True).count())
        assert auto > 0
        for p in players:
            await p.comm.disconnect()

    run(scenario)
