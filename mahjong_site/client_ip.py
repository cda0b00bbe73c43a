"""The client's IP address, for HTTP requests and websockets alike.

With TRUSTED_PROXY_HOPS = 0 (the default) only the peer address of the connection counts:
X-Forwarded-For is ignored, since any client can send one. Behind N proxies that each append the
address they saw to X-Forwarded-For, set TRUSTED_PROXY_HOPS = N: the client is then the entry N
places from the right (the right-most N-1 entries were added by our own inner proxies; anything
further left was written by the client and is not trusted).
"""

from __future__ import annotations

import ipaddress

from django.conf import settings


def _valid(value) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    if value.startswith("[") and "]" in value:  # [::1]:1234
        value = value[1:value.index("]")]
    elif value.count(":") == 1:  # 1.2.3.4:1234
        value = value.split(":", 1)[0]
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None


def pick(peer, forwarded_for: list[str], hops: int | None = None) -> str | None:
    """The client address from the peer address and the X-Forwarded-For header value(s)."""
    hops = settings.TRUSTED_PROXY_HOPS if hops is None else hops
    if hops > 0:
        entries = [e.strip() for value in forwarded_for for e in value.split(",") if e.strip()]
        if len(entries) >= hops:
            return _valid(entries[-hops])
    return _valid(peer)


def scope_ip(scope) -> str | None:
    """The client address of an ASGI (websocket) connection."""
    client = scope.get("client") or (None,)
    forwarded = [value.decode("latin-1") for name, value in scope.get("headers") or []
                 if name.lower() == b"x-forwarded-for"]
    return pick(client[0] if client else None, forwarded)


def request_ip(request) -> str | None:
    """The client address of a Django request."""
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    return pick(request.META.get("REMOTE_ADDR"), [forwarded] if forwarded else [])
