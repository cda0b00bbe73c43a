"""Whole traditional Taizhou (传统台州麻将) hands over the room sockets (games/consumers.py through the
real ASGI application, in-memory channel layer), each seat sending only what its own page offers.

Four people, 弹 5, 扔弹 on. Before the deal every page asks its seat about its 下家, then 对家, then
上家 (seven answers, 不扔 the default, a countdown); a seat that already answered, or answers out
of turn, is refused with a toast to the sender only and nothing changes for anyone; nobody's page
shows an answer before every seat has answered, and then every page shows the throws agreed. The
first hand is played from the pages' own buttons with wins taken only once the 生牌 stage is on:
every page shows each seat's flowers face up, and from 30 tiles left the 生牌 warning with the
faces still 生. The second hand asks again (a dealer who kept the deal: the stakes carried are
named in the prompt) and is played to its end with wins taken. Every fragment a seat is sent is
what its partial renders from that seat's whole context (games/table.py's render cache).
"""

from __future__ import annotations

import asyncio
import re

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from games import consumers, table
from games.engine import game as engine
from games.engine.tiles import face_name, parse_tile
from games.engine.variants import taizhou_trad
from games.models import Hand, Seat

from room_helpers import (
    act, connect, db, decide_buttons, hand_snapshot, legal_buttons, make_room, press, room_version, run, shown_buttons,
    start, sync_all, tiles_in, visible_tiles,
)
from tests.e2e_policy import choose_discard

pytestmark = pytest.mark.django_db(transaction=True, reset_sequences=True)

INDICATOR = re.compile(r'class="bar-item indicator">.*?data-tile="([^"]+)"', re.S)
THROW = re.compile(r'data-throw="(\d+)-(\d+):(\d+)"')


@pytest.fixture(autouse=True)
def seeded(settings, monkeypatch):
    settings.GAME_SEED_BASE = "ttc-1"
    monkeypatch.setattr(consumers, "RATE_PER_SECOND", 1000)



def public_throws(state):
    out = {}
    for by, at, amount in state.get_extra("throws", ()) or ():
        pair = tuple(sorted((by, at)))
        out[pair] = out.get(pair, 0) + amount
    return sorted((str(a), str(b), str(x)) for (a, b), x in out.items() if x)


def check_pages(players, state):
    """Every page: exactly the legal buttons, exactly the visible tiles (flowers included), the
    public throws, each seat's flowers, and the 生牌 warning exactly in the stage."""
    flowers = state.rules.flowers(state) if state.indicator is not None else [0] * state.n
    for q in players:
        assert shown_buttons(q) == legal_buttons(state, q.position), (state.step, q.position)
        assert tiles_in(q.page["table"] + q.page["hand"]) == visible_tiles(state, q.position)
        assert sorted(THROW.findall(q.page["status"])) == public_throws(state), (state.step, q.position)
        assert not THROW.findall(q.page["table"])
        for p in range(state.n):
            seat = q.page["table"].split(f'data-position="{p}"', 1)[1].split('<div class="river"', 1)[0]
            shown = re.search(r'<span class="meld meld-flowers"[^>]*>(.*?)</span></span>', seat)
            assert (shown.group(1).count("data-tile") if shown else 0) == flowers[p], (state.step, q.position, p)
            stake = sum(int(x) for a, b, x in public_throws(state) if {int(a), int(b)} == {p, q.position})
            assert re.findall(r'data-stake="(\d+)"', seat) == ([str(stake)] if stake else []), (state.step, q.position, p)
        stage = state.indicator is not None and taizhou_trad.shengpai_stage(state)
        assert ('id="shengpai-alert"' in q.page["table"]) == stage, (state.step, q.position)
        if stage:
            alert = q.page["table"].split('id="shengpai-alert"', 1)[1]
            assert f"看生牌 {len(taizhou_trad.shengpai_faces(state))}" in alert


def check_fragments(room_id, players, users):
    """What each seat is sent equals each partial on that seat's whole context (the render cache)."""
    with translation.override("zh-hans"):
        for q in players:
            ctx = table.seat_context(room_id, users[q.position], "zh")
            for name in table.FRAGMENTS:
                whole = render_to_string(f"{table.TEMPLATE}#{name}", {**ctx, "oob": True})
                assert table.render_fragment(name, ctx) == whole, (name, q.position)


def page_choice(player, wins=True):
    """From this seat's own page: a win (when `wins`); else pass; on its turn the policy's discard
    among the page's discard buttons (the wild read off the table's bar)."""
    by_kind = {}
    for b in player.buttons():
        by_kind.setdefault(b.get("action"), []).append(b)
    if wins and "win" in by_kind:
        return by_kind["win"][0]
    if "pass" in by_kind:
        return by_kind["pass"][0]
    allowed = {b["tile"]: b for b in by_kind.get("discard", [])}
    assert allowed, f"seat {player.position} must act but its page offers nothing"
    hand = [parse_tile(t) for t in tiles_in(player.page["hand"]).elements()]
    wild = INDICATOR.search(player.page["table"])
    choice = face_name(choose_discard(hand, parse_tile(wild.group(1)) if wild else None))
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


async def answer_throws(players, room_id, names, choose):
    """Every seat answers every 扔弹 question from its own page (`choose(position, k)` a value)."""
    asked = []
    for _ in range(40):
        hand, state = await db(hand_snapshot, room_id)
        if state.phase != engine.DECIDE:
            return asked
        check_pages(players, state)
        k = int(state.decision.name.split("_")[1])
        n = state.n
        p = players[engine.waiting_player(state)[0]]
        prompt = p.page["actions"]
        rel = "对家" if n == 2 else {1: "下家", n - 1: "上家"}.get(k, "对家")
        assert f"你向{rel} {names[(p.position + k) % n]} 扔几弹？" in prompt, prompt
        assert f"扔弹（第 {k}/{n - 1} 问）" in prompt
        offered = decide_buttons(p.buttons())
        assert list(offered) == list(taizhou_trad.THROW_CHOICES)
        for q in players:  # the others: answered, or asked themselves; never anyone's answer
            if q is not p and q.position not in engine.waiting_player(state):
                assert "已选择，等待其他玩家。" in q.page["actions"] and "data-throw-value" not in q.page["actions"]
        value = choose(p.position, k)
        asked.append((p.position, k, value))
        await press(players, room_id, p, offered[value])
    pytest.fail("the questions did not end")


async def play_out(players, room_id, wins_from_stage=False, limit=600):
    for _ in range(limit):
        hand, state = await db(hand_snapshot, room_id)
        if hand.status != Hand.PLAYING:
            return hand
        check_pages(players, state)
        p = players[engine.waiting_player(state)[0]]
        wins = not wins_from_stage or taizhou_trad.shengpai_stage(state)
        await press(players, room_id, p, page_choice(p, wins))
    pytest.fail("the hand did not end")


def test_two_taizhou_trad_hands_over_the_sockets():
    room, users = make_room(players=4, length=4, variant="taizhou_trad", settings={"dan": 5, "throws": True})
    names = {s.position: s.user.profile.nickname
             for s in Seat.objects.filter(room=room).select_related("user__profile")}

    async def scenario():
        players = await start(room, users)
        hand, state = await db(hand_snapshot, room.pk)
        assert state.phase == engine.DECIDE and state.decision.name == "throw_1" and not any(state.hands)
        check_pages(players, state)
        for p in players:
            assert "扔弹后发牌" in p.page["table"] and 'class="countdown"' in p.page["actions"]

        # seat 2 throws 10 at its 下家: nobody sees it; seat 2 may not answer again; a wrong value is refused
        first = decide_buttons(players[2].buttons())
        await press(players, room.pk, players[2], first["10"])
        for p in players:
            assert not THROW.findall(p.html()) and "data-stake" not in p.html()
        assert "已选择，等待其他玩家。" in players[2].page["actions"]
        await refused(players, room.pk, players[2], first["5"], "不能这样做")
        await refused(players, room.pk, players[1], {**first["5"], "value": "7"}, "不能这样做")
        await db(check_fragments, room.pk, players, users)

        asked = await answer_throws(players, room.pk, names,
                                    lambda p, k: {(0, 2): "20", (1, 3): "2", (3, 1): "5"}.get((p, k), "0"))
        assert len(asked) == 11  # seat 2 answered the first one above
        hand, state = await db(hand_snapshot, room.pk)
        assert state.phase == engine.DISCARD
        # 2→3 10, 0→2 20, 1→0 2 (k = 3: 上家), 3→0 5 (k = 1: 下家): per pair 0–1 2, 0–2 20, 0–3 5, 2–3 10
        assert public_throws(state) == [("0", "1", "2"), ("0", "2", "20"), ("0", "3", "5"), ("2", "3", "10")]
        for p in players:
            assert '<b class="hand-dan">5</b>' in p.page["table"]
        await db(check_fragments, room.pk, players, users)

        # the first hand: wins only from the 生牌 stage, so the warning shows before the end
        hand = await play_out(players, room.pk, wins_from_stage=True)
        result = hand.result
        assert sum(result["net"]) == 0
        events = await db(lambda: [e["type"] for row in hand.events.all() for e in row.events])
        assert "flower" in events  # flowers were shown (and checked on every page above)
        await db(check_fragments, room.pk, players, users)
        for p in players:
            res = p.page["result"]
            assert "第 1 局结果" in res and "全包" not in res
            if result["transfers"]:
                assert re.search(r"本局 [+-]?\d+ 子（[+-]?[\d,]+ 金豆）", res), res
                assert '<th class="num">和</th><th class="num">番</th>' in res

        # the second hand: asked again; a kept deal names the stakes carried
        first_dealer = hand.dealer
        for p in players:
            await act(players, room.pk, p, {"action": "ready"})
        hand, state = await db(hand_snapshot, room.pk)
        assert hand.number == 2 and state.phase == engine.DECIDE
        if hand.dealer == first_dealer:
            assert public_throws(state) == [("0", "1", "2"), ("0", "2", "20"), ("0", "3", "5"), ("2", "3", "10")]
            assert "之间已经有" in players[0].page["actions"] or "之间已经有" in players[2].page["actions"]
        else:
            assert public_throws(state) == []
        await answer_throws(players, room.pk, names, lambda p, k: "0")
        hand = await play_out(players, room.pk)
        assert hand.status == Hand.ENDED and hand.number == 2
        for p in players:
            assert "第 2 局结果" in p.page["result"]
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_the_watchers_see_flowers_and_throws_but_no_prompt(settings):
    """A spectator (观战, no delay) of a traditional Taizhou table: the throws agreed and the flowers,
    never a question's buttons."""
    from games import spectators
    from games.models import Room

    room, users = make_room(players=2, length=4, variant="taizhou_trad", settings={"dan": 2})
    Room.objects.filter(pk=room.pk).update(spectators=Room.WATCH_ANYONE, spectator_delay=0)
    from tests.people import make_person

    watcher = make_person("tt_watcher", "看客")

    async def scenario():
        players = await start(room, users)
        await answer_throws(players, room.pk, {0: "昵称host", 1: "昵称guest1"}, lambda p, k: "5")
        hand, state = await db(hand_snapshot, room.pk)
        ctx = await db(spectators.spectator_context, room.pk, watcher, "zh")
        html = "".join(render_to_string(f"{table.TEMPLATE}#{name}", ctx) for name in ("status", "table", "actions"))
        assert sorted(THROW.findall(html)) == [("0", "1", "10")]  # the drawer's list of every stake
        assert "data-stake" not in html  # a watcher has no stake with anyone
        assert "decide" not in html
        flowers = state.rules.flowers(state)
        assert html.count('class="meld meld-flowers"') == sum(1 for f in flowers if f)
        for p in players:
            await p.comm.disconnect()

    run(scenario)
