"""Frames of a replay (回放): the engine re-run from a replay record, one state per action.

`run(record)` replays the hand from its inputs (options, seed, dealer, actions) and keeps every
state: frame 0 is the deal, frame k the table after action k. `frame(...)` is what the viewer
shows of one state — every player's concealed hand, melds and river, the wall count, the
indicator and wild, whose turn, and the action just taken (the wall itself is never shown).
`moves(...)` is the list of every action in words. All of it is computed by the engine from the
record; nothing is read from the live table.

A hand is ~100 actions and re-runs in a few ms; runs are cached per replay build in-process.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from django.utils.translation import gettext as _

from accounts.cutting import beans_of, owed_beans
from games import hand_result, trad_table
from games.engine import game as engine
from games.engine.tiles import TileError, face_label, parse_tile, parse_tiles
from games.engine.view import result_view, sort_hand, tile_info



@dataclass(frozen=True)
class Run:
    states: tuple  # states[0]: after the deal; states[k]: after action k
    events: tuple  # events[k]: the engine events of frame k (the deal's for k = 0)
    stopped: str = ""  # why the re-run stopped before the last recorded action ("" = it did not)

    @property
    def last(self) -> int:
        return len(self.states) - 1

    @property
    def final(self):
        return self.states[-1] if self.states else None


def run(record: dict) -> Run:
    """Re-run a replay record through the engine, keeping every state."""
    try:
        options = engine.Options.from_dict(record["options"])
        state, events = engine.new_hand(options, record["seed"], record["dealer"], record.get("carry") or None)
    except (KeyError, TypeError, ValueError) as e:
        return Run((), (), f"unreadable replay: {e}")
    states, evs = [state], [events]
    stopped = ""
    for i, raw in enumerate(record.get("actions") or []):
        try:
            action = engine.Action.from_dict(raw)
        except (TypeError, ValueError, AttributeError, TileError) as e:
            stopped = f"action {i + 1} is unreadable: {e}"
            break
        out = engine.apply(state, action)
        if isinstance(out, engine.Illegal):
            stopped = f"action {i + 1} ({action.kind}) is not legal on re-run: {out.reason}"
            break
        state, ev = out
        states.append(state)
        evs.append(ev)
    return Run(tuple(states), tuple(evs), stopped)


_cache: OrderedDict = OrderedDict()
_lock = threading.Lock()
CACHE_SIZE = 64


def run_for(replay) -> Run:
    """The run of a stored replay, cached per build (a rebuild changes built_at)."""
    key = (replay.pk, replay.built_at.isoformat() if replay.built_at else "")
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    out = run(replay.data or {})
    with _lock:
        _cache[key] = out
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return out


def clear_cache():
    with _lock:
        _cache.clear()


# --- words -------------------------------------------------------------------------------

def _tile(code, lang):
    try:
        return face_label(parse_tile(code), lang)
    except (TileError, TypeError):
        return str(code or "")


def _meld_tiles(notation, lang):
    try:
        faces = parse_tiles(str(notation).split(":", 1)[-1])
    except TileError:
        return ""
    return ("" if lang == "zh" else " ").join(face_label(f, lang) for f in faces)


def describe(events, action: dict | None, names: dict, lang: str, n: int | None = None) -> list[str]:
    """The events of one frame in words (a list of short phrases). n: the number of players
    (traditional Taizhou's 扔弹 answers name whom each seat threw at)."""
    out = []
    resolved = {"chow", "pung", "kong", "win"} & {e.get("type") for e in events}
    flower_seat = None  # a flower was just shown: the next replacement draw is 补花, not after a kong
    for ev in events:
        kind = ev.get("type")
        name = names.get(ev.get("seat"), "")
        if kind == "flower":  # traditional Taizhou: a flower shown at once, replaced from the back
            flower_seat = ev.get("seat")
            out.append(_("%(name)s 亮花 %(tile)s（共 %(n)s 张）") % {
                "name": name, "tile": _tile(ev.get("tile"), lang), "n": ev.get("flowers")})
            continue
        if kind == "draw" and ev.get("replacement") and flower_seat is not None and ev.get("seat") == flower_seat:
            flower_seat = None
            out.append(_("%(name)s 补花 %(tile)s") % {"name": name, "tile": _tile(ev.get("tile"), lang)})
            continue
        if kind == "decided" and hand_result.is_throw(ev.get("name")) and n:
            k = int(str(ev.get("name")).split("_")[1])
            thrown = [_("%(a)s 向 %(b)s 扔 %(n)s 弹") % {"a": names.get(int(p), ""), "b": names.get((int(p) + k) % n, ""),
                                                     "n": v}
                      for p, v in sorted((ev.get("answers") or {}).items(), key=lambda kv: int(kv[0])) if str(v) != "0"]
            out.append(_("扔弹：%(answers)s") % {"answers": "，".join(thrown)} if thrown else _("扔弹：这一问没有人扔"))
            continue
        if kind == "deal" and ev.get("indicator") is None:
            # no tile turned up (Zhuji: the wild faces are drawn once play starts, shown on the bar)
            out.append(_("发牌：%(name)s 坐庄") % {"name": names.get(ev.get("dealer"), "")})
        elif kind == "deal":
            out.append(_("发牌：%(name)s 坐庄，跳牌 %(indicator)s，财神 %(wild)s") % {
                "name": names.get(ev.get("dealer"), ""), "indicator": _tile(ev.get("indicator"), lang),
                "wild": _tile(ev.get("wild"), lang)})
        elif kind == "draw":
            msg = _("%(name)s 杠后补 %(tile)s") if ev.get("replacement") else _("%(name)s 摸 %(tile)s")
            out.append(msg % {"name": name, "tile": _tile(ev.get("tile"), lang)})
        elif kind == "discard":
            out.append(_("%(name)s 打出 %(tile)s") % {"name": name, "tile": _tile(ev.get("tile"), lang)})
        elif kind == "claim_answer":
            if ev.get("kind") == "pass":
                out.append(_("%(name)s 过") % {"name": name})
            elif not resolved:
                want = (action or {}).get("kind", "")
                out.append(_("%(name)s 要%(verb)s，等其他玩家回答") % {"name": name, "verb": hand_result.action_verb(want)})
        elif kind in ("chow", "pung") or (kind == "kong" and "from" in ev):
            out.append(_("%(name)s %(verb)s %(from)s 的 %(tile)s：%(meld)s") % {
                "name": name, "verb": hand_result.action_verb(kind), "from": names.get(ev.get("from"), ""),
                "tile": _tile(ev.get("tile"), lang), "meld": _meld_tiles(ev.get("meld"), lang)})
        elif kind == "kong":
            tile = ev.get("tile") or (action or {}).get("tile")
            verb = hand_result.action_verb("ckong" if ev.get("kind") == "concealed" else "akong")
            out.append(_("%(name)s %(verb)s %(tile)s") % {"name": name, "verb": verb, "tile": _tile(tile, lang)})
        elif kind == "win":
            if ev.get("self_drawn"):
                out.append(_("%(name)s 自摸 %(tile)s") % {"name": name, "tile": _tile(ev.get("tile"), lang)})
            else:
                out.append(_("%(name)s 胡 %(from)s 打出的 %(tile)s") % {
                    "name": name, "from": names.get(ev.get("from"), ""), "tile": _tile(ev.get("tile"), lang)})
        elif kind == "drawn_hand":
            out.append(_("流局：牌摸完了，没有人胡牌"))
        elif kind == "decide":
            out.append(_("%(name)s 已选择%(q)s") % {"name": name, "q": hand_result.decision_name(ev.get("name"))})
        elif kind == "decided":
            q = ev.get("name")
            answers = ", ".join(f"{names.get(int(p), '')} {hand_result.decision_choice(q, v)}"
                                for p, v in sorted((ev.get("answers") or {}).items(), key=lambda kv: int(kv[0])))
            out.append(_("%(q)s：%(answers)s") % {"q": hand_result.decision_name(q), "answers": answers})
    return out


def moves(run_: Run, record: dict, names: dict, lang: str) -> list[dict]:
    """Every frame as one line: {k, seat, text, auto}."""
    actions = record.get("actions") or []
    auto = set(record.get("auto") or [])
    out = []
    for k, events in enumerate(run_.events):
        action = actions[k - 1] if k else None
        out.append({"k": k, "seat": None if action is None else action.get("seat"),
                    "name": "" if action is None else names.get(action.get("seat"), ""),
                    "text": " · ".join(describe(events, action, names, lang, run_.states[0].n))
                    or hand_result.action_verb((action or {}).get("kind", "")),
                    "auto": k in auto})
    return out


# --- one frame ---------------------------------------------------------------------------

def _meld_view(meld, wild, lang):
    return {"kind": meld.kind, "concealed": meld.kind == "ckong",
            "tiles": [tile_info(f, wild, lang) for f in meld.tiles]}


def frame(run_: Run, k: int, names: dict, lang: str) -> dict:
    """What the viewer shows at frame k: the whole table, every hand open."""
    state = run_.states[k]
    wild = tuple(state.rules.wild_faces(state))  # none, one or (Zhuji) two faces
    ended = state.phase == engine.ENDED
    r = state.result
    info = state.rules.table_info(state)
    players = []
    for p in range(state.n):
        hand = list(state.hands[p])
        drawn = None
        if state.phase == engine.DISCARD and state.turn == p and state.drawn is not None and state.drawn in hand:
            hand.remove(state.drawn)
            drawn = tile_info(state.drawn, wild, lang)
        if ended and r is not None and r.winner == p and r.win_tile is not None:
            drawn = tile_info(r.win_tile, wild, lang)
        claim = None
        if state.phase == engine.CLAIM and state.claim_options[p]:
            answer = state.claim_responses[p]
            claim = {"options": [hand_result.action_verb(c) for c in state.claim_options[p]],
                     "answer": None if answer is None else hand_result.action_verb(answer.kind)}
        players.append({
            "position": p, "name": names.get(p, ""), "wind": face_label(state.seat_wind(p), lang),
            "dealer": p == state.dealer, "in_turn": state.phase == engine.DISCARD and state.turn == p,
            "hand": [tile_info(f, wild, lang) for f in sort_hand(hand, wild)], "drawn": drawn,
            "count": len(state.hands[p]), "melds": [_meld_view(m, wild, lang) for m in state.melds[p]],
            "river": [tile_info(f, wild, lang) for f in state.rivers[p]],
            "flowers": trad_table.flower_tiles(info, p, lang),  # traditional Taizhou's flowers shown
            "discarding": state.phase == engine.CLAIM and state.turn == p,
            "claim": claim,
            "winner": ended and r is not None and r.winner == p,
        })
    return {
        "k": k, "last": run_.last, "phase": state.phase, "ended": ended, "turn": state.turn,
        "turn_name": names.get(state.turn, ""), "wall_count": len(state.wall),
        "indicator": None if state.indicator is None else tile_info(state.indicator, wild, lang),
        "wild": tile_info(wild[0], wild, lang) if wild else None, "wilds": [tile_info(f, wild, lang) for f in wild],
        "players": players,
        "last_discard": tile_info(state.last_discard, wild, lang) if state.phase == engine.CLAIM else None,
        "info": info,  # a variant's base, streak, who bought / topped (traditional Taizhou: 弹, 扔弹, flowers)
        "trad": trad_table.frame_context(info, names, lang),
    }


def breakdown(run_: Run, record: dict, names: dict, lang: str) -> dict | None:
    """The result screen of a finished re-run: every player's items, points, 台 and total, the
    transfers in 胡 and beans, and the beans that moved (with any cut and its reason)."""
    state = run_.final
    if state is None or state.phase != engine.ENDED or state.result is None:
        return None
    rv = result_view(state, lang)
    stake = record.get("stake") or 0
    stored = (record.get("result") or {}).get("beans") or record.get("settlement") or {}
    owed = owed_beans(rv["transfers"], stake, range(state.n)) if rv["transfers"] else {}
    paid = {int(p): v for p, v in (stored.get("paid") or {}).items()} if stored else {}
    reasons = (stored.get("reasons") or {}) if stored else {}
    rows = []
    for p in range(state.n):
        moved = paid.get(p, owed.get(p, 0))
        score = rv["scores"][p]
        rows.append({
            "position": p, "name": names.get(p, ""), "wind": face_label(state.seat_wind(p), lang),
            "dealer": p == state.dealer, "winner": rv["winner"] == p, "discarder": rv["discarder"] == p,
            "liable": rv["liable"] == p, "score": score, "net": rv["net"][p],
            "owed_beans": owed.get(p, 0), "beans": moved, "cut": bool(stored) and moved != owed.get(p, 0),
            "cut_reasons": hand_result.cut_reasons(reasons.get(str(p), [])),
        })
    transfers = [{"from": names.get(t["from"], ""), "to": names.get(t["to"], ""), "amount": t["amount"],
                  "beans": beans_of(t["amount"], stake), "code": t.get("why", ""),
                  "why": hand_result.payment_reason(t.get("why"))} for t in rv["transfers"]]
    return trad_table.decorate_result({
        "drawn_hand": rv["drawn_hand"], "self_drawn": rv["self_drawn"], "win_tile": rv["win_tile"],
        "winner_name": names.get(rv["winner"], "") if rv["winner"] is not None else "",
        "discarder_name": names.get(rv["discarder"], "") if rv["discarder"] is not None else "",
        "liable_name": names.get(rv["liable"], "") if rv["liable"] is not None else "",
        "liable_reason": hand_result.liable_reason(rv["liable_reason"]), "liable_code": rv["liable_reason"],
        "rows": rows, "transfers": transfers, "stake": stake, "settled": bool(stored),
        "practice": bool((record.get("result") or {}).get("practice")),
        # Zhuji 包: nobody won by 26 tiles left, the dealer pays each player a share
        "contract_failed": rv["drawn_hand"] and any(t.get("why") == "contract" for t in rv["transfers"]),
        "dealer_name": names.get(state.dealer, ""),
    }, state.rules.table_info(state), lang)
