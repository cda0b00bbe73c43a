"""Table of hand scenarios in tests/data/taizhou_hands.jsonl, one JSON object a line:

    {"name": ..., "rule": <the spec line it checks>,
     "deal": {"players", "seed", "dealer"}            -- a real deal, or
     "setup": {"hands": {"0": "mpsz", ...}, "wall", "indicator", "dealer", "turn", "players",
               "melds", "rivers", "drawn"}            -- see tests/engine_helpers.make_state
     "actions": [{"kind", "seat", "tile", "tiles"}],  -- Action.to_dict form
     "expect": {...}}

Every action must be accepted, except with "illegal": true, where the last one must be refused
(and the other expectations are checked on the state it was refused in). Expectation keys:
phase, turn, claims, melds, rivers, furiten, drawn, hands, indicator, wall_count, wall_front,
seats, winner, discarder, win_tile, self_drawn, liable, liable_reason, totals, transfers, net,
next_dealer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.engine.game import Action, Illegal, Options, apply, new_hand, next_dealer
from games.engine.tiles import face_name, format_tiles

from tests.engine_helpers import make_state

DATA = Path(__file__).parent / "data" / "taizhou_hands.jsonl"
SCENARIOS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def _by_player(d):
    return {int(k): v for k, v in (d or {}).items()}


def build(sc):
    if "deal" in sc:
        deal = sc["deal"]
        st, _ = new_hand(Options(players=deal["players"]), deal["seed"], deal["dealer"])
        return st
    s = sc["setup"]
    return make_state(hands=_by_player(s["hands"]), wall=s.get("wall"), indicator=s.get("indicator", "9s"),
                      dealer=s.get("dealer", 0), turn=s.get("turn"), players=s.get("players", 4),
                      melds=_by_player(s.get("melds")), rivers=_by_player(s.get("rivers")), drawn=s.get("drawn"))


def name(tile):
    return None if tile is None else face_name(tile)


def test_the_table_is_well_formed():
    names = [sc["name"] for sc in SCENARIOS]
    assert len(names) == len(set(names)) >= 20
    for sc in SCENARIOS:
        assert ("deal" in sc) != ("setup" in sc), sc["name"]
        assert sc["rule"] and isinstance(sc["actions"], list) and sc["expect"], sc["name"]


@pytest.mark.parametrize("sc", SCENARIOS, ids=[sc["name"] for sc in SCENARIOS])
def test_scenario(sc):
    st = build(sc)
    exp = sc["expect"]
    actions = [Action.from_dict(a) for a in sc["actions"]]
    for i, a in enumerate(actions):
        out = apply(st, a)
        if exp.get("illegal") and i == len(actions) - 1:
            assert isinstance(out, Illegal), f"{a} should be refused"
        else:
            assert not isinstance(out, Illegal), f"{a} was refused: {out}"
            st, _ = out
    r = st.result
    checks = {
        "phase": lambda: st.phase,
        "turn": lambda: st.turn,
        "claims": lambda: {str(p): list(k) for p, k in enumerate(st.claim_options) if k},
        "melds": lambda: {k: [m.notation() for m in st.melds[int(k)]] for k in exp["melds"]},
        "rivers": lambda: {k: format_tiles(st.rivers[int(k)]) for k in exp["rivers"]},
        "furiten": lambda: {k: sorted(face_name(f) for f in st.furiten[int(k)]) for k in exp["furiten"]},
        "drawn": lambda: name(st.drawn),
        "hands": lambda: {str(p): format_tiles(h) for p, h in enumerate(st.hands)},
        "indicator": lambda: face_name(st.indicator),
        "wall_count": lambda: st.wall_count,
        "wall_front": lambda: [face_name(t) for t in st.wall[:len(exp["wall_front"])]],
        "seats": lambda: "".join(st.seat_name(p) for p in range(st.n)),
        "winner": lambda: r.winner,
        "discarder": lambda: r.discarder,
        "win_tile": lambda: name(r.win_tile),
        "self_drawn": lambda: r.self_drawn,
        "liable": lambda: r.liable,
        "liable_reason": lambda: r.liable_reason,
        "totals": lambda: [s.total for s in r.scores],
        "transfers": lambda: sorted([t["from"], t["to"], t["amount"]] for t in r.transfers),
        "net": lambda: list(r.net),
        "next_dealer": lambda: next_dealer(st),
    }
    unknown = set(exp) - set(checks) - {"illegal"}
    assert not unknown, f"unknown expectation keys {unknown}"
    for key, want in exp.items():
        if key == "illegal":
            continue
        if key in ("winner", "discarder", "win_tile", "self_drawn", "liable", "liable_reason",
                   "totals", "transfers", "net"):
            assert r is not None, f"{key}: the hand has not ended"
        got = checks[key]()
        if key == "transfers":
            want = sorted(want)
        assert got == want, f"{key}: expected {want}, got {got}"
    if r is not None and r.winner is not None:
        assert sum(r.net) == 0
