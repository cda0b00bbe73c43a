import re

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from accounts.models import SiteSettings
from games import tile_names
from games.variant_names import scoring_variant_choices, variant_choices, variant_label  # noqa: F401
from games.engine import variants
from games.engine.melds import split_meld
from games.engine.tiles import TileError, face_name, parse_tile
from games.engine.variants.taizhou_trad import LIEZI as TRAD_LIEZI
from games.engine.variants.taizhou_trad import VARIANT_ID as TAIZHOU_TRAD
from games.engine.variants.taizhou_trad import flower_face as trad_flower_face
from games.engine.variants.wenzhou import BASES as WENZHOU_BASES
from games.engine.variants.wenzhou import VARIANT_ID as WENZHOU
from games.engine.variants.zhuji import TARGETS as ZHUJI_TARGETS
from games.engine.variants.zhuji import UNITS as ZHUJI_UNITS
from games.engine.variants.zhuji import VARIANT_ID as ZHUJI
from games.models import Room
from games.services import rooms


SEAT_CHOICES = [("E", _("东（庄家）")), ("S", _("南")), ("W", _("西")), ("N", _("北"))]
SEAT_ORDER = ("E", "S", "W", "N")  # with 3 players E, S, W; with 2 E, S (rules README)
LANG_CHOICES = [("zh", "中文"), ("en", "English")]


def split_melds(text):
    """Melds one per line or separated by commas/semicolons/spaces: 'pung:777z, chow:345s'."""
    return [part for part in re.split(r"[\s,;，；]+", text.strip().lower()) if part]


def read_meld(text):
    """'pung:777z' (or 'pung：777z') as the contract takes it; TileError if it is not kind:tiles
    with a known kind and mpsz tiles (whether the tiles make that meld is the engine's call)."""
    written = text if ":" in text else text.replace("：", ":", 1)
    try:
        kind, faces = split_meld(written)
    except TileError as exc:
        if exc.code in ("meld_syntax", "meld_kind"):
            exc.params["text"] = text  # as the player wrote it
        raise
    body = written.partition(":")[2]
    if not faces:
        raise TileError("no tiles", "bad_text", {"text": body, "bad": body})
    return f"{kind}:{body}"


def _seat_number(label, high, too_high):
    """One number of traditional Taizhou's table of the other seats (a total or a throw), 0..high."""
    return forms.IntegerField(
        label=label, min_value=0, max_value=high, required=False,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "placeholder": "0", "aria-label": label}),
        error_messages={"min_value": _("不能是负数"), "max_value": too_high, "invalid": _("请填写整数")})


class CalculatorForm(forms.Form):
    """The score calculator: the fields of the scoring contract (shared/rules/README.md)."""

    # variant, seat and lang may be left out of a URL: taizhou, East, the UI language.
    variant = forms.ChoiceField(label=_("玩法"), choices=scoring_variant_choices, initial=rooms.DEFAULT_VARIANT,
                                required=False)
    seat = forms.ChoiceField(label=_("门风"), choices=SEAT_CHOICES, initial="E", required=False)
    wild = forms.CharField(
        label=_("财神（翻出的牌）"),
        required=False,
        max_length=8,
        help_text=_("翻出的那张牌，如 5p；留空表示没有财神"),
        widget=forms.TextInput(attrs={"placeholder": "5p", "autocapitalize": "off", "autocomplete": "off"}),
    )
    hand = forms.CharField(
        label=_("手牌（暗牌）"),
        max_length=80,
        help_text=_("mpsz 写法：m 万、p 筒、s 条、z 字（1–7z = 东南西北白发中）。和牌者不含和的那张。"),
        widget=forms.TextInput(
            attrs={"placeholder": "123m456m789s345p2z", "autocapitalize": "off", "autocomplete": "off"}
        ),
    )
    melds = forms.CharField(
        label=_("副露"),
        required=False,
        max_length=200,
        help_text=_("每行一组或用逗号分开：chow:345s、pung:777z、kong:1111m（明杠）、ckong:9999p（暗杠）"),
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": "pung:777z", "autocapitalize": "off"}),
    )
    win = forms.CharField(
        label=_("和的牌"),
        required=False,
        max_length=8,
        help_text=_("留空则按未和牌的一家计分"),
        widget=forms.TextInput(attrs={"placeholder": "2z", "autocapitalize": "off", "autocomplete": "off"}),
    )
    self_drawn = forms.BooleanField(label=_("自摸"), required=False)
    # Wenzhou's own contract fields (wenzhou.md §9): shown only while Wenzhou is chosen (the
    # template marks their boxes for static/js/calculator.js); other variants ignore them.
    base = forms.TypedChoiceField(
        label=_("底"), choices=[(str(b), str(b)) for b in WENZHOU_BASES], coerce=int, empty_value=2,
        initial="2", required=False, help_text=_("本局的底：双数底 2、4、6、8，单数底 3、5、7、9（庄家连庄每局加 2）"))
    first_turn = forms.BooleanField(
        label=_("天胡／地胡"), required=False, help_text=_("东家（庄家）是天胡，须自摸；其他门风是地胡"))
    robbed_kong = forms.BooleanField(
        label=_("抢杠胡"), required=False, help_text=_("和的牌是别人加杠的那张（不能同时自摸）"))
    quanqiu = forms.BooleanField(
        label=_("全球神"), required=False, help_text=_("手牌只剩一张财神、五组副露，不填和的牌"))
    # Zhuji's own fields (zhuji.md §8 score_hands and settle_hands): shown only while Zhuji is
    # chosen; robbed_kong above serves Zhuji too. Zhuji has no indicator: its wild faces are given
    # here (both empty = 无财) and the common `wild` is ignored.
    wild_1 = forms.CharField(
        label=_("财神牌面"), required=False, max_length=8,
        help_text=_("诸暨麻将没有翻牌：这里填财神的牌面，这个牌面的 4 张都是财神；两格都空 = 无财"),
        widget=forms.TextInput(attrs={"placeholder": "5p", "autocapitalize": "off", "autocomplete": "off"}))
    wild_2 = forms.CharField(
        label=_("第二个财神牌面"), required=False, max_length=8, help_text=_("两个财神（8 张）时填，否则留空"),
        widget=forms.TextInput(attrs={"placeholder": "9m", "autocapitalize": "off", "autocomplete": "off"}))
    mode = forms.ChoiceField(label=_("计分方式"), choices=[("fan", _("翻")), ("bao", _("包"))], initial="fan",
                             required=False)
    target = forms.TypedChoiceField(
        label=_("包的台数"), choices=[(str(t), str(t)) for t in ZHUJI_TARGETS], coerce=int, empty_value=2,
        initial="2", required=False, help_text=_("只用于包：庄家定的台数；庄家和牌至少要这么多台"))
    kong_replacement = forms.BooleanField(
        label=_("杠开"), required=False, help_text=_("和的是开杠后补的牌（须自摸，副露里要有杠）"))
    players = forms.TypedChoiceField(
        label=_("人数"), choices=[("4", _("4 人")), ("3", _("3 人")), ("2", _("2 人"))], coerce=int,
        empty_value=4, initial="4", required=False, help_text=_("三人是东南西，两人是东南"))
    discarder = forms.ChoiceField(
        label=_("放冲的一家"), choices=[("", "—"), *SEAT_CHOICES], required=False,
        help_text=_("和别人打出的牌时，打出那张牌（抢杠时被抢杠）的一家；用来列出付分"))
    unit = forms.TypedChoiceField(
        label=_("底分"), choices=[(str(u), str(u)) for u in ZHUJI_UNITS], coerce=int, empty_value=1,
        initial="1", required=False, help_text=_("每一笔付分都乘以底分"))
    laozhuang = forms.BooleanField(
        label=_("老庄"), required=False, help_text=_("流局、包输或庄家和牌后的下一局：这一局所有付分加倍"))
    # Traditional Taizhou's own fields (taizhou-traditional.md §10): shown only while it is chosen;
    # robbed_kong, kong_replacement, players and discarder above serve it too; its wild is the
    # common indicator `wild` (required). The other seats' totals and throws with the winner are a
    # small table of their own (SEAT_FIELDS) for settle_hands.
    flowers = forms.TypedChoiceField(
        label=_("花"), choices=[(str(n), str(n)) for n in range(5)], coerce=int, empty_value=0, initial="0",
        required=False, help_text=_("这一家亮出的花的张数：白板；翻出的是白板时，红中是花"))
    last_tile = forms.BooleanField(label=_("海底捞月"), required=False, help_text=_("自摸黄牌前的最后一张牌"))
    dianpao = forms.BooleanField(
        label=_("点炮（打生牌）"), required=False,
        help_text=_("生牌阶段放冲的一家打出的是生牌：他一家付清和牌者应得的全部，还替其他闲家付"))
    dan = forms.IntegerField(
        label=_("弹"), min_value=0, max_value=10000, initial=0, required=False,
        help_text=_("房间的弹，常用 0、2、5、10、20、50、100"), widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
        error_messages={"min_value": _("不能是负数"), "max_value": _("最多 10000"), "invalid": _("请填写整数")})
    streak = forms.IntegerField(
        label=_("连庄"), min_value=1, max_value=100, initial=1, required=False,
        help_text=_("庄家这是第几局：第一局 1，每连一庄加 1；弹的奖励 = 弹 × 连庄（自摸 ×2）"),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
        error_messages={"min_value": _("至少是 1"), "max_value": _("最多 100"), "invalid": _("请填写整数")})
    total_E = _seat_number(_("东家的总分"), TRAD_LIEZI, _("总分最多 400（劣子按 400 计）"))
    total_S = _seat_number(_("南家的总分"), TRAD_LIEZI, _("总分最多 400（劣子按 400 计）"))
    total_W = _seat_number(_("西家的总分"), TRAD_LIEZI, _("总分最多 400（劣子按 400 计）"))
    total_N = _seat_number(_("北家的总分"), TRAD_LIEZI, _("总分最多 400（劣子按 400 计）"))
    throw_E = _seat_number(_("东家与和牌者的扔弹"), 100000, _("最多 100000"))
    throw_S = _seat_number(_("南家与和牌者的扔弹"), 100000, _("最多 100000"))
    throw_W = _seat_number(_("西家与和牌者的扔弹"), 100000, _("最多 100000"))
    throw_N = _seat_number(_("北家与和牌者的扔弹"), 100000, _("最多 100000"))
    lang = forms.ChoiceField(label=_("明细语言"), choices=LANG_CHOICES, initial="zh", required=False)

    WENZHOU_FIELDS = ("base", "first_turn", "robbed_kong", "quanqiu")
    ZHUJI_FIELDS = ("wild_1", "wild_2", "mode", "target", "robbed_kong", "kong_replacement", "players",
                    "discarder", "unit", "laozhuang")
    SEAT_FIELDS = tuple(f"{kind}_{seat}" for seat in SEAT_ORDER for kind in ("total", "throw"))
    TAIZHOU_TRAD_FIELDS = ("flowers", "robbed_kong", "kong_replacement", "last_tile", "players", "discarder",
                           "dianpao", "dan", "streak", *SEAT_FIELDS)
    # the fields only some variants read (the others' are ignored, even when a URL has them wrong)
    VARIANT_FIELDS = {WENZHOU: WENZHOU_FIELDS, ZHUJI: ZHUJI_FIELDS, TAIZHOU_TRAD: TAIZHOU_TRAD_FIELDS}

    def trad_seat_rows(self):
        """(seat word, bound total field, bound throw field) per seat: traditional Taizhou's table."""
        return [(dict(SEAT_CHOICES)[seat], self[f"total_{seat}"], self[f"throw_{seat}"]) for seat in SEAT_ORDER]

    def wenzhou_fields(self):
        """The bound fields only Wenzhou reads (the template shows them together)."""
        return [self[name] for name in self.WENZHOU_FIELDS]

    def variant_fields(self):
        """(bound field, the variants reading it as "wenzhou zhuji") of every variant's own field, in
        the order shown; the template marks each box for static/js/calculator.js."""
        order = dict.fromkeys(name for names in self.VARIANT_FIELDS.values() for name in names
                              if name not in self.SEAT_FIELDS)  # those are a table of their own
        return [(self[name], " ".join(v for v, names in self.VARIANT_FIELDS.items() if name in names))
                for name in order]

    def clean_variant(self):
        return self.cleaned_data.get("variant") or rooms.DEFAULT_VARIANT

    def clean_seat(self):
        return self.cleaned_data.get("seat") or "E"

    def clean_lang(self):
        lang = self.cleaned_data.get("lang")
        if not lang:
            lang = "en" if (get_language() or "").startswith("en") else "zh"
        return lang

    def _tile_field(self, name):
        text = tile_names.compact(self.cleaned_data.get(name, ""))
        if not text:
            return ""
        try:
            return face_name(parse_tile(text))
        except TileError as exc:
            raise forms.ValidationError(tile_names.error_message(exc)) from None

    def clean_wild(self):
        return self._tile_field("wild")

    def clean_win(self):
        return self._tile_field("win")

    def clean_wild_1(self):
        return self._tile_field("wild_1")

    def clean_wild_2(self):
        return self._tile_field("wild_2")

    def clean_hand(self):
        text = tile_names.compact(self.cleaned_data["hand"])
        try:
            tile_names.read_tiles(text)
        except TileError as exc:
            raise forms.ValidationError(tile_names.error_message(exc)) from None
        return text

    def clean_melds(self):
        melds = []
        errors = []
        for part in split_melds(self.cleaned_data.get("melds", "")):
            try:
                melds.append(read_meld(part))
            except TileError as exc:
                errors.append(tile_names.error_message(exc))
        if errors:
            raise forms.ValidationError(errors)
        return melds

    def clean(self):
        data = super().clean()
        if data.get("self_drawn") and not data.get("win") and "win" not in self.errors:
            self.add_error("win", _("自摸时请填写和的牌"))
        if data.get("variant") == WENZHOU:
            if not data.get("wild") and "wild" not in self.errors:
                self.add_error("wild", _("温州麻将一定有财神，请填写翻出的那张牌，如 5p"))
            elif data.get("win") and data.get("win") == data.get("wild") and not data.get("self_drawn"):
                self.add_error("win", _("别人打出的财神不能和（和财神只能自摸）"))
        if data.get("variant") == ZHUJI:
            self._clean_zhuji(data)
        if data.get("variant") == TAIZHOU_TRAD:
            self._clean_taizhou_trad(data)
        # a variant's own fields mean nothing to another variant, even when a URL has them wrong
        own = self.VARIANT_FIELDS.get(data.get("variant"), ())
        for name in {n for names in self.VARIANT_FIELDS.values() for n in names} - set(own):
            self.errors.pop(name, None)
            data.pop(name, None)
        return data

    def _clean_zhuji(self, data):
        """Zhuji's checks (zhuji.md §8), worded for players; the common `wild` is not Zhuji's."""
        self.errors.pop("wild", None)
        data["wild"] = ""
        faces = [f for f in (data.get("wild_1"), data.get("wild_2")) if f]
        if len(faces) == 2 and faces[0] == faces[1]:
            self.add_error("wild_2", _("两个财神牌面不能相同"))
        win, self_drawn = data.get("win"), data.get("self_drawn")
        if win and win in faces and not self_drawn:
            self.add_error("win", _("别人打出的财神不能和（和财神只能自摸）"))
        if not win and "win" not in self.errors:
            for name in ("robbed_kong", "kong_replacement"):
                if data.get(name):
                    self.add_error(name, _("请填写和的牌"))
        elif win:
            if data.get("robbed_kong") and self_drawn:
                self.add_error("robbed_kong", _("抢杠胡是和别人加杠的那张牌，不能同时自摸"))
            if data.get("kong_replacement"):
                if not self_drawn:
                    self.add_error("kong_replacement", _("杠开是自摸：请勾选自摸"))
                elif "melds" not in self.errors and not any(
                        m.startswith(("kong:", "ckong:")) for m in data.get("melds", [])):
                    self.add_error("kong_replacement", _("杠开时副露里要有一个杠（kong 或 ckong）"))
        seats = self._check_seats(data, win, self_drawn)

    def _check_seats(self, data, win, self_drawn):
        """The winner's seat and the discarder among the seated players (Zhuji, traditional Taizhou)."""
        seats = SEAT_ORDER[:data.get("players") or 4]
        if "seat" not in self.errors and data.get("seat") not in seats:
            self.add_error("seat", _("这个门风不在座：三人是东、南、西，两人是东、南"))
        discarder = data.get("discarder")
        if discarder and win:
            if self_drawn:
                self.add_error("discarder", _("自摸时没有放冲的一家"))
            elif discarder == data.get("seat"):
                self.add_error("discarder", _("放冲的一家不能是和牌的一家"))
            elif discarder not in seats:
                self.add_error("discarder", _("放冲的一家不在座（三人是东南西，两人是东南）"))
        return seats

    def _clean_taizhou_trad(self, data):
        """Traditional Taizhou's checks (taizhou-traditional.md §10), worded for players."""
        wild, win, self_drawn = data.get("wild"), data.get("win"), data.get("self_drawn")
        if not wild and "wild" not in self.errors:
            self.add_error("wild", _("传统台州麻将一定有得（财神）：请填写翻出的那张牌，如 8p"))
        elif wild:
            flower = trad_flower_face(parse_tile(wild))
            written = [data.get("hand", ""), *data.get("melds", []), win or ""]
            if any(flower in _faces(text) for text in written):
                word = _("红中") if flower == parse_tile("7z") else _("白板")
                self.add_error("hand", _("%(tile)s是这手牌的花：不要写进手牌、副露或和的牌，算在“花”的张数里")
                               % {"tile": word})
            if win and win == wild and not self_drawn:
                self.add_error("win", _("别人打出的财神不能和（和财神只能自摸）"))
        if not win and "win" not in self.errors:
            for name in ("robbed_kong", "kong_replacement", "last_tile", "dianpao"):
                if data.get(name):
                    self.add_error(name, _("请填写和的牌"))
        elif win:
            if data.get("robbed_kong") and self_drawn:
                self.add_error("robbed_kong", _("抢杠胡是和别人加杠的那张牌，不能同时自摸"))
            if data.get("kong_replacement"):
                if not self_drawn:
                    self.add_error("kong_replacement", _("杠开是自摸：请勾选自摸"))
                elif "melds" not in self.errors and not any(
                        m.startswith(("kong:", "ckong:")) for m in data.get("melds", [])):
                    self.add_error("kong_replacement", _("杠开时副露里要有一个杠（kong 或 ckong）"))
            if data.get("last_tile") and not self_drawn:
                self.add_error("last_tile", _("海底捞月是自摸最后一张牌：请勾选自摸"))
        seats = self._check_seats(data, win, self_drawn)
        discarder = data.get("discarder")
        if data.get("dianpao") and win:
            if self_drawn:
                self.add_error("dianpao", _("自摸时没有点炮"))
            elif data.get("robbed_kong"):
                self.add_error("dianpao", _("抢杠胡不算点炮：没有人打出牌（T-S9）"))
            elif not discarder:
                self.add_error("dianpao", _("点炮时请选择放冲的一家"))
        # the other seats' totals and throws count only for the seated players other than the winner
        used = {s for s in seats if s != data.get("seat")} if win else set()
        for name in self.SEAT_FIELDS:
            if name[-1] not in used:
                self.errors.pop(name, None)
                data.pop(name, None)

    def contract_request(self):
        """The scoring-contract dict for the cleaned data."""
        data = self.cleaned_data
        request = {
            "variant": data["variant"],
            "seat": data["seat"],
            "wild": data["wild"] or None,
            "hand": data["hand"],
            "melds": data["melds"],
            "lang": data["lang"],
        }
        if data["win"]:
            request["win"] = data["win"]
            request["self_drawn"] = bool(data["self_drawn"])
        if data["variant"] == WENZHOU:
            request["base"] = data.get("base") or 2
            for name in ("first_turn", "robbed_kong", "quanqiu"):
                if data.get(name):
                    request[name] = True
        if data["variant"] == ZHUJI:  # zhuji.md §8: the wild faces as `wilds`, the mode and 包's target
            del request["wild"]
            request["wilds"] = [f for f in (data.get("wild_1"), data.get("wild_2")) if f]
            request["mode"] = data.get("mode") or "fan"
            if request["mode"] == "bao":
                request["target"] = data.get("target") or 2
            for name in ("robbed_kong", "kong_replacement"):
                if data.get(name) and data["win"]:
                    request[name] = True
        if data["variant"] == TAIZHOU_TRAD:  # taizhou-traditional.md §10
            if data.get("flowers"):
                request["flowers"] = data["flowers"]
            for name in ("robbed_kong", "kong_replacement", "last_tile"):
                if data.get(name) and data["win"]:
                    request[name] = True
        return request

    def settle_request(self, score):
        """Zhuji's settle_hands request for the scored winner (zhuji.md §8): the dealer is East, the
        winner the scored seat, the discarder as chosen; None when there is nothing to settle
        (another variant, no win, a win on a discard without its discarder)."""
        data = self.cleaned_data
        if data["variant"] == TAIZHOU_TRAD:
            return self._settle_taizhou_trad(score)
        if data["variant"] != ZHUJI or not (score or {}).get("ok") or not score.get("winner"):
            return None
        discarder = None if data["self_drawn"] else data.get("discarder")
        if not data["self_drawn"] and not discarder:
            return None
        mode = data.get("mode") or "fan"
        request = {"variant": ZHUJI, "mode": mode, "seats": list(SEAT_ORDER[:data.get("players") or 4]),
                   "dealer": "E", "winner": data["seat"], "discarder": discarder, "tai": score["tai"],
                   "unit": data.get("unit") or 1, "laozhuang": bool(data.get("laozhuang"))}
        if mode == "bao":
            request.update(target=data.get("target") or 2, no_wild=bool(score.get("no_wild")),
                           single_wait=bool(score.get("single_wait")))
        return request

    def _settle_taizhou_trad(self, score):
        """Traditional Taizhou's settle_hands request for the scored winner (taizhou-traditional.md
        §10): the dealer is East, the winner the scored seat with its total, the other seats' totals
        and throws with the winner from the table, the discarder as chosen (the robbed player for
        抢杠), 点炮 as ticked; None when there is nothing to settle."""
        data = self.cleaned_data
        if not (score or {}).get("ok") or not score.get("winner"):
            return None
        discarder = None if data["self_drawn"] else data.get("discarder")
        if not data["self_drawn"] and not discarder:
            return None
        winner = data["seat"]
        seats = list(SEAT_ORDER[:data.get("players") or 4])
        totals = {s: score["total"] if s == winner else data.get(f"total_{s}") or 0 for s in seats}
        capped = {s: bool(score.get("capped")) if s == winner else totals[s] >= TRAD_LIEZI for s in seats}
        throws = [{"by": s, "at": winner, "amount": data[f"throw_{s}"]} for s in seats
                  if s != winner and data.get(f"throw_{s}")]
        return {"variant": TAIZHOU_TRAD, "dealer": "E", "winner": winner, "discarder": discarder,
                "totals": totals, "capped": capped, "dan": data.get("dan") or 0, "streak": data.get("streak") or 1,
                "throws": throws, "dianpao": discarder if data.get("dianpao") else None}


def _faces(text):
    """The faces of a hand's, a meld's ('pung:777z') or a tile's text, [] when they cannot be read."""
    try:
        return tile_names.read_tiles(tile_names.compact(text).split(":")[-1])
    except TileError:
        return []


# --- the lobby's "create a room" form ----------------------------------------------------------
# Choices and bounds come from the offered variants' RoomOptions (games/engine/variants/base.py);
# clean() asks games.services.rooms.room_option_errors, the one check create_room makes too.

PLAYER_LABELS = {4: _("4 人"), 3: _("3 人"), 2: _("2 人")}
LENGTH_CHOICES = [
    ("hands:4", _("4 局")),
    ("hands:8", _("8 局")),
    ("hands:16", _("16 局")),
    ("rounds:1", _("1 圈")),
    ("rounds:2", _("2 圈")),
]
NUMERIC = {"inputmode": "numeric"}

# A variant's own settings (RoomOptions.settings): the field's label and each choice's words.
# A setting's field is shown only while its variant is chosen (static/js/lobby.js, data-variants).
SETTING_FIELDS = {
    "odd_base": (_("底数"), {False: _("双数底：2、4、6、8"), True: _("单数底：3、5、7、9")},
                 _("温州麻将的起始底和连庄加底：双数底从 2 起，单数底从 3 起")),
    # Zhuji (zhuji.md §1, §5; Z-D8, Z-S8, Z-S12)
    "mode": (_("计分方式"), {"fan": _("翻（自摸或点炮按台数翻倍）"), "bao": _("包（庄家每局先定包）")},
             _("包：庄家在第一张牌打出前定台数和财神个数，26 张牌时没人胡就包输")),
    "wild_faces": (_("财神"), {0: _("无财"), 1: _("一个财神（4 张）"), 2: _("两个财神（8 张）")},
                   _("包：由庄家每局自己定，这里是时间到了的默认")),
    "unit": (_("底分"), {}, _("每一分乘以底分；底注再把分换成金豆")),
    # traditional Taizhou (taizhou-traditional.md §2; T-D9, T-S10, T-S11)
    "dan": (_("弹"), {0: _("0（不打弹）")},
            _("和牌者每家多收：弹 × 庄家连庄数（自摸 ×2），以子计")),
    "throws": (_("扔弹"), {True: _("可以扔弹（每局发牌前问）"), False: _("不扔弹")},
               _("庄家连庄期间，每局发牌前每家可以向其他各家扔弹：两家之间的注，谁和牌另一家付")),
}


def _offered_room_options():
    return [variants.get(name).room_options for name in variants.playable()]


def _bound(field, lo, hi):
    """Give an IntegerField of this form instance the bounds lo..hi (validators and widget)."""
    field.min_value, field.max_value = lo, hi
    field.validators = [v for v in field.validators if not isinstance(v, (MinValueValidator, MaxValueValidator))]
    field.validators += [MinValueValidator(lo), MaxValueValidator(hi)]
    field.widget.attrs.update(field.widget_attrs(field.widget))


class CreateRoomForm(forms.Form):
    variant = forms.ChoiceField(label=_("玩法"), choices=variant_choices, initial=rooms.DEFAULT_VARIANT)
    players = forms.TypedChoiceField(label=_("人数"), coerce=int, widget=forms.RadioSelect)
    length = forms.ChoiceField(label=_("局数"), help_text=_("一圈：每家各坐一次庄"))
    stake = forms.IntegerField(label=_("底注（金豆/胡）"), help_text=_("台州：每胡多少金豆；温州、诸暨：每分多少金豆；传统台州：每子多少金豆"),
                               widget=forms.NumberInput(attrs=NUMERIC))
    turn_seconds = forms.IntegerField(label=_("出牌时间（秒）"), widget=forms.NumberInput(attrs=NUMERIC))
    claim_seconds = forms.IntegerField(label=_("吃碰时间（秒）"), widget=forms.NumberInput(attrs=NUMERIC))
    hints_allowed = forms.BooleanField(label=_("允许提示"), required=False, initial=True,
                                       help_text=_("玩家可以自己打开提示：听哪几张、打哪张离听牌最近"))
    spectators = forms.ChoiceField(label=_("观战"), choices=Room.WATCH_CHOICES, initial=Room.WATCH_NOBODY,
                                   required=False, help_text=_("玩家的朋友：登录后和在座的某位玩家一起打完过一场牌局的人"))
    spectator_delay = forms.TypedChoiceField(
        label=_("观战延迟"), coerce=int, initial="3", required=False, empty_value=3,
        choices=[("0", _("不延迟")), ("1", _("1 步")), ("3", _("3 步"))],
        help_text=_("观战的人看到的牌桌比实际慢几步，免得有人边看边给玩家报牌"))
    min_balance = forms.IntegerField(label=_("入座最低金豆"), required=False,
                                     help_text=_("金豆少于这个数的玩家不能入座；0 表示不限"),
                                     widget=forms.NumberInput(attrs=NUMERIC))

    BOUNDED = ("stake", "turn_seconds", "claim_seconds", "min_balance")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # a field takes what any offered variant allows; clean() checks the one chosen
        offered = _offered_room_options()
        players = sorted({n for ro in offered for n in ro.players}, reverse=True)
        self.fields["players"].choices = [(n, PLAYER_LABELS.get(n, str(n))) for n in players]
        lengths = {f"{kind}:{n}" for ro in offered for kind, n in ro.lengths}
        labels = dict(LENGTH_CHOICES)
        self.fields["length"].choices = [(v, label) for v, label in LENGTH_CHOICES if v in lengths] + [
            (v, v) for v in sorted(lengths - set(labels))]
        for name in self.BOUNDED:
            _bound(self.fields[name], min(getattr(ro, name)[0] for ro in offered),
                   max(getattr(ro, name)[1] for ro in offered))
        self.setting_names = []
        for name in variants.playable():
            for s in variants.get(name).room_options.settings:
                if s.name in self.fields:
                    self.fields[s.name].widget.attrs["data-variants"] += f" {name}"
                    continue
                label, words, help_text = SETTING_FIELDS.get(s.name, (s.name, {}, ""))
                self.fields[s.name] = forms.TypedChoiceField(
                    label=label, help_text=help_text, required=False, initial=str(s.default),
                    choices=[(str(c), words.get(c, str(c))) for c in s.choices],
                    coerce=lambda v, s=s: next((c for c in s.choices if str(c) == v), s.default),
                    empty_value=s.default, widget=forms.Select(attrs={"data-variants": name}))
                self.setting_names.append(s.name)
        if not self.is_bound:
            self._set_initial()

    def _set_initial(self):
        """The default variant's defaults; the turn and claim times as the site settings say."""
        ro = variants.get(rooms.DEFAULT_VARIANT).room_options
        initial = ro.with_defaults({})
        settings = SiteSettings.current()
        for name, value in (("turn_seconds", settings.default_turn_seconds),
                            ("claim_seconds", settings.default_claim_seconds)):
            lo, hi = getattr(ro, name)
            initial[name] = min(max(value, lo), hi)  # an admin's value out of the variant's bounds is clamped
        for name in ("players", *self.BOUNDED):
            self.fields[name].initial = initial[name]
        self.fields["length"].initial = f"{initial['length_kind']}:{initial['length']}"

    def clean(self):
        data = super().clean()
        if not self.errors:
            options = self.room_options()
            options.update(options.pop("settings"))  # validated like the other options
            options.pop("hints_allowed", None)  # a site choice, not a rule of the variant
            options.pop("spectators", None)
            options.pop("spectator_delay", None)
            for field, message in rooms.room_option_errors(options):
                self.add_error(field if field in self.fields else None, message)
        return data

    def room_options(self):
        """Keyword arguments for games.services.create_room (call after is_valid())."""
        data = self.cleaned_data
        length_kind, length = data["length"].split(":")
        return {
            "variant": data["variant"],
            "players": data["players"],
            "length_kind": length_kind,
            "length": int(length),
            "stake": data["stake"],
            "turn_seconds": data["turn_seconds"],
            "claim_seconds": data["claim_seconds"],
            "min_balance": data.get("min_balance") or 0,
            "hints_allowed": bool(data.get("hints_allowed")),
            "spectators": data.get("spectators") or Room.WATCH_NOBODY,
            "spectator_delay": data.get("spectator_delay") if data.get("spectator_delay") is not None else 3,
            # only the chosen variant's own settings (the others' fields are hidden and ignored)
            "settings": {s.name: data[s.name] for s in variants.get(data["variant"]).room_options.settings
                         if s.name in data},
        }
