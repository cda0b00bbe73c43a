"""Room options have one definition: the variant's RoomOptions (games/engine/variants/base.py).

The lobby form takes its choices, bounds and defaults from it, the variants it offers from the
registry (the playable ones), and checks a choice with games.services.rooms.room_option_errors,
the same check create_room makes; the site settings give the initial turn and claim times."""

from dataclasses import replace

import pytest
from django.utils import translation

from accounts.models import SiteSettings
from games import services
from games.engine import variants
from games.engine.variants import RoomOptions
from games.forms import CreateRoomForm, variant_choices
from games.models import Room

pytestmark = pytest.mark.django_db

LOBBY = "/lobby/"
GOOD = {"variant": "taizhou", "players": "4", "length": "hands:8", "stake": "100", "turn_seconds": "15",
        "claim_seconds": "8"}
TAIZHOU = variants.get("taizhou").room_options


def _errors(form, lang="zh-hans"):
    with translation.override(lang):
        assert not form.is_valid()
        return {name: [str(e) for e in errors] for name, errors in form.errors.items()}


# --- the form's fields come from the variant ------------------------------------------------------

def test_the_form_fields_are_the_variants_bounds_and_choices():
    form = CreateRoomForm()
    for name in ("stake", "turn_seconds", "claim_seconds", "min_balance"):
        lo, hi = getattr(TAIZHOU, name)
        field = form.fields[name]
        assert (field.min_value, field.max_value) == (lo, hi)
        assert (field.widget.attrs["min"], field.widget.attrs["max"]) == (lo, hi)
        assert field.widget.attrs["inputmode"] == "numeric"
    assert [n for n, _label in form.fields["players"].choices] == sorted(TAIZHOU.players, reverse=True)
    assert [v for v, _label in form.fields["length"].choices] == [f"{k}:{n}" for k, n in TAIZHOU.lengths]
    defaults = TAIZHOU.with_defaults({})
    assert {name: form[name].value() for name in GOOD} == {
        "variant": "taizhou", "players": defaults["players"], "length": "hands:8", "stake": defaults["stake"],
        "turn_seconds": 15, "claim_seconds": 8}


def test_the_offered_variants_are_the_playable_ones_with_their_labels(register):
    with translation.override("zh-hans"):
        assert [(n, str(label)) for n, label in variant_choices()] == [
            ("taizhou", "台州麻将"), ("taizhou_trad", "传统台州麻将"), ("wenzhou", "温州麻将"), ("zhuji", "诸暨麻将")]
    with translation.override("en"):
        assert [(n, str(label)) for n, label in variant_choices()] == [("taizhou", "Taizhou Mahjong"),
                                                                        ("taizhou_trad", "Traditional Taizhou Mahjong"),
                                                                        ("wenzhou", "Wenzhou Mahjong"),
                                                                        ("zhuji", "Zhuji Mahjong")]
    register(replace(variants.get("taizhou"), name="toy_draft", title=(("zh", "草稿"), ("en", "Draft")),
                     playable=False))
    assert variants.playable() == ("taizhou", "taizhou_trad", "wenzhou", "zhuji") and "toy_draft" in variants.names()
    assert [n for n, _label in CreateRoomForm().fields["variant"].choices] == ["taizhou", "taizhou_trad", "wenzhou",
                                                                              "zhuji"]
    assert _errors(CreateRoomForm(dict(GOOD, variant="toy_draft")))["variant"]
    register(replace(variants.get("taizhou"), name="toy_ready", title=(("zh", "玩具"), ("en", "Toy")), playable=True))
    with translation.override("en"):  # no catalogue words for a new title: the variant's own English
        assert dict(variant_choices())["toy_ready"] == "Toy"
    with translation.override("zh-hans"):
        assert dict(variant_choices())["toy_ready"] == "玩具"


def test_the_lobby_page_names_the_variant(client, host):
    client.force_login(host)
    assert '<option value="taizhou" selected>台州麻将</option>' in client.get(LOBBY).content.decode()


# --- one check: the chosen variant's RoomOptions.validate -----------------------------------------

def test_a_narrower_variant_is_checked_on_the_right_fields(register, host):
    register(replace(variants.get("taizhou"), name="toy_short", playable=True,
                     room_options=RoomOptions(players=(4,), lengths=(("hands", 4),), turn_seconds=(10, 30))))
    form = CreateRoomForm(dict(GOOD, variant="toy_short", players="2", turn_seconds="5"))
    assert _errors(form) == {"players": ["人数只能是 4"], "length": ["局数只能是 4 局"],
                             "turn_seconds": ["出牌时间应在 10–30 秒之间"]}
    assert _errors(CreateRoomForm(dict(GOOD, variant="toy_short", players="2")), "en")["players"] == [
        "Players must be 4"]
    ok = CreateRoomForm(dict(GOOD, variant="toy_short", length="hands:4", turn_seconds="30"))
    assert ok.is_valid(), ok.errors
    room = services.create_room(host, **ok.room_options())
    assert (room.variant, room.players, room.length, room.turn_seconds) == ("toy_short", 4, 4, 30)
    with pytest.raises(services.ServiceError) as refused:
        services.create_room(host, variant="toy_short", players=4, length=4, turn_seconds=31)
    assert refused.value.code == "bad_option" and str(refused.value) == "出牌时间应在 10–30 秒之间"


@pytest.mark.parametrize("options, field, zh, en", [
    ({"variant": "sichuan"}, "variant", "暂不支持这个玩法", "This variant is not available yet"),
    ({"players": 5}, "players", "人数只能是 2/3/4", "Players must be 2/3/4"),
    ({"length_kind": "rounds", "length": 3}, "length", "局数只能是 4/8/16 局或 1/2 圈",
     "Length must be 4/8/16 hands or 1/2 rounds"),
    ({"stake": 0}, "stake", "底注应在 1 到 1,000,000 金豆之间", "The stake must be between 1 and 1,000,000 beans"),
    ({"turn_seconds": 121}, "turn_seconds", "出牌时间应在 5–120 秒之间", "Turn time must be 5–120 s"),
    ({"claim_seconds": 2}, "claim_seconds", "吃碰时间应在 3–60 秒之间", "Claim time must be 3–60 s"),
    ({"min_balance": -1}, "min_balance", "入座最低金豆应在 0 到 1,000,000,000,000 之间",
     "The minimum beans to sit must be between 0 and 1,000,000,000,000"),
    ({"stake": "100"}, "stake", "“底注（金豆/胡）”应为整数", "“Stake (beans per point)” must be a whole number"),
    ({"colour": "red"}, "colour", "没有“colour”这个房间选项", "“colour” is not a room option"),
])
def test_every_code_is_worded_on_its_field(options, field, zh, en):
    with translation.override("zh-hans"):
        assert services.room_option_errors({"variant": "taizhou", **options}) == [(field, zh)]
    with translation.override("en"):
        assert services.room_option_errors({"variant": "taizhou", **options}) == [(field, en)]


def test_create_room_refuses_with_the_same_check(host):
    with translation.override("zh-hans"):
        for options, message in (({"players": 5}, "人数只能是 2/3/4"), ({"stake": "abc"}, "“底注（金豆/胡）”应为整数"),
                                 ({"variant": "sichuan"}, "暂不支持这个玩法")):
            with pytest.raises(services.ServiceError) as refused:
                services.create_room(host, **options)
            assert (refused.value.code, str(refused.value)) == ("bad_option", message)
    assert not Room.objects.exists()


def test_create_room_takes_the_variants_defaults(host):
    room = services.create_room(host)
    defaults = TAIZHOU.with_defaults({})
    assert {name: getattr(room, name) for name in defaults} == defaults


# --- the site settings give the initial turn and claim times --------------------------------------

def test_site_settings_set_the_initial_times_on_the_create_room_page(client, host):
    client.force_login(host)
    form = client.get(LOBBY).context["form"]
    assert (form["turn_seconds"].value(), form["claim_seconds"].value()) == (15, 8)
    settings = SiteSettings.current()
    settings.default_turn_seconds, settings.default_claim_seconds = 25, 12
    settings.save()
    response = client.get(LOBBY)
    form = response.context["form"]
    assert (form["turn_seconds"].value(), form["claim_seconds"].value()) == (25, 12)
    html = response.content.decode()
    assert 'name="turn_seconds" value="25"' in html and 'name="claim_seconds" value="12"' in html
    client.post(LOBBY, dict(GOOD, turn_seconds="25", claim_seconds="12"))
    assert Room.objects.get().turn_seconds == 25


def test_site_settings_out_of_the_variants_bounds_are_clamped():
    settings = SiteSettings.current()
    settings.default_turn_seconds, settings.default_claim_seconds = 500, 1
    settings.save()
    form = CreateRoomForm()
    assert (form["turn_seconds"].value(), form["claim_seconds"].value()) == (TAIZHOU.turn_seconds[1],
                                                                              TAIZHOU.claim_seconds[0])


def test_a_posted_form_does_not_read_the_site_settings(django_assert_num_queries):
    with django_assert_num_queries(0):
        assert CreateRoomForm(GOOD).is_valid()
