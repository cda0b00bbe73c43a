"""Replays (回放): download and verify, tampering, rebuilds, the viewer frame by frame, who may see
what (link / players, signed out, hidden names), building on demand, the Celery task's retries."""

import json
import re
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.db import OperationalError
from django.test import Client

from accounts.models import LedgerEntry, Profile, SiteSettings
from games import replay_frames, replays, services
from games.engine import game as engine
from games.engine.tiles import face_name
from games.models import Hand, HandEvent, Replay, Room
from games.tasks import build_replay
from tests.replay_helpers import client_for
from tests.replay_helpers import SEED_GUEST_WINS, fixed_seeds, play_hand, start_hand, users_by_position

pytestmark = pytest.mark.django_db

TILE = re.compile(r'data-tile="([^"]+)"')


@pytest.fixture
def room(host, guest, monkeypatch):
    fixed_seeds(monkeypatch, [SEED_GUEST_WINS])
    room = services.create_room(host, players=2, length=4)
    services.join_room(guest, room.token)
    return room


@pytest.fixture
def finished(room, django_capture_on_commit_callbacks):
    """A finished 2-player hand: the guest wins on the host's discard; its replay built on commit."""
    replay_frames.clear_cache()
    with django_capture_on_commit_callbacks(execute=True):
        hand = play_hand(start_hand(room), users_by_position(room))
    assert hand.status == Hand.ENDED and hand.result["winner"] == 1
    return hand


def _replay(hand):
    replay = Replay.objects.filter(hand=hand).first()
    return replay if replay is not None else replays.build(hand.pk)


def _url(replay, step=None, ext=""):
    url = f"/replay/{replay.token}{ext}" if ext else f"/replay/{replay.token}/"
    return url if step is None else f"{url}?step={step}"


def _set_room(room, **fields):
    Room.objects.filter(pk=room.pk).update(**fields)


# --- the record ----------------------------------------------------------------------------

def test_the_task_stored_a_verified_replay_when_the_hand_ended(finished):
    replay = Replay.objects.get(hand=finished)  # built by the on-commit task (eager in tests)
    assert replay.status == Replay.OK, replay.problem
    assert len(replay.token) >= 24
    assert replay.data["actions"] and len(replay.data["actions"]) == finished.version
    assert replay.data["settlement"]["paid"] == finished.result["beans"]["paid"]


def test_download_round_trip_verifies_to_the_same_result(finished, host):
    replay = _replay(finished)
    response = client_for(host).get(_url(replay, ext=".json"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response["Content-Disposition"].startswith("attachment;")
    assert ".json" in response["Content-Disposition"]
    record = json.loads(response.content)
    assert record == replay.data
    problems, state = replays.verify(record)
    assert problems == []
    assert state.phase == engine.ENDED
    assert state.result.winner == finished.result["winner"] == 1
    assert list(state.result.net) == finished.result["net"]
    assert [s.total if s else None for s in state.result.scores] == \
        [s["total"] if s else None for s in finished.result["scores"]]
    finished.game.refresh_from_db()
    assert finished.game.totals == list(state.result.net)  # the first hand: totals = its net


def test_a_tampered_action_is_a_mismatch_staff_see_why_players_see_a_notice(finished, host, staff):
    event = HandEvent.objects.filter(hand=finished, action__kind="discard").order_by("seq")[2]
    action = dict(event.action)
    state = services.hand_state(finished)  # any face the discarder could not have thrown
    action["tile"] = "1m" if action["tile"] != "1m" else "2m"
    HandEvent.objects.filter(pk=event.pk).update(action=action)
    replay = replays.build(finished.pk)
    assert replay.status == Replay.MISMATCH and replay.problem
    assert state.phase == engine.ENDED

    staff_page = client_for(staff).get(_url(replay)).content.decode()
    assert replay.problem.splitlines()[0] in staff_page
    assert "rp-problem" in staff_page
    player_page = client_for(host).get(_url(replay)).content.decode()
    assert "rp-unverified" in player_page and "未能通过校验" in player_page
    assert replay.problem.splitlines()[0] not in player_page


def test_a_tampered_result_is_a_mismatch(finished, staff):
    result = dict(finished.result)
    result["net"] = [n + 5 if i == 0 else n - 5 for i, n in enumerate(result["net"])]
    Hand.objects.filter(pk=finished.pk).update(result=result)
    replay = replays.build(finished.pk)
    assert replay.status == Replay.MISMATCH
    assert "net" in replay.problem
    page = client_for(staff).get(_url(replay)).content.decode()
    assert "net 胡: recorded" in page


def test_rebuilding_is_idempotent(finished):
    first = _replay(finished)
    again = replays.build(finished.pk)
    third = replays.build(finished.pk)
    assert first.pk == again.pk == third.pk
    assert first.token == again.token == third.token
    assert again.status == third.status == Replay.OK
    assert again.data == third.data == first.data
    assert Replay.objects.filter(hand=finished).count() == 1


def test_the_task_twice_and_a_failed_attempt_retried_leave_one_good_replay(finished, monkeypatch):
    token = _replay(finished).token
    build_replay.apply(args=(finished.pk,))
    build_replay.apply(args=(finished.pk,))
    assert Replay.objects.filter(hand=finished).count() == 1
    Replay.objects.filter(hand=finished).delete()

    real = replays.build
    calls = []

    def flaky(hand_id):
        calls.append(hand_id)
        if len(calls) == 1:
            raise OperationalError("the database went away")
        return real(hand_id)

    monkeypatch.setattr(replays, "build", flaky)
    result = build_replay.apply(args=(finished.pk,), throw=False)  # fails, retries (eagerly), succeeds
    assert result.successful()
    assert len(calls) == 2
    replay = Replay.objects.get(hand=finished)
    assert replay.status == Replay.OK
    assert replay.token != token  # the lost row got a new secret; the hand got its replay back
    assert build_replay.apply(args=(finished.pk,)).successful()
    assert Replay.objects.get(hand=finished).token == replay.token


def test_unfinished_hands_have_no_replay(room):
    hand = start_hand(room)
    assert replays.build(hand.pk) is None
    assert not Replay.objects.filter(hand=hand).exists()


# --- the viewer ----------------------------------------------------------------------------

def _frame_html(page):
    start = page.index('id="frame"')
    end = page.index('class="rp-moves-box"') if 'class="rp-moves-box"' in page else len(page)
    return page[start:end]


def _hand_tiles(frame, position):
    """The concealed tiles (and drawn tile) the frame shows of one position."""
    m = re.search(r'data-position="%d">.*?<div class="rp-hand"[^>]*>(.*?)</div>' % position, frame, re.S)
    return Counter(TILE.findall(m.group(1)))


def test_the_viewer_steps_through_the_whole_hand_with_every_hand_open(finished, host):
    replay = _replay(finished)
    record = replay.data
    actions = [engine.Action.from_dict(a) for a in record["actions"]]
    last = len(actions)
    client = client_for(host)
    state, _ = engine.new_hand(engine.Options.from_dict(record["options"]), record["seed"], record["dealer"])
    for k in range(last + 1):
        if k:
            state, _ = engine.apply(state, actions[k - 1])
        response = client.get(_url(replay, k))
        assert response.status_code == 200
        page = response.content.decode()
        assert f"第 {k} / {last} 步" in page
        frame = _frame_html(page)
        for p in range(2):  # exactly the engine's concealed tiles, for every player
            assert _hand_tiles(frame, p) == Counter(face_name(t) for t in state.hands[p]) + (
                Counter([face_name(state.result.win_tile)]) if k == last and p == state.result.winner else Counter())
        assert f'<b class="rp-wall">{len(state.wall)}</b>' in frame
        if k < last:
            assert 'data-nav="next"' in frame and 'id="result"' not in frame
    # the last step: no "next", the result breakdown from the record
    assert 'data-nav="next"' not in frame
    result = finished.result
    assert "第 1 局结果" in frame and "南家小李 胡 东家老王 打出的" in frame
    for item in result["scores"][1]["items"]:
        assert item["name"] in frame
    total = result["scores"][1]["total"]
    assert f"= {total}" in frame
    paid = result["beans"]["paid"]
    assert f"本局 +{result['net'][1]} 胡（+{paid['1']} 金豆）" in frame
    assert f"本局 {result['net'][0]} 胡（{paid['0']} 金豆）" in frame
    assert "东家老王 付给 南家小李" in frame
    # every action is listed, each a link to its step
    assert page.count(f'href="{_url(replay)}?step=') >= last + 1
    assert "东家老王 打出" in page and "南家小李 摸" in page


def test_htmx_gets_only_the_frame_and_bad_steps_are_clamped(finished, host):
    replay = _replay(finished)
    client = client_for(host)
    partial = client.get(_url(replay, 3), HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<section id="frame"') and "<html" not in partial
    assert "第 3 / " in partial
    restore = client.get(_url(replay, 3), HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true")
    assert "<html" in restore.content.decode()
    last = len(replay.data["actions"])
    assert f"第 {last} / {last} 步" in client.get(_url(replay, 10_000)).content.decode()
    assert f"第 {last} / {last} 步" in client.get(_url(replay, "end")).content.decode()
    assert f"第 0 / {last} 步" in client.get(_url(replay, "x")).content.decode()
    assert f"第 0 / {last} 步" in client.get(_url(replay, -4)).content.decode()


def test_a_cut_settlement_shows_the_beans_owed_and_the_reason(room, host):
    SiteSettings.objects.update_or_create(pk=1, defaults={"hand_limit": 1000})
    replay_frames.clear_cache()
    hand = play_hand(start_hand(room), users_by_position(room))
    assert hand.result["beans"]["paid"] != hand.result["beans"]["owed"]
    replay = _replay(hand)
    assert replay.status == Replay.OK, replay.problem
    page = client_for(host).get(_url(replay, "end")).content.decode()
    owed = hand.result["beans"]["owed"]["1"]
    assert f"按规则应为 +{owed} 金豆，因单局输赢上限调整" in page
    assert "本局 +60 胡（+1000 金豆）" in page
    moved = sum(LedgerEntry.objects.filter(hand=hand, wallet__user__username="guest").values_list("amount", flat=True))
    assert moved == 1000


def test_english_viewer(finished, host):
    replay = _replay(finished)
    client = client_for(host)
    client.cookies["django_language"] = "en"
    page = client.get(_url(replay, "end"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Replay" in page and "Step" in page
    assert "Result of hand 1" in page


# --- who may see what ----------------------------------------------------------------------

def test_link_replays_open_for_anyone_with_the_link(finished, outsider):
    replay = _replay(finished)
    assert client_for().get(_url(replay)).status_code == 200
    assert client_for(outsider).get(_url(replay)).status_code == 200
    assert client_for().get(_url(replay, ext=".json")).status_code == 200
    assert client_for().get(f"/replay/{replay.token}x/").status_code == 404
    assert client_for().get(f"/replay/{replay.token}x.json").status_code == 404


def test_players_only_replays(finished, room, host, guest, outsider, staff):
    _set_room(room, replay_visibility=Room.REPLAY_PLAYERS)
    replay = _replay(finished)
    for ext in ("", ".json"):
        anonymous = client_for().get(_url(replay, ext=ext))
        assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/?next=")
        denied = client_for(outsider).get(_url(replay, ext=ext))
        assert denied.status_code == 404
        assert "找不到" in denied.content.decode()
        for user in (host, guest, staff):
            assert client_for(user).get(_url(replay, ext=ext)).status_code == 200


def test_hidden_names_for_viewers_who_did_not_play(finished, room, guest, outsider, staff):
    _set_room(room, replay_hide_names=True)
    replay = _replay(finished)
    for client in (client_for(), client_for(outsider)):
        page = client.get(_url(replay, "end")).content.decode()
        assert "玩家1" in page and "玩家2" in page
        assert "东家老王" not in page and "南家小李" not in page
        record = json.loads(client.get(_url(replay, ext=".json")).content)
        assert [p["name"] for p in record["players"]] == ["玩家1", "玩家2"]
        assert replays.verify(record)[0] == []
    for user in (guest, staff):
        page = client_for(user).get(_url(replay, "end")).content.decode()
        assert "东家老王" in page and "南家小李" in page
        record = json.loads(client_for(user).get(_url(replay, ext=".json")).content)
        assert [p["name"] for p in record["players"]] == ["东家老王", "南家小李"]
    # the stored record keeps the names
    replay.refresh_from_db()
    assert [p["name"] for p in replay.data["players"]] == ["东家老王", "南家小李"]


def test_the_viewer_shows_the_sharing_setting(finished, room, host, guest):
    replay = _replay(finished)
    assert "有链接的人都能看" in client_for(guest).get(_url(replay)).content.decode()
    _set_room(room, replay_visibility=Room.REPLAY_PLAYERS)
    page = client_for(host).get(_url(replay)).content.decode()
    assert "只有本房玩家" in page
    assert f"/history/{finished.game_id}/#sharing" in page  # the host may change it there
    assert f"/history/{finished.game_id}/#sharing" not in client_for(guest).get(_url(replay)).content.decode()


# --- building on demand --------------------------------------------------------------------

def test_a_missing_replay_is_built_when_a_player_opens_it(finished, host, outsider):
    Replay.objects.filter(hand=finished).delete()
    url = f"/history/{finished.game_id}/hand/{finished.number}/replay/"
    assert client_for(outsider).get(url).status_code == 404
    assert not Replay.objects.filter(hand=finished).exists()
    response = client_for(host).get(url)
    replay = Replay.objects.get(hand=finished)
    assert replay.status == Replay.OK
    assert response.status_code == 302 and response["Location"] == f"/replay/{replay.token}/"
    assert client_for(host).get(url)["Location"] == f"/replay/{replay.token}/"  # no second build
    assert Replay.objects.filter(hand=finished).count() == 1


def test_a_pending_replay_is_built_when_its_link_is_opened(finished):
    Replay.objects.filter(hand=finished).update(status=Replay.PENDING, data={})
    replay = Replay.objects.get(hand=finished)
    page = client_for().get(_url(replay, "end")).content.decode()
    assert "第 1 局结果" in page
    replay.refresh_from_db()
    assert replay.status == Replay.OK and replay.data["actions"]


def _styled_badges(page: str) -> set:
    """The `.badge.<kind>` rules of the stylesheets the page links (read from static/)."""
    from django.conf import settings as django_settings

    kinds = set()
    for href in re.findall(r'<link rel="stylesheet" href="/static/([^"?]+)', page):
        css = (django_settings.BASE_DIR / "static" / href).read_text(encoding="utf-8")
        kinds |= set(re.findall(r"\.badge\.([a-z-]+)", css))
    return kinds


def test_every_badge_on_the_replay_page_is_styled(finished, host):
    """The replay loads only the site's stylesheet: the seat badges it shows (庄, 出牌中, 超时自动,
    胡牌) must be styled there, not only in the live table's."""
    replay = _replay(finished)
    pages = [client_for(host).get(f"{_url(replay)}?step={k}").content.decode() for k in (1, 2, 3)]
    pages.append(client_for(host).get(_url(replay, "end")).content.decode())
    used = {kind for page in pages for kind in re.findall(r'class="badge ([a-z-]+)"', page)}
    assert {"dealer", "turn"} <= used  # the page does show them
    styled = _styled_badges(pages[0])
    assert used <= styled, f"unstyled badges on the replay page: {sorted(used - styled)}"


def _sides(page: str) -> dict:
    """{position: side} of the frame's seats (the live table's .felt layout)."""
    return {int(p): side for side, p in re.findall(r'class="player rp-seat side-([a-z]+)[^"]*" data-position="(\d)"', page)}


def test_the_frame_is_the_live_table_layout_with_the_viewer_at_the_bottom(finished, host, guest):
    """Each frame is the live table's grid (table.css, .felt): the viewer's own seat at the bottom,
    the other across (2 players); someone who did not play sees the first seat at the bottom."""
    replay = _replay(finished)
    host_page = client_for(host).get(_url(replay, 5)).content.decode()
    assert '<link rel="stylesheet" href="/static/css/table.css' in host_page
    assert 'class="table rp-table seats-2"' in host_page and 'class="felt"' in host_page
    assert _sides(host_page) == {0: "bottom", 1: "top"}
    assert '<span class="rel">你</span>' in host_page and '<span class="rel">对家</span>' in host_page
    assert _sides(client_for(guest).get(_url(replay, 5)).content.decode()) == {1: "bottom", 0: "top"}
    outsider = client_for().get(_url(replay, 5)).content.decode()  # the room shares replays by link
    assert _sides(outsider) == {0: "bottom", 1: "top"}
    assert '<span class="rel">你</span>' not in outsider


def test_seats_are_arranged_as_at_the_live_table_for_three_and_four():
    from games.replay_views import arrange

    def sides(n, bottom):
        frame = arrange({"players": [{"position": p} for p in range(n)]}, bottom, True)
        assert frame["mine"]["position"] == bottom
        return {p["position"]: (p["side"], p["rel"]) for p in frame["players"]}, [p["side"] for p in frame["others"]]

    assert sides(4, 2) == ({2: ("bottom", "你"), 3: ("right", "下家"), 0: ("top", "对家"), 1: ("left", "上家")},
                           ["left", "top", "right"])
    assert sides(3, 0) == ({0: ("bottom", "你"), 1: ("right", "下家"), 2: ("left", "上家")}, ["left", "right"])
