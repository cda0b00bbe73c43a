"""URLs and labels of a room that several pages (lobby, join page, room page) show."""

from django.urls import NoReverseMatch, reverse

from games.forms import LENGTH_CHOICES


def room_url(room) -> str:
    """The room page, /room/<id>/ (URL name games:room)."""
    pk = getattr(room, "pk", room)
    try:
        return reverse("games:room", args=[pk])
    except NoReverseMatch:  # the table view lands separately; the path is agreed on
        return f"/room/{pk}/"


def join_path(room) -> str:
    return reverse("games:join", args=[room.token])


def invite_url(request, room) -> str:
    """The full invite link to share: absolute when there is a request, else the path."""
    path = join_path(room)
    return request.build_absolute_uri(path) if request is not None else path


def stake_label(room) -> str:
    """'100 金豆/胡' (Taizhou), '100 金豆/分' (Wenzhou, Zhuji: beans per 分) or '100 金豆/子'
    (traditional Taizhou: beans per 子), translated."""
    from django.utils.translation import gettext as _

    from games.variant_names import UNIT_WORDS

    if getattr(room, "practice", False):
        return _("练习（不计金豆）")
    unit = UNIT_WORDS.get(room.variant)
    if unit == "子":  # traditional Taizhou pays in 子
        return _("%(n)s 金豆/子") % {"n": room.stake}
    if unit == "分":  # the variants that pay in 分
        return _("%(n)s 金豆/分") % {"n": room.stake}
    return _("%(n)s 金豆/胡") % {"n": room.stake}


def length_label(room) -> str:
    """'8 局' / '1 圈' in the UI language."""
    labels = dict(LENGTH_CHOICES)
    label = labels.get(f"{room.length_kind}:{room.length}")
    return str(label) if label is not None else room.length_label()

