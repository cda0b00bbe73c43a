"""Customer-service admin for tickets (客服工单) and announcements (公告).

- Tickets: the queue (filter by status, category, who has it; the ones waiting for staff first,
  oldest first), each ticket linked to the player, the room and the hand. On a ticket's page staff
  take it or give it to another staff member, add an internal note (never shown to the player),
  reply (the player sees it) and close or reopen it; the list has 分配给我 / 关闭 / 重新打开 too.
  Everything goes through support/services.py, which writes the audit rows (accounts.audit). Tickets
  are never added or deleted here (players write them), and the player's own words never change.
- Announcements: title, text, shown from / until; every add and change is audited. Not deleted:
  an announcement is taken down by giving it an end time.
Roles: accounts/roles.py (the 客服 group: view and change tickets, add replies, publish announcements).
"""

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Case, Count, IntegerField, Value, When
from django.shortcuts import redirect
from django.template.defaultfilters import linebreaksbr
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _g
from django.utils.translation import gettext_lazy as _

from accounts import admin as accounts_admin
from accounts.admin import NumericIdSearchMixin, admin_link, choice_filter, column
from accounts.audit import record
from accounts.models import display_name

from . import services
from .models import MESSAGE_MAX, Announcement, Ticket, TicketMessage

User = get_user_model()

accounts_admin.AUDIT_ACTIONS.update({
    "ticket_assign": _("工单：分配"),
    "ticket_reply": _("工单：回复玩家"),
    "ticket_note": _("工单：内部备注"),
    "ticket_close": _("工单：关闭"),
    "ticket_reopen": _("工单：重新打开"),
    "announcement": _("公告"),
})
accounts_admin.AUDIT_TARGET_MODELS.update({"ticket": Ticket, "announcement": Announcement})

QUEUE_RANK = Case(When(status=Ticket.OPEN, then=Value(0)), When(status=Ticket.ASSIGNED, then=Value(1)),
                  When(status=Ticket.ANSWERED, then=Value(2)), default=Value(3), output_field=IntegerField())


def user_link(user):
    return admin_link(user, display_name(user)) if user is not None else "-"


class WaitingFilter(admin.SimpleListFilter):
    """Status, with 等待客服 (open or assigned: the player waits for staff) first."""

    title = _("状态")
    parameter_name = "queue"

    def lookups(self, request, model_admin):
        return [("waiting", _("等待客服（待处理和处理中）")), ("mine", _("我负责的、等待客服"))] + list(Ticket.STATUSES)

    def queryset(self, request, queryset):
        value = self.value()
        if value == "waiting":
            return queryset.filter(status__in=Ticket.AWAITING_STAFF)
        if value == "mine":
            return queryset.filter(status__in=Ticket.AWAITING_STAFF, assignee=request.user)
        if value in dict(Ticket.STATUSES):
            return queryset.filter(status=value)
        return queryset


class AssigneeFilter(admin.RelatedOnlyFieldListFilter):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.title = _("负责客服")


class StaffChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, user):
        return f"{display_name(user)}（{user.get_username()}）"


class TicketAdminForm(forms.ModelForm):
    """The staff's work on one ticket: who has it, a note, a reply, close or reopen. The model's
    other fields are shown read-only; clean() refuses what the ticket's status does not allow, so a
    refused form changes nothing."""

    assignee = StaffChoiceField(label=_("负责客服"), queryset=User.objects.none(), required=False,
                                empty_label=_("（无人）"))
    state = forms.ChoiceField(label=_("状态操作"), required=False, widget=forms.RadioSelect)
    note = forms.CharField(label=_("内部备注（玩家看不到）"), required=False, max_length=MESSAGE_MAX,
                           widget=forms.Textarea(attrs={"rows": 3, "cols": 80}))
    reply = forms.CharField(label=_("回复玩家（玩家会看到）"), required=False, max_length=MESSAGE_MAX,
                            widget=forms.Textarea(attrs={"rows": 5, "cols": 80}))

    can_write = True  # may add replies and notes (support.add_ticketmessage); set per request by the admin

    class Meta:
        model = Ticket
        fields = ("assignee",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.can_write:
            del self.fields["note"], self.fields["reply"]
        self.fields["assignee"].queryset = User.objects.filter(is_staff=True, is_active=True).select_related(
            "profile").order_by("username")
        closed = self.instance.pk and self.instance.status == Ticket.CLOSED
        self.fields["state"].choices = [("", _g("不变")), ("reopen" if closed else "close",
                                                        _g("重新打开") if closed else _g("关闭工单"))]

    def clean(self):
        data = super().clean()
        closed = self.instance.status == Ticket.CLOSED
        if data.get("reply", "").strip() and closed and data.get("state") != "reopen":
            self.add_error("reply", _g("工单已关闭，先重新打开再回复"))
        return data


@admin.register(Ticket)
class TicketAdmin(NumericIdSearchMixin, admin.ModelAdmin):
    form = TicketAdminForm
    list_display = ("id", "subject", "category_label", "status_label", "player", "assignee_name", "room_link",
                    "hand_link", "waiting", "updated")
    list_display_links = ("id", "subject")
    list_filter = (WaitingFilter, choice_filter("category", _("类别"), Ticket.CATEGORIES), ("assignee", AssigneeFilter))
    search_fields = ("subject", "user__username", "user__profile__nickname", "messages__body")
    id_search_fields = ("pk", "room__pk")
    list_select_related = ("user__profile", "assignee__profile", "room", "hand")
    actions = ["assign_to_me", "close_tickets", "reopen_tickets"]
    readonly_fields = ("ticket_no", "player", "category_label", "subject_text", "status_label", "created", "waiting",
                       "closed", "room_link", "hand_link", "conversation", "assignee_name")
    fieldsets = (
        (_("工单"), {"fields": ("ticket_no", "player", "category_label", "subject_text", "status_label", "created",
                              "waiting", "closed")}),
        (_("附带"), {"fields": ("room_link", "hand_link")}),
        (_("对话"), {"fields": ("conversation",)}),
        (_("处理"), {"fields": ("assignee", "state", "note", "reply")}),
    )
    subject_text = column("subject", _("标题"))
    created = column("created_at", _("提交时间"))
    updated = column("updated_at", _("最后更新"))
    closed = column("closed_at", _("关闭时间"))

    def get_queryset(self, request):
        # annotated before the ordering that uses it (ModelAdmin.get_queryset orders first)
        return self.model._default_manager.annotate(queue_rank=QUEUE_RANK).order_by(*self.get_ordering(request))

    def get_ordering(self, request):
        return ["queue_rank", "waiting_since", "created_at"]  # waiting for staff first, the longest waiting first

    def has_add_permission(self, request):
        return False  # players write tickets (/support/new/)

    def has_delete_permission(self, request, obj=None):
        return False  # a ticket stays on record; close it

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if not self.has_change_permission(request, obj):  # view only: who has it, nothing to fill in
            return fieldsets[:-1] + ((_("处理"), {"fields": ("assignee_name",)}),)
        if request.user.has_perm("support.add_ticketmessage"):
            return fieldsets
        return fieldsets[:-1] + ((_("处理"), {"fields": ("assignee", "state")}),)

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        form.can_write = request.user.has_perm("support.add_ticketmessage")
        return form

    # columns and read-only fields
    @admin.display(description=_("工单号"), ordering="id")
    def ticket_no(self, ticket):
        return f"#{ticket.pk}"

    @admin.display(description=_("类别"), ordering="category")
    def category_label(self, ticket):
        return ticket.get_category_display()

    @admin.display(description=_("状态"), ordering="queue_rank")
    def status_label(self, ticket):
        return ticket.get_status_display()

    @admin.display(description=_("玩家"), ordering="user__username")
    def player(self, ticket):
        return user_link(ticket.user)

    @admin.display(description=_("负责客服"), ordering="assignee__username")
    def assignee_name(self, ticket):
        return display_name(ticket.assignee) if ticket.assignee_id else "-"

    @admin.display(description=_("房间"), ordering="room")
    def room_link(self, ticket):
        return admin_link(ticket.room) if ticket.room_id else "-"

    @admin.display(description=_("对局"), ordering="hand")
    def hand_link(self, ticket):
        return admin_link(ticket.hand) if ticket.hand_id else "-"

    @admin.display(description=_("等待回复自"), ordering="waiting_since")
    def waiting(self, ticket):
        if ticket.waiting_since is None:
            return "-"
        minutes = int((timezone.now() - ticket.waiting_since).total_seconds() // 60)
        since = timezone.localtime(ticket.waiting_since).strftime("%Y-%m-%d %H:%M")
        if minutes < 60:
            return _g("%(since)s（%(n)s 分钟）") % {"since": since, "n": minutes}
        return _g("%(since)s（%(n)s 小时）") % {"since": since, "n": minutes // 60}

    @admin.display(description=_("对话"))
    def conversation(self, ticket):
        if ticket.pk is None:
            return "-"
        rows = ticket.messages.select_related("author__profile")
        kinds = dict(TicketMessage.KINDS)
        styles = {TicketMessage.PLAYER: "border-left:4px solid #999;padding:.3em .6em;margin:.4em 0",
                  TicketMessage.REPLY: "border-left:4px solid #2e7d32;padding:.3em .6em;margin:.4em 0",
                  TicketMessage.NOTE: "border-left:4px solid #b8860b;background:#fff6d5;padding:.3em .6em;margin:.4em 0"}
        return format_html_join("", '<div class="ticket-msg ticket-msg-{}" style="{}"><b>{}</b> · {} · {}<br>{}</div>', (
            (m.kind, styles[m.kind], kinds[m.kind] + (_g("（玩家看不到）") if m.kind == TicketMessage.NOTE else ""),
             display_name(m.author) if m.author else "-",
             timezone.localtime(m.created_at).strftime("%Y-%m-%d %H:%M"),
             linebreaksbr(m.body, autoescape=True))
            for m in rows))

    # the change page: every part through the services (they audit); a refusal undoes the whole save
    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        staff = request.user
        try:
            if data.get("state") == "reopen":
                services.reopen(staff, obj.pk)
            if "assignee" in form.changed_data:
                services.assign(staff, obj.pk, data.get("assignee"))
            if data.get("note", "").strip():
                services.add_note(staff, obj.pk, data["note"])
            if data.get("reply", "").strip():
                services.staff_reply(staff, obj.pk, data["reply"])
            if data.get("state") == "close":
                services.close(staff, obj.pk)
        except services.TicketError as e:
            transaction.set_rollback(True)
            request._ticket_refused = True
            self.message_user(request, str(e), messages.ERROR)  # no query after this: the block is rolled back
        else:
            obj.refresh_from_db()

    def log_change(self, request, obj, message):
        if getattr(request, "_ticket_refused", False):
            return None
        return super().log_change(request, obj, message)

    def response_change(self, request, obj):
        if getattr(request, "_ticket_refused", False):
            return redirect(request.path)
        return super().response_change(request, obj)

    # list actions
    def _each(self, request, queryset, work):
        done, refused = 0, []
        for pk in queryset.values_list("pk", flat=True):
            try:
                if work(pk) is not False:
                    done += 1
            except services.TicketError as e:
                refused.append(f"#{pk}: {e}")
        self.message_user(request, _g("已处理 %(n)s 个工单") % {"n": done}, messages.SUCCESS)
        if refused:
            self.message_user(request, "；".join(refused), messages.WARNING)

    @admin.action(description=_("分配给我"), permissions=["change"])
    def assign_to_me(self, request, queryset):
        self._each(request, queryset, lambda pk: services.assign(request.user, pk, request.user))

    @admin.action(description=_("关闭工单"), permissions=["change"])
    def close_tickets(self, request, queryset):
        self._each(request, queryset, lambda pk: services.close(request.user, pk))

    @admin.action(description=_("重新打开"), permissions=["change"])
    def reopen_tickets(self, request, queryset):
        self._each(request, queryset, lambda pk: services.reopen(request.user, pk))


# --- announcements ------------------------------------------------------------------------------

@admin.register(Announcement)
class AnnouncementAdmin(admin.ModelAdmin):
    list_display = ("title", "starts_at", "ends_at", "active_now", "author", "dismissed")
    fields = ("title", "body", "starts_at", "ends_at")
    search_fields = ("title", "body")
    list_select_related = ("created_by__profile",)

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(dismissed_count=Count("dismissals"))

    def has_delete_permission(self, request, obj=None):
        return False  # take it down with an end time; the record stays

    @admin.display(description=_("正在显示"), boolean=True)
    def active_now(self, obj):
        return obj.is_active()

    @admin.display(description=_("发布人"))
    def author(self, obj):
        return display_name(obj.created_by) if obj.created_by_id else "-"

    @admin.display(description=_("已关闭的玩家数"), ordering="dismissed_count")
    def dismissed(self, obj):
        return obj.dismissed_count

    def save_model(self, request, obj, form, change):
        before = Announcement.objects.filter(pk=obj.pk).values().first() if change else None
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
        if before is None:
            detail = _g("发布：%(title)s（%(start)s 起%(end)s）") % {
                "title": obj.title, "start": _when(obj.starts_at),
                "end": _g("，到 %(t)s") % {"t": _when(obj.ends_at)} if obj.ends_at else ""}
        else:
            lines = []
            for name in form.changed_data:
                old, new = before.get(name), getattr(obj, name)
                if old != new:
                    label = Announcement._meta.get_field(name).verbose_name
                    lines.append(f"{label}: {_when(old)} → {_when(new)}")
            if not lines:
                return
            detail = "\n".join(lines)
        record(request.user, "announcement", f"announcement:{obj.pk}", detail)


def _when(value):
    if hasattr(value, "tzinfo"):
        return timezone.localtime(value).strftime("%Y-%m-%d %H:%M") if value.tzinfo else str(value)
    return "-" if value is None else str(value)
