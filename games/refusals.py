"""What the engine's refusals say to a player: one gettext message per `events.CODES` code.

The engine refuses a command with `Illegal(code, params)` (stable code, English `reason` for
logs); the site never reads that English. A code without a message here is a bug that
tests/test_refusals.py catches (every code of `events.CODES` must be listed).
"""

from __future__ import annotations

from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.engine import events
from games.hand_result import action_verb
from games.engine.tiles import TileError, face_label, parse_tile

MESSAGES = {
    "hand_over": gettext_noop("这一局已经结束"),
    "no_such_seat": gettext_noop("没有这个座位"),
    "no_such_tile": gettext_noop("没有这张牌：%(tile)s"),
    "not_your_turn": gettext_noop("还没轮到你"),
    "cannot_now": gettext_noop("现在不能%(kind)s：请出牌、杠或胡"),
    "no_claim": gettext_noop("这张牌你不能吃碰胡"),
    "wait_for_claims": gettext_noop("等其他玩家选择吃碰胡或过"),
    "already_answered": gettext_noop("你已经选择过了"),
    "not_last_discard": gettext_noop("这不是刚打出的那张牌"),
    "bad_chow": gettext_noop("这两张牌吃不了这张"),
    "cannot_claim": gettext_noop("这张牌你不能%(kind)s"),
    "not_held": gettext_noop("你没有这张牌"),
    "cannot_discard": gettext_noop("现在不能打%(tile)s"),
    "bad_kong": gettext_noop("不能这样杠"),
    "must_discard": gettext_noop("吃碰之后要先出一张牌"),
    "not_winning": gettext_noop("你的牌还没胡"),
    "no_decision": gettext_noop("现在没有需要你决定的事"),
    "must_decide": gettext_noop("请先回答开局前的问题"),
    "bad_choice": gettext_noop("没有这个选项"),
    "unknown_action": gettext_noop("未知的操作"),
    "bad_command": gettext_noop("消息格式不对"),
}


def _tile(text, lang: str) -> str:
    try:
        return face_label(parse_tile(str(text)), lang)
    except TileError:
        return str(text)


def message(refusal: events.Illegal, lang: str | None = None) -> str:
    """The player's words for an engine refusal in the active language (`lang` 'zh'/'en' for
    tile names; by default the active language's)."""
    if lang is None:
        lang = "en" if (get_language() or "").startswith("en") else "zh"
    params = refusal.params or {}
    values = {"kind": action_verb(params.get("kind")), "tile": _tile(params.get("tile", ""), lang)}
    text = MESSAGES.get(refusal.code)
    if text is None:  # a new engine code the site has not worded yet: never show English internals
        return _("不能这样做")
    return _(text) % values
