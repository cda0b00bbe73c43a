"""A refused move reaches the player in their language through its code, never the engine's English.

The engine refuses with Illegal(code, params); games/refusals.py words every code; the service
refuses with that code (ServiceError/Outcome.code) and the socket shows the words."""

import pytest
from django.utils import translation

from games import refusals, services
from games.engine import game as engine
from games.engine.events import CODES, Illegal
from games.engine.tiles import face_name
from tests.replay_helpers import start_hand, users_by_position
from tests.room_helpers import connect, make_room, run

pytestmark = pytest.mark.django_db


def test_every_engine_code_has_words_in_both_languages():
    assert set(refusals.MESSAGES) == set(CODES)
    for code in CODES:
        refusal = Illegal(code, {"kind": "pung", "tile": "5p", "name": "buy", "value": "x", "action": "x",
                                 "field": "tile"})
        with translation.override("zh-hans"):
            zh = refusals.message(refusal)
        with translation.override("en"):
            en = refusals.message(refusal)
        assert zh and en and zh != en, code
        assert not any("a" <= c.lower() <= "z" for c in zh.replace("5p", "")), (code, zh)  # no English in Chinese
        assert "%(" not in zh and "%(" not in en


def test_parameters_are_worded_not_copied():
    with translation.override("zh-hans"):
        assert refusals.message(Illegal("cannot_discard", {"tile": "5z"})) == "现在不能打白"
        assert refusals.message(Illegal("cannot_claim", {"kind": "chow"})) == "这张牌你不能吃"
    with translation.override("en"):
        assert refusals.message(Illegal("cannot_claim", {"kind": "chow"})) == "you cannot Chow this discard"


def test_an_unknown_code_never_shows_english_internals(monkeypatch):
    monkeypatch.setitem(CODES, "brand_new", "some english")
    with translation.override("zh-hans"):
        assert refusals.message(Illegal("brand_new")) == "不能这样做"


@pytest.fixture
def hand(settings):
    settings.GAME_SEED_BASE = "tests"
    room, _users = make_room(players=4)
    return start_hand(room)


def _not_dealer(hand):
    users = users_by_position(hand.game.room)
    return next(u for p, u in users.items() if p != hand.dealer)


def test_out_of_turn_is_refused_with_its_code_and_nothing_changes(hand):
    before = hand.version
    with translation.override("zh-hans"):
        out = services.play(hand.pk, _not_dealer(hand), {"action": "discard", "tile": "1m"}, before)
    assert not out.ok and out.code == "not_your_turn"
    assert out.error == "不能这样做：还没轮到你"
    hand.refresh_from_db()
    assert hand.version == before


def test_a_tile_not_held_and_a_tile_that_does_not_exist(hand):
    dealer = users_by_position(hand.game.room)[hand.dealer]
    state = services.hand_state(hand)
    missing = next(f for f in range(34) if f not in state.hands[hand.dealer])
    with translation.override("en"):
        out = services.play(hand.pk, dealer, {"action": "discard", "tile": face_name(missing)}, hand.version)
        assert (out.ok, out.code, out.error) == (False, "not_held", "You cannot do that: you do not hold that tile")
        out = services.play(hand.pk, dealer, {"action": "discard", "tile": "0z"}, hand.version)
        assert (out.ok, out.code) == (False, "no_such_tile") and "0z" in out.error
    hand.refresh_from_db()
    assert hand.version == 0 and hand.events.count() == 0  # nothing appended


@pytest.mark.django_db(transaction=True)
def test_the_socket_shows_the_chinese_words(settings):
    settings.GAME_SEED_BASE = "tests"
    room, users = make_room(players=4)
    hand = start_hand(room)
    other = next(p for p in users if p != hand.dealer)

    async def scenario():
        player = await connect(room.pk, users[other], other)
        await player.comm.send_json_to({"action": "discard", "tile": "1m", "v": hand.version})
        reply = await player.comm.receive_from(timeout=5)
        assert "还没轮到你" in reply and "not your turn" not in reply
        await player.comm.disconnect()

    run(scenario)


def test_from_wire_is_the_one_parser(hand):
    action = services.parse_command(2, {"action": "chow", "tiles": "4p,6p", "tile": "5p", "v": 3})
    assert action == engine.Action("chow", 2, 13, (12, 14))
    with pytest.raises(services.ServiceError) as caught:
        services.parse_command(2, {"action": "discard", "tile": "10m"})
    assert caught.value.code == "no_such_tile"
