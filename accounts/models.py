from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Profile(models.Model):
    """Per-user data the site shows at the table."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="profile",
        verbose_name=_("用户"),
    )
    nickname = models.CharField(_("昵称"), max_length=32, blank=True)
    frozen = models.BooleanField(_("已冻结"), default=False)  # cannot sit down or play
    frozen_reason = models.CharField(_("冻结原因"), max_length=200, blank=True)

    class Meta:
        verbose_name = _("个人资料")
        verbose_name_plural = _("个人资料")
        permissions = [("freeze_user", _("可以冻结和解冻账号"))]

    def __str__(self):
        return self.nickname or self.user.get_username()


def display_name(user):
    """The name a player is shown by: the profile's nickname, else the username ('' if anonymous)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return ""
    try:
        nickname = user.profile.nickname
    except Profile.DoesNotExist:  # users made by createsuperuser or the admin have no profile
        nickname = ""
    return nickname.strip() or user.get_username()


class SiteSettings(models.Model):
    """Bean limits and grants, editable by staff at run time (one row, pk=1)."""

    hand_limit = models.PositiveBigIntegerField(_("每局输赢上限（金豆）"), default=1_000_000)
    day_limit = models.PositiveBigIntegerField(_("每日输赢上限（金豆）"), default=10_000_000)
    starting_grant = models.PositiveBigIntegerField(_("新用户赠送（金豆）"), default=100_000)
    relief_amount = models.PositiveBigIntegerField(_("救济金（金豆）"), default=20_000)
    relief_threshold = models.PositiveBigIntegerField(_("低于多少可领救济金"), default=5_000)
    cs_adjust_ceiling = models.PositiveBigIntegerField(_("客服单次调整上限（金豆）"), default=100_000)
    near_meters = models.PositiveIntegerField(_("距离报警（米）"), default=100)
    default_turn_seconds = models.PositiveSmallIntegerField(_("默认出牌时间（秒）"), default=15)
    default_claim_seconds = models.PositiveSmallIntegerField(_("默认吃碰时间（秒）"), default=8)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("站点设置")
        verbose_name_plural = _("站点设置")

    def __str__(self):
        return str(_("站点设置"))

    @classmethod
    def current(cls):
        obj, _created = cls.objects.get_or_create(pk=1)
        return obj


class Wallet(models.Model):
    """A player's beans (金豆). `balance` caches the sum of the ledger rows and always equals it."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="wallet")
    balance = models.BigIntegerField(default=0)

    class Meta:
        verbose_name = _("金豆钱包")
        verbose_name_plural = _("金豆钱包")
        permissions = [("adjust_beans", _("可以调整金豆（客服不超过单次上限）"))]
        constraints = [models.CheckConstraint(condition=models.Q(balance__gte=0), name="balance_never_negative")]

    def __str__(self):
        return f"{display_name(self.user)}: {self.balance}"


class LedgerEntry(models.Model):
    """Append-only: one row per change of a balance. Never edited; mistakes get a reversing row."""

    HAND, GRANT, RELIEF, ADJUST, ESCAPE = "hand", "grant", "relief", "adjust", "escape"
    REASONS = [(HAND, _("对局结算")), (GRANT, _("新用户赠送")), (RELIEF, _("救济金")), (ADJUST, _("客服调整")),
               (ESCAPE, _("逃跑罚分"))]  # ESCAPE: leaving a game in progress (Zhuji 逃跑)

    wallet = models.ForeignKey(Wallet, on_delete=models.PROTECT, related_name="entries")
    amount = models.BigIntegerField()
    balance_after = models.BigIntegerField()
    reason = models.CharField(max_length=10, choices=REASONS)
    note = models.CharField(max_length=200, blank=True)
    hand = models.ForeignKey("games.Hand", null=True, blank=True, on_delete=models.PROTECT, related_name="ledger")
    staff = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                              related_name="ledger_adjustments")
    key = models.CharField(max_length=120, unique=True)  # idempotency key
    day = models.DateField()  # calendar day in Asia/Shanghai, for the daily limits
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("金豆流水")
        verbose_name_plural = _("金豆流水")
        ordering = ["-id"]
        indexes = [models.Index(fields=["wallet", "day", "reason"])]

    def __str__(self):
        return f"{self.amount:+d} ({self.get_reason_display()})"


class HandSettlement(models.Model):
    """A hand's bean settlement, written once (unique hand) with its ledger rows."""

    hand = models.OneToOneField("games.Hand", on_delete=models.PROTECT, related_name="settlement")
    stake = models.PositiveIntegerField()
    owed = models.JSONField()  # position -> beans owed by the rules (before limits)
    paid = models.JSONField()  # position -> beans that moved
    reasons = models.JSONField(default=dict)  # position -> why it was cut
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("对局结算")
        verbose_name_plural = _("对局结算")

    def __str__(self):
        return _("第 %(id)s 号局的结算") % {"id": self.hand_id}

    @property
    def was_cut(self):
        return self.owed != self.paid


class SeenIP(models.Model):
    """Addresses a user was seen at (login, table socket), for customer service searches."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seen_ips")
    ip = models.GenericIPAddressField()
    first_seen = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("登录 IP")
        verbose_name_plural = _("登录 IP")
        constraints = [models.UniqueConstraint(fields=["user", "ip"], name="one_row_per_user_ip")]

    def __str__(self):
        return self.ip


class AuditLog(models.Model):
    """Every staff action, append-only: never edited or deleted, readable in the admin."""

    staff = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="audit_entries")
    action = models.CharField(_("操作"), max_length=40)
    target = models.CharField(_("对象"), max_length=120)
    detail = models.TextField(_("详情"), blank=True)
    created_at = models.DateTimeField(_("时间"), auto_now_add=True)

    class Meta:
        verbose_name = _("操作日志")
        verbose_name_plural = _("操作日志")
        ordering = ["-id"]

    def __str__(self):
        return f"{self.action} {self.target}"
