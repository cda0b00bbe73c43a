"""What the table, the result and the replay show of traditional Taizhou (传统台州麻将,
taizhou-traditional.md) beyond tiles: the room's 弹 and the dealer's streak, the 扔弹 agreed
between players, each player's flowers, the 生牌 stage with the faces still 生, and the 扔弹
questions asked before the deal.

Everything here is read from the engine's public `table_info` (games/engine/variants/
taizhou_trad.py: dan, streak, throws, throws_on, flowers, flower_face, shengpai, sheng_faces,
tiles_left) as `seat_view` / a replay frame carries it, and from the question's public part
(who is asked, who has answered): never from another seat's hand, the wall or an answer not
yet public. A throw is public once every seat has answered its question (the engine records
it then); until then nobody's answer is shown to anyone.

games/table.py calls `table_context` (through `_variant_context`, for players and watchers),
`seat_extras` (each seat's flowers and its stake with the viewer; games/spectators.py too),
`throw_buttons` (the asked seat's choices), `decorate_hint` and `decorate_result`;
games/replay_frames.py calls `flower_tiles`, `frame_context` and `decorate_result`. Other
variants get nothing from here (`is_trad(info)` is false for their table_info).
"""

from __future__ import annotations

from django.utils import translation
from django.utils.translation import pgettext

from games import hand_result
from games.engine.tiles import TileError, face_label, parse_tile
from games.engine.variants.taizhou_trad import FLOWER_ZH
from games.engine.view import tile_info


def _lang() -> str:
    return "en" if (translation.get_language() or "").lower().startswith("en") else "zh"


def is_trad(info) -> bool:
    """Is this table_info traditional Taizhou's (弹, 扔弹, flowers)?"""
    return bool(info) and "throws_on" in info and "flower_face" in info


def flower_tiles(info, position: int, lang: str | None = None) -> list:
    """The flowers `position` has shown, as tiles (the flower face is never wild), [] when none."""
    if not is_trad(info) or not info.get("flower_face"):
        return []
    counts = info.get("flowers") or ()
    if position is None or position >= len(counts) or not counts[position]:
        return []
    try:
        face = parse_tile(info["flower_face"])
    except TileError:
        return []
    return [tile_info(face, (), lang or _lang())] * counts[position]


def throw_pairs(info, names: dict, me=None) -> list:
    """The 扔弹 in force as stakes between two players (T-D4: a throw is a mutual stake; throws
    between the same two players add up): [{"a", "b", "amount", "mine", "key"}], by seat order."""
    totals = {}
    for t in (info or {}).get("throws") or ():
        pair = tuple(sorted((t["by"], t["at"])))
        totals[pair] = totals.get(pair, 0) + t["amount"]
    return [{"a": names.get(a, ""), "b": names.get(b, ""), "amount": x, "mine": me in (a, b), "key": f"{a}-{b}"}
            for (a, b), x in sorted(totals.items()) if x]


def stake_between(info, a: int, b: int) -> int:
    return sum(t["amount"] for t in (info or {}).get("throws") or () if {t["by"], t["at"]} == {a, b})


def seat_extras(view: dict, position: int, me) -> dict:
    """What a seat's head and tiles show beyond the common ones, as player `me` sees the table
    (None: a watcher): its flowers (tiles) and the 扔弹 stake between it and `me` (T-D4)."""
    info = view.get("info") or {}
    if not is_trad(info):
        return {"flowers": [], "throw": 0}
    stake = stake_between(info, me, position) if me is not None and me != position else 0
    return {"flowers": flower_tiles(info, position), "throw": stake}


def table_context(view: dict, names: dict, me) -> dict:
    """For the table of player `me` (None: a watcher): "trad" (the bar: 弹, streak, flower face, the
    生牌 stage and its faces), "throw_pairs" (every stake, listed in the ☰ drawer) and, while a
    扔弹 question is open, "throw" (the prompt: which question, and for an asked seat whom it
    throws at and the stake already between them); {} for other variants."""
    info = view.get("info") or {}
    if not is_trad(info):
        return {}
    n = len(view["players"])
    out = {"trad": {**frame_context(info, names), "dealt": info.get("flower_face") is not None,
                    "tiles_left": info.get("tiles_left")},
           "throw_pairs": throw_pairs(info, names, me)}  # every stake, in the ☰ drawer
    d = view.get("decision")
    if d is not None and hand_result.is_throw(d["name"]):
        from games.table import relative_label

        k = int(d["name"].split("_")[1])
        prompt = {"k": k, "rounds": n - 1, "name": d["name"]}
        if me is not None and me in d["seats"]:
            target = (me + k) % n
            prompt.update(target=target, target_name=names.get(target, ""), target_rel=relative_label(k, n),
                          stake=stake_between(info, me, target))
        out["throw"] = prompt
    return out


def throw_buttons(ctx: dict, buttons: list) -> list:
    """The asked seat's answers to a 扔弹 question as the prompt's choices (ctx["throw"]["choices"],
    "0" = none first: the default); returns the other buttons."""
    throw = ctx.get("throw")
    if throw is None:
        return buttons
    choices, rest = [], []
    for b in buttons:
        if b["kind"].startswith("decide-"):
            value = b["kind"][len("decide-"):]
            choices.append({"value": value, "text": b["text"], "vals": b["vals"], "default": not choices})
        else:
            rest.append(b)
    throw["choices"] = choices
    return rest


def decorate_result(result: dict, info, lang: str | None = None) -> dict:
    """A result screen's context (table or replay) with traditional Taizhou's parts: each row's
    flowers and raw total (和 × 2^番 before rounding up to ten), the 弹 and streak of the hand
    (`result.trad` also tells the templates to say 和/番, 劣子, 放冲 and 黄牌)."""
    if not is_trad(info):
        return result
    result["trad"] = {"dan": info.get("dan") or 0, "streak": info.get("streak") or 1}
    for row in result.get("rows") or ():
        row["flowers"] = flower_tiles(info, row["position"], lang)
        score = row.get("score")
        if score and isinstance(score.get("points"), int) and isinstance(score.get("tai"), int):
            row["raw"] = score["points"] * 2 ** score["tai"]
    return result


def decorate_hint(hint: dict, view: dict) -> dict:
    """提示: a winning tile's worth is a total in 和 here (payments are in 子)."""
    if is_trad(view.get("info")):
        hint["unit"] = pgettext("points", "和")
    return hint


def frame_context(info, names: dict, lang: str | None = None) -> dict | None:
    """A replay frame's traditional Taizhou bar: 弹, streak, the 扔弹 agreed, the flower face and
    the 生牌 stage (a replay shows everything, so nothing here is held back), or None."""
    if not is_trad(info):
        return None
    lang = lang or _lang()
    sheng = []
    for code in info.get("sheng_faces") or ():
        try:
            sheng.append(tile_info(parse_tile(code), (), lang))
        except TileError:
            continue
    return {"dan": info.get("dan") or 0, "streak": info.get("streak") or 1, "throws_on": bool(info.get("throws_on")),
            "pairs": throw_pairs(info, names), "shengpai": bool(info.get("shengpai")), "sheng": sheng,
            "flower_label": _flower_label(info.get("flower_face"), lang)}


def _flower_label(code, lang) -> str | None:
    """The flower face as players call it: 白板 (翻白板), or 红中 when the wild is White."""
    if not code:
        return None
    face = parse_tile(code)
    return FLOWER_ZH.get(face, face_label(face, lang)) if lang == "zh" else face_label(face, lang)
