"""/verify/: check a hand's wall (provably fair walls, games/fairness.py).

Public, GET only, nothing stored. From the seed and salt the replay reveals it recomputes the
commitment shown when the hand started (SHA-256 of "seed:salt") and compares it with the one given;
from the seed alone it rebuilds the wall (games.engine.game.build_wall) and deals it as the table
did (games.engine.game.new_hand with the players count and the dealer): the indicator (跳牌) and
every player's starting hand. Every field can come from the query string, so a replay links here:
/verify/?seed=..&salt=..&commitment=..&players=4&dealer=0
"""

from __future__ import annotations

import hmac
import re

from django import forms
from django.shortcuts import render
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from games import fairness, table
from games.engine import game as engine
from games.engine.tiles import face_label
from games.engine.view import sort_hand, tile_info

HEX64 = re.compile(r"^[0-9a-f]{64}$")
MAX_SEED = 2**63 - 1  # Hand.seed is a BigIntegerField


class VerifyForm(forms.Form):
    seed = forms.IntegerField(label=_("种子"), min_value=0, max_value=MAX_SEED, required=False)
    salt = forms.CharField(label=_("盐"), max_length=64, required=False)
    commitment = forms.CharField(label=_("承诺（开局时显示，可选）"), max_length=80, required=False)
    players = forms.TypedChoiceField(label=_("人数"), choices=[(4, "4"), (3, "3"), (2, "2")], coerce=int,
                                     required=False, empty_value=4)
    dealer = forms.IntegerField(label=_("庄家位置（0 起）"), min_value=0, max_value=3, required=False)

    def clean_commitment(self):
        value = (self.cleaned_data.get("commitment") or "").strip().lower()
        if value and not HEX64.match(value):
            raise forms.ValidationError(_("承诺应是 64 位十六进制数字"))
        return value

    def clean(self):
        data = super().clean()
        players = data.get("players") or 4
        dealer = data.get("dealer") or 0
        if dealer >= players:
            self.add_error("dealer", _("庄家位置应小于人数"))
        return data


def _deal(seed: int, players: int, dealer: int, lang: str) -> dict:
    state, _events = engine.new_hand(engine.Options(players=players), seed, dealer)
    wild = state.wild
    wall = engine.build_wall(seed)
    dealt = 14 + 13 * (players - 1)
    hands = []
    for p in range(players):
        hands.append({
            "position": p, "wind": face_label(state.seat_wind(p), lang), "dealer": p == dealer,
            "tiles": [tile_info(f, wild, lang) for f in sort_hand(state.hands[p], wild)],
        })
    return {
        "wall": [tile_info(f, wild, lang) for f in wall],
        "dealt": dealt,
        "live": len(state.wall),
        "indicator": tile_info(state.indicator, wild, lang),
        "wild": tile_info(wild, wild, lang),
        "hands": hands,
    }


@require_GET
def verify(request):
    lang = table.ui_lang(get_language())
    fields = ("seed", "salt", "commitment", "players", "dealer")
    bound = any(request.GET.get(f) for f in fields)
    form = VerifyForm(request.GET if bound else None, initial={"players": 4, "dealer": 0})
    ctx = {"form": form}
    if bound and form.is_valid() and form.cleaned_data.get("seed") is not None:
        data = form.cleaned_data
        seed, salt, given = data["seed"], data.get("salt") or "", data.get("commitment") or ""
        players, dealer = data.get("players") or 4, data.get("dealer") or 0
        computed = fairness.commitment(seed, salt)
        ctx.update({
            "checked": True, "seed": seed, "salt": salt, "players": players, "dealer": dealer,
            "computed": computed, "given": given,
            "match": None if not given else hmac.compare_digest(computed, given),
            **_deal(seed, players, dealer, lang),
        })
    return render(request, "games/verify.html", ctx)
