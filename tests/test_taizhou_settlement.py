"""Table-driven settlement tests for Taizhou (§9 of shared/rules/taizhou.md) through the JSON
contract. Every line of tests/data/taizhou_settlement.jsonl was worked out by hand.

Transfers are compared as a multiset (their order is not part of the contract); `net` exactly.
Pure engine: no Django.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from games.engine.contract import settle_request

DATA = Path(__file__).parent / "data" / "taizhou_settlement.jsonl"


def _load():
    out = []
    with DATA.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                case = json.loads(line)
                marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if case.get("xfail") else []
                out.append(pytest.param(case, id=case["id"], marks=marks))
    return out


CASES = _load()


def _multiset(transfers):
    return Counter((t["from"], t["to"], float(t["amount"])) for t in transfers)


def test_table_is_big_enough():
    ids = [c.values[0]["id"] for c in CASES]
    assert len(ids) == len(set(ids))
    assert sum(c.values[0]["expect"]["ok"] for c in CASES) >= 20


@pytest.mark.parametrize("case", CASES)
def test_settle(case):
    req = case["request"]
    before = copy.deepcopy(req)
    out = settle_request(req)
    assert req == before, "settle_request must not change its input"
    exp = case["expect"]
    if not exp["ok"]:
        assert out["ok"] is False, f"{case['why']}: expected an error, got {out}"
        assert isinstance(out.get("error"), str) and out["error"]
        return
    assert out["ok"] is True, f"{case['why']}: {out}"
    assert _multiset(out["transfers"]) == _multiset(exp["transfers"]), (
        f"{case['why']}\n got: {out['transfers']}\nwant: {exp['transfers']}")
    assert out["net"] == exp["net"], case["why"]
    assert sum(out["net"].values()) == 0
    for t in out["transfers"]:
        assert t["from"] != t["to"]
        assert t["amount"] > 0
        # whole numbers are ints, halves are x.5
        assert isinstance(t["amount"], int) or (t["amount"] * 2).is_integer() and not float(t["amount"]).is_integer()
    # the transfers add up to the net
    net = {s: 0 for s in out["net"]}
    for t in out["transfers"]:
        net[t["from"]] -= t["amount"]
        net[t["to"]] += t["amount"]
    assert net == out["net"]
    # every seated player, and only them, appears in net
    assert set(out["net"]) == set(req["totals"])
    json.dumps(out)  # JSON-serialisable


def test_liable_string_and_object_agree():
    base = {"variant": "taizhou", "dealer": "E", "winner": "S", "discarder": "N",
            "totals": {"E": 0, "S": 40, "W": 10, "N": 0}}
    a = settle_request(dict(base, liable="N"))
    b = settle_request(dict(base, liable={"seat": "N", "exempt": False}))
    c = settle_request(dict(base, liable={"seat": "N", "exempt": True}))
    d = settle_request(dict(base, liable=None))
    assert a["ok"] and b["ok"] and c["ok"] and d["ok"]
    assert _multiset(a["transfers"]) == _multiset(b["transfers"]) and a["net"] == b["net"]
    assert _multiset(c["transfers"]) == _multiset(d["transfers"]) and c["net"] == d["net"]
    assert a["net"] != d["net"]
