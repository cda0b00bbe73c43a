"""score_hands / settle_hands answer traditional Taizhou (taizhou-traditional.md §10) through the
management commands: the spec's score examples 1-2 and settle examples 1-3, a bad line between
them, Chinese item names."""

import io
import json

from django.core.management import call_command

from games.engine import contract, variants

SCORE = [
    {"variant": "taizhou_trad", "seat": "S", "wild": "8p", "hand": "111m234s57p8p678m7z", "melds": [], "win": "7z",
     "self_drawn": True, "flowers": 1},
    {"variant": "taizhou_trad", "seat": "E", "wild": "3m", "hand": "999s66z3m147p2m", "melds": ["pung:111z"]},
]
SETTLE = [
    {"variant": "taizhou_trad", "dealer": "E", "winner": "N", "discarder": "S",
     "totals": {"E": 20, "S": 0, "W": 10, "N": 60}, "dan": 2, "streak": 1, "throws": [{"by": "W", "at": "N", "amount": 5}]},
    {"variant": "taizhou_trad", "dealer": "E", "winner": "E", "discarder": "W",
     "totals": {"E": 80, "S": 30, "W": 50, "N": 0}, "dianpao": "W"},
    {"variant": "taizhou_trad", "dealer": "E", "winner": "S", "discarder": None,
     "totals": {"E": 0, "S": 400, "W": 40}, "dan": 10, "streak": 2},
]


def run(command, lines):
    out = io.StringIO()
    call_command(command, stdin=io.StringIO("".join(line + "\n" for line in lines)), stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_known_to_the_contract():
    assert variants.get("taizhou_trad").has_contract
    assert "taizhou_trad" in contract.score_request({"variant": "nope"})["error"]


def test_score_hands_examples():
    lines = [json.dumps(SCORE[0]), "{bad", json.dumps({**SCORE[1], "lang": "zh"}, ensure_ascii=False)]
    r = run("score_hands", lines)
    assert [(x["winner"], x["points"], x["tai"], x["total"], x["capped"]) for x in (r[0], r[2])] == [
        (True, 19, 1, 40, False), (False, 14, 1, 30, False)]
    assert r[1]["ok"] is False
    assert {"name": "门风刻 东", "tai": 1} in r[2]["items"]


def test_settle_hands_examples():
    r = run("settle_hands", [json.dumps(s) for s in SETTLE])
    assert [x["net"] for x in r] == [{"E": -5, "S": -8, "W": -10, "N": 23}, {"E": 24, "S": 4, "W": -28, "N": 0},
                                     {"E": -84, "S": 160, "W": -76}]
    assert {t["why"] for t in r[0]["transfers"]} == {"win", "dan", "throw", "non-winners"}
