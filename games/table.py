"""What one seat sees of a room, rendered as HTML fragments (the room page and its socket).

`seat_context(room_id, user, lang)` gathers the context of the room page for one seated player:
the room and its seats (nicknames, ready, online, 托管), the rules and, once a hand is dealt,
ONLY `games.engine.view.seat_view(state, me, lang)` of the hand (never the engine state itself:
no other player's concealed tiles, no wall), plus the last public move read from the hand log
through a whitelist of public event kinds (never a draw).

`render_fragments(context)` renders the page's id'd fragments (the partials of
templates/games/room.html) for out-of-band swaps over the socket; the room page renders the
same partials inline.
"""

from __future__ import annotations

import json

from django.core.exceptions import ObjectDoesNotExist
from django.template import TemplateDoesNotExist
from django.template.loader import get_template, render_to_string
from django.urls import NoReverseMatch, reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, pgettext

from games import presence, services
from games.engine.view import seat_view
from games.models import Game, Hand, HandEvent, Room

WAITING, PLAYING, RESULT, FINISHED, DISSOLVED = "waiting", "playing", "result", "finished", "dissolved"

# Fragments of templates/games/room.html, in page order; each is one element with this id.
FRAGMENTS = ("status", "alerts", "seats", "invite-box", "table", "hand", "actions", "result")
TEMPLATE = "games/room.html"
INVITE_PARTIAL = "games/_invite.html"

# Hand events anyone at the table may see (never "draw": it holds the drawn tile; never
# "claim_window" / "claim_answer": they tell who could claim or what they answered).
PUBLIC_EVENTS = ("discard", "chow", "pung", "kong", "win", "drawn_hand")


def ui_lang(language_code: str | None) -> str:
    """Django language code -> the engine's label language ('zh' or 'en')."""
    return "en" if (language_code or "").lower().startswith("en") else "zh"


def django_language(lang: str) -> str:
    return "en" if lang == "en" else "zh-hans"


def display_name(user) -> str:
    """The profile nickname, else the username."""
    try:
        nickname = user.profile.nickname
    except ObjectDoesNotExist:  # no profile (createsuperuser, admin-made users)
        nickname = ""
    return (nickname or "").strip() or user.get_username()


def epoch_ms(dt) -> int | None:
    return None if dt is None else int(dt.timestamp() * 1000)


def relative_label(d: int, n: int) -> str:
    """Where a seat sits as seen from me: d = (their position - mine) % n."""
    if d == 0:
        return _("你")
    if n == 2:
        return _("对家")
    if d == 1:
        return _("下家")
    if d == n - 1:
        return _("上家")
    return _("对家")


def side_of(d: int, n: int) -> str:
    """Where a seat sits on screen: me at the bottom, 下家 on the right, 上家 on the left."""
    if d == 0:
        return "bottom"
    if n == 2 or (n == 4 and d == 2):
        return "top"
    return "right" if d == 1 else "left"


SIDE_ORDER = {"left": 0, "top": 1, "right": 2, "bottom": 3}


def lobby_url() -> str:
    try:
        return reverse("games:lobby")
    except NoReverseMatch:
        return "/lobby/"


def transfer_beans(amount, stake: int) -> int:
    """One transfer in 胡 -> beans (胡 × stake rounded up), as the settlement counts it."""
    from accounts.cutting import beans_of

    return beans_of(amount, stake)


def settled_beans(hand) -> dict | None:
    """{position: beans that moved} of a settled hand (after the limits cut), or None."""
    record = (hand.result or {}).get("beans") if hand is not None else None
    if not record:
        return None
    return {int(p): v for p, v in (record.get("paid") or {}).items()}


def game_beans(game) -> dict:
    """{position: beans that moved over the game}, from the settled hands."""
    out = {}
    for result in game.hands.filter(status=Hand.ENDED).values_list("result", flat=True):
        for p, v in ((result or {}).get("beans") or {}).get("paid", {}).items():
            out[int(p)] = out.get(int(p), 0) + v
    return out


CUT_REASONS = {
    "balance": gettext_noop("余额不足"),
    "hand_limit": gettext_noop("单局输赢上限"),
    "day_limit": gettext_noop("当日输赢上限"),
    "winners_cut": gettext_noop("赢家收取有上限"),
    "losers_cut": gettext_noop("输家付不足"),
}


def has_invite_partial() -> bool:
    try:
        get_template(INVITE_PARTIAL)
        return True
    except TemplateDoesNotExist:
        return False


def join_url(room: Room, base: str = "") -> str:
    try:
        path = reverse("games:join", args=[room.token])
    except NoReverseMatch:
        path = f"/join/{room.token}/"
    return base + path


def _action_label(kind: str) -> str:
    """The button (and last-move) word for an action; "action" context: 胡 here is "Win"."""
    labels = {"win": pgettext("action", "胡"), "pung": pgettext("action", "碰"), "kong": pgettext("action", "杠"),
              "chow": pgettext("action", "吃"), "pass": pgettext("action", "过"),
              "ckong": pgettext("action", "暗杠"), "akong": pgettext("action", "加杠"),
              "self_win": pgettext("action", "自摸")}
    return labels.get(kind, kind)


def _vals(**values) -> str:
    return json.dumps(values, ensure_ascii=False, separators=(",", ":"))


def _last_move(hand: Hand, names: dict, lang: str) -> dict | None:
    """The latest public move of the hand: who, what, which tile (never a concealed kong's face)."""
    from games.engine.tiles import face_label, parse_tile

    rows = HandEvent.objects.filter(hand=hand).order_by("-seq").only("action", "events", "auto")[:12]
    for row in rows:
        for ev in reversed(row.events or []):
            kind = ev.get("type")
            if kind not in PUBLIC_EVENTS:
                continue
            seat = ev.get("seat")
            if kind == "drawn_hand":
                return {"text": _("流局")}
            if kind == "kong" and ev.get("kind") == "concealed":
                verb, tile = _action_label("ckong"), None
            elif kind == "kong" and ev.get("kind") == "added":
                verb, tile = _action_label("akong"), ev.get("tile")
            elif kind == "discard":
                verb, tile = _("打出"), ev.get("tile")
            elif kind == "win":
                verb, tile = _action_label("self_win" if ev.get("self_drawn") else "win"), ev.get("tile")
            else:
                verb, tile = _action_label(kind), ev.get("tile")
            label = face_label(parse_tile(tile), lang) if tile else ""
            auto = bool(row.auto) and kind == "discard" and (row.action or {}).get("seat") == seat
            return {"name": names.get(seat, ""), "verb": verb, "tile": label, "auto": auto}
    return None


def _hand_actions(view: dict, hand: Hand, lang: str) -> tuple[bool, list]:
    """(may I discard now, the other legal buttons) from seat_view's `actions`."""
    from games.engine.tiles import face_label, parse_tile

    can_discard = False
    buttons = []
    claim = view["phase"] == "claim"
    for a in view["actions"]:
        kind = a["kind"]
        if kind == "discard":
            can_discard = True
            continue
        vals = {"action": kind, "v": hand.version, "h": hand.pk}
        tile_code = a.get("tile")
        text = _action_label(kind)
        if kind == "win" and not claim:
            text = _action_label("self_win")
        detail = ""
        if kind == "chow":
            vals["tiles"] = " ".join(a["tiles"])
            detail = a.get("label", "")
        elif kind in ("ckong", "akong"):
            vals["tile"] = tile_code
            detail = face_label(parse_tile(tile_code), lang)
        elif kind in ("pung", "kong") and view.get("last_discard"):
            detail = view["last_discard"]["label"]
        buttons.append({"kind": kind, "text": text, "detail": detail, "vals": _vals(**vals)})
    order = {"win": 0, "kong": 1, "ckong": 1, "akong": 1, "pung": 2, "chow": 3, "pass": 9}
    buttons.sort(key=lambda b: order.get(b["kind"], 5))
    return can_discard, buttons


def _split_drawn(tiles: list, drawn: str | None):
    """Own hand with the tile just drawn set apart on the right (as at a real table)."""
    if not drawn:
        return tiles, None
    for i in range(len(tiles) - 1, -1, -1):
        if tiles[i]["code"] == drawn:
            return tiles[:i] + tiles[i + 1:], tiles[i]
    return tiles, None


def seat_context(room_id: int, user, lang: str = "zh", *, base_url: str = "", now=None) -> dict | None:
    """Everything the room page shows to `user`, or None if they have no seat in the room."""
    now = now or timezone.now()
    try:
        room = Room.objects.select_related("host").get(pk=room_id)
    except Room.DoesNotExist:
        return None
    seat_rows = list(room.seats.select_related("user", "user__profile"))
    mine = next((s for s in seat_rows if s.user_id == getattr(user, "pk", None)), None)
    if mine is None:
        return None
    n = room.players
    me = mine.position
    is_host = room.host_id == user.pk
    game = Game.objects.filter(room=room).first()
    hand = game.hands.order_by("-number").first() if game else None

    if room.status == Room.DISSOLVED or (hand is not None and hand.status == Hand.VOID):
        phase = DISSOLVED
    elif room.status == Room.WAITING or hand is None:
        phase = WAITING
    elif hand.status == Hand.PLAYING:
        phase = PLAYING
    elif room.status == Room.FINISHED:
        phase = FINISHED
    else:
        phase = RESULT

    view = None
    if hand is not None and phase in (PLAYING, RESULT, FINISHED):
        view = seat_view(services.hand_state(hand), me, lang)

    by_pos = {s.position: s for s in seat_rows}
    names = {s.position: display_name(s.user) for s in seat_rows}
    online = presence.online_positions(room.pk)  # one query for every seat
    seats = []
    for p in range(n):
        s = by_pos.get(p)
        d = (p - me) % n
        info = {"position": p, "empty": s is None, "me": p == me, "rel": relative_label(d, n), "d": d,
                "side": side_of(d, n),
                "name": names.get(p, ""), "host": s is not None and s.user_id == room.host_id,
                "ready": bool(s and s.ready), "online": s is not None and p in online,
                "frozen": bool(s and _frozen(s.user)), "wind": "", "dealer": False, "total": None}
        info["auto"] = bool(s and s.auto_play) or info["frozen"]  # a frozen account's seat is on 托管
        if view is not None:
            vp = view["players"][p]
            info.update(wind=vp["wind"], dealer=vp["dealer"])
        if game is not None and p < len(game.totals):
            info["total"] = game.totals[p]
        seats.append(info)

    ctx = {
        "room": room, "phase": phase, "me": seats[me], "my_position": me, "is_host": is_host,
        "seats": seats, "game": game, "hand": hand, "lang": lang,
        "ws_path": f"/ws/room/{room.pk}/?lang={lang}",
        "server_now": epoch_ms(now), "room_version": room.version,
        "hand_version": hand.version if hand is not None else 0,
        "length_n": room.length, "rounds": room.length_kind == Room.ROUNDS,
        "all_seated": len(seat_rows) == n, "lobby_url": lobby_url(),
    }
    if game is not None:
        ctx["hand_number"] = hand.number if hand else game.hands_played
        ctx["hands_played"] = game.hands_played

    # dissolving (解散) during a game: a request is open for 60 s
    started = room.dissolve_started_at
    if room.status == Room.PLAYING and started is not None and now - started <= services.DISSOLVE_WINDOW:
        ctx["dissolve"] = {
            "voters": [names.get(p, "") for p in room.dissolve_votes],
            "voted": me in room.dissolve_votes,
            "deadline": epoch_ms(started + services.DISSOLVE_WINDOW),
        }

    ctx.update(_safety_context(seat_rows, seats, mine, phase))

    if phase == WAITING:
        ctx["invite_partial"] = has_invite_partial()
        ctx["invite_url"] = join_url(room, base_url)

    if view is not None and phase == PLAYING:
        players = []
        for s in sorted(seats, key=lambda s: s["d"]):
            vp = view["players"][s["position"]]
            players.append({**s, "melds": vp["melds"], "river": vp["river"], "count": vp["tile_count"],
                            "in_turn": vp["in_turn"]})
        own = view["players"][me]
        hand_tiles, drawn_tile = _split_drawn(own["hand"], view["drawn"])
        can_discard, buttons = _hand_actions(view, hand, lang)
        turn_name = names.get(view["turn"], "") if view["phase"] == "discard" else ""
        ctx.update({
            "view": view, "mine": players[0],
            "others": sorted(players[1:], key=lambda p: SIDE_ORDER[p["side"]]), "hand_tiles": hand_tiles,
            "drawn_tile": drawn_tile, "can_discard": can_discard, "buttons": buttons,
            "discard_vals": _vals(action="discard", v=hand.version, h=hand.pk),
            "deadline": epoch_ms(hand.deadline), "turn_name": turn_name,
            "my_turn": view["phase"] == "discard" and view["turn"] == me,
            "claiming": view["phase"] == "claim",
            "discarder": names.get(view["turn"], "") if view["phase"] == "claim" else "",
            "last_move": _last_move(hand, names, lang),
        })
    if phase == RESULT and hand is not None and hand.deadline is not None:
        ctx["next_deadline"] = epoch_ms(hand.deadline)  # the ready countdown (services.next_hand_delay)
    if view is not None and phase in (RESULT, FINISHED) and view.get("result"):
        ctx["result"] = _result_context(view, seats, room, hand)
    if game is not None and phase in (FINISHED, DISSOLVED):
        moved = game_beans(game)
        for s in seats:
            s["beans"] = moved.get(s["position"], 0)
        ranking = sorted((s for s in seats if s["total"] is not None), key=lambda s: (-s["total"], s["position"]))
        ctx["summary"] = ranking
    return ctx


def _frozen(user) -> bool:
    try:
        return bool(user.profile.frozen)
    except ObjectDoesNotExist:
        return False


def format_distance(metres: float) -> str:
    if metres < 1000:
        return f"{round(metres)} m"
    if metres < 100_000:
        return f"{metres / 1000:.1f} km"
    return f"{round(metres / 1000)} km"


def _safety_context(seat_rows, seats, mine, phase) -> dict:
    """Anti-collusion warnings for every seated player: seats sharing an IP address (never the
    address itself), distances between seats that shared their location, pairs nearer than
    SiteSettings.near_meters; and my own frozen / location state."""
    label = {s["position"]: f"{s['wind']} {s['name']}" if s["wind"] else s["name"] for s in seats}
    sep = pgettext("list separator", "、")
    same_ip = [sep.join(label[p] for p in positions) for _ip, positions in services.same_ip_groups(seat_rows)]
    distances, near, near_meters = [], [], None
    pairs = services.seat_distances(seat_rows)
    if pairs:
        from accounts.models import SiteSettings

        near_meters = SiteSettings.current().near_meters
        for a, b, metres in pairs:
            distances.append({"a": label[a], "b": label[b], "text": format_distance(metres)})
            if metres < near_meters:
                near.append(sep.join((label[a], label[b])))
    return {
        "same_ip": same_ip, "distances": distances, "near": near, "near_meters": near_meters,
        "frozen": _frozen(mine.user), "located": mine.latitude is not None,
        "can_locate": phase not in (FINISHED, DISSOLVED),
    }


def _result_context(view, seats, room, hand):
    r = view["result"]
    names = {s["position"]: s["name"] for s in seats}
    reasons = {"full_flush_chows": _("清一色吃上家三次"), "fresh_dragon": _("生张字牌"),
               "third_dragon": _("第三副字牌")}
    owed = {p: 0 for p in range(len(view["players"]))}
    for t in r["transfers"]:
        b = transfer_beans(t["amount"], room.stake)
        owed[t["from"]] -= b
        owed[t["to"]] += b
    paid = settled_beans(hand)
    record = (hand.result or {}).get("beans") or {}
    rows = []
    for p, vp in enumerate(view["players"]):
        score = r["scores"][p]
        moved = paid.get(p, 0) if paid is not None else owed[p]
        cut = paid is not None and moved != owed[p]
        why = [_(CUT_REASONS.get(code, code)) for code in (record.get("reasons") or {}).get(str(p), [])]
        rows.append({
            **seats[p], "hand": vp["hand"], "melds": vp["melds"], "score": score,
            "winner": r["winner"] == p, "discarder": r["discarder"] == p, "liable": r["liable"] == p,
            "net": r["net"][p], "net_beans": moved, "owed_beans": owed[p], "cut": cut,
            "cut_reasons": "、".join(why) if lang_is_zh() else ", ".join(why),
        })
    transfers = [{"from": names.get(t["from"], ""), "to": names.get(t["to"], ""), "amount": t["amount"],
                  "beans": transfer_beans(t["amount"], room.stake)} for t in r["transfers"]]
    return {
        "drawn_hand": r["drawn_hand"], "self_drawn": r["self_drawn"], "win_tile": r["win_tile"],
        "winner_name": names.get(r["winner"], "") if r["winner"] is not None else "",
        "discarder_name": names.get(r["discarder"], "") if r["discarder"] is not None else "",
        "liable_name": names.get(r["liable"], "") if r["liable"] is not None else "",
        "liable_reason": reasons.get(r["liable_reason"], r["liable_reason"] or ""),
        "rows": rows, "transfers": transfers,
    }


def lang_is_zh() -> bool:
    return ui_lang(translation.get_language()) == "zh"


def render_fragments(ctx: dict) -> dict:
    """{fragment id: html} of every fragment, marked for out-of-band swaps."""
    ctx = {**ctx, "oob": True}
    return {name: render_to_string(f"{TEMPLATE}#{name}", ctx) for name in FRAGMENTS}


def render_clock(ctx: dict) -> str:
    return render_to_string(f"{TEMPLATE}#clock", {**ctx, "oob": True})


def render_toast(message: str, level: str = "error") -> str:
    return render_to_string(f"{TEMPLATE}#toast", {"toast": message, "level": level, "oob": True,
                                                   "toast_id": int(timezone.now().timestamp() * 1000)})


def render_gone(lang: str) -> str:
    with translation.override(django_language(lang)):
        return render_to_string(f"{TEMPLATE}#gone", {"oob": True, "lobby_url": lobby_url()})


def seat_fragments(room_id: int, user, lang: str, base_url: str = ""):
    """For the socket: (room version, clock html, {id: html}) or None when the user has no seat."""
    with translation.override(django_language(lang)):
        ctx = seat_context(room_id, user, lang, base_url=base_url)
        if ctx is None:
            return None
        return ctx["room_version"], render_clock(ctx), render_fragments(ctx)

