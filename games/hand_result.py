"""How a hand is told to people, in one place: the result screen and the table's buttons and
last-move line (games/table.py), the replay (games/replay_frames.py), the admin's hand page
(games/admin.py), the history pages (games/history_views.py) and the refusals (games/refusals.py)
name actions, outcomes, cuts and liability with these words, in the reader's language."""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, pgettext

# Why the beans that moved differ from what was owed (accounts/cutting.py's reason codes).
CUT_REASONS = {
    "balance": gettext_noop("余额不足"),
    "hand_limit": gettext_noop("单局输赢上限"),
    "day_limit": gettext_noop("当日输赢上限"),
    "winners_cut": gettext_noop("赢家收取有上限"),
    "losers_cut": gettext_noop("输家付不足"),
}

# Why one player pays for everyone (全包, the engine's liable_reason codes).
LIABLE_REASONS = {
    "full_flush_chows": gettext_noop("清一色吃上家三次"),
    "fresh_dragon": gettext_noop("生张字牌"),
    "third_dragon": gettext_noop("第三副字牌"),
    # traditional Taizhou: not 全包 but 点炮 (a 生牌 discarded in the 生牌 stage and won on)
    "dianpao": gettext_noop("生牌阶段打出生牌"),
}


# A question before the hand (the engine's Decision name -> choice -> the button's word).
DECISION_CHOICES = {
    "buy": {"yes": gettext_noop("买底"), "no": gettext_noop("不买")},
    "top": {"yes": gettext_noop("顶底"), "no": gettext_noop("不顶")},
}
DECISION_NAMES = {"buy": gettext_noop("买底"), "top": gettext_noop("顶底")}


DECISION_NAMES["contract"] = gettext_noop("定包")  # Zhuji 包: the dealer's target 台 and wild faces


def is_throw(name) -> bool:
    """Traditional Taizhou's 扔弹 questions: "throw_k", asked of every seat about the seat k after it."""
    return str(name or "").startswith("throw_")


def contract_choice(value) -> dict | None:
    """A Zhuji contract answer "target:faces" read: {"target", "faces"}, or None."""
    try:
        target, faces = (int(x) for x in str(value).split(":"))
    except ValueError:
        return None
    return {"target": target, "faces": faces}


def faces_words(faces: int) -> str:
    return {0: _("无财"), 1: _("一个财神"), 2: _("两个财神")}.get(faces, str(faces))


# Why no 胡 is offered (games/engine/hints.py WHY_CODES), for a player with hints on.
WHY_NO_WIN = {
    "wild_not_claimable": gettext_noop("打出的财神不能吃碰，也不能胡"),
    "not_winning_shape": gettext_noop("这几张牌还不成胡"),
    "furiten": gettext_noop("这张牌你过胡了：自己摸牌之前不能再胡这一张"),
    "too_few_tai": gettext_noop("成了胡的样子，但台数不够规则要求"),
    "self_drawn_only": gettext_noop("这手牌只能自摸胡这一张"),
    "not_offered": gettext_noop("规则现在不让胡这一张"),
    "no_draw": gettext_noop("吃碰之后要先打一张，不能自摸"),
}


def why_no_win(code) -> str:
    return _(WHY_NO_WIN[code]) if code in WHY_NO_WIN else ""


def decision_choice(name, value) -> str:
    if is_throw(name):
        return _("不扔") if str(value) == "0" else _("%(n)s 弹") % {"n": value}
    if name == "contract":
        c = contract_choice(value)
        if c is not None:
            return _("包 %(t)s 台 · %(faces)s") % {"t": c["target"], "faces": faces_words(c["faces"])}
    return _(DECISION_CHOICES.get(name, {}).get(value, str(value)))


def decision_name(name) -> str:
    if is_throw(name):
        return _("扔弹")
    return _(DECISION_NAMES[name]) if name in DECISION_NAMES else str(name)


# Why a payment was made (the engine's transfer "why"), where a variant has more than one kind.
PAYMENT_REASONS = {"win": gettext_noop("胡牌"), "caishen": gettext_noop("财神钱"),
                   "contract": gettext_noop("包"), "escape": gettext_noop("逃跑"),
                   # traditional Taizhou (taizhou-traditional.md §6)
                   "dan": gettext_noop("弹"), "throw": gettext_noop("扔弹"), "non-winners": gettext_noop("闲家之间")}


def payment_reason(code) -> str:
    return _(PAYMENT_REASONS[code]) if code in PAYMENT_REASONS else ""


def action_verb(kind) -> str:
    """The word for an action (a button, the last-move line, a replay step); the "action" context:
    胡 here is "Win"."""
    labels = {"win": pgettext("action", "胡"), "pung": pgettext("action", "碰"), "kong": pgettext("action", "杠"),
              "chow": pgettext("action", "吃"), "pass": pgettext("action", "过"),
              "ckong": pgettext("action", "暗杠"), "akong": pgettext("action", "加杠"),
              "self_win": pgettext("action", "自摸"), "discard": pgettext("action", "出牌")}
    return labels.get(kind, "" if kind is None else str(kind))


def outcome(result: dict | None, names: dict, variant: str | None = None) -> str:
    """One line for a finished hand's result (the engine's result dict): who won, from whom."""
    r = result or {}
    if r.get("winner") is None:
        if any(t.get("why") == "contract" for t in r.get("transfers") or ()):
            return _("包输")  # Zhuji: nobody won by 26 tiles left, the dealer paid the contract
        return _("黄牌") if variant == "taizhou_trad" else _("流局")
    if r.get("self_drawn"):
        return _("%(name)s 自摸") % {"name": names.get(r["winner"], "")}
    if r.get("liable_reason") == "dianpao":  # traditional Taizhou: a 生牌 won on in the 生牌 stage
        return _("%(name)s 胡，%(from)s 打生牌点炮") % {"name": names.get(r["winner"], ""),
                                                   "from": names.get(r.get("discarder"), "")}
    if variant == "taizhou_trad":  # there 点炮 is only the penalty above: the discarder 放冲
        return _("%(name)s 胡，%(from)s 放冲") % {"name": names.get(r["winner"], ""), "from": names.get(r.get("discarder"), "")}
    return _("%(name)s 胡，%(from)s 点炮") % {"name": names.get(r["winner"], ""), "from": names.get(r.get("discarder"), "")}


def cut_reasons(codes) -> str:
    """The reasons for a cut, joined as a list in the active language."""
    return pgettext("list separator", "、").join(_(CUT_REASONS.get(code, code)) for code in codes or ())


def liable_reason(code) -> str:
    return _(LIABLE_REASONS[code]) if code in LIABLE_REASONS else (code or "")
