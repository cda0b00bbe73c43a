"""The room fragments the socket sends are rendered from small contexts and kept per process
(games/table.py render_memo, FRAGMENT_CONTEXT, the per-version room snapshot): every fragment
must be exactly what the partial renders from the seat's whole context, in every phase, for
every seat, at every step of a hand, and the cached socket path must show what the page shows."""

import random

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from games import services, table
from games.engine import game as engine
from games.models import Hand

from replay_helpers import choose, command_for, play_moves, start_hand, users_by_position
from room_helpers import make_room

pytestmark = pytest.mark.django_db(transaction=True)


def whole(ctx, name):
    return render_to_string(f"{table.TEMPLATE}#{name}", {**ctx, "oob": True})


def check(room, users, lang="zh"):
    """Every seat: each fragment as sent == the partial on the whole context, and the socket's
    cached snapshot path renders what a fresh read renders."""
    version = room.__class__.objects.get(pk=room.pk).version
    with translation.override(table.django_language(lang)):
        for p, user in users.items():
            ctx = table.seat_context(room.pk, user, lang)
            assert ctx is not None
            for name in table.FRAGMENTS:
                assert table.render_fragment(name, ctx) == whole(ctx, name), (name, p, ctx["phase"])
            assert table.render_clock(ctx) == whole(ctx, "clock")  # built in Python, as the table is
            for player in ([ctx["mine"], *ctx["others"]] if ctx.get("others") is not None else ()):
                small = {"p": {"melds": player["melds"], "river": player["river"], "flowers": player["flowers"]}}
                assert table._player_tiles(small) == render_to_string(table.PLAYER_TILES, small), (p, player)
                head = {"p": {k: player[k] for k in table.HEAD_KEYS}}
                assert table._player_head(head) == render_to_string(table.PLAYER_HEAD, head), (p, player)
            out = table.seat_fragments(room.pk, user, lang, "", version)  # the socket's path
            assert out is not None and out[0] == version
            sent = dict(out[2])
            header = sent.pop("header-beans", None)  # the seat's own 金豆, on the result screens only
            assert (header is not None) == (ctx["phase"] in table.SETTLED_PHASES), (p, ctx["phase"])
            assert sent == table.render_fragments(ctx), (p, ctx["phase"])


@pytest.mark.parametrize("variant", [None, "wenzhou", "zhuji", "taizhou_trad"])  # their questions before the hand too
def test_every_fragment_renders_as_from_the_whole_context_through_a_hand_and_after(settings, variant):
    settings.GAME_SEED_BASE = "table-render"
    room, _ = make_room(players=4, length=4, variant=variant)
    users = users_by_position(room)
    check(room, users)  # waiting, everyone seated
    services.set_ready(users[0], room.pk)
    check(room, users, "en")
    for user in list(users.values())[1:]:
        services.set_ready(user, room.pk)
    hand = Hand.objects.get(game__room=room, number=1)
    rng = random.Random(3)
    steps = 0
    while True:
        hand.refresh_from_db()
        check(room, users)
        if steps % 7 == 0:
            check(room, users, "en")
        if hand.status != Hand.PLAYING:
            break
        state = services.hand_state(hand)
        p = engine.waiting_player(state)[0]
        if steps == 10:  # a dissolve request shows a banner and changes the buttons
            services.vote_dissolve(users[1], room.pk, True)
            check(room, users)
            services.vote_dissolve(users[2], room.pk, False)
        out = services.play(hand.pk, users[p], command_for(choose(state, p, rng)), hand.version)
        assert out.ok, out.error
        steps += 1
    assert hand.status == Hand.ENDED  # the result screen was checked above
    services.set_ready(users[0], room.pk)
    check(room, users, "en")
    for user in users.values():  # everyone agrees: dissolved, with the summary of the hand played
        services.vote_dissolve(user, room.pk, True)
    check(room, users)
    check(room, users, "en")


@pytest.mark.parametrize("lang", ["zh-hans", "en"])
def test_a_player_head_built_in_python_is_the_partial_whatever_its_badges(lang):
    """Every badge of a player's head alone and together (a hand played covers few of them:
    flowers, 扔弹, offline, 电脑, 逃跑, 托管), with a name and labels that need escaping."""
    import itertools

    flags = ("dealer", "me", "online", "bot", "escaped", "auto", "in_turn")
    with translation.override(lang):
        for bits in itertools.product((False, True), repeat=len(flags)):
            for count, flowers, throw in ((1, [], 0), (13, ["1f", "2f"], 2), (0, ["3f"], 0)):
                p = {"rel": "上家", "name": 'a<b & "c"', "wind": "东", "count": count, "flowers": flowers, "throw": throw,
                     **dict(zip(flags, bits))}
                assert table._player_head({"p": p}) == render_to_string(table.PLAYER_HEAD, {"p": p}), p


@pytest.mark.parametrize("lang", ["zh-hans", "en"])
def test_the_claim_buttons_built_in_python_are_the_partial(lang):
    """The actions bar while a hand is played, each kind of button (tiles shown, a detail, neither),
    with values and words that need escaping; the cases with a banner or a question go to the
    template (render_fragment's own check is the playthrough above)."""
    buttons = [
        {"kind": "win", "text": "胡", "detail": "", "vals": '{"action":"win","v":3,"h":9}', "tiles": [{"code": "5p", "label": "五筒"}]},
        {"kind": "chow", "text": "吃", "detail": "3<4>5", "vals": '{"action":"chow","tiles":"4p 6p"}', "tiles": []},
        {"kind": "decide-yes", "text": "买底", "detail": "", "vals": '{"action":"decide","value":"yes"}'},
        {"kind": "pass", "text": "过", "detail": "", "vals": '{"action":"pass","v":3,"h":9}', "tiles": []},
    ]
    with translation.override(lang):
        for chosen in ([], buttons[:1], buttons):
            ctx = {"phase": "playing", "me": {"auto": False, "escaped": False}, "frozen": False, "buttons": chosen}
            assert table._playing_actions(chosen) == whole(ctx, "actions"), chosen
            assert table.render_fragment("actions", ctx) == whole(ctx, "actions")
        for banner in ({"frozen": True}, {"me": {"auto": True}}, {"me": {"escaped": True}}):  # the template's
            ctx = {"phase": "playing", "me": {}, "buttons": buttons, **banner}
            assert table.render_fragment("actions", ctx) == whole(ctx, "actions") != table._playing_actions(buttons)


def test_a_seat_never_gets_another_seats_hand_from_the_cache(settings):
    """Four seats render at one version through the shared caches: each hand fragment shows
    exactly its own concealed tiles (the tiles are part of every cache key that shows them)."""
    from room_helpers import tiles_in, visible_tiles

    settings.GAME_SEED_BASE = "table-render-2"
    room, _ = make_room(players=4, length=4)
    users = users_by_position(room)
    for user in users.values():
        services.set_ready(user, room.pk)
    hand = Hand.objects.get(game__room=room, number=1)
    rng = random.Random(8)
    for _step in range(40):
        hand.refresh_from_db()
        if hand.status != Hand.PLAYING:
            break
        state = services.hand_state(hand)
        version = room.__class__.objects.get(pk=room.pk).version
        for p, user in users.items():
            _v, _clock, fragments = table.seat_fragments(room.pk, user, "zh", "", version)
            seen = tiles_in(fragments["table"] + fragments["hand"] + fragments["actions"])
            assert seen == visible_tiles(state, p), p
        p = engine.waiting_player(state)[0]
        assert services.play(hand.pk, users[p], command_for(choose(state, p, rng)), hand.version).ok


TOAST = f"{table.TEMPLATE}#toast"


def test_the_memo_key_is_the_context_whatever_its_order_and_never_a_value_it_cannot_hold_exactly():
    table.clear_caches()
    with translation.override("zh-hans"):
        first = table.render_memo(TOAST, {"toast": "甲", "level": "error", "toast_id": 1})
        # the same values built in another order: the same entry (kept, not rendered again)
        assert table.render_memo(TOAST, {"toast_id": 1, "level": "error", "toast": "甲"}) is first
        assert table.render_memo(TOAST, {"toast": "乙", "level": "error", "toast_id": 1}) != first
        # a lazy translation is rendered every time, in the language of the moment
        lazy = translation.gettext_lazy("消息格式不对")
        zh = table.render_memo(TOAST, {"toast": lazy, "level": "error", "toast_id": 2})
    with translation.override("en"):
        en = table.render_memo(TOAST, {"toast": lazy, "level": "error", "toast_id": 2})
        assert en != zh and "消息格式不对" in zh
        # a model is never a key: it renders what it holds now
        hand = Hand(number=3)
        assert "3" in table.render_memo(TOAST, {"toast": hand.number, "level": "x", "toast_id": hand})
        hand.number = 4
        assert ">4<" in table.render_memo(TOAST, {"toast": hand.number, "level": "x", "toast_id": hand})
    with translation.override("zh-hans"):  # dates are keys by their exact value
        from datetime import datetime, timedelta, timezone as tz

        t = datetime(2026, 12, 2, tzinfo=tz.utc)
        a = table.render_memo(TOAST, {"toast": "x", "level": "x", "toast_id": t})
        b = table.render_memo(TOAST, {"toast": "x", "level": "x", "toast_id": t + timedelta(microseconds=1)})
        assert b is not a  # another entry (it shows the same minute)
        assert table.render_memo(TOAST, {"toast": "x", "level": "x", "toast_id": t}) is a


def test_a_ready_press_keeps_the_result_screens_memo_but_not_the_seats(settings):
    """On the result screen a 准备 press changes the ready marks (the seats fragment) and not the
    result: each seat's result is kept from the render before, and is still exactly the partial
    on the seat's whole context (a mark shown in the result would break the equality above)."""
    settings.GAME_SEED_BASE = "table-render-ready"
    room, _ = make_room(players=4, length=4)
    users = users_by_position(room)
    hand = start_hand(room)
    rng = random.Random(5)
    while hand.status == Hand.PLAYING:
        hand = play_moves(room, hand, users, 1, rng)
    before = {p: table.seat_context(room.pk, u, "zh") for p, u in users.items()}
    services.set_ready(users[2], room.pk)
    after = {p: table.seat_context(room.pk, u, "zh") for p, u in users.items()}
    small = table.FRAGMENT_CONTEXT
    for p in users:
        assert after[p]["phase"] == table.RESULT and any(s["ready"] for s in after[p]["seats"])
        assert small["result"](after[p]) == small["result"](before[p])  # the same memo key
        assert small["seats"](after[p]) != small["seats"](before[p])  # the mark is shown there
        assert table.render_fragment("result", after[p]) == whole(after[p], "result")
