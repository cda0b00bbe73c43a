"""Bean amounts in templates: {% load bean_tags %}.

    {{ n|beans }}          100,000
    {{ n|signed_beans }}   +1,200 / −300 / 0
"""

from django import template

register = template.Library()


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


@register.filter
def beans(value):
    n = _int(value)
    return "" if n is None else f"{n:,}"


@register.filter
def signed_beans(value):
    n = _int(value)
    if n is None:
        return ""
    if n > 0:
        return f"+{n:,}"
    if n < 0:
        return f"\u2212{-n:,}"
    return "0"
