"""Pages. Thin function views: parse input, call one service, render."""

import json
from urllib.parse import urlencode

from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games import contracts
from games.engine.variants import taizhou_trad, zhuji
from games.forms import CalculatorForm
from games.variant_names import unit_label

# Worked examples of shared/rules/taizhou.md §10, linked from the rules page into the calculator.
TAIZHOU_EXAMPLES = [
    {"seat": "S", "wild": "9p", "hand": "123m456m789s345p2z", "melds": [], "win": "2z", "self_drawn": False},
    {"seat": "S", "wild": "9p", "hand": "123m456m789s345p2z", "melds": [], "win": "2z", "self_drawn": True},
    {"seat": "W", "wild": "5p", "hand": "34p5z678p222m999s1z", "melds": [], "win": "1z", "self_drawn": False},
    {"seat": "S", "wild": "5s", "hand": "12m456m789m66z", "melds": ["pung:222z"], "win": "3m", "self_drawn": False},
    {"seat": "E", "wild": "1s", "hand": "111s77z11z34m689p5z", "melds": []},
]

# The score_hands examples of shared/rules/wenzhou.md §9, linked from its rules page into the calculator.
WENZHOU_EXAMPLES = [
    {"variant": "wenzhou", "seat": "S", "wild": "9s", "hand": "234m567m111p678s13p9s2z", "melds": [],
     "win": "2z", "self_drawn": False, "base": 4},
    {"variant": "wenzhou", "seat": "E", "wild": "2m", "hand": "111s333m777z4p", "melds": ["pung:555z", "kong:9999p"],
     "win": "4p", "self_drawn": False},
    {"variant": "wenzhou", "seat": "W", "wild": "6p", "hand": "6p6p123m456m789s12345z", "melds": []},
]

# shared/rules/zhuji.md §8: the score_hands examples 1-3, then hands worth the 台 of the settle_hands
# examples 1-3 and of §5's 包 example, with their settlement fields; linked from its rules page.
ZHUJI_EXAMPLES = [
    {"variant": "zhuji", "seat": "E", "wilds": ["9m"], "hand": "111z234p567p888p9m", "melds": [], "win": "2p",
     "self_drawn": False},
    {"variant": "zhuji", "seat": "S", "wilds": [], "hand": "222z111m999p4s", "melds": ["kong:6666z"], "win": "4s",
     "self_drawn": True, "kong_replacement": True},
    {"variant": "zhuji", "seat": "N", "wilds": ["5p"], "hand": "123m456m789p222s5p", "melds": [], "win": "9s",
     "self_drawn": False},
    # settle 1: 翻, West wins on East's discard with 3 台 (碰碰胡, 位置 西, 中)
    {"variant": "zhuji", "seat": "W", "wilds": [], "hand": "333z777z111m999p5s", "melds": [], "win": "5s",
     "self_drawn": False, "discarder": "E"},
    # settle 2: 包, target 3, South wins on East's discard with 1 台 (平胡)
    {"variant": "zhuji", "seat": "S", "wilds": [], "hand": "123m456m789p234s5s", "melds": [], "win": "5s",
     "self_drawn": False, "mode": "bao", "target": 3, "discarder": "E"},
    # settle 3: 包, target 2, the dealer self-draws with 4 台, 无财 and 独
    {"variant": "zhuji", "seat": "E", "wilds": ["5m"], "hand": "111z222m555p444s9s", "melds": [], "win": "9s",
     "self_drawn": True, "mode": "bao", "target": 2},
    # §5: 包, target 2, West self-draws with 3 台
    {"variant": "zhuji", "seat": "W", "wilds": [], "hand": "333z777z111m999p5s", "melds": [], "win": "5s",
     "self_drawn": True, "mode": "bao", "target": 2},
]

# shared/rules/taizhou-traditional.md §10: the score_hands examples 1-2, then hands worth the winner's
# total of the settle_hands examples 1-3 with the other seats' totals, 弹, streak, throws and 点炮;
# linked from its rules page. ("totals" and "throws" are the calculator's table of the other seats.)
TAIZHOU_TRAD_EXAMPLES = [
    {"variant": "taizhou_trad", "seat": "S", "wild": "8p", "hand": "111m234s57p8p678m7z", "melds": [], "win": "7z",
     "self_drawn": True, "flowers": 1},
    {"variant": "taizhou_trad", "seat": "E", "wild": "3m", "hand": "999s66z3m147p2m", "melds": ["pung:111z"]},
    # settle 1: North wins 60 on South's discard; E 20, S 0, W 10; 弹 2; West threw 5 at North
    {"variant": "taizhou_trad", "seat": "N", "wild": "9p", "hand": "111m456m789s34p66z", "melds": [], "win": "2p",
     "self_drawn": False, "flowers": 1, "discarder": "S", "dan": 2, "totals": {"E": 20, "W": 10},
     "throws": {"W": 5}},
    # settle 2: the dealer wins 80 on West's discard, West 点炮; S 30, W 50, N 0; 弹 0
    {"variant": "taizhou_trad", "seat": "E", "wild": "9p", "hand": "456m34p22m", "melds": ["pung:111z", "pung:777z"],
     "win": "5p", "self_drawn": False, "discarder": "W", "dianpao": True, "totals": {"S": 30, "W": 50}},
    # settle 3: three players, the dealer's second hand, 弹 10: South self-draws a 劣子; E 0, W 40
    {"variant": "taizhou_trad", "seat": "S", "wild": "9p", "hand": "111m999m111s99p66z", "melds": [], "win": "6z",
     "self_drawn": True, "players": 3, "dan": 10, "streak": 2, "totals": {"W": 40}},
]
TAIZHOU_VARIANTS = ("taizhou", taizhou_trad.VARIANT_ID)  # the calculator offers one hand under both


def _ui_lang():
    return "en" if (get_language() or "").startswith("en") else "zh"


def calculator_url(example, lang=None):
    """A shareable calculator URL that scores `example` (a scoring-contract dict)."""
    params = {
        "variant": example.get("variant", "taizhou"),
        "seat": example["seat"],
        "wild": example.get("wild") or "",
        "hand": example["hand"],
        "melds": "\n".join(example.get("melds", [])),
        "win": example.get("win") or "",
        "lang": lang or _ui_lang(),
    }
    if example.get("self_drawn"):
        params["self_drawn"] = "on"
    if "base" in example:  # Wenzhou's own fields (wenzhou.md §9)
        params["base"] = example["base"]
    for name in ("first_turn", "robbed_kong", "quanqiu", "kong_replacement", "laozhuang", "last_tile", "dianpao"):
        if example.get(name):
            params[name] = "on"
    for number, face in enumerate(example.get("wilds") or [], 1):  # Zhuji's wild faces (zhuji.md §8)
        params[f"wild_{number}"] = face
    for name in ("mode", "target", "players", "discarder", "unit"):  # Zhuji's mode and settlement
        if example.get(name):
            params[name] = example[name]
    for name in ("flowers", "dan", "streak"):  # traditional Taizhou (taizhou-traditional.md §10)
        if example.get(name):
            params[name] = example[name]
    for kind in ("total", "throw"):  # its table of the other seats
        for seat, value in (example.get(kind + "s") or {}).items():
            params[f"{kind}_{seat}"] = value
    return reverse("games:calculator") + "?" + urlencode(params)


def home(request):
    return render(request, "games/home.html", {"example_url": calculator_url(TAIZHOU_EXAMPLES[3])})


def calculator(request):
    """Score calculator. GET with the form's fields scores (shareable URL); bare GET shows the form.

    htmx requests get only the result fragment ("games/calculator.html#result").
    """
    data = request.POST if request.method == "POST" else request.GET
    submitted = "hand" in data
    if submitted:
        # Short shared URLs may leave these out; fill them so the form shows what was scored.
        data = data.copy()
        for name, default in (("variant", "taizhou"), ("seat", "E"), ("lang", _ui_lang())):
            if not data.get(name):
                data[name] = default
    initial = {"lang": _ui_lang()}
    if not submitted and data.get("variant"):
        initial["variant"] = data["variant"]  # a link may choose the variant (a rules page's)
    form = CalculatorForm(data if submitted else None, initial=initial)
    contract_request = result = settle_request = settlement = None
    if submitted and form.is_valid():
        contract_request = form.contract_request()
        result = contracts.score(contract_request)
        settle_request = form.settle_request(result)  # Zhuji: the winner's payments
        if settle_request:
            settlement = contracts.settle(settle_request)

    factor = uncapped = None
    if result and result.get("ok"):
        points, tai = result.get("points"), result.get("tai")
        if isinstance(tai, int) and isinstance(points, (int, float)):
            factor = 2**tai
            uncapped = points * factor

    variant = contract_request["variant"] if contract_request else None
    rounded = None
    if variant == taizhou_trad.VARIANT_ID and uncapped is not None:
        rounded = -(-uncapped // 10) * 10  # §6: round up to ten, then the 劣子 cap
    context = {
        "form": form,
        "variant": variant,
        "unit": (TRAD_UNIT if variant == taizhou_trad.VARIANT_ID else unit_label(variant)) if variant else "",
        "rounded": rounded,
        "flower_tiles": _flower_tiles(contract_request),
        "other_taizhou": _other_taizhou(data) if submitted else None,
        "factor": factor,
        "uncapped": uncapped,
        "submitted": submitted,
        "contract_request": contract_request,
        "wilds": (contract_request.get("wilds") or [contract_request.get("wild")]) if contract_request else [],
        "items": _items(result, contract_request),
        "settle_request": settle_request,
        "settle_request_json": json.dumps(settle_request, ensure_ascii=False) if settle_request else "",
        "settlement": _settlement(settlement),
        "contract_request_json": json.dumps(contract_request, ensure_ascii=False) if contract_request else "",
        "result": result,
        "result_json": json.dumps(result, ensure_ascii=False, indent=1) if result else "",
    }
    htmx = getattr(request, "htmx", None)
    partial = bool(htmx) and not htmx.history_restore_request
    template = "games/calculator.html#result" if partial else "games/calculator.html"
    response = render(request, template, context)
    patch_vary_headers(response, ("HX-Request",))
    return response


TRAD_UNIT = pgettext_lazy("unit", "子")


def _flower_tiles(contract_request):
    """Traditional Taizhou: the flowers shown, as tiles ('5z5z'; reds when the wild is White)."""
    if not contract_request or contract_request["variant"] != taizhou_trad.VARIANT_ID:
        return ""
    try:
        face = taizhou_trad.flower_face(taizhou_trad.parse_tile(contract_request["wild"]))
    except Exception:  # noqa: BLE001 - the engine's answer says what is wrong
        return ""
    return taizhou_trad.face_name(face) * (contract_request.get("flowers") or 0)


def _other_taizhou(data):
    """The same hand under the other Taizhou variant (official <-> traditional): (its name, the
    calculator URL with every field kept, only the variant changed), or None for other variants."""
    from games.variant_names import variant_label

    if data.get("variant") not in TAIZHOU_VARIANTS:
        return None
    other = TAIZHOU_VARIANTS[1 - TAIZHOU_VARIANTS.index(data["variant"])]
    params = data.copy()
    params.pop("csrfmiddlewaretoken", None)
    params["variant"] = other
    return {"variant": other, "label": variant_label(other), "url": reverse("games:calculator") + "?" + params.urlencode()}


def _items(result, contract_request):
    """The result's items, a Zhuji item glossed in English (Z-S7: its names are the spec's)."""
    items = [dict(item) for item in (result or {}).get("items", []) if isinstance(item, dict)]
    if contract_request and contract_request["variant"] == zhuji.VARIANT_ID and contract_request["lang"] == "en":
        for item in items:
            if item.get("name") in zhuji.ITEM_EN:
                item["gloss"] = zhuji.ITEM_EN[item["name"]]
    return items


SEAT_WORDS = {"E": _("东"), "S": _("南"), "W": _("西"), "N": _("北")}
WHY_WORDS = {"win": _("和"), "contract": _("包"), "escape": _("逃跑"), "dan": _("弹"), "throw": _("扔弹"),
             "non-winners": _("闲家之间")}


def _settlement(answer):
    """A settle_hands answer for the page: seats and reasons worded; net in seat order."""
    if not answer:
        return None
    if not answer.get("ok"):
        return {"error": answer.get("error", "")}
    transfers = [{**t, "from_word": SEAT_WORDS.get(t["from"], t["from"]), "to_word": SEAT_WORDS.get(t["to"], t["to"]),
                  "why_word": WHY_WORDS.get(t["why"], t["why"])} for t in answer["transfers"]]
    net = [{"seat": s, "word": SEAT_WORDS.get(s, s), "amount": n} for s, n in answer["net"].items()]
    return {"transfers": transfers, "net": net}


def _rules_lang(request) -> str:
    """A rules page's language: ?lang=zh|en, else the UI language."""
    lang = request.GET.get("lang")
    return lang if lang in ("zh", "en") else _ui_lang()


def rules_taizhou(request):
    """The Taizhou rules in Chinese, or in English when the UI language is English or ?lang=en."""
    lang = _rules_lang(request)
    examples = [calculator_url(example, lang) for example in TAIZHOU_EXAMPLES]
    return render(request, "games/rules_taizhou.html", {"rules_lang": lang, "example_urls": examples})


def rules_wenzhou(request):
    """The Wenzhou rules in Chinese, or in English as for Taizhou; §9's examples open in the calculator."""
    lang = _rules_lang(request)
    examples = [calculator_url(example, lang) for example in WENZHOU_EXAMPLES]
    return render(request, "games/rules_wenzhou.html", {"rules_lang": lang, "example_urls": examples})


def rules_zhuji(request):
    """The Zhuji rules in Chinese, or in English as for Taizhou; §8's examples open in the calculator."""
    lang = _rules_lang(request)
    examples = [calculator_url(example, lang) for example in ZHUJI_EXAMPLES]
    return render(request, "games/rules_zhuji.html", {"rules_lang": lang, "example_urls": examples})


def rules_taizhou_trad(request):
    """The traditional Taizhou rules in Chinese, or in English as for Taizhou; §10's examples open in
    the calculator."""
    lang = _rules_lang(request)
    examples = [calculator_url(example, lang) for example in TAIZHOU_TRAD_EXAMPLES]
    return render(request, "games/rules_taizhou_trad.html", {"rules_lang": lang, "example_urls": examples})
