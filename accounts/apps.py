from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = "账户"

    def ready(self):
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        def starting_grant(sender, instance, created, raw=False, **kwargs):
            if created and not raw:
                from .beans import grant_start

                grant_start(instance)  # 新用户赠送: the first ledger row of every wallet

        post_save.connect(starting_grant, sender=get_user_model(), dispatch_uid="accounts.starting_grant",
                          weak=False)  # a nested function: a weak reference would die with ready()

        from django.contrib.auth.signals import user_logged_in

        def remember_login_ip(sender, request, user, **kwargs):
            from mahjong_site.client_ip import request_ip

            from .models import SeenIP

            ip = request_ip(request) if request is not None else None
            if ip:
                SeenIP.objects.update_or_create(user=user, ip=ip)  # for customer service searches

        user_logged_in.connect(remember_login_ip, dispatch_uid="accounts.remember_login_ip", weak=False)

        from . import throttle  # noqa: F401  (counts failed logins: user_login_failed)
