"""The cheap language and gettext of the seat renders (games/fast_i18n.py) say what Django says:
inside their override, outside it, after it, in the thread pool; and a seat's fragments come out
wholly in the seat's language, Chinese and English renders one after another."""

import threading

import pytest
from django.utils import translation

from games import fast_i18n, table
from games.models import Room

from room_helpers import make_room
from replay_helpers import users_by_position
from games import services

WORDS = ("余牌", "轮到你出牌", "出牌", "财神")


def _both(language):
    with translation.override(language):
        return [translation.gettext(w) for w in WORDS], [fast_i18n.gettext(w) for w in WORDS], fast_i18n.get_language()


def test_outside_its_override_it_follows_django():
    for language in ("en", "zh-hans", "en"):
        django_words, fast_words, active = _both(language)
        assert fast_words == django_words and active == language
    assert _both("en")[1][0] == "Wall" and _both("zh-hans")[1][0] == "余牌"


def test_inside_its_override_and_after_it():
    with fast_i18n.override("en"):
        assert fast_i18n.get_language() == translation.get_language() == "en"
        assert [fast_i18n.gettext(w) for w in WORDS] == [translation.gettext(w) for w in WORDS]
        with fast_i18n.override("zh-hans"):
            assert fast_i18n.gettext("余牌") == "余牌"
        assert fast_i18n.gettext("余牌") == "Wall"  # the outer one again
    # gone afterwards: Django's own override is followed again
    django_words, fast_words, active = _both("zh-hans")
    assert fast_words == django_words and active == "zh-hans"


def test_each_thread_sees_its_own_language():
    seen = {}
    barrier = threading.Barrier(2)

    def render(name, language):
        with fast_i18n.override(language):
            barrier.wait(timeout=5)
            seen[name] = (fast_i18n.get_language(), fast_i18n.gettext("余牌"))

    threads = [threading.Thread(target=render, args=a) for a in (("a", "en"), ("b", "zh-hans"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"a": ("en", "Wall"), "b": ("zh-hans", "余牌")}


@pytest.mark.django_db
def test_a_seats_fragments_are_in_its_language_one_render_after_another():
    room, _ = make_room(players=2)
    users = users_by_position(room)
    for user in users.values():
        services.set_ready(user, room.pk)
    version = Room.objects.get(pk=room.pk).version
    for lang in ("en", "zh", "en", "zh"):
        _v, _clock, fragments = table.seat_fragments(room.pk, users[0], lang, version=version)
        html = fragments["table"] + fragments["hand"]
        if lang == "en":
            assert "Wall" in html and "余牌" not in html and "财神" not in html
        else:
            assert "余牌" in html and "Wall" not in html
