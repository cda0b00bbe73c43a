"""Customer-service admin for accounts (客服后台): users, beans, the audit log, site settings.

- Users: search by username, nickname, email, IP (seen_ips) and id (a number); balance and today's
  won/lost; profile, the last ledger rows and the addresses seen. Actions with a form page and a
  required reason: freeze, unfreeze, adjust beans (accounts.beans.staff_adjust: within the ceiling
  unless a superuser). Every action is audited by its service.
- Site settings: the one row (pk=1), change only; every change is audited (before -> after).
- Wallets, the ledger, hand settlements and the audit log are read-only for everyone, superusers
  included: the ledger is append-only (a mistake is corrected by a reversing adjustment) and the
  audit log is never edited.
Roles: accounts/roles.py (the 客服 group).
"""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import display_for_value
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import BigIntegerField, F, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _g
from django.utils.translation import gettext_lazy as _

from accounts import beans
from accounts.audit import record
from accounts.models import AuditLog, HandSettlement, LedgerEntry, Profile, SeenIP, SiteSettings, Wallet, display_name
from accounts.staff_actions import ActionRefused, AdjustBeansForm, ReasonForm, action_with_form

User = get_user_model()
LEDGER_ROWS = 50  # ledger rows shown on a user's page (the full list is one link away)


def admin_link(obj, text=None):
    """A link to the admin change page of `obj` (its text if the model is not registered)."""
    if obj is None:
        return "-"
    opts = obj._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    return format_html('<a href="{}">{}</a>', url, text if text is not None else str(obj))


def changelist_url(model, **params):
    from urllib.parse import urlencode

    opts = model._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
    return f"{url}?{urlencode(params)}" if params else url


def column(name, label, *, boolean=False, fmt=None):
    """A read-only column or field showing the model field `name` under a Chinese label (the
    models' older fields have no verbose names; labelling them here needs no migration)."""

    def show(self, obj):
        value = getattr(obj, name)
        if boolean:
            return value
        if fmt is not None and value is not None:
            return fmt(value)
        # the change page shows a method's value as it is: format dates, numbers and "-" here
        return display_for_value(value, "-")

    return admin.display(description=label, boolean=boolean, ordering=name)(show)


def as_json(value):
    import json

    return format_html("<code>{}</code>", json.dumps(value, ensure_ascii=False))


def choice_filter(lookup, title, choices):
    """A list filter on `lookup` with Chinese labels: choices is [(value, label)]."""

    class ChoiceFilter(admin.SimpleListFilter):
        parameter_name = lookup

        def lookups(self, request, model_admin):
            return list(choices)

        def queryset(self, request, queryset):
            return queryset.filter(**{lookup: self.value()}) if self.value() else queryset

    ChoiceFilter.title = title
    return ChoiceFilter


class BeanDayFilter(admin.DateFieldListFilter):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.title = _("金豆日")


class NumericIdSearchMixin:
    """A search term that is a whole number also finds the row with that id (exact)."""

    id_search_fields = ("pk",)

    def get_search_results(self, request, queryset, search_term):
        results, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip()
        if term.isdigit() and int(term) < 2**63:
            by_id = Q()
            for name in self.id_search_fields:
                by_id |= Q(**{name: int(term)})
            # the text matches as a subquery (no duplicate rows), or the id
            return queryset.filter(Q(pk__in=results.values("pk")) | by_id), False
        return results, may_have_duplicates


class ReadOnlyAdmin(admin.ModelAdmin):
    """View only: no add, change or delete (the ledger is append-only and written by accounts.beans)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyInline:
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


# --- site settings --------------------------------------------------------------------------

class SiteSettingsForm(forms.ModelForm):
    """A field left out of a submission keeps its current value (a browser always sends them all;
    older scripts posting only the limits do not reset the newer settings)."""

    class Meta:
        model = SiteSettings
        fields = "__all__"

    def __init__(self, data=None, *args, **kwargs):
        super().__init__(data, *args, **kwargs)
        if self.is_bound and self.instance.pk:
            data = self.data.copy()
            for name in self.fields:
                if name not in data:
                    data[name] = getattr(self.instance, name)
            self.data = data


@admin.register(SiteSettings)
class SiteSettingsAdmin(admin.ModelAdmin):
    form = SiteSettingsForm
    list_display = ("__str__", "hand_limit", "day_limit", "starting_grant", "relief_amount", "relief_threshold",
                    "cs_adjust_ceiling", "last_updated")
    fieldsets = (
        (_("金豆上限"), {"fields": ("hand_limit", "day_limit")}),
        (_("赠送"), {"fields": ("starting_grant", "relief_amount", "relief_threshold")}),
        (_("客服"), {"fields": ("cs_adjust_ceiling",)}),
        (_("防作弊"), {"fields": ("near_meters",)}),
        (_("新房间默认时间"), {"fields": ("default_turn_seconds", "default_claim_seconds")}),
        (None, {"fields": ("last_updated",)}),
    )
    readonly_fields = ("last_updated",)
    last_updated = column("updated_at", _("最后修改"))

    def has_add_permission(self, request):
        return False  # the single row (pk=1) is made on first use

    def has_delete_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        """Straight to the one row (made if missing) for staff who may see it."""
        if self.has_view_or_change_permission(request):
            obj = SiteSettings.current()
            return redirect(reverse("admin:accounts_sitesettings_change", args=[obj.pk]))
        return super().changelist_view(request, extra_context)

    def save_model(self, request, obj, form, change):
        """Save and audit the change: one line per changed field, before -> after."""
        before = SiteSettings.objects.filter(pk=obj.pk).values().first() or {}
        super().save_model(request, obj, form, change)
        lines = []
        for name in form.changed_data:
            old, new = before.get(name), getattr(obj, name)
            if old != new:
                label = SiteSettings._meta.get_field(name).verbose_name
                lines.append(f"{label} ({name}): {old} → {new}")
        if lines:
            record(request.user, "site_settings", f"site_settings:{obj.pk}", "\n".join(lines))


# --- beans (read-only) ------------------------------------------------------------------------

@admin.register(Wallet)
class WalletAdmin(NumericIdSearchMixin, ReadOnlyAdmin):
    list_display = ("owner", "wallet_balance")
    fields = ("owner", "wallet_balance")
    readonly_fields = fields
    owner = column("user", _("用户"))
    wallet_balance = column("balance", _("余额（金豆）"))
    search_fields = ("user__username", "user__profile__nickname")
    id_search_fields = ("pk", "user__pk")
    list_select_related = ("user__profile",)


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ("time", "owner", "kind", "change", "after", "for_hand", "by_staff", "text")
    list_filter = (choice_filter("reason", _("类型"), LedgerEntry.REASONS), ("day", BeanDayFilter))
    search_fields = ("wallet__user__username", "wallet__user__profile__nickname", "key", "note")
    list_select_related = ("wallet__user__profile", "staff", "hand")
    date_hierarchy = "created_at"
    fields = ("time", "owner", "kind", "change", "after", "for_hand", "by_staff", "text", "bean_day", "idempotency_key")
    readonly_fields = fields
    time = column("created_at", _("时间"))
    kind = column("reason", _("类型"), fmt=lambda r: dict(LedgerEntry.REASONS).get(r, r))
    change = column("amount", _("数量"), fmt=lambda a: f"{a:+d}")
    after = column("balance_after", _("余额"))
    by_staff = column("staff", _("客服"))
    text = column("note", _("备注"))
    bean_day = column("day", _("金豆日"))
    idempotency_key = column("key", _("幂等键"))

    @admin.display(description=_("用户"), ordering="wallet__user__username")
    def owner(self, entry):
        return admin_link(entry.wallet.user, display_name(entry.wallet.user))

    @admin.display(description=_("对局"), ordering="hand")
    def for_hand(self, entry):
        return admin_link(entry.hand) if entry.hand_id else "-"


@admin.register(HandSettlement)
class HandSettlementAdmin(ReadOnlyAdmin):
    list_display = ("for_hand", "base", "owed_json", "paid_json", "reasons_json", "cut", "time")
    list_select_related = ("hand",)
    fields = list_display
    readonly_fields = fields
    base = column("stake", _("底注"))
    owed_json = column("owed", _("应付/应收（按规则）"), fmt=as_json)
    paid_json = column("paid", _("实际"), fmt=as_json)
    reasons_json = column("reasons", _("削减原因"), fmt=as_json)
    time = column("created_at", _("时间"))

    @admin.display(description=_("对局"), ordering="hand")
    def for_hand(self, settlement):
        return admin_link(settlement.hand)

    @admin.display(boolean=True, description=_("按上限削减"))
    def cut(self, obj):
        return obj.was_cut


# --- the audit log (read-only for everyone) ---------------------------------------------------

AUDIT_ACTIONS = {
    "freeze": _("冻结账号"),
    "unfreeze": _("解冻账号"),
    "adjust_beans": _("调整金豆"),
    "force_dissolve": _("强制解散房间"),
    "alert": _("处理警报"),
    "site_settings": _("修改站点设置"),
}
AUDIT_TARGET_MODELS = {}  # more kinds of target ("ticket": support's Ticket), added by the apps' admin modules


def target_link(target: str):
    """'user:5' -> a link to that user's admin page (room:, alert:, site_settings: likewise)."""
    from games.models import Alert, Room

    kind, _sep, pk = target.partition(":")
    models = {"user": User, "room": Room, "alert": Alert, "site_settings": SiteSettings, **AUDIT_TARGET_MODELS}
    model = models.get(kind)
    if model is None or not pk.isdigit():
        return target
    opts = model._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[int(pk)])
    return format_html('<a href="{}">{}</a>', url, target)


class StaffFilter(admin.RelatedOnlyFieldListFilter):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.title = _("客服")


@admin.register(AuditLog)
class AuditLogAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "by_staff", "action_label", "target_link", "detail")
    list_filter = (choice_filter("action", _("操作"), AUDIT_ACTIONS.items()), ("staff", StaffFilter))
    search_fields = ("target", "detail", "staff__username", "staff__profile__nickname")
    list_select_related = ("staff",)
    date_hierarchy = "created_at"
    fields = ("created_at", "by_staff", "action_label", "target_link", "detail")
    readonly_fields = fields
    by_staff = column("staff", _("客服"))

    @admin.display(description=_("操作"), ordering="action")
    def action_label(self, obj):
        return AUDIT_ACTIONS.get(obj.action, obj.action)

    @admin.display(description=_("对象"), ordering="target")
    def target_link(self, obj):
        return target_link(obj.target)


# --- users --------------------------------------------------------------------------------------

class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False
    max_num = 1
    fields = ("nickname", "frozen", "frozen_reason")
    readonly_fields = ("frozen", "frozen_reason")  # only through the freeze / unfreeze actions
    verbose_name_plural = _("个人资料")


class SeenIPInline(ReadOnlyInline, admin.TabularInline):
    model = SeenIP
    fields = ("address", "first", "last")
    readonly_fields = fields
    ordering = ("-last_seen",)
    address = column("ip", "IP")
    first = column("first_seen", _("首次"))
    last = column("last_seen", _("最近"))


def _day_sum(positive: bool):
    """Today's won (positive) or lost hand beans of the outer user, as a subquery."""
    rows = LedgerEntry.objects.filter(wallet__user=OuterRef("pk"), day=beans.today(), reason=LedgerEntry.HAND)
    rows = rows.filter(amount__gt=0) if positive else rows.filter(amount__lt=0)
    total = rows.order_by().values("wallet").annotate(s=Sum("amount")).values("s")
    return Coalesce(Subquery(total), Value(0), output_field=BigIntegerField())


def _describe_user(user):
    wallet = Wallet.objects.filter(user=user).first()
    balance = wallet.balance if wallet else 0
    return _g("%(name)s（用户名 %(username)s，id %(id)s，余额 %(balance)s 金豆）") % {
        "name": display_name(user), "username": user.get_username(), "id": user.pk, "balance": balance}


if admin.site.is_registered(User):
    admin.site.unregister(User)


@admin.register(User)
class CustomerServiceUserAdmin(NumericIdSearchMixin, UserAdmin):
    list_display = ("username", "nickname", "email", "balance", "won_today", "lost_today", "frozen",
                    "is_staff", "last_login")
    list_filter = ("profile__frozen", "is_staff", "is_superuser", "is_active", "groups")
    search_fields = ("username", "profile__nickname", "email", "^seen_ips__ip")
    list_select_related = ("profile",)
    inlines = [ProfileInline, SeenIPInline]
    actions = ["freeze_users", "unfreeze_users", "adjust_beans"]
    fieldsets = (
        (None, {"fields": ("username", "password")}),
        (_("金豆与客服"), {"fields": ("bean_summary", "cs_links", "current_seats", "ledger_table")}),
    ) + tuple(UserAdmin.fieldsets[1:])
    readonly_fields = ("bean_summary", "cs_links", "current_seats", "ledger_table", "last_login", "date_joined")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            cs_balance=Coalesce(F("wallet__balance"), Value(0), output_field=BigIntegerField()),
            cs_won=_day_sum(True),
            cs_lost=Value(0, output_field=BigIntegerField()) - _day_sum(False),
        )

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []  # the add page stays Django's two steps

    # list columns
    @admin.display(description=_("昵称"), ordering="profile__nickname")
    def nickname(self, obj):
        return getattr(getattr(obj, "profile", None), "nickname", "") or "-"

    @admin.display(description=_("金豆"), ordering="cs_balance")
    def balance(self, obj):
        return obj.cs_balance

    @admin.display(description=_("今日赢"), ordering="cs_won")
    def won_today(self, obj):
        return obj.cs_won

    @admin.display(description=_("今日输"), ordering="cs_lost")
    def lost_today(self, obj):
        return obj.cs_lost

    @admin.display(description=_("已冻结"), boolean=True, ordering="profile__frozen")
    def frozen(self, obj):
        profile = getattr(obj, "profile", None)
        return bool(profile and profile.frozen)

    # change page
    @admin.display(description=_("金豆"))
    def bean_summary(self, obj):
        if obj.pk is None:
            return "-"
        wallet = Wallet.objects.filter(user=obj).first()
        if wallet is None:
            return _g("还没有钱包")
        won, lost = beans.day_totals(wallet)
        return format_html(_g("余额 <b>{}</b> 金豆；今日赢 {}，今日输 {}（每日上限 {}）"),
                           wallet.balance, won, lost, SiteSettings.current().day_limit)

    @admin.display(description=_("相关记录"))
    def cs_links(self, obj):
        if obj.pk is None:
            return "-"
        from games.models import Alert

        wallet = Wallet.objects.filter(user=obj).first()
        links = []
        if wallet:
            links.append((changelist_url(LedgerEntry, wallet__id__exact=wallet.pk), _g("全部金豆流水")))
        links.append((changelist_url(AuditLog, target=f"user:{obj.pk}"), _g("对这个账号的操作日志")))
        links.append((changelist_url(Alert, users__id__exact=obj.pk), _g("相关防作弊警报")))
        return format_html_join(" · ", '<a href="{}">{}</a>', links)

    @admin.display(description=_("当前房间"))
    def current_seats(self, obj):
        if obj.pk is None:
            return "-"
        from games.models import Room, Seat

        seats = (Seat.objects.filter(user=obj, room__status__in=(Room.WAITING, Room.PLAYING))
                 .select_related("room").order_by("-room_id"))
        if not seats:
            return _g("不在任何进行中的房间")
        return format_html_join(
            mark_safe("<br>"), "{} {} · {} {}{}",
            ((admin_link(s.room), s.room.get_status_display(), _g("座位"), s.position,
              _g("（托管）") if s.auto_play else "") for s in seats))

    @admin.display(description=_("最近的金豆流水"))
    def ledger_table(self, obj):
        if obj.pk is None:
            return "-"
        rows = (LedgerEntry.objects.filter(wallet__user=obj).select_related("staff", "hand")
                .order_by("-id")[:LEDGER_ROWS])
        if not rows:
            return _g("没有流水")
        head = format_html("<tr>{}</tr>", format_html_join("", "<th>{}</th>", (
            (h,) for h in (_g("时间"), _g("类型"), _g("数量"), _g("余额"), _g("对局"), _g("客服"), _g("备注")))))
        body = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", (
            (e.created_at.astimezone(beans.BEAN_DAY_ZONE).strftime("%Y-%m-%d %H:%M:%S"), e.get_reason_display(),
             f"{e.amount:+d}", e.balance_after, admin_link(e.hand, f"#{e.hand_id}") if e.hand_id else "-",
             e.staff.get_username() if e.staff else "-", e.note or "") for e in rows))
        return format_html('<table class="cs-ledger">{}{}</table>', head, body)

    # actions (each with a form page and a required reason; the services audit)
    def has_freeze_permission(self, request):
        return request.user.has_perm("accounts.freeze_user")

    def has_adjust_permission(self, request):
        return request.user.has_perm("accounts.adjust_beans")

    @admin.action(description=_("冻结账号（不能入座和出牌，进行中的座位改为托管）"), permissions=["freeze"])
    def freeze_users(self, request, queryset):
        from games import services

        def apply(users, data):
            for user in users:
                services.set_frozen(request.user, user, True, data["reason"])
            return _g("已冻结 %(n)s 个账号") % {"n": len(users)}

        return action_with_form(self, request, queryset, form_class=ReasonForm, title=_g("冻结账号"),
                                intro=_g("冻结后不能入座和出牌；正在进行的对局里由系统托管。将冻结："),
                                apply=apply, describe=_describe_user)

    @admin.action(description=_("解冻账号"), permissions=["freeze"])
    def unfreeze_users(self, request, queryset):
        from games import services

        def apply(users, data):
            for user in users:
                services.set_frozen(request.user, user, False, data["reason"])
            return _g("已解冻 %(n)s 个账号") % {"n": len(users)}

        return action_with_form(self, request, queryset, form_class=ReasonForm, title=_g("解冻账号"),
                                intro=_g("将解冻："), apply=apply, describe=_describe_user)

    @admin.action(description=_("调整金豆"), permissions=["adjust"])
    def adjust_beans(self, request, queryset):
        def apply(users, data):
            if not request.user.is_superuser and any(u.pk == request.user.pk for u in users):
                raise ActionRefused(_g("不能给自己调整金豆"))
            for user in users:
                beans.staff_adjust(request.user, user, data["amount"], data["reason"])
            return _g("已为 %(n)s 个账号调整 %(amount)+d 金豆") % {"n": len(users), "amount": data["amount"]}

        if request.user.is_superuser:
            ceiling = _g("超级管理员没有单次上限。")
        else:
            ceiling = _g("客服单次调整上限 %(n)s 金豆。") % {"n": SiteSettings.current().cs_adjust_ceiling}
        return action_with_form(self, request, queryset, form_class=AdjustBeansForm, title=_g("调整金豆"),
                                intro=_g("每个账号记一笔客服调整流水（余额不能低于 0）。") + ceiling + _g("将调整："),
                                apply=apply, describe=_describe_user)
