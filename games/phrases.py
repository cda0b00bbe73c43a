"""快捷语: the fixed quick phrases and emoji reactions a seated player may send to the table (no
free text: nothing to moderate). Ids are stable (stored with the room's phrases and shown in
replays); the words are translated where they are shown."""

from django.utils.translation import gettext_noop

PHRASES = (
    ("p1", gettext_noop("快点吧，等得花儿都谢了")),
    ("p2", gettext_noop("你的牌打得太好了")),
    ("p3", gettext_noop("不好意思，刚才走开了一下")),
    ("p4", gettext_noop("今天手气真好")),
    ("p5", gettext_noop("这把牌太烂了")),
    ("p6", gettext_noop("别吵了，专心打牌")),
    ("p7", gettext_noop("又是你胡，让让我们吧")),
    ("p8", gettext_noop("大家好，很高兴和大家一起打牌")),
    ("p9", gettext_noop("再来一局吧")),
    ("p10", gettext_noop("我要走了，下次再玩")),
    ("p11", gettext_noop("网络不太好，请稍等")),
    ("p12", gettext_noop("谢谢大家，玩得开心")),
)
EMOJI = (("e1", "👍"), ("e2", "😂"), ("e3", "😮"), ("e4", "😭"), ("e5", "🙏"), ("e6", "🎉"))
WORDS = dict(PHRASES)
FACES = dict(EMOJI)


def is_phrase(phrase_id) -> bool:
    return isinstance(phrase_id, str) and (phrase_id in WORDS or phrase_id in FACES)


def phrase_text(phrase_id) -> str:
    """The phrase in the active language (an emoji as it is)."""
    from django.utils.translation import gettext

    if phrase_id in FACES:
        return FACES[phrase_id]
    return gettext(WORDS[phrase_id]) if phrase_id in WORDS else ""
