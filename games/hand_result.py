"""How a finished hand is told to people, in one place: the result screen (games/table.py), the
replay's last frame (games/replay_frames.py), the admin's hand page (games/admin.py) and the
history pages all name cuts and liability with these words, in the reader's language."""

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
}


def cut_reasons(codes) -> str:
    """The reasons for a cut, joined as a list in the active language."""
    return pgettext("list separator", "、").join(_(CUT_REASONS.get(code, code)) for code in codes or ())


def liable_reason(code) -> str:
    return _(LIABLE_REASONS[code]) if code in LIABLE_REASONS else (code or "")
