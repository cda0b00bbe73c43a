"""score_hands / settle_hands: JSON lines in, one JSON line out per non-blank line, same order."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from games.engine import contract

BASE_DIR = Path(__file__).resolve().parent.parent

# shared/rules/taizhou.md §10, worked examples 1-5 (scoring) and 6 (settlement).
EX1 = {"variant": "taizhou", "seat": "S", "wild": "9p", "hand": "123m456m789s345p2z", "melds": [],
       "win": "2z", "self_drawn": False}
EX2 = {**EX1, "self_drawn": True}
EX3 = {"variant": "taizhou", "seat": "W", "wild": "5p", "hand": "34p5z678p222m999s1z", "melds": [],
       "win": "1z", "self_drawn": False}
EX4 = {"variant": "taizhou", "seat": "S", "wild": "5s", "hand": "12m456m789m66z", "melds": ["pung:222z"],
       "win": "3m", "self_drawn": False}
EX5 = {"variant": "taizhou", "seat": "E", "wild": "1s", "hand": "111s77z11z34m689p5z", "melds": []}
EX6 = {"variant": "taizhou", "dealer": "E", "winner": "E", "discarder": "S",
       "totals": {"E": 40, "S": 0, "W": 12, "N": 48}, "capped": {"E": False}, "liable": None}


def run(command, lines):
    out = io.StringIO()
    call_command(command, stdin=io.StringIO("".join(line + "\n" for line in lines)), stdout=out)
    text = out.getvalue()
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def check_score(result, winner, points, tai, total):
    assert result["ok"] is True, result
    assert (result["winner"], result["points"], result["tai"], result["total"], result["capped"]) == (
        winner, points, tai, total, False
    )
    assert isinstance(result["items"], list) and result["items"]


def test_score_hands_worked_examples_with_bad_lines():
    lines = [
        json.dumps(EX1),
        "",
        "{not json",
        json.dumps({**EX2, "lang": "zh"}, ensure_ascii=False),
        "   ",
        json.dumps(EX3),
        "[1, 2, 3]",
        json.dumps(EX4),
        json.dumps(EX5),
    ]
    results = run("score_hands", lines)
    assert len(results) == 7  # two blank lines give no output
    check_score(results[0], True, 14, 0, 14)
    assert results[1]["ok"] is False and results[1]["error"].startswith("line 3: invalid JSON: ")
    check_score(results[2], True, 16, 0, 16)
    check_score(results[3], True, 22, 0, 22)
    assert results[4]["ok"] is False and results[4]["error"].startswith("line 7: invalid JSON: ")
    check_score(results[5], True, 16, 2, 64)
    check_score(results[6], False, 12, 0, 12)


def test_settle_hands_worked_example_6():
    results = run("settle_hands", ["", json.dumps(EX6), "nope"])
    assert len(results) == 2
    result = results[0]
    assert result["ok"] is True, result
    assert result["net"] == {"E": 120, "S": -70, "W": -52, "N": 2}
    net = {seat: 0 for seat in "ESWN"}
    for transfer in result["transfers"]:
        assert transfer["amount"] > 0
        net[transfer["from"]] -= transfer["amount"]
        net[transfer["to"]] += transfer["amount"]
    assert net == result["net"]
    assert results[1] == {"ok": False, "error": results[1]["error"]}
    assert results[1]["error"].startswith("line 3: invalid JSON: ")


@pytest.mark.parametrize("command, name", [("score_hands", "score_request"), ("settle_hands", "settle_request")])
def test_engine_exception_costs_one_line_only(monkeypatch, command, name):
    def flaky(request):
        if request.get("boom"):
            raise ZeroDivisionError("division by zero")
        return {"ok": True, "echo": request["n"]}

    monkeypatch.setattr(contract, name, flaky)
    results = run(command, ['{"n": 1}', '{"n": 2, "boom": true}', '{"n": 3}'])
    assert results[0] == {"ok": True, "echo": 1}
    assert results[1]["ok"] is False
    assert results[1]["error"].startswith("internal error: ") and "division by zero" in results[1]["error"]
    assert results[2] == {"ok": True, "echo": 3}


def test_non_dict_or_unserialisable_engine_answer(monkeypatch):
    answers = iter([None, {"ok": True, "bad": {1, 2}}])
    monkeypatch.setattr(contract, "score_request", lambda request: next(answers))
    results = run("score_hands", ["{}", "{}"])
    assert [r["ok"] for r in results] == [False, False]
    assert all(r["error"].startswith("internal error") for r in results)


def test_command_line_utf8_and_exit_status(tmp_path):
    """The real command with a pipe: UTF-8 out (Chinese items), bad lines answered, exit status 0."""
    stdin = "\n".join([json.dumps({**EX1, "lang": "zh"}), "oops", ""]) + "\n"
    proc = subprocess.run(
        [sys.executable, "manage.py", "score_hands"],
        cwd=BASE_DIR, input=stdin.encode("utf-8"), capture_output=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "VAR_DIR": str(tmp_path), "CHANNEL_LAYER": "memory"},
    )
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode("utf-8").splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert first["ok"] is True and first["total"] == 14
    assert any(ord(ch) > 127 for ch in lines[0]), "items in Chinese, not \\u escapes"
    assert json.loads(lines[1])["error"].startswith("line 2: invalid JSON")


def test_unreadable_stdin_fails(tmp_path):
    proc = subprocess.run(
        [sys.executable, "manage.py", "settle_hands"],
        cwd=BASE_DIR, stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "VAR_DIR": str(tmp_path)},
    )
    assert proc.returncode == 0 and proc.stdout == b""  # empty input: nothing to answer
    closed = subprocess.run(
        f'"{sys.executable}" manage.py settle_hands <&-',
        shell=True, cwd=BASE_DIR, capture_output=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "VAR_DIR": str(tmp_path)},
    )
    assert closed.returncode != 0
    assert b"cannot read standard input" in closed.stderr
