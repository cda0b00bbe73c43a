"""The player's forms: a new ticket (with the room and hand it is about) and a follow-up."""

from django import forms
from django.utils.translation import gettext as _g
from django.utils.translation import gettext_lazy as _

from . import services
from .models import MESSAGE_MAX, SUBJECT_MAX, Ticket

ROOM_CHOICES_SHOWN = 20  # the player's latest rooms offered in the select (plus the one attached)
NOT_YOURS = _("只能附上你入座过的房间和对局")


def room_label(room) -> str:
    from django.utils import timezone

    when = timezone.localtime(room.created_at).strftime("%Y-%m-%d")
    return f"{room} · {when}"


class MessageField(forms.CharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("label", _("内容"))
        super().__init__(max_length=MESSAGE_MAX, widget=forms.Textarea(attrs={"rows": 6}),
                         error_messages={"required": _("请写下要说的内容"),
                                         "max_length": _("内容最多 %(limit_value)d 个字（现在 %(show_value)d 个）")},
                         **kwargs)


class TicketForm(forms.Form):
    category = forms.ChoiceField(label=_("类别"), choices=[("", _("请选择"))] + Ticket.CATEGORIES,
                                 error_messages={"required": _("请选择问题类别"),
                                                 "invalid_choice": _("没有这个类别")})
    subject = forms.CharField(label=_("标题"), max_length=SUBJECT_MAX,
                              error_messages={"required": _("请写一个标题"),
                                              "max_length": _("标题最多 %(limit_value)d 个字（现在 %(show_value)d 个）")})
    body = MessageField()
    room = forms.ModelChoiceField(label=_("房间"), queryset=None, required=False, empty_label=_("不附带"),
                                  error_messages={"invalid_choice": NOT_YOURS},
                                  help_text=_("举报作弊必须附上房间；只能选你入座过的房间。"))
    hand = forms.IntegerField(label=_("对局"), required=False, min_value=1,
                              error_messages={"invalid": NOT_YOURS, "min_value": NOT_YOURS})

    def __init__(self, user, *args, **kwargs):
        super().__init__(*args, **kwargs)
        from games.models import Hand, Room

        self.user = user
        self.fields["subject"].help_text = _g("最多 %(n)s 个字") % {"n": SUBJECT_MAX}
        self.fields["body"].help_text = _g("发生了什么、什么时候、和谁；金豆问题请写上数量。最多 %(n)s 个字。") % {
            "n": MESSAGE_MAX}
        mine = Room.objects.filter(seats__user=user).order_by("-id")
        self.fields["room"].queryset = mine
        self.fields["room"].label_from_instance = room_label
        # offer the latest rooms only (any room of the player validates); keep the one attached
        shown = list(mine[:ROOM_CHOICES_SHOWN])
        wanted = self._raw("room")
        if wanted and wanted not in {r.pk for r in shown}:
            extra = mine.filter(pk=wanted).first()
            if extra is not None:
                shown.append(extra)
        self.fields["room"].widget.choices = [("", _g("不附带"))] + [(r.pk, room_label(r)) for r in shown]
        hand_choices = [("", _g("不附带"))]
        hand_id = self._raw("hand")
        if hand_id:
            hand = Hand.objects.filter(pk=hand_id).first()
            if hand is not None:
                hand_choices.append((hand.pk, _g("房间 #%(room)s %(hand)s") % {"room": hand.game.room_id, "hand": hand}))
        self.fields["hand"].widget = forms.Select(choices=hand_choices)

    def _raw(self, name):
        value = self.data.get(name) if self.is_bound else self.initial.get(name)
        value = getattr(value, "pk", value)
        try:
            return int(value) if value not in (None, "") else None
        except (TypeError, ValueError):
            return None

    def clean(self):
        data = super().clean()
        if "room" in self.errors or "hand" in self.errors:
            return data  # the other fields' errors are shown with the attachment's
        room, hand_id = data.get("room"), data.get("hand")
        try:
            room, hand = services.check_attachment(self.user, room.pk if room else None, hand_id)
        except services.TicketError as e:
            raise forms.ValidationError(str(e)) from None
        if data.get("category") == Ticket.CHEAT and room is None:
            self.add_error("room", _("举报作弊要附上房间（在牌桌的菜单里举报会自动附上）"))
        data["room"], data["hand_obj"] = room, hand
        return data


class ReplyForm(forms.Form):
    body = MessageField(label=_("继续留言"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["body"].help_text = _g("最多 %(n)s 个字") % {"n": MESSAGE_MAX}
