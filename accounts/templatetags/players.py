"""{{ user|display_name }}: how a player is shown everywhere (nickname, else username)."""

from django import template

from accounts.models import display_name as _display_name

register = template.Library()


@register.filter
def display_name(user):
    return _display_name(user)
