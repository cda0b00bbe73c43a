from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Profile(models.Model):
    """Per-user data the site shows at the table. Wallet and ledger come in a later issue."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="profile",
        verbose_name=_("用户"),
    )
    nickname = models.CharField(_("昵称"), max_length=32, blank=True)

    class Meta:
        verbose_name = _("个人资料")
        verbose_name_plural = _("个人资料")

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
