"""Room links and labels for templates: {% load rooms %}.

    {{ room|room_url }}            /room/<id>/
    {{ room|length_label }}        8 局 / 1 圈 (translated)
    {{ room|stake_label }}         100 金豆/胡 (Wenzhou: 100 金豆/分), translated
    {% invite_url room %}          the full invite link (uses `invite_url` from the context if
                                   given, e.g. by a consumer rendering without a request)
"""

from django import template

from games import links

register = template.Library()


@register.filter
def room_url(room):
    return links.room_url(room)


@register.filter
def stake_label(room):
    return links.stake_label(room)


@register.filter
def length_label(room):
    return links.length_label(room)


@register.simple_tag(takes_context=True)
def invite_url(context, room):
    given = context.get("invite_url")
    if given:
        return given
    return links.invite_url(context.get("request"), room)
