"""One tile notation: the engine parses (games/engine/tiles.py, melds.py) and says why with a
TileError code; the site words the code and names the tiles (games/tile_names.py). The
calculator form, the {{ text|tiles }} chips and the tile drawings all go through them."""

import pytest
from django.template import Context, Template
from django.utils import translation

from games import tile_names
from games.engine.melds import parse_meld, split_meld
from games.engine.tiles import NUM_FACES, TILE_CODES, TileError, face_label, face_name, parse_tile, parse_tiles
from games.forms import CalculatorForm, read_meld, split_melds
from games.management.commands import make_tile_svgs

GOOD = {"variant": "taizhou", "seat": "S", "wild": "5s", "hand": "12m456m789m66z", "melds": "pung:222z",
        "win": "3m", "lang": "zh"}


def _form_errors(lang="zh-hans", **fields):
    with translation.override(lang):
        form = CalculatorForm(dict(GOOD, **fields))
        assert not form.is_valid()
        return {name: [str(e) for e in errors] for name, errors in form.errors.items()}


# --- the engine says why, with a code -----------------------------------------------------------

@pytest.mark.parametrize("text, code, params, english", [
    ("8z", "honour_range", {"tile": "8z"}, "no honor tile 8z (honors are 1z-7z) in '8z'"),
    ("123m0p", "suit_range", {"tile": "0p"}, "no tile 0p (suits run 1-9) in '123m0p'"),
    ("12x", "bad_text", {"text": "12x", "bad": "12x"}, "bad tile notation '12x': '12x' has no suit letter m/p/s/z"),
    ("1mx2p", "bad_text", {"text": "1mx2p", "bad": "x2p"}, "bad tile notation '1mx2p' at 'x'"),
    ("１２３m", "bad_text", {"text": "１２３m", "bad": "１２３m"}, None),  # only ASCII digits
    (5, "not_text", {}, "tiles must be a string in mpsz notation, e.g. 123m456p11z"),
])
def test_parse_errors_carry_a_code_and_params(text, code, params, english):
    with pytest.raises(TileError) as caught:
        parse_tiles(text)
    assert (caught.value.code, caught.value.params) == (code, params)
    assert caught.value.code in TILE_CODES
    if english:
        assert str(caught.value) == english


def test_one_tile_and_faces():
    with pytest.raises(TileError) as caught:
        parse_tile("55p")
    assert (caught.value.code, caught.value.params, str(caught.value)) == (
        "one_tile", {"text": "55p"}, "expected one tile, got '55p'")
    with pytest.raises(TileError) as caught:
        face_name(34)
    assert (caught.value.code, caught.value.params) == ("no_face", {"face": 34})


@pytest.mark.parametrize("text, code", [
    ("pung", "meld_syntax"), ("pong:777z", "meld_kind"), ("pung:8z", "honour_range"),
])
def test_meld_writing_errors(text, code):
    with pytest.raises(TileError) as caught:
        split_meld(text)
    assert caught.value.code == code


def test_meld_shape_errors_come_from_make_meld():
    assert split_meld("pung:667z") == ("pung", [32, 32, 33])  # the writing is fine
    with pytest.raises(TileError) as caught:
        parse_meld("pung:667z", None)
    assert (caught.value.code, caught.value.params) == ("meld_shape", {"kind": "pung", "tiles": "667z"})
    with pytest.raises(TileError) as caught:
        parse_meld("chow:345s", parse_tile("4s"))
    assert (caught.value.code, caught.value.params) == ("meld_wild", {"tile": "4s"})


# --- the site words every code -------------------------------------------------------------------

def test_every_tile_code_has_words_in_both_languages():
    assert set(tile_names.MESSAGES) == set(TILE_CODES)
    for code in TILE_CODES:
        error = TileError("x", code, {"tile": "8z", "text": "12x", "bad": "x", "kind": "pung", "tiles": "667z"})
        with translation.override("zh-hans"):
            zh = tile_names.error_message(error)
        with translation.override("en"):
            en = tile_names.error_message(error)
        assert zh and en and zh != en, code
        assert "%(" not in zh and "%(" not in en


def test_an_unknown_code_or_missing_params_still_read():
    with translation.override("zh-hans"):
        assert tile_names.error_message(TileError("x", "brand_new", {})) == "无法识别“”：请用 mpsz 写法，如 123m456p11z"
        assert tile_names.error_message(TileError("x", "meld_shape", {})) == " 不是"


# --- the calculator form keeps its messages ------------------------------------------------------

@pytest.mark.parametrize("field, bad, zh, en", [
    ("win", "8z", "8z：字牌只有 1z–7z", "8z: honors are 1z–7z"),
    ("hand", "0m123p", "0m：数牌只有 1–9", "0m: suits run from 1 to 9"),
    ("hand", "12x", "无法识别“12x”：请用 mpsz 写法，如 123m456p11z",
     "Cannot read “12x”: use mpsz notation, e.g. 123m456p11z"),
    ("hand", "123m４５６p", "无法识别“４５６p”：请用 mpsz 写法，如 123m456p11z",
     "Cannot read “４５６p”: use mpsz notation, e.g. 123m456p11z"),
    ("wild", "5", "无法识别“5”：请用 mpsz 写法，如 123m456p11z", "Cannot read “5”: use mpsz notation, e.g. 123m456p11z"),
    ("wild", "55P", "“55p”应为一张牌，如 5p", "“55p” must be a single tile, e.g. 5p"),
    ("melds", "pong:777z", "副露“pong:777z”应写成 种类:牌，如 pung:777z（种类：chow、pung、kong、ckong）",
     "Meld “pong:777z” must be kind:tiles, e.g. pung:777z (kinds: chow, pung, kong, ckong)"),
    ("melds", "pong：777z", "副露“pong：777z”应写成 种类:牌，如 pung:777z（种类：chow、pung、kong、ckong）",
     "Meld “pong：777z” must be kind:tiles, e.g. pung:777z (kinds: chow, pung, kong, ckong)"),
    ("melds", "777z", "副露“777z”应写成 种类:牌，如 pung:777z（种类：chow、pung、kong、ckong）",
     "Meld “777z” must be kind:tiles, e.g. pung:777z (kinds: chow, pung, kong, ckong)"),
    ("melds", "pung:", "无法识别“”：请用 mpsz 写法，如 123m456p11z", "Cannot read “”: use mpsz notation, e.g. 123m456p11z"),
    ("melds", "pung:9z", "9z：字牌只有 1z–7z", "9z: honors are 1z–7z"),
])
def test_the_form_says_exactly_what_is_wrong(field, bad, zh, en):
    assert _form_errors(**{field: bad})[field] == [zh]
    assert _form_errors("en", **{field: bad})[field] == [en]


def test_every_bad_meld_is_listed():
    assert _form_errors(melds="pong:777z, pung:8z\nchow:345s")["melds"] == [
        "副露“pong:777z”应写成 种类:牌，如 pung:777z（种类：chow、pung、kong、ckong）", "8z：字牌只有 1z–7z"]


def test_the_form_reads_what_players_type():
    form = CalculatorForm(dict(GOOD, wild=" 5P ", hand="12M 456m 789m 66z", win="3m",
                               melds="PUNG：222z；chow:543s,kong:1111m\nckong:9999p"))
    assert form.is_valid(), form.errors
    data = form.cleaned_data
    assert (data["wild"], data["hand"], data["win"]) == ("5p", "12m456m789m66z", "3m")
    # the kind is checked, the shape is the engine's call at scoring time (543s kept as written)
    assert data["melds"] == ["pung:222z", "chow:543s", "kong:1111m", "ckong:9999p"]
    assert split_melds(" a, b；c\n\nd ") == ["a", "b", "c", "d"]
    assert read_meld("pung:667z") == "pung:667z"


# --- names: the chips, labels and drawings use one table ----------------------------------------

def test_chip_faces_of_all_34_tiles():
    names = {face_name(f): tile_names.chip(f) for f in range(NUM_FACES)}
    assert names["1m"] == ("一", "万") and names["9p"] == ("九", "筒") and names["5s"] == ("五", "条")
    assert [names[f"{n}z"] for n in range(1, 8)] == [(c, "") for c in "东南西北白发中"]
    for f in range(NUM_FACES):
        assert "".join(tile_names.chip(f)) == face_label(f, "zh")


def test_the_tiles_filter():
    html = Template("{% load tiles %}{{ text|tiles:'5p' }}|{{ bad|tiles }}|{{ meld|meld_kind }}").render(
        Context({"text": " 15P7z", "bad": "12x", "meld": "ckong:9999p"}))
    assert html == ('<span class="tiles"><span class="tile tile-p" title="1p">一<small>筒</small></span>'
                    '<span class="tile tile-p tile-wild" title="5p">五<small>筒</small></span>'
                    '<span class="tile tile-z" title="7z">中<small></small></span></span>|12x|暗杠')
    with translation.override("en"):
        assert Template("{% load tiles %}{{ m|meld_kind }}").render(Context({"m": "pung:777z"})) == "Pung"


def test_the_drawings_are_titled_with_the_same_names():
    faces = make_tile_svgs.faces()
    for f in range(NUM_FACES):
        assert f"<title>{face_label(f, 'zh')}</title>" in faces[face_name(f)]
