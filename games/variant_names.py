"""A rule set's name for people, from the engine's variant registry: one place for the room's
"玩法" everywhere (the create-room form, the calculator, a room's, replay's and history's label).

The catalogue words the Chinese title (台州麻将 -> Taizhou mahjong); a title it has no words for
falls back on the variant's own English title outside Chinese."""

from django.core.signals import setting_changed
from django.utils.functional import lazy
from django.utils.translation import get_language, gettext, gettext_noop, pgettext_lazy

from games.engine import variants

gettext_noop("台州麻将")  # the titles the site's catalogue words
gettext_noop("温州麻将")
gettext_noop("诸暨麻将")
gettext_noop("传统台州麻将")


# The unit a variant scores and pays in (Taizhou: 胡; Wenzhou and Zhuji pay in 分; traditional
# Taizhou scores in 和 and pays in 子, taizhou-traditional.md §6).
UNIT_WORDS = {"wenzhou": "分", "zhuji": "分", "taizhou_trad": "子"}  # the Chinese word (胡 when absent)
UNITS = {"wenzhou": pgettext_lazy("unit", "分"), "zhuji": pgettext_lazy("unit", "分"),
         "taizhou_trad": pgettext_lazy("unit", "子")}
_HU = pgettext_lazy("unit", "胡")


_urls: dict = {}  # (script prefix, urlconf, name) -> path: every seat's render asks (issue 17)


def fixed_url(name: str) -> str:
    """reverse(name) for a URL without arguments, kept per script prefix and urlconf."""
    from django.urls import get_script_prefix, get_urlconf, reverse

    key = (get_script_prefix(), get_urlconf(), name)
    url = _urls.get(key)
    if url is None:
        url = _urls[key] = reverse(name)
    return url


def _forget_urls(setting, **kwargs):
    if setting in ("ROOT_URLCONF", "FORCE_SCRIPT_NAME"):
        _urls.clear()


setting_changed.connect(_forget_urls)


def rules_url(name) -> str:
    """The rules page of a variant (Taizhou's for a variant without its own page yet)."""
    from django.urls import NoReverseMatch

    try:
        return fixed_url(f"games:rules_{name}")
    except NoReverseMatch:
        return fixed_url("games:rules_taizhou")


def unit_label(name) -> str:
    """The word after an amount of a hand's payments in this variant, in the UI language."""
    return str(UNITS.get(name, _HU))


def variant_label(name) -> str:
    """A variant's name in the UI language."""
    try:
        title = dict(variants.get(name).title)
    except variants.UnknownVariant:
        return str(name)
    zh = title.get("zh", name)
    words = gettext(zh)
    if words == zh and not (get_language() or "zh").startswith("zh"):
        words = title.get("en", zh)
    return words


# Worded when shown, in the language active then (model choices are read once, at start-up).
_lazy_label = lazy(variant_label, str)


def variant_choices(scoring=False):
    """(name, label) of the variants a room may use (the registry's playable ones); with
    scoring=True only those that answer the scoring contract."""
    return [(name, variant_label(name)) for name in variants.playable()
            if not scoring or variants.get(name).has_contract]


def scoring_variant_choices():
    """(name, label) of the calculator's variants: every registered one that answers the scoring
    contract (`has_contract`), whether or not rooms may use it yet (`playable`)."""
    return [(name, variant_label(name)) for name in variants.names() if variants.get(name).has_contract]


def all_variant_choices():
    """(name, label) of every registered variant: a room keeps its label even if its variant is
    not offered for new rooms (Room.variant's choices; get_variant_display)."""
    return [(name, _lazy_label(name)) for name in variants.names()]
