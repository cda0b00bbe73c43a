"""Draw the 34 tile faces and the tile back as small SVG files: static/tiles/<code>.svg.

    python manage.py make_tile_svgs [--out static/tiles]

The output is committed; run this again only after changing the drawing below. Faces are drawn
in a 48 x 64 box (3:4) with big, simple shapes so that they stay readable at 22 px wide on a
phone: circles for 筒, sticks for 条, a numeral over 万 for 万, one large character for honors.
"""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from games.tile_names import HONOUR_NAMES_ZH, SUIT_NAMES_ZH, ZH_NUMERALS

W, H = 48, 64
BLUE, GREEN, RED, INK = "#1c4f9c", "#17693f", "#b3261e", "#1f2328"
FONT = ("'PingFang SC','Hiragino Sans GB','Noto Sans CJK SC','Noto Sans SC','Source Han Sans SC',"
        "'Microsoft YaHei',sans-serif")
HONOUR_COLOURS = {"1z": INK, "2z": INK, "3z": INK, "4z": INK, "6z": GREEN, "7z": RED}  # 5z: a frame

# Circle centres (x, y, radius, colour) of 1p..9p.
PIN = {
    1: [(24, 34, 15, "multi")],
    2: [(24, 20, 9, GREEN), (24, 48, 9, BLUE)],
    3: [(12, 17, 7.5, BLUE), (24, 34, 7.5, RED), (36, 51, 7.5, GREEN)],
    4: [(14, 20, 8, BLUE), (34, 20, 8, GREEN), (14, 48, 8, GREEN), (34, 48, 8, BLUE)],
    5: [(13, 17, 7, BLUE), (35, 17, 7, GREEN), (24, 34, 7, RED), (13, 51, 7, GREEN), (35, 51, 7, BLUE)],
    6: [(14, 15, 6.5, GREEN), (34, 15, 6.5, GREEN), (14, 34, 6.5, RED), (34, 34, 6.5, RED),
        (14, 52, 6.5, RED), (34, 52, 6.5, RED)],
    7: [(10, 11, 5.5, GREEN), (24, 17, 5.5, GREEN), (38, 23, 5.5, GREEN), (15, 39, 5.5, RED),
        (33, 39, 5.5, RED), (15, 54, 5.5, RED), (33, 54, 5.5, RED)],
    8: [(15, 11, 5.5, BLUE), (33, 11, 5.5, BLUE), (15, 25, 5.5, BLUE), (33, 25, 5.5, BLUE),
        (15, 39, 5.5, BLUE), (33, 39, 5.5, BLUE), (15, 53, 5.5, BLUE), (33, 53, 5.5, BLUE)],
    9: [(11, 14, 5.5, BLUE), (24, 14, 5.5, BLUE), (37, 14, 5.5, BLUE), (11, 32, 5.5, RED),
        (24, 32, 5.5, RED), (37, 32, 5.5, RED), (11, 50, 5.5, GREEN), (24, 50, 5.5, GREEN),
        (37, 50, 5.5, GREEN)],
}

# Bamboo sticks (x, y centre, height, colour) of 2s..9s; 1s is drawn apart.
SOU = {
    2: [(24, 19, 20, GREEN), (24, 47, 20, GREEN)],
    3: [(24, 19, 20, GREEN), (14, 47, 20, GREEN), (34, 47, 20, GREEN)],
    4: [(15, 19, 20, GREEN), (33, 19, 20, BLUE), (15, 47, 20, BLUE), (33, 47, 20, GREEN)],
    5: [(11, 19, 20, GREEN), (37, 19, 20, BLUE), (24, 33, 20, RED), (11, 47, 20, BLUE), (37, 47, 20, GREEN)],
    6: [(12, 19, 20, GREEN), (24, 19, 20, GREEN), (36, 19, 20, GREEN), (12, 47, 20, BLUE),
        (24, 47, 20, BLUE), (36, 47, 20, BLUE)],
    7: [(24, 12, 15, RED), (12, 33, 15, GREEN), (24, 33, 15, GREEN), (36, 33, 15, GREEN),
        (12, 53, 15, GREEN), (24, 53, 15, GREEN), (36, 53, 15, GREEN)],
    8: [(9, 19, 20, GREEN), (19, 19, 20, GREEN), (29, 19, 20, GREEN), (39, 19, 20, GREEN),
        (9, 47, 20, BLUE), (19, 47, 20, BLUE), (29, 47, 20, BLUE), (39, 47, 20, BLUE)],
    9: [(12, 12, 15, GREEN), (24, 12, 15, RED), (36, 12, 15, BLUE), (12, 33, 15, GREEN),
        (24, 33, 15, RED), (36, 33, 15, BLUE), (12, 53, 15, GREEN), (24, 53, 15, RED),
        (36, 53, 15, BLUE)],
}


def _svg(title, body, background="#fffdf6"):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
            f'role="img"><title>{title}</title>'
            f'<rect width="{W}" height="{H}" rx="5" fill="{background}"/>{body}</svg>\n')


def _circle(x, y, r, colour):
    if colour == "multi":  # the one of dots: a large flower-like ring
        return (f'<circle cx="{x}" cy="{y}" r="{r}" fill="none" stroke="{GREEN}" stroke-width="3"/>'
                f'<circle cx="{x}" cy="{y}" r="{r - 5}" fill="none" stroke="{BLUE}" stroke-width="3"/>'
                f'<circle cx="{x}" cy="{y}" r="{r - 10}" fill="{RED}"/>')
    return (f'<circle cx="{x}" cy="{y}" r="{r - 1}" fill="none" stroke="{colour}" stroke-width="2.2"/>'
            f'<circle cx="{x}" cy="{y}" r="{round(r * 0.42, 2)}" fill="{colour}"/>')


def _stick(x, y, h, colour):
    top = y - h / 2
    return (f'<rect x="{x - 3.5}" y="{top}" width="7" height="{h}" rx="3.5" fill="{colour}"/>'
            f'<rect x="{x - 4.5}" y="{y - 1}" width="9" height="2" rx="1" fill="{colour}"/>'
            f'<line x1="{x}" y1="{top + 2.5}" x2="{x}" y2="{top + h - 2.5}" stroke="#fff" stroke-width="1" '
            f'stroke-opacity=".55"/>')


def _text(x, y, size, colour, text, weight=700):
    return (f'<text x="{x}" y="{y}" font-family="{FONT}" font-size="{size}" font-weight="{weight}" '
            f'fill="{colour}" text-anchor="middle">{text}</text>')


def faces():
    """{code: svg text} for the 34 faces and 'back'."""
    out = {}
    for n in range(1, 10):
        numeral = ZH_NUMERALS[n - 1]
        out[f"{n}m"] = _svg(numeral + SUIT_NAMES_ZH["m"], _text(24, 29, 24, INK, numeral)
                           + _text(24, 58, 25, RED, SUIT_NAMES_ZH["m"]))
        out[f"{n}p"] = _svg(numeral + SUIT_NAMES_ZH["p"], "".join(_circle(*c) for c in PIN[n]))
        if n == 1:  # one of bamboo: one tall stick with joints, red centre
            body = (f'<rect x="18" y="8" width="12" height="48" rx="6" fill="{GREEN}"/>'
                    f'<rect x="15" y="30" width="18" height="4" rx="2" fill="{RED}"/>'
                    f'<rect x="16" y="18" width="16" height="2.5" rx="1.2" fill="{GREEN}"/>'
                    f'<rect x="16" y="44" width="16" height="2.5" rx="1.2" fill="{GREEN}"/>'
                    f'<line x1="24" y1="12" x2="24" y2="52" stroke="#fff" stroke-width="1.5" stroke-opacity=".55"/>')
        else:
            body = "".join(_stick(*s) for s in SOU[n])
        out[f"{n}s"] = _svg(numeral + SUIT_NAMES_ZH["s"], body)
    for code, colour in HONOUR_COLOURS.items():
        char = HONOUR_NAMES_ZH[code]
        out[code] = _svg(char, _text(24, 45, 34, colour, char, weight=800))
    # White dragon: an empty blue frame, as on real tiles.
    out["5z"] = _svg(HONOUR_NAMES_ZH["5z"], f'<rect x="9" y="11" width="30" height="42" rx="3" fill="none" stroke="{BLUE}" '
                          f'stroke-width="3"/><rect x="14" y="16" width="20" height="32" rx="2" fill="none" '
                          f'stroke="{BLUE}" stroke-width="1.2"/>')
    out["back"] = _svg("", '<rect x="4" y="4" width="40" height="56" rx="3" fill="none" stroke="#e6f2ec" '
                           'stroke-opacity=".45" stroke-width="1.5"/>'
                           '<circle cx="24" cy="32" r="9" fill="none" stroke="#e6f2ec" stroke-opacity=".45" '
                           'stroke-width="1.5"/>', background="#1e7a56")
    return out


class Command(BaseCommand):
    help = "Write the tile faces (34 + back) as SVG files into static/tiles/."

    def add_arguments(self, parser):
        parser.add_argument("--out", default=str(Path(settings.BASE_DIR) / "static" / "tiles"))

    def handle(self, *args, out, **options):
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        for code, text in faces().items():
            (folder / f"{code}.svg").write_text(text, encoding="utf-8")
        self.stdout.write(f"wrote {len(faces())} tiles to {folder}")
