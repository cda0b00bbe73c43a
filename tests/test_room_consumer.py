"""The room socket (games/consumers.py) end to end on the in-memory channel layer: seated players
play a seeded hand by pressing the buttons their pages show; reconnects get the full view; bad
messages get an error on the sender's socket only and change nothing; outsiders are refused; the
timeout path reaches every socket."""

import asyncio
import json
import random
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from games import presence, services
from games.engine import game as engine
from games.models import Hand, HandEvent, Room, Seat, SocketPresence

from room_helpers import (
    act, choose, press, start, connect, current_hand, db, face_down, hand_snapshot, make_room, make_user, run, sync_all, tiles_in,
    visible_tiles,
)

# reset_sequences: the room is #1 whatever ran before, so its seeded walls (GAME_SEED_BASE:room:hand) are fixed
pytestmark = pytest.mark.django_db(transaction=True, reset_sequences=True)


@pytest.fixture(autouse=True)
def seeded(settings):
    settings.GAME_SEED_BASE = "tests"  # fixed walls; the first dealer is position 0


def legal_buttons(state, p):
    out = set()
    for a in engine.legal_actions(state, p):
        d = a.to_dict()
        if a.kind in ("discard", "ckong", "akong"):
            out.add((a.kind, d["tile"]))
        elif a.kind == "chow":
            out.add(("chow", tuple(d["tiles"])))
        else:
            out.add((a.kind,))
    return out


def shown_buttons(player):
    out = set()
    for b in player.buttons():
        kind = b.get("action")
        if kind in ("discard", "ckong", "akong"):
            out.add((kind, b["tile"]))
        elif kind == "chow":
            out.add(("chow", tuple(b["tiles"].split())))
        elif kind in ("pung", "kong", "win", "pass"):
            out.add((kind,))
    return out


async def gone(player):
    """The player's seat is gone: they are told so and the socket closes for good (4000)."""
    while True:
        out = await player.comm.receive_output(timeout=10)
        if out["type"] == "websocket.close":
            assert out["code"] == 4000
            break
        player.take(out["text"])
    assert "你已经不在这个房间了" in player.page["status"]
    assert "data-tile" not in player.html()


def test_four_players_play_a_seeded_hand_over_sockets(settings):
    room, users = make_room(players=4, length=4)

    async def scenario():
        players = await start(room, users)
        rng = random.Random(2)  # with the seeded wall: chows, a pung, passes and a win
        reconnected = False
        for step in range(400):
            hand, state = await db(hand_snapshot, room.pk)
            if hand.status != Hand.PLAYING:
                break
            for q in players:  # only the legal buttons, on every page
                assert shown_buttons(q) == legal_buttons(state, q.position), (step, q.position)
                assert q.hand_version == hand.version
                assert tiles_in(q.page["table"] + q.page["hand"]) == visible_tiles(state, q.position)
            p = engine.waiting_player(state)[0]
            if step == 9 and not reconnected:
                # someone else drops their socket, the game goes on, they come back to the full view
                q = next(x for x in players if x.position != p)
                await q.comm.disconnect()
                others = [x for x in players if x is not q]
                await sync_all(others, room.pk)
                for x in others:
                    assert x.page["table"].count('class="badge offline"') == 1
                button = choose(players[p].buttons(), rng)
                await press(others, room.pk, players[p], button)
                fresh = await connect(room.pk, users[q.position], q.position)
                hand, state = await db(hand_snapshot, room.pk)
                assert fresh.hand_version == hand.version
                assert tiles_in(fresh.page["table"] + fresh.page["hand"]) == visible_tiles(state, q.position)
                assert fresh.page["table"].count('class="mtile back') == face_down(state, q.position)
                players[q.position] = fresh
                await sync_all(players, room.pk)
                for x in players:
                    assert 'class="badge offline"' not in x.page["table"]
                reconnected = True
                continue
            button = choose(players[p].buttons(), rng)
            assert button is not None, f"seat {p} must act but has no button"
            await press(players, room.pk, players[p], button)
        hand = await db(current_hand, room.pk)
        assert hand.status == Hand.ENDED and reconnected
        assert await db(lambda: HandEvent.objects.filter(hand=hand).count()) == hand.version
        for q in players:
            result = q.page["result"]
            assert "第 1 局结果" in result
            assert ("流局" in result) or ("胡牌" in result)
            assert q.page["table"].strip().endswith("</section>") and "table-bar" not in q.page["table"]
            assert "准备下一局" in q.page["actions"]
            assert not hand.result["drawn_hand"]
            assert "胡牌奖励" in result and "合计" in result  # the engine's items, in Chinese
            for n in hand.result["net"]:
                assert re.search(r"本局 [+-]?%s 胡" % re.escape(str(n).removesuffix(".0")), result)
        for q in players:
            await q.comm.disconnect()
        assert await db(presence.online_positions, room.pk) == set()
        assert await db(lambda: SocketPresence.objects.filter(room=room).count()) == 0

    run(scenario)


def test_bad_messages_give_an_error_to_the_sender_only(settings, monkeypatch):
    from games import consumers

    room, users = make_room(players=4, length=4)

    async def scenario():
        players = await start(room, users)
        hand, state = await db(hand_snapshot, room.pk)
        dealer = players[state.turn]
        other = players[(state.turn + 1) % 4]
        held = engine.face_name(state.hands[state.turn][0])
        not_held = next(engine.face_name(f) for f in range(34) if f not in state.hands[state.turn])
        v = hand.version
        before = await db(lambda: Room.objects.get(pk=room.pk).version)
        bad = [
            (dealer, {"action": "discard", "tile": held, "v": v + 1}),  # stale version
            (dealer, {"action": "discard", "tile": held, "v": v, "h": hand.pk + 1}),  # another hand
            (dealer, "this is not json"),
            (dealer, "[1, 2, 3]"),
            (dealer, json.dumps({"action": "fly", "v": v})),
            (dealer, {"action": 5, "v": v}),
            (dealer, {"action": "discard", "tile": 5, "v": v}),
            (dealer, {"action": "discard", "tile": held, "v": "later"}),
            (dealer, {"action": "discard", "tile": held, "v": True}),
            (dealer, {"action": "discard", "tile": held}),
            (dealer, {"action": "discard", "tile": "0z", "v": v}),
            (dealer, {"action": "discard", "tile": not_held, "v": v}),  # illegal: not in hand
            (dealer, {"action": "pung", "v": v}),  # illegal: nothing to claim
            (dealer, {"action": "chow", "v": v}),
            (dealer, {"action": "chow", "tiles": ["1m", 2], "v": v}),
            (dealer, {"action": "remove", "position": "x"}),
            (dealer, {"action": "dissolve", "agree": "maybe"}),
            (other, {"action": "discard", "tile": engine.face_name(state.hands[other.position][0]), "v": v}),
            (other, {"action": "remove", "position": 0}),  # not the host
            (other, {"action": "ready"}),  # the hand is on
            (dealer, json.dumps({"action": "discard", "tile": "1m" * 3000, "v": v})),  # too long
        ]
        toasts = []
        for sender, message in bad:
            await sender.send(message)
            parts = await sender.receive()
            toasts.append(parts.get("toast", ""))
            assert set(parts) == {"toast"}, (message, parts)
            assert 'class="toast show error"' in parts["toast"] and "<span" in parts["toast"], message
        for p in players:  # nobody else heard of it
            await p.nothing_more()
        assert "牌局已更新" in toasts[0] and "牌局已更新" in toasts[1]
        assert "消息格式不对" in toasts[2] and "未知的操作" in toasts[4]
        assert "你没有这张牌" in toasts[11]  # the engine's reason, in the player's language
        assert "还没轮到你" in toasts[17] and "只有房主" in toasts[18]
        hand2 = await db(current_hand, room.pk)
        assert hand2.version == v and await db(lambda: HandEvent.objects.filter(hand=hand2).count()) == 0
        assert await db(lambda: Room.objects.get(pk=room.pk).version) == before
        # the same move with the right version, shaped like htmx-ext-ws sends it, is accepted
        await press(players, room.pk, dealer, {"action": "discard", "tile": held, "v": str(v), "h": hand.pk,
                                               "HEADERS": {"HX-Request": "true", "HX-Trigger": None}})
        hand3 = await db(current_hand, room.pk)
        assert hand3.version > v
        # too many messages: an error, no crash; the socket still works afterwards
        # (a small bucket, so the flood trips it however slowly a loaded machine answers)
        monkeypatch.setattr(consumers, "RATE_PER_SECOND", 2)
        for _ in range(40):
            await other.send({"action": "pass", "v": 0})
        texts = []
        while not await other.comm.receive_nothing(timeout=0.5):
            texts.append(await other.comm.receive_from())
        assert any("操作太频繁" in t for t in texts)
        await asyncio.sleep(1.5)
        await other.send({"action": "pass", "v": 0})
        assert "toast" in await other.receive()
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_anonymous_and_outsider_sockets_are_refused(settings):
    room, users = make_room(players=2, length=4)
    outsider = make_user("outsider")

    async def scenario():
        for user, room_id in ((None, room.pk), (outsider, room.pk), (users[0], room.pk + 1000)):
            comm, connected = await connect(room_id, user, expect=False)
            assert not connected
            await comm.disconnect()
        assert await db(lambda: SocketPresence.objects.filter(room=room).count()) == 0  # refused: never present
        # a seated player who is removed is told so, and the socket closes for good
        guest = await connect(room.pk, users[1], 1)
        host = await connect(room.pk, users[0], 0)
        await guest.until(await db(lambda: Room.objects.get(pk=room.pk).version))
        await host.send({"action": "remove", "position": 1})
        await gone(guest)
        await host.comm.disconnect()

    run(scenario)


def test_room_actions_in_the_waiting_room(settings):
    room, users = make_room(players=3, length=4)

    async def scenario():
        players = [await connect(room.pk, users[p], p) for p in range(3)]
        await sync_all(players, room.pk)
        host, g1, g2 = players
        assert "邀请" in host.page["invite-box"] and "换新链接" in host.page["invite-box"]
        assert "换新链接" not in g1.page["invite-box"]
        await act(players, room.pk, g1, {"action": "ready"})
        assert host.page["seats"].count("已准备") == 1
        await act(players, room.pk, g1, {"action": "ready", "ready": False})
        assert host.page["seats"].count("已准备") == 0
        old = room.token
        await act(players, room.pk, host, {"action": "new_invite"})
        token = await db(lambda: Room.objects.get(pk=room.pk).token)
        assert token != old and token in g2.page["invite-box"] and old not in g2.page["invite-box"]
        await act(players, room.pk, host, {"action": "revoke_invite"})
        assert token not in g2.page["invite-box"]
        await g2.send({"action": "leave"})
        await gone(g2)
        await sync_all([host, g1], room.pk)
        assert await db(lambda: Seat.objects.filter(room=room).count()) == 2
        assert "空位" in host.page["seats"]
        await g1.send({"action": "close"})  # only the host may
        assert "只有房主" in (await g1.receive())["toast"]
        await act([host, g1], room.pk, host, {"action": "close"})
        assert "房间已解散" in g1.page["result"] and "返回大厅" in g1.page["actions"]
        for p in (host, g1):
            await p.comm.disconnect()

    run(scenario)


def test_dissolve_vote_during_a_game(settings):
    room, users = make_room(players=2, length=4)

    async def scenario():
        players = await start(room, users)
        await act(players, room.pk, players[0], {"action": "dissolve", "agree": True})
        assert "同意解散" in players[1].page["status"] and "同意解散" not in players[0].page["status"]
        await act(players, room.pk, players[1], {"action": "dissolve", "agree": True})
        assert await db(lambda: Room.objects.get(pk=room.pk).status) == Room.DISSOLVED
        for p in players:
            assert "房间已解散" in p.page["result"] and "table-bar" not in p.page["table"]
            assert not p.page["hand"].count("data-tile")
            await p.comm.disconnect()

    run(scenario)


def test_timeouts_reach_every_socket_and_auto_play_can_be_taken_back(settings):
    room, users = make_room(players=4, length=4)

    async def scenario():
        players = await start(room, users)
        hand, state = await db(hand_snapshot, room.pk)
        dealer = state.turn
        later = timezone.now() + timedelta(minutes=5)
        out = await db(services.timeout, hand.pk, hand.version, now=later)
        assert out.ok
        await sync_all(players, room.pk)
        hand, state = await db(hand_snapshot, room.pk)
        discarded = engine.face_name(state.rivers[dealer][0])
        for p in players:
            assert "超时自动" in p.page["table"]
            assert tiles_in(p.page["table"] + p.page["hand"]) == visible_tiles(state, p.position)
            assert f'data-tile="{discarded}"' in p.page["table"]
        # time runs out again and again (the sweeper path) until someone is put on 托管
        auto = None
        for i in range(40):
            later += timedelta(minutes=5)
            await db(services.sweep_overdue, now=later)
            await sync_all(players, room.pk)
            auto = await db(lambda: Seat.objects.filter(room=room, auto_play=True).values_list("position", flat=True).first())
            if auto is not None or (await db(current_hand, room.pk)).status != Hand.PLAYING:
                break
        assert auto is not None
        hand, state = await db(hand_snapshot, room.pk)
        for p in players:
            if hand.status == Hand.PLAYING:
                assert p.page["table"].count('class="badge auto"') == 1
                assert tiles_in(p.page["table"] + p.page["hand"]) == visible_tiles(state, p.position)
        if hand.status == Hand.PLAYING:
            assert "取消托管" in players[auto].page["actions"]
            await act(players, room.pk, players[auto], {"action": "auto_off"})
            assert not await db(lambda: Seat.objects.get(room=room, position=auto).auto_play)
            assert "取消托管" not in players[auto].page["actions"]
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_a_failing_service_gives_an_error_and_keeps_the_socket(settings, monkeypatch):
    room, users = make_room(players=2, length=4)

    def broken(*args, **kwargs):
        raise RuntimeError("database went away")

    async def scenario():
        players = [await connect(room.pk, users[p], p) for p in range(2)]
        await sync_all(players, room.pk)
        monkeypatch.setattr(services, "set_ready", broken)
        await players[0].send({"action": "ready"})
        assert "出错了" in (await players[0].receive())["toast"]
        monkeypatch.undo()
        await act(players, room.pk, players[0], {"action": "ready"})
        assert "已准备" in players[1].page["seats"]
        for p in players:
            await p.comm.disconnect()

    run(scenario)
