"""Anti-collusion at the table, over the real sockets: the same-IP warning (the client address from
the connection, X-Forwarded-For only behind TRUSTED_PROXY_HOPS trusted proxies), shared locations
(distances, the too-near warning, refused coordinates), and frozen accounts (watch only)."""

import pytest

from accounts.models import SiteSettings
from games import services
from games.models import Alert, Room, Seat
from games.table import format_distance

from room_helpers import act, connect, current_hand, db, hand_snapshot, make_room, make_user, run, sync_all

pytestmark = pytest.mark.django_db(transaction=True)

SHARED = "203.0.113.5"
OTHER = "198.51.100.7"
THIRD = "192.0.2.44"


@pytest.fixture(autouse=True)
def seeded(settings):
    settings.GAME_SEED_BASE = "tests"  # the first dealer is position 0 (东)


def names(users):
    return {p: "昵称" + u.username for p, u in users.items()}


def alerts(room_id, kind):
    return list(Alert.objects.filter(room_id=room_id, kind=kind).values_list("positions", flat=True))


def seat_ips(room_id):
    return dict(Seat.objects.filter(room_id=room_id).values_list("position", "ip"))


async def open_all(room, users, clients, **kwargs):
    players = [await connect(room.pk, users[p], p, client=clients[p], **kwargs) for p in sorted(users)]
    await sync_all(players, room.pk)
    return players


def no_ip_anywhere(players, *ips):
    for p in players:
        html = p.html()
        for ip in ips:
            assert ip not in html, f"seat {p.position} is shown an address"


def test_same_ip_warns_every_seat_names_the_seats_and_alerts_once(settings):
    room, users = make_room(players=3, length=4)
    nick = names(users)

    async def scenario():
        players = await open_all(room, users, {0: SHARED, 1: SHARED, 2: OTHER})
        assert await db(seat_ips, room.pk) == {0: SHARED, 1: SHARED, 2: OTHER}
        for p in players:  # every seated player, not only the two
            banner = p.page["alerts"]
            assert banner.count("same-ip") == 1, banner
            assert f"注意：{nick[0]}、{nick[1]} 使用同一网络（IP）" in banner
            assert nick[2] not in banner
        no_ip_anywhere(players, SHARED, OTHER)
        assert await db(alerts, room.pk, Alert.SAME_IP) == [[0, 1]]
        # reconnecting (and starting the hand) records nothing new; once playing, the seats have winds
        await players[1].comm.disconnect()
        players[1] = await connect(room.pk, users[1], 1, client=SHARED)
        await sync_all(players, room.pk)
        for p in players:
            await act(players, room.pk, p, {"action": "ready"})
        assert (await db(current_hand, room.pk)) is not None
        for p in players:
            assert f"注意：东 {nick[0]}、南 {nick[1]} 使用同一网络（IP）" in p.page["alerts"]
        no_ip_anywhere(players, SHARED, OTHER)
        assert await db(alerts, room.pk, Alert.SAME_IP) == [[0, 1]]
        alert = await db(lambda: Alert.objects.get(room_id=room.pk))
        assert await db(lambda: sorted(alert.users.values_list("pk", flat=True))) == sorted([users[0].pk, users[1].pk])
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_different_addresses_no_warning(settings):
    room, users = make_room(players=3, length=4)

    async def scenario():
        players = await open_all(room, users, {0: SHARED, 1: OTHER, 2: THIRD})
        for p in players:
            assert "same-ip" not in p.page["alerts"] and "同一网络" not in p.page["alerts"]
        assert await db(alerts, room.pk, Alert.SAME_IP) == []
        no_ip_anywhere(players, SHARED, OTHER, THIRD)
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_a_spoofed_forwarded_for_is_ignored_without_trusted_proxies(settings):
    settings.TRUSTED_PROXY_HOPS = 0
    room, users = make_room(players=2, length=4)

    async def scenario():
        spoof = [(b"x-forwarded-for", b"1.2.3.4")]  # both claim the same address
        players = await open_all(room, users, {0: SHARED, 1: OTHER}, headers=spoof)
        assert await db(seat_ips, room.pk) == {0: SHARED, 1: OTHER}
        for p in players:
            assert "同一网络" not in p.page["alerts"]
        assert await db(alerts, room.pk, Alert.SAME_IP) == []
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_behind_one_trusted_proxy_the_right_most_forwarded_address_counts(settings):
    settings.TRUSTED_PROXY_HOPS = 1
    room, users = make_room(players=3, length=4)
    nick = names(users)
    proxy = "10.0.0.2"  # every socket comes from the proxy

    async def scenario():
        players = []
        forwarded = {0: f"1.2.3.4, {SHARED}", 1: f"5.6.7.8, {SHARED}", 2: f"{SHARED}, {OTHER}"}
        for p in range(3):  # what the client wrote on the left is ignored; the proxy appended the right-most
            headers = [(b"x-forwarded-for", forwarded[p].encode())]
            players.append(await connect(room.pk, users[p], p, client=proxy, headers=headers))
        await sync_all(players, room.pk)
        assert await db(seat_ips, room.pk) == {0: SHARED, 1: SHARED, 2: OTHER}
        for p in players:
            assert f"注意：{nick[0]}、{nick[1]} 使用同一网络（IP）" in p.page["alerts"]
            assert nick[2] not in p.page["alerts"]
        no_ip_anywhere(players, SHARED, OTHER, proxy)
        assert await db(alerts, room.pk, Alert.SAME_IP) == [[0, 1]]
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_shared_locations_show_distances_and_a_near_pair_is_warned_about(settings):
    room, users = make_room(players=3, length=4)
    nick = names(users)
    here = (31.2304, 121.4737)
    north = (31.2304 + 2300 / 111_195, 121.4737)  # about 2.3 km
    east = (31.2304, 121.4737 + 40 / 95_060)  # about 40 m
    where = {0: here, 1: north, 2: east}

    async def scenario():
        players = await open_all(room, users, {0: SHARED, 1: OTHER, 2: THIRD})
        for p in players:
            assert "共享位置" in p.page["alerts"] and "data-share-location" in p.page["alerts"]
            assert "玩家距离" not in p.page["alerts"]
        await act(players, room.pk, players[0], {"action": "location", "lat": here[0], "lon": here[1]})
        assert "更新位置" in players[0].page["alerts"] and "共享位置" in players[1].page["alerts"]
        assert "玩家距离" not in players[1].page["alerts"]  # nobody to measure against yet
        # the page sends numbers; strings of numbers (a form) are fine too
        await act(players, room.pk, players[1], {"action": "location", "lat": str(north[0]), "lon": str(north[1])})
        await act(players, room.pk, players[2], {"action": "location", "lat": east[0], "lon": east[1]})
        d01 = services.distance_m(where[0], where[1])
        d02 = services.distance_m(where[0], where[2])
        d12 = services.distance_m(where[1], where[2])
        assert format_distance(d01) == "2.3 km" and format_distance(d02) == "40 m"
        for p in players:
            box = p.page["alerts"]
            assert f"{nick[0]}–{nick[1]} <b>2.3 km</b>" in box
            assert f"{nick[0]}–{nick[2]} <b>40 m</b>" in box
            assert f"{nick[1]}–{nick[2]} <b>{format_distance(d12)}</b>" in box
            assert box.count('class="alert warn near"') == 1
            assert f"注意：{nick[0]}、{nick[2]} 相距不到 100 米" in box
            for lat, lon in where.values():  # distances only, never where anyone is
                assert str(lat) not in p.html() and str(lon) not in p.html()
        assert await db(alerts, room.pk, Alert.NEAR) == [[0, 2]]
        # sharing again records no second alert; a stricter limit (set by staff) drops the warning
        await act(players, room.pk, players[2], {"action": "location", "lat": east[0], "lon": east[1]})
        assert await db(alerts, room.pk, Alert.NEAR) == [[0, 2]]
        await db(lambda: SiteSettings.objects.filter(pk=SiteSettings.current().pk).update(near_meters=30))
        await act(players, room.pk, players[0], {"action": "location", "lat": here[0], "lon": here[1]})
        for p in players:
            assert "相距不到" not in p.page["alerts"] and "40 m" in p.page["alerts"]
        # once the hand is on, the seats are named by their winds
        for p in players:
            await act(players, room.pk, p, {"action": "ready"})
        for p in players:
            assert "东 " + nick[0] + "–南 " + nick[1] + " <b>2.3 km</b>" in p.page["alerts"]
        for p in players:
            await p.comm.disconnect()

    run(scenario)


@pytest.mark.parametrize("lat, lon", [
    (91, 120), (-90.5, 0), (30, 180.01), (30, -181), ("north", 120), (30, "east"), (None, 120), (30, None),
    (True, 120), ([30], 120), ({"v": 30}, 120), ("nan", 120), (30, "inf"), ("1e400", 0), ("", 120),
])
def test_bad_coordinates_are_refused_to_the_sender_only(settings, lat, lon):
    room, users = make_room(players=2, length=4)

    async def scenario():
        players = await open_all(room, users, {0: SHARED, 1: OTHER})
        before = await db(lambda: Room.objects.get(pk=room.pk).version)
        message = {"action": "location", "lat": lat, "lon": lon}
        if lat is None:
            del message["lat"]
        await players[0].send(message)
        parts = await players[0].receive()
        assert set(parts) == {"toast"} and "位置格式不对" in parts["toast"]
        for p in players:
            await p.nothing_more()
        assert await db(lambda: Room.objects.get(pk=room.pk).version) == before
        assert await db(lambda: Seat.objects.filter(room=room, latitude__isnull=False).count()) == 0
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_an_overflowing_number_is_refused_too(settings):
    room, users = make_room(players=2, length=4)

    async def scenario():
        players = await open_all(room, users, {0: SHARED, 1: OTHER})
        await players[0].send('{"action": "location", "lat": 1%s, "lon": 2}' % ("0" * 400))  # an int too big for a float
        assert "位置格式不对" in (await players[0].receive())["toast"]
        await players[1].nothing_more()
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_a_frozen_player_watches_but_cannot_act(settings):
    room, users = make_room(players=2, length=4)
    staff = make_user("staff")
    nick = names(users)

    async def scenario():
        players = await open_all(room, users, {0: SHARED, 1: OTHER})
        for p in players:
            await act(players, room.pk, p, {"action": "ready"})
        hand, state = await db(hand_snapshot, room.pk)
        await db(services.set_frozen, staff, users[1], True, "测试：疑似串通")
        await sync_all(players, room.pk)
        frozen, host = players[1], players[0]
        assert "你的账号已被冻结" in frozen.page["alerts"]
        assert "你的账号已被冻结" not in host.page["alerts"]
        assert "取消托管" not in frozen.page["actions"]
        seat_box = host.page["table"].split(f'data-position="1"')[1]
        assert nick[1] in seat_box and 'class="badge auto"' in seat_box.split("</div>")[0]
        # the socket still connects (to watch) ...
        await frozen.comm.disconnect()
        frozen = players[1] = await connect(room.pk, users[1], 1, client=OTHER)
        await sync_all(players, room.pk)
        assert "你的账号已被冻结" in frozen.page["alerts"] and "table-bar" in frozen.page["table"]
        # ... but every action is refused, to that socket only
        v = hand.version
        tile = state.hands[1][0]
        from games.engine.tiles import face_name

        before = await db(lambda: Room.objects.get(pk=room.pk).version)
        for message in ({"action": "auto_off"}, {"action": "auto_on"}, {"action": "dissolve", "agree": True},
                        {"action": "ready"}, {"action": "location", "lat": 30, "lon": 120},
                        {"action": "pass", "v": v}, {"action": "discard", "tile": face_name(tile), "v": v}):
            await frozen.send(message)
            parts = await frozen.receive()
            assert set(parts) == {"toast"} and "冻结" in parts["toast"], message
        await host.nothing_more()
        assert await db(lambda: Room.objects.get(pk=room.pk).version) == before
        assert await db(lambda: Seat.objects.get(room=room, position=1).auto_play)
        for p in players:
            await p.comm.disconnect()

    run(scenario)
