from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SupportConfig(AppConfig):
    """联系客服 (tickets between a player and customer service) and 公告 (lobby announcements)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "support"
    verbose_name = _("客服工单与公告")
