"""Small helpers to read settings from the environment.

An unset variable and an empty one are treated alike: the default is used.
A value that cannot be parsed raises ImproperlyConfigured naming the variable,
so a typo in a deployment fails at start-up instead of silently using a default.
"""

import os
from urllib.parse import urlsplit, urlunsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on", "y", "t"}
_FALSE = {"0", "false", "no", "off", "n", "f"}


def _raw(name):
    value = os.environ.get(name)
    if value is None:
        return None
    value = value.strip()
    return value or None


def env_str(name, default=None):
    """The variable as a string, or default when unset/empty."""
    value = _raw(name)
    return default if value is None else value


def env_bool(name, default=False):
    """1/true/yes/on and 0/false/no/off (any case); default when unset/empty."""
    value = _raw(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def env_int(name, default=None):
    """The variable as an int; default when unset/empty."""
    value = _raw(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from None


def env_list(name, default=None, sep=","):
    """A separated list ("a, b,c" -> ["a", "b", "c"]), empty items dropped; default when unset/empty."""
    value = _raw(name)
    if value is None:
        return list(default) if default is not None else []
    return [item.strip() for item in value.split(sep) if item.strip()]


def redis_url_with_db(url, db):
    """The same Redis server URL with another database number: redis://h:p/0 -> redis://h:p/<db>."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))
