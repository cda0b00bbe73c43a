"""Login throttling: after LIMIT failed logins for one username, or from one IP address, within
WINDOW seconds, further attempts for that username / from that address are refused for LOCKOUT
seconds, whatever the password.

Failures are counted from Django's `user_login_failed` signal (every authenticate() that fails:
our login page, the admin's); a successful login clears its username's count. The counts live in
Django's cache (settings.CACHES: per-process memory by default, Redis with CACHE_URL).

Refusing: our login form says so clearly (accounts.forms.ThrottledAuthenticationForm, HTTP 429);
LoginThrottleBackend, first in AUTHENTICATION_BACKENDS, refuses locked attempts anywhere else
(the admin's login) by raising PermissionDenied, which makes authenticate() stop and fail.
"""

from __future__ import annotations

import hashlib
import math
import time

from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.dispatch import receiver
from django.utils.translation import gettext_lazy as _

from mahjong_site.client_ip import request_ip

LIMIT = 5
WINDOW = 15 * 60
LOCKOUT = 15 * 60
PREFIX = "login-throttle"


def _now() -> float:
    return time.time()


def _user_key(username) -> str | None:
    if not isinstance(username, str) or not username.strip():
        return None
    digest = hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]
    return f"{PREFIX}:user:{digest}"


def _ip_key(ip) -> str | None:
    return f"{PREFIX}:ip:{ip}" if ip else None


def _keys(username, ip) -> list[str]:
    return [k for k in (_user_key(username), _ip_key(ip)) if k]


def record_failure(username, ip):
    now = _now()
    for key in _keys(username, ip):
        entry = cache.get(key) or {}
        fails = [t for t in entry.get("fails", []) if now - t < WINDOW] + [now]
        until = entry.get("until", 0)
        if len(fails) >= LIMIT:
            until, fails = now + LOCKOUT, []
        cache.set(key, {"fails": fails, "until": until}, timeout=WINDOW + LOCKOUT)


def locked_for(username, ip) -> int:
    """Seconds until this username / address may try again (0 = now)."""
    now = _now()
    wait = 0.0
    for key in _keys(username, ip):
        entry = cache.get(key) or {}
        wait = max(wait, entry.get("until", 0) - now)
    return math.ceil(wait) if wait > 0 else 0


def clear_user(username):
    key = _user_key(username)
    if key:
        cache.delete(key)


@receiver(user_login_failed, dispatch_uid="accounts.throttle.failed")
def _on_failure(sender, credentials, request=None, **kwargs):
    record_failure((credentials or {}).get("username"), request_ip(request) if request is not None else None)


@receiver(user_logged_in, dispatch_uid="accounts.throttle.success")
def _on_success(sender, request, user, **kwargs):
    clear_user(user.get_username())


class LoginThrottleBackend:
    """Refuses (PermissionDenied) a locked username or address; otherwise lets the next backend decide."""

    def authenticate(self, request, username=None, **kwargs):
        ip = request_ip(request) if request is not None else None
        if locked_for(username, ip):
            raise PermissionDenied("too many failed logins")
        return None


class ThrottledAuthenticationForm(AuthenticationForm):
    """The login form: a locked username or address is refused with a clear message before the
    password is even checked."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "throttled": _("登录失败次数太多，请 %(minutes)s 分钟后再试。"),
    }

    def clean(self):
        wait = locked_for(self.data.get("username"), request_ip(self.request) if self.request else None)
        if wait:
            raise ValidationError(self.error_messages["throttled"], code="throttled",
                                  params={"minutes": max(1, math.ceil(wait / 60))})
        return super().clean()
