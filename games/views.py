"""Pages. Thin function views: parse input, call one service, render."""

import json
from urllib.parse import urlencode

from django.shortcuts import render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language

from games import contracts
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
    for name in ("first_turn", "robbed_kong", "quanqiu"):
        if example.get(name):
            params[name] = "on"
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
    form = CalculatorForm(data if submitted else None, initial={"lang": _ui_lang()})
    contract_request = result = None
    if submitted and form.is_valid():
        contract_request = form.contract_request()
        result = contracts.score(contract_request)

    factor = uncapped = None
    if result and result.get("ok"):
        points, tai = result.get("points"), result.get("tai")
        if isinstance(tai, int) and isinstance(points, (int, float)):
            factor = 2**tai
            uncapped = points * factor

    variant = contract_request["variant"] if contract_request else None
    context = {
        "form": form,
        "variant": variant,
        "unit": unit_label(variant) if variant else "",
        "factor": factor,
        "uncapped": uncapped,
        "submitted": submitted,
        "contract_request": contract_request,
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
