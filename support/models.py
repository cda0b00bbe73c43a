"""联系客服 and 公告.

- Ticket: one player's question to customer service (a category, a subject), optionally about a room
  and a hand they sat in; its conversation is TicketMessage rows (the player's messages, staff
  replies the player sees, staff notes the player never sees). Only support/services.py changes
  tickets; every staff change is audited there (accounts.audit).
- Announcement: a short notice staff publish in the admin; shown on the lobby while active until
  the player dismisses it (AnnouncementDismissal, one row per player and notice).
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

SUBJECT_MAX = 80  # characters
MESSAGE_MAX = 2000
TITLE_MAX = 60
NOTICE_MAX = 500


class Ticket(models.Model):
    BEANS, CHEAT, ACCOUNT, OTHER = "beans", "cheat", "account", "other"
    CATEGORIES = [(BEANS, _("金豆争议")), (CHEAT, _("举报作弊")), (ACCOUNT, _("账号问题")), (OTHER, _("其他"))]
    # open: nobody has it yet; assigned: a staff member has it and the player waits;
    # answered: staff replied and nothing new came from the player since; closed: done
    OPEN, ASSIGNED, ANSWERED, CLOSED = "open", "assigned", "answered", "closed"
    STATUSES = [(OPEN, _("待处理")), (ASSIGNED, _("处理中")), (ANSWERED, _("已回复")), (CLOSED, _("已关闭"))]
    AWAITING_STAFF = (OPEN, ASSIGNED)

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tickets",
                             verbose_name=_("玩家"))
    category = models.CharField(_("类别"), max_length=10, choices=CATEGORIES)
    subject = models.CharField(_("标题"), max_length=SUBJECT_MAX)
    status = models.CharField(_("状态"), max_length=10, choices=STATUSES, default=OPEN)
    assignee = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
                                 related_name="assigned_tickets", verbose_name=_("负责客服"))
    room = models.ForeignKey("games.Room", on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="tickets", verbose_name=_("房间"))
    hand = models.ForeignKey("games.Hand", on_delete=models.SET_NULL, null=True, blank=True,
                             related_name="tickets", verbose_name=_("对局"))
    created_at = models.DateTimeField(_("提交时间"), auto_now_add=True)
    updated_at = models.DateTimeField(_("最后更新"), auto_now=True)
    # since when the player has been waiting for staff (the queue's order); None while they are not
    waiting_since = models.DateTimeField(_("等待回复自"), null=True, blank=True)
    last_reply_at = models.DateTimeField(_("最近回复"), null=True, blank=True)  # staff's, visible to the player
    player_read_at = models.DateTimeField(null=True, blank=True)  # the player last opened the ticket
    closed_at = models.DateTimeField(_("关闭时间"), null=True, blank=True)

    class Meta:
        verbose_name = _("客服工单")
        verbose_name_plural = _("客服工单")
        ordering = ["-id"]
        indexes = [models.Index(fields=["status", "waiting_since"], name="ticket_queue")]

    def __str__(self):
        return f"#{self.pk} {self.subject}"

    @property
    def unread_reply(self) -> bool:
        """A staff reply the player has not opened yet."""
        return bool(self.last_reply_at and (self.player_read_at is None or self.player_read_at < self.last_reply_at))


class TicketMessage(models.Model):
    PLAYER, REPLY, NOTE = "player", "reply", "note"
    KINDS = [(PLAYER, _("玩家留言")), (REPLY, _("客服回复")), (NOTE, _("内部备注"))]
    VISIBLE_TO_PLAYER = (PLAYER, REPLY)

    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="messages")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    kind = models.CharField(max_length=10, choices=KINDS)
    body = models.TextField(max_length=MESSAGE_MAX)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("工单消息")
        verbose_name_plural = _("工单消息")
        ordering = ["id"]

    def __str__(self):
        return f"{self.ticket_id}/{self.pk} {self.kind}"


class AnnouncementQuerySet(models.QuerySet):
    def active(self, now=None):
        now = now or timezone.now()
        return self.filter(starts_at__lte=now).filter(models.Q(ends_at__isnull=True) | models.Q(ends_at__gt=now))

    def for_lobby(self, user, now=None):
        """Active notices this player has not dismissed, newest first."""
        return self.active(now).exclude(dismissals__user=user).order_by("-starts_at", "-id")


class Announcement(models.Model):
    title = models.CharField(_("标题"), max_length=TITLE_MAX)
    body = models.TextField(_("内容"), max_length=NOTICE_MAX)
    starts_at = models.DateTimeField(_("开始显示"), default=timezone.now)
    ends_at = models.DateTimeField(_("结束显示"), null=True, blank=True,
                                   help_text=_("留空：一直显示，直到改成一个结束时间"))
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                                   editable=False, related_name="+", verbose_name=_("发布人"))
    created_at = models.DateTimeField(_("创建时间"), auto_now_add=True)

    objects = AnnouncementQuerySet.as_manager()

    class Meta:
        verbose_name = _("公告")
        verbose_name_plural = _("公告")
        ordering = ["-starts_at", "-id"]

    def __str__(self):
        return self.title

    def clean(self):
        if self.ends_at and self.starts_at and self.ends_at <= self.starts_at:
            raise ValidationError({"ends_at": _("结束时间要晚于开始时间")})

    def is_active(self, now=None) -> bool:
        now = now or timezone.now()
        return self.starts_at <= now and (self.ends_at is None or self.ends_at > now)


class AnnouncementDismissal(models.Model):
    announcement = models.ForeignKey(Announcement, on_delete=models.CASCADE, related_name="dismissals")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    dismissed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("已关闭的公告")
        verbose_name_plural = _("已关闭的公告")
        constraints = [models.UniqueConstraint(fields=["announcement", "user"], name="one_dismissal_per_user")]
