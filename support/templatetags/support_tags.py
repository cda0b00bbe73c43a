"""`{% lobby_notices as notices %}`: what the lobby shows above its content (support/_announcements.html):
the active announcements this player has not dismissed, and how many of their tickets have a staff
reply they have not read. Two queries, only where the include is; nothing for anonymous visitors."""

from django import template

from support.models import Announcement, Ticket

register = template.Library()

SHOWN = 3  # announcements at most, newest first


@register.simple_tag(takes_context=True)
def lobby_notices(context):
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"announcements": [], "unread": 0}
    from django.db.models import F, Q

    unread = (Ticket.objects.filter(user=user, last_reply_at__isnull=False)
              .filter(Q(player_read_at__isnull=True) | Q(player_read_at__lt=F("last_reply_at"))).count())
    return {"announcements": list(Announcement.objects.for_lobby(user)[:SHOWN]), "unread": unread}
