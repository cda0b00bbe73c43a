"""联系客服 for signed-in players: their tickets (/support/), a new one (/support/new/, from the
table: ?category=cheat&room=<id>&hand=<id>), one ticket's conversation with a follow-up form
(/support/<id>/; another player's ticket is a 404, staff notes are never shown); and the lobby
announcements' dismiss button (a POST; htmx swaps the notice away, without JavaScript the page
reloads)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from . import services
from .forms import ReplyForm, TicketForm
from .models import Announcement, AnnouncementDismissal, Ticket, TicketMessage


@login_required
def index(request):
    tickets = Ticket.objects.filter(user=request.user).select_related("room", "hand").order_by("-updated_at", "-id")
    return render(request, "support/index.html", {"tickets": tickets})


def _int_param(value):
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number < 2**63 else None


def _prefill(request):
    """Initial values from the link (?category=&room=&hand=), the attachment checked: a room or hand
    the player did not sit in is left out with the reason."""
    initial, problem = {}, ""
    category = request.GET.get("category", "")
    if category in dict(Ticket.CATEGORIES):
        initial["category"] = category
    room_raw, hand_raw = request.GET.get("room", ""), request.GET.get("hand", "")
    room_id, hand_id = _int_param(room_raw), _int_param(hand_raw)
    if (room_raw and room_id is None) or (hand_raw and hand_id is None):
        return initial, _("只能附上你入座过的房间和对局")
    if room_id or hand_id:
        try:
            room, hand = services.check_attachment(request.user, room_id, hand_id)
        except services.TicketError as e:
            return initial, str(e)
        if hand is None and not hand_raw:
            hand = services.latest_hand(room)  # from the table without a hand: the current one
        initial["room"] = room.pk
        if hand is not None:
            initial["hand"] = hand.pk
        if category == Ticket.CHEAT:
            initial["subject"] = _("举报作弊：房间 #%(room)s") % {"room": room.pk}
    return initial, problem


@login_required
def new(request):
    attach_problem = ""
    if request.method == "POST":
        form = TicketForm(request.user, request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                ticket = services.create_ticket(
                    request.user, category=data["category"], subject=data["subject"], body=data["body"],
                    room_id=data["room"].pk if data["room"] else None,
                    hand_id=data["hand_obj"].pk if data["hand_obj"] else None)
            except services.TicketError as e:
                form.add_error(None, str(e))
            else:
                messages.success(request, _("已提交，客服会在这里回复你。"))
                return redirect("support:detail", ticket_id=ticket.pk)
    else:
        initial, attach_problem = _prefill(request)
        form = TicketForm(request.user, initial=initial)
    return render(request, "support/new.html", {"form": form, "attach_problem": attach_problem})


@login_required
def detail(request, ticket_id):
    ticket = get_object_or_404(Ticket.objects.select_related("room", "hand"), pk=ticket_id, user=request.user)
    if request.method == "POST":
        form = ReplyForm(request.POST)
        if form.is_valid():
            try:
                services.player_reply(request.user, ticket.pk, form.cleaned_data["body"])
            except services.TicketError as e:
                form.add_error(None, str(e))
            else:
                messages.success(request, _("已发送"))
                return redirect("support:detail", ticket_id=ticket.pk)
    else:
        form = ReplyForm()
        services.mark_read(ticket)
    conversation = (ticket.messages.filter(kind__in=TicketMessage.VISIBLE_TO_PLAYER)
                    .select_related("author__profile"))
    return render(request, "support/detail.html", {"ticket": ticket, "conversation": conversation, "form": form})


@login_required
@require_POST
def dismiss_announcement(request, pk):
    announcement = get_object_or_404(Announcement, pk=pk)
    AnnouncementDismissal.objects.get_or_create(announcement=announcement, user=request.user)
    if getattr(request, "htmx", False):
        return HttpResponse("")  # the notice is swapped away
    target = request.POST.get("next", "")
    if not (target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                                       require_https=request.is_secure())):
        target = reverse("games:lobby")
    return redirect(target)
