"""Customer-service admin for games (客服后台): rooms, hands, replays, anti-collusion alerts.

Rooms and hands are read-only here for everyone (play changes them only through games.services);
a stuck room is force-dissolved with the action (a required reason, audited by the service; the
hand in progress is void and no beans move). Alerts: only the status and the note change, and
every change is audited. While a hand is being played its walls stay hidden: no seed, no salt,
and the actions show only who did what kind of move until the hand is over.
"""

from django.contrib import admin, messages
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _g
from django.utils.translation import gettext_lazy as _

from accounts.admin import (NumericIdSearchMixin, ReadOnlyAdmin, ReadOnlyInline, admin_link, as_json, changelist_url,
                            choice_filter, column)
from accounts.audit import record
from accounts.models import LedgerEntry, display_name
from accounts.staff_actions import ReasonForm, action_with_form

from . import hand_result, presence, services
from .models import Alert, Escape, Hand, HandEvent, Replay, Room, Seat
from games.links import stake_label
from games.variant_names import unit_label

REPLAY_STATUSES = {Replay.PENDING: _("待生成"), Replay.OK: _("已验证"), Replay.MISMATCH: _("不一致")}
HAND_STATUSES = {Hand.PLAYING: _("进行中"), Hand.ENDED: _("已结束"), Hand.VOID: _("作废")}


def replay_url(replay) -> str:
    """The viewer of a replay (built by another part of the site; a plain path if its URL moved)."""
    try:
        return reverse("games:replay", args=[replay.token])
    except NoReverseMatch:
        return f"/replay/{replay.token}/"


def replay_summary(hand):
    try:
        replay = hand.replay
    except Replay.DoesNotExist:
        replay = None
    if replay is None:
        return _g("无回放") if hand.status != Hand.ENDED else _g("还没有生成")
    return format_html('<a href="{}" target="_blank" rel="noopener">{}</a> · {}', replay_url(replay), _g("打开回放"),
                       REPLAY_STATUSES.get(replay.status, replay.status))


def user_link(user):
    return admin_link(user, display_name(user))


# --- rooms ------------------------------------------------------------------------------------

class SeatInline(ReadOnlyInline, admin.TabularInline):
    model = Seat
    fields = ("seat_no", "player", "address", "same_ip", "online_now", "auto", "left", "is_ready",
              "timeouts_in_a_row", "location")
    readonly_fields = fields
    verbose_name = _("座位")
    verbose_name_plural = _("入座玩家")
    seat_no = column("position", _("座位号"))
    address = column("ip", "IP")
    auto = column("auto_play", _("托管"), boolean=True)
    left = column("escaped", _("已逃跑"), boolean=True)
    is_ready = column("ready", _("已准备"), boolean=True)
    timeouts_in_a_row = column("timeouts", _("连续超时"))

    def get_queryset(self, request):
        return presence.with_online(super().get_queryset(request).select_related("user__profile"))

    @admin.display(description=_("玩家"))
    def player(self, seat):
        frozen = getattr(getattr(seat.user, "profile", None), "frozen", False)
        return format_html("{}{}", user_link(seat.user), _g("（已冻结）") if frozen else "")

    @admin.display(description=_("同 IP"), boolean=True)
    def same_ip(self, seat):
        if not seat.ip:
            return None
        return Seat.objects.filter(room_id=seat.room_id, ip=seat.ip).exclude(pk=seat.pk).exists()

    @admin.display(description=_("在线"), boolean=True)
    def online_now(self, seat):
        return seat.online

    @admin.display(description=_("位置"))
    def location(self, seat):
        if seat.latitude is None or seat.longitude is None:
            return _g("未分享")
        when = seat.located_at.astimezone(timezone.get_current_timezone()).strftime("%H:%M") if seat.located_at else ""
        return f"{seat.latitude:.5f}, {seat.longitude:.5f} {when}".strip()


@admin.register(Room)
class RoomAdmin(NumericIdSearchMixin, ReadOnlyAdmin):
    list_display = ("id", "room_status", "host_name", "seated", "online", "stake_text", "length_label",
                    "current_hand_link", "open_alerts", "created")
    list_filter = (choice_filter("status", _("状态"), Room.STATUS_CHOICES), "variant")
    search_fields = ("host__username", "host__profile__nickname", "seats__user__username",
                     "seats__user__profile__nickname", "^seats__ip")
    list_select_related = ("host__profile",)
    inlines = [SeatInline]
    actions = ["force_dissolve"]
    fields = ("id", "room_status", "variant", "host_name", "players", "length_label", "stake_text", "min_balance",
              "turn_seconds", "claim_seconds", "current_hand_link", "game_summary", "votes", "vote_started",
              "revoked", "alerts_links", "room_version", "created")
    readonly_fields = fields
    ordering = ("-id",)
    room_status = column("status", _("状态"), fmt=lambda v: dict(Room.STATUS_CHOICES).get(v, v))
    votes = column("dissolve_votes", _("同意解散的座位"), fmt=lambda v: ", ".join(map(str, v)) or "-")
    vote_started = column("dissolve_started_at", _("解散申请时间"))
    revoked = column("invite_revoked", _("邀请链接已收回"), boolean=True)
    room_version = column("version", _("版本"))
    created = column("created_at", _("创建时间"))

    def get_queryset(self, request):
        from django.db.models import Prefetch

        return super().get_queryset(request).prefetch_related(
            Prefetch("seats", queryset=presence.with_online(Seat.objects.all())))  # Seat.online: no query per seat

    @admin.display(description=_("房主"))
    def host_name(self, room):
        return user_link(room.host)

    @admin.display(description=_("入座"))
    def seated(self, room):
        return f"{len(room.seats.all())}/{room.players}"

    @admin.display(description=_("在线"))
    def online(self, room):
        return sum(1 for s in room.seats.all() if s.online)

    @admin.display(description=_("长度"))
    def length_label(self, room):
        return room.length_label()

    @admin.display(description=_("底注"), ordering="stake")
    def stake_text(self, room):  # with the variant's unit: 金豆/胡 (Taizhou) or 金豆/分 (Wenzhou, Zhuji)
        return stake_label(room)

    @admin.display(description=_("当前一局"))
    def current_hand_link(self, room):
        hand = services.current_hand(room)
        if hand is None:
            return "-"
        return format_html("{} · {}", admin_link(hand, _g("第 %(n)s 局") % {"n": hand.number}),
                           HAND_STATUSES.get(hand.status, hand.status))

    @admin.display(description=_("对局"))
    def game_summary(self, room):
        from .models import Game

        try:
            game = room.game
        except Game.DoesNotExist:
            return _g("还没有开始")
        return _g("已打 %(n)s 局，庄家座位 %(dealer)s，累计（%(unit)s）%(totals)s") % {
            "n": game.hands_played, "dealer": game.dealer, "totals": game.totals, "unit": unit_label(room.variant)}

    @admin.display(description=_("未处理警报"))
    def open_alerts(self, room):
        n = room.alerts.exclude(status=Alert.ACTED).count()
        if not n:
            return 0
        return format_html('<a href="{}">{}</a>', changelist_url(Alert, room__id__exact=room.pk), n)

    @admin.display(description=_("警报"))
    def alerts_links(self, room):
        alerts = list(room.alerts.all())
        if not alerts:
            return _g("没有")
        return format_html_join(mark_safe("<br>"), "{} · {} · {}", (
            (admin_link(a, a.get_kind_display()), a.detail, a.get_status_display()) for a in alerts))

    def has_dissolve_permission(self, request):
        return request.user.has_perm("games.dissolve_room")

    @admin.action(description=_("强制解散（进行中的一局作废，不结算金豆）"), permissions=["dissolve"])
    def force_dissolve(self, request, queryset):
        def apply(rooms, data):
            for room in rooms:
                try:
                    services.force_dissolve(request.user, room.pk, data["reason"])
                except services.ServiceError as e:
                    raise services.ServiceError(getattr(e, "code", "refused"), f"{room}: {e}") from None
            return _g("已解散 %(n)s 个房间") % {"n": len(rooms)}

        def describe(room):
            hand = services.current_hand(room)
            playing = hand is not None and hand.status == Hand.PLAYING
            return _g("%(room)s（%(status)s，房主 %(host)s%(hand)s）") % {
                "room": room, "status": room.get_status_display(), "host": display_name(room.host),
                "hand": _g("，第 %(n)s 局将作废") % {"n": hand.number} if playing else ""}

        return action_with_form(self, request, queryset, form_class=ReasonForm, title=_g("强制解散房间"),
                                intro=_g("房间关闭；进行中的一局作废，不结算金豆。将解散："), apply=apply,
                                describe=describe)


# --- hands ------------------------------------------------------------------------------------

class HandEventInline(ReadOnlyInline, admin.TabularInline):
    model = HandEvent
    fields = ("step", "action_text", "by_system", "time", "engine_events")
    readonly_fields = fields
    verbose_name = _("操作")
    verbose_name_plural = _("操作记录")
    step = column("seq", _("步"))
    by_system = column("auto", _("系统代打"), boolean=True)
    time = column("created_at", _("时间"))

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("hand")

    @admin.display(description=_("操作"))
    def action_text(self, event):
        action = event.action or {}
        text = _g("座位 %(seat)s：%(kind)s") % {"seat": action.get("seat", "?"), "kind": action.get("kind", "?")}
        if event.hand.status == Hand.PLAYING:
            return text  # tiles stay hidden while the hand is played
        tiles = action.get("tiles") or ([action["tile"]] if action.get("tile") else [])
        return f"{text} {' '.join(tiles)}".strip()

    @admin.display(description=_("引擎事件"))
    def engine_events(self, event):
        if event.hand.status == Hand.PLAYING:
            return _g("（对局结束后显示）")
        return as_json(event.events)


@admin.register(Hand)
class HandAdmin(NumericIdSearchMixin, ReadOnlyAdmin):
    list_display = ("id", "room_link", "hand_number", "status_label", "dealer_seat", "steps", "started", "ended",
                    "cut", "replay_status")
    list_filter = (choice_filter("status", _("状态"), HAND_STATUSES.items()),
                   choice_filter("replay__status", _("回放验证"), REPLAY_STATUSES.items()))
    search_fields = ("game__room__seats__user__username", "game__room__seats__user__profile__nickname")
    id_search_fields = ("pk", "game__room__pk")
    list_select_related = ("game__room", "replay", "settlement")
    inlines = [HandEventInline]
    fields = ("room_link", "hand_number", "status_label", "dealer_seat", "steps", "started", "ended", "timeout_at",
              "commitment", "hand_options", "hand_result", "settlement_table", "ledger_rows", "replay_link",
              "replay_status", "replay_problem")
    readonly_fields = fields
    ordering = ("-id",)
    hand_number = column("number", _("局号"))
    dealer_seat = column("dealer", _("庄家座位"))
    steps = column("version", _("步数"))
    started = column("started_at", _("开始"))
    ended = column("ended_at", _("结束"))
    timeout_at = column("deadline", _("超时时间"))
    hand_options = column("options", _("选项"), fmt=as_json)
    hand_result = column("result", _("结果"), fmt=as_json)

    @admin.display(description=_("房间"), ordering="game__room")
    def room_link(self, hand):
        return admin_link(hand.game.room)

    @admin.display(description=_("状态"), ordering="status")
    def status_label(self, hand):
        return HAND_STATUSES.get(hand.status, hand.status)

    @admin.display(description=_("承诺（SHA-256）"))
    def commitment(self, hand):
        return format_html("<code>{}</code>", hand.commitment)

    @admin.display(description=_("按上限削减"), boolean=True)
    def cut(self, hand):
        settlement = self._settlement(hand)
        return None if settlement is None else settlement.was_cut

    @staticmethod
    def _settlement(hand):
        from accounts.models import HandSettlement

        try:
            return hand.settlement
        except HandSettlement.DoesNotExist:
            return None

    @admin.display(description=_("金豆结算"))
    def settlement_table(self, hand):
        settlement = self._settlement(hand)
        if settlement is None:
            return _g("没有结算（进行中、作废或未结算）")
        players = {s.position: s.user for s in hand.game.room.seats.select_related("user__profile")}
        head = format_html("<tr>{}</tr>", format_html_join("", "<th>{}</th>", (
            (h,) for h in (_g("座位"), _g("玩家"), _g("应付/应收"), _g("实际"), _g("削减原因")))))
        rows = []
        for pos in sorted(settlement.owed, key=int):
            owed, paid = settlement.owed[pos], settlement.paid.get(pos, 0)
            reasons = hand_result.cut_reasons(settlement.reasons.get(pos, []))
            user = players.get(int(pos))
            rows.append((pos, user_link(user) if user else "-", f"{owed:+d}", f"{paid:+d}",
                         reasons or ("-" if owed == paid else "")))
        body = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows)
        return format_html('<table>{}{}</table><p>{}</p>', head, body,
                           _g("底注 %(stake)s；%(cut)s") % {
                               "stake": stake_label(hand.game.room),
                               "cut": _g("按上限削减过") if settlement.was_cut else _g("没有削减")})

    @admin.display(description=_("金豆流水"))
    def ledger_rows(self, hand):
        rows = LedgerEntry.objects.filter(hand=hand).select_related("wallet__user__profile").order_by("id")
        if not rows:
            return "-"
        return format_html_join(mark_safe("<br>"), "{}: {} → {}", (
            (user_link(e.wallet.user), f"{e.amount:+d}", e.balance_after) for e in rows))

    @admin.display(description=_("回放"))
    def replay_link(self, hand):
        return replay_summary(hand)

    @admin.display(description=_("回放验证"), ordering="replay__status")
    def replay_status(self, hand):
        try:
            return REPLAY_STATUSES.get(hand.replay.status, hand.replay.status)
        except Replay.DoesNotExist:
            return "-"

    @admin.display(description=_("不一致之处"))
    def replay_problem(self, hand):
        try:
            return hand.replay.problem or "-"
        except Replay.DoesNotExist:
            return "-"


@admin.register(Replay)
class ReplayAdmin(ReadOnlyAdmin):
    list_display = ("id", "hand_link", "status_label", "problem_short", "viewer", "built")
    list_filter = (choice_filter("status", _("验证"), REPLAY_STATUSES.items()),)
    search_fields = ("=token", "problem")
    list_select_related = ("hand__game__room",)
    fields = ("hand_link", "status_label", "problem_text", "viewer", "built")
    readonly_fields = fields
    problem_text = column("problem", _("不一致之处"))
    built = column("built_at", _("生成时间"))

    @admin.display(description=_("对局"))
    def hand_link(self, replay):
        hand = replay.hand
        return admin_link(hand, f"{hand.game.room} · " + _g("第 %(n)s 局") % {"n": hand.number})

    @admin.display(description=_("验证"), ordering="status")
    def status_label(self, replay):
        return REPLAY_STATUSES.get(replay.status, replay.status)

    @admin.display(description=_("不一致之处"))
    def problem_short(self, replay):
        return (replay.problem[:80] + "…") if len(replay.problem) > 80 else (replay.problem or "-")

    @admin.display(description=_("查看"))
    def viewer(self, replay):
        return format_html('<a href="{}" target="_blank" rel="noopener">{}</a>', replay_url(replay), _g("打开回放"))


@admin.register(Escape)
class EscapeAdmin(ReadOnlyAdmin):
    """逃跑 (Zhuji): who left which game, the penalty in units and the beans that moved."""

    list_display = ("id", "room_link", "seat_no", "player", "penalty", "beans_moved", "when")
    search_fields = ("=game__room__id", "user__username", "user__profile__nickname")
    list_select_related = ("game__room", "user__profile")
    fields = ("room_link", "seat_no", "player", "hand", "penalty", "owed_text", "beans_moved", "reasons_text", "when")
    readonly_fields = fields
    seat_no = column("position", _("座位号"))
    when = column("created_at", _("时间"))
    owed_text = column("owed", _("按规则应付（金豆）"))
    reasons_text = column("reasons", _("调整原因"))

    @admin.display(description=_("房间"))
    def room_link(self, escape):
        return admin_link(escape.game.room, str(escape.game.room))

    @admin.display(description=_("玩家"))
    def player(self, escape):
        return user_link(escape.user)

    @admin.display(description=_("罚分"))
    def penalty(self, escape):
        return sum(t["amount"] for t in escape.transfers)

    @admin.display(description=_("实际金豆"))
    def beans_moved(self, escape):
        return ", ".join(f"{p}: {v:+d}" for p, v in sorted(escape.paid.items()))


# --- alerts -----------------------------------------------------------------------------------

@admin.register(Alert)
class AlertAdmin(admin.ModelAdmin):
    list_display = ("created_at", "kind", "room_link", "detail", "players", "status", "note_short")
    list_filter = ("kind", "status")
    search_fields = ("detail", "note", "users__username", "users__profile__nickname")
    list_select_related = ("room",)
    fields = ("created_at", "kind", "room_link", "detail", "positions", "players", "status", "note")
    readonly_fields = ("created_at", "kind", "room_link", "detail", "positions", "players")
    actions = ["mark_looked", "mark_acted"]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("users__profile")

    def has_add_permission(self, request):
        return False  # alerts are raised by the table (games.services)

    def has_delete_permission(self, request, obj=None):
        return False  # a finding stays on record; close it with a status and a note

    @admin.display(description=_("房间"), ordering="room")
    def room_link(self, alert):
        return admin_link(alert.room)

    @admin.display(description=_("玩家"))
    def players(self, alert):
        return format_html_join("、", "{}", ((user_link(u),) for u in alert.users.all()))

    @admin.display(description=_("备注"))
    def note_short(self, alert):
        return (alert.note[:40] + "…") if len(alert.note) > 40 else alert.note

    @staticmethod
    def _audit(request, alert, before_status, before_note):
        lines = []
        if alert.status != before_status:
            lines.append(_g("状态：%(old)s → %(new)s") % {
                "old": dict(Alert.STATUSES).get(before_status, before_status), "new": alert.get_status_display()})
        if alert.note != before_note:
            lines.append(_g("备注：%(note)s") % {"note": alert.note})
        if lines:
            record(request.user, "alert", f"alert:{alert.pk}", "\n".join(lines))

    def save_model(self, request, obj, form, change):
        before = Alert.objects.filter(pk=obj.pk).values("status", "note").first() or {"status": None, "note": ""}
        super().save_model(request, obj, form, change)
        self._audit(request, obj, before["status"], before["note"])

    def _mark(self, request, queryset, status):
        from django.db import transaction

        n = 0
        with transaction.atomic():
            for alert in queryset.select_for_update():
                if alert.status != status:
                    before = alert.status
                    alert.status = status
                    alert.save(update_fields=["status"])
                    self._audit(request, alert, before, alert.note)
                    n += 1
        self.message_user(request, _g("已更新 %(n)s 条警报") % {"n": n}, messages.SUCCESS)

    @admin.action(description=_("标记为已查看"), permissions=["change"])
    def mark_looked(self, request, queryset):
        self._mark(request, queryset, Alert.LOOKED)

    @admin.action(description=_("标记为已处理"), permissions=["change"])
    def mark_acted(self, request, queryset):
        self._mark(request, queryset, Alert.ACTED)
