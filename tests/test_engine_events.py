"""The engine's command language (games/engine/events.py): coded errors, one parser, and
events marked with who may see them.

- Every refusal the engine can give is an `Illegal` with a code from `events.CODES`: a table of
  state-machine situations produces each documented code (and the English `reason` the site
  still matches today is unchanged).
- `from_wire` reads the socket's {"action": ...} and the log's {"kind", "seat"} shapes: every
  legal action of many random states round-trips through both (and through Action.from_dict).
- Visibility: a draw is private to the drawer (the others see that a draw happened), a claim
  answer to the answering seat, a claim window names to each seat only itself; over whole random
  hands every event has a known type and none is private to nobody.
"""

from __future__ import annotations

import ast
import json
import random
from dataclasses import dataclass
from pathlib import Path

import pytest

from games.engine import events, variants
from games.engine.events import (
    CODES,
    EVENT_TYPES,
    Action,
    Illegal,
    audience,
    from_wire,
    is_public,
    visible_to,
)
from games.engine.game import (
    CLAIM,
    DISCARD,
    ENDED,
    Options,
    apply,
    legal_actions,
    new_hand,
    waiting_player,
)
from games.engine.tiles import TileError
from games.engine.variants import Decision
from games.engine.variants.taizhou import Taizhou
from tests.engine_helpers import A, T, make_state, must_fail, play

ENGINE = Path(__file__).resolve().parent.parent / "games" / "engine"

# the English texts the site matched before codes existed (games/consumers.py ENGINE_REASONS)
OLD_TEXTS = {
    "not_your_turn": "it is not your turn",
    "not_held": "you do not hold that tile",
    "no_claim": "you have no claim on this discard",
    "wait_for_claims": "wait for the others to claim or pass",
    "already_answered": "you have already answered this discard",
    "bad_chow": "those tiles do not chow the discard",
    "not_last_discard": "that is not the tile just discarded",
    "bad_kong": "you cannot declare that kong",
    "not_winning": "your hand is not a winning hand",
    "must_discard": "you drew no tile: after a claim you must discard",
    "hand_over": "the hand is over",
    "no_such_seat": "no such seat",
    "no_such_tile": "no such tile",
}

JUNK = "147m147p147s1234z"
DISCARDS_5P = "1479m1247s12346z5p"
WINS_ON_5P = "123m456m789m11s67p"
PUNGS_5P = "55p369m36s1234z7z1p"
NO_CLAIM = "369m369p36s1347z8p"
CHOWS_5P = "46p369m36s1234z7z1s"


@dataclass(frozen=True)
class Strict(Taizhou):
    """Toy: honours first, and the dealer answers a yes/no question before the hand."""

    name: str = "toy_strict"

    def check_discard(self, state, player, tile):
        if tile < 27 and any(t >= 27 and t != state.indicator for t in state.hands[player]):
            return Illegal("cannot_discard", {"tile": events.face_name(tile)})
        return None

    def pre_hand(self, state):
        return None if state.get_extra("q") else Decision("q", (state.dealer,), ("no", "yes"))

    def decided(self, state, decision, answers):
        return state.with_extra("q", answers[state.dealer])


@pytest.fixture
def strict():
    variants.register(Strict(), replace=True)
    yield
    variants.unregister("toy_strict")


# --- the situations ----------------------------------------------------------------------

def opening():
    """The dealer's opening turn (step 0) with a hand that does not win."""
    return make_state(hands={0: DISCARDS_5P, 1: JUNK, 2: JUNK, 3: NO_CLAIM}, dealer=0, turn=0)


def window():
    """Player 1 discarded 5p: 2 may pung, 3 may win (dealer 2)."""
    st = make_state(hands={0: NO_CLAIM, 1: DISCARDS_5P, 2: PUNGS_5P, 3: WINS_ON_5P}, dealer=2, turn=1)
    return play(st, A("discard", 1, "5p"))[0]


def chow_window():
    """Player 0 discarded 5p: 1 (the lower player) may chow 46p, 2 may pung."""
    st = make_state(hands={0: DISCARDS_5P, 1: CHOWS_5P, 2: PUNGS_5P, 3: JUNK}, dealer=0, turn=0)
    return play(st, A("discard", 0, "5p"))[0]


def after_pung():
    """Player 2 punged 5p and must discard (no tile drawn)."""
    st = make_state(hands={0: NO_CLAIM, 1: DISCARDS_5P, 2: PUNGS_5P, 3: JUNK}, dealer=2, turn=1)
    return play(st, A("discard", 1, "5p"), A("pung", 2, "5p"))[0]


def ended():
    return play(window(), A("win", 3, "5p"))[0]


def strict_deal():
    return new_hand(Options(variant="toy_strict"), 3, 1)[0]


def strict_play():
    return play(strict_deal(), Action("decide", 1, value="no"))[0]


def _suit_tile(st, p):
    return next(t for t in st.hands[p] if t < 27 and t != st.indicator)


SITUATIONS = [
    # (name, state, action, code, params)
    ("the hand is over", ended, lambda st: A("discard", 0, "3m"), "hand_over", {}),
    ("a seat beyond the table", opening, lambda st: Action("discard", 7, T("5p")), "no_such_seat", {}),
    ("not an action at all", opening, lambda st: {"kind": "discard"}, "no_such_seat", {}),
    ("a face beyond 34", opening, lambda st: Action("discard", 0, 99), "no_such_tile", {}),
    ("another player's turn", opening, lambda st: A("discard", 1, "1m"), "not_your_turn", {}),
    ("pass on one's own turn", opening, lambda st: A("pass", 0), "cannot_now", {"kind": "pass"}),
    ("pung on one's own turn", opening, lambda st: A("pung", 0, "1m"), "cannot_now", {"kind": "pung"}),
    ("a tile not held", opening, lambda st: A("discard", 0, "9s"), "not_held", {}),
    ("no kong there", opening, lambda st: A("ckong", 0, "1m"), "bad_kong", {}),
    ("not a winning hand", opening, lambda st: A("win", 0), "not_winning", {}),
    ("a win after a pung", after_pung, lambda st: A("win", 2), "must_discard", {}),
    ("no claim on the discard", window, lambda st: A("pung", 0, "5p"), "no_claim", {}),
    ("the discarder in the window", window, lambda st: A("pass", 1), "wait_for_claims", {}),
    ("answering twice", lambda: play(window(), A("pung", 2, "5p"))[0], lambda st: A("pass", 2),
     "already_answered", {}),
    ("a pung of another tile", window, lambda st: A("pung", 2, "1p"), "not_last_discard", {}),
    ("a chow with the wrong tiles", chow_window, lambda st: A("chow", 1, "5p", "67p"), "bad_chow", {}),
    ("a chow for a pung", window, lambda st: A("chow", 2, "5p", "46p"), "cannot_claim", {"kind": "chow"}),
    ("a kong not offered", window, lambda st: A("kong", 3, "5p"), "cannot_claim", {"kind": "kong"}),
    ("a suit tile before the honours", strict_play, lambda st: Action("discard", 1, _suit_tile(st, 1)),
     "cannot_discard", None),
    ("a discard before answering", strict_deal, lambda st: Action("discard", 1, st.hands[1][0]),
     "must_decide", {"name": "q"}),
    ("a question not asked of this seat", strict_deal, lambda st: Action("decide", 0, value="no"),
     "no_decision", {}),
    ("an answer not among the choices", strict_deal, lambda st: Action("decide", 1, value="maybe"),
     "bad_choice", {"value": "maybe"}),
]

WIRE_SITUATIONS = [
    # (message, seat, code, params)
    ({"action": "shout"}, 0, "unknown_action", {"action": "shout"}),
    ({"kind": None, "seat": 0}, None, "unknown_action", {"action": None}),
    ("discard 5p", 0, "bad_command", {"field": "message"}),
    ({"action": "discard", "tile": "5p"}, None, "bad_command", {"field": "seat"}),
    ({"kind": "discard", "seat": 2, "tile": "5p"}, 1, "bad_command", {"field": "seat"}),
    ({"kind": "discard", "seat": True, "tile": "5p"}, None, "bad_command", {"field": "seat"}),
    ({"action": "chow", "tiles": 46}, 0, "bad_command", {"field": "tiles"}),
    ({"action": "decide", "value": [1]}, 0, "bad_command", {"field": "value"}),
    ({"action": "discard", "tile": "5x"}, 0, "no_such_tile", {"tile": "5x"}),
    ({"action": "discard", "tile": "55555p"}, 0, "no_such_tile", {"tile": "55555p"}),
    ({"action": "chow", "tiles": ["4p", "0p"]}, 0, "no_such_tile", {"tile": "0p"}),
]


@pytest.mark.parametrize("name,build,make,code,params", SITUATIONS, ids=[s[0] for s in SITUATIONS])
def test_every_refusal_has_its_code(strict, name, build, make, code, params):
    st = build()
    out = must_fail(st, make(st))
    assert out.code == code and out.code in CODES
    if params is not None:
        assert out.params == params
    assert isinstance(out.reason, str) and out.reason
    if code in OLD_TEXTS:
        assert out.reason == OLD_TEXTS[code]
    json.dumps(out.params)


@pytest.mark.parametrize("message,seat,code,params", WIRE_SITUATIONS, ids=[str(w[0])[:40] for w in WIRE_SITUATIONS])
def test_every_bad_message_has_its_code(message, seat, code, params):
    out = from_wire(message, seat)
    assert isinstance(out, Illegal) and not out
    assert (out.code, out.params) == (code, params)
    assert out.reason


def test_the_code_list_is_covered_and_documented():
    produced = {s[3] for s in SITUATIONS} | {w[2] for w in WIRE_SITUATIONS}
    assert produced == set(CODES)
    assert all(isinstance(text, str) and text for text in CODES.values())
    with pytest.raises(ValueError, match="unknown code"):
        Illegal("because I say so")
    assert Illegal("cannot_now", {"kind": "chow"}).reason == "you cannot chow now: discard a tile, kong or win"
    assert Illegal("cannot_claim", {"kind": "pung"}).reason == "you cannot pung this discard"


def test_every_illegal_in_the_engine_uses_a_documented_code():
    """Scan the engine's source: each Illegal(...) names a code of CODES (no free English)."""
    found = set()
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Illegal":
                arg = node.args[0]
                if isinstance(arg, ast.Constant):
                    codes = {arg.value}
                elif isinstance(arg, ast.IfExp):
                    codes = {arg.body.value, arg.orelse.value}
                else:
                    raise AssertionError(f"{path.name}:{node.lineno}: Illegal with a computed code")
                assert codes <= set(CODES), (path.name, node.lineno, codes)
                found |= codes
    assert found >= set(OLD_TEXTS)


def test_from_dict_still_raises_value_errors():
    with pytest.raises(ValueError, match="unknown action 'shout'"):
        Action.from_dict({"kind": "shout", "seat": 0})
    with pytest.raises(TileError):
        Action.from_dict({"kind": "discard", "seat": 0, "tile": "5x"})
    with pytest.raises(ValueError):
        Action.from_dict({"kind": "discard", "seat": "0", "tile": "5p"})


# --- one parser ----------------------------------------------------------------------------

def random_states(hands=12, seed=0):
    """States of whole random hands (2-4 players): every state some player must act in."""
    rng = random.Random(seed)
    for h in range(hands):
        n = 2 + h % 3
        st, _ = new_hand(Options(players=n), rng.randrange(10**6), h % n)
        while st.phase != ENDED:
            yield st
            p = rng.choice(waiting_player(st))
            acts = legal_actions(st, p)
            wins = [a for a in acts if a.kind == "win"]
            a = wins[0] if wins and rng.random() < 0.3 else rng.choice(acts)
            st = apply(st, a)[0]


def wire_of(action: Action) -> dict:
    """The socket's shape of a command (what the table's buttons send)."""
    d = action.to_dict()
    msg = {"action": d.pop("kind"), "v": 12, "h": 3}
    d.pop("seat")
    msg.update(d)
    return msg


def test_from_wire_round_trips_every_legal_action():
    seen_kinds = set()
    count = 0
    for st in random_states():
        for p in waiting_player(st):
            for a in legal_actions(st, p):
                logged = a.to_dict()
                json.dumps(logged)
                assert from_wire(logged) == a == Action.from_dict(logged)
                assert from_wire(logged, p) == a
                assert from_wire(wire_of(a), p) == a
                if a.tiles:  # the socket may send the chow's tiles as one string
                    spaced = dict(wire_of(a), tiles=" ".join(logged["tiles"]))
                    comma = dict(wire_of(a), tiles=",".join(logged["tiles"]))
                    assert from_wire(spaced, p) == from_wire(comma, p) == a
                seen_kinds.add(a.kind)
                count += 1
    assert count > 1000
    assert {"discard", "pass", "pung", "chow", "win"} <= seen_kinds


def test_a_chow_from_the_socket_names_no_discard_and_is_the_same_move():
    st = chow_window()
    msg = {"action": "chow", "tiles": ["4p", "6p"], "v": 1}
    cmd = from_wire(msg, 1)
    assert cmd == Action("chow", 1, None, (T("4p"), T("6p")))
    assert apply(st, cmd) == apply(st, A("chow", 1, "5p", "46p"))


def test_decisions_round_trip(strict):
    st = strict_deal()
    for a in legal_actions(st, 1):
        assert from_wire(a.to_dict()) == a == from_wire(wire_of(a), 1)
        assert a.to_dict() == {"kind": "decide", "seat": 1, "value": a.value}


# --- visibility ----------------------------------------------------------------------------

def test_a_draw_is_private_to_the_drawer():
    draw = events.draw(2, T("5p"), False, 40)
    assert draw == {"type": "draw", "seat": 2, "tile": "5p", "replacement": False, "wall": 40}
    assert audience(draw) == {2} and not is_public(draw)
    assert visible_to(draw, 2) is draw
    for other in (0, 1, 3, None):
        assert visible_to(draw, other) == {"type": "draw", "seat": 2, "replacement": False, "wall": 40}
    assert draw["tile"] == "5p"  # never mutated


def test_claims_are_nobody_elses_business():
    answer = events.claim_answer(3, passed=False)
    assert audience(answer) == {3}
    assert visible_to(answer, 3) == answer and visible_to(answer, 1) is None and visible_to(answer, None) is None
    win = events.claim_window([1, 3])
    assert audience(win) == {1, 3}
    assert visible_to(win, 1) == {"type": "claim_window", "seats": [1]}
    assert visible_to(win, 3) == {"type": "claim_window", "seats": [3]}
    assert visible_to(win, 2) == visible_to(win, None) == {"type": "claim_window", "seats": []}


def test_the_public_events_are_the_tables():
    # games/table.py shows these as the last move; the engine now says so itself
    public = {name for name, spec in EVENT_TYPES.items() if spec.public}
    assert public >= {"discard", "chow", "pung", "kong", "win", "drawn_hand"}
    # "flower": traditional Taizhou shows a flower to everyone before its replacement draw
    assert public - {"discard", "chow", "pung", "kong", "win", "drawn_hand"} == {"deal", "decided", "flower"}
    with pytest.raises(events.UnknownEvent):
        audience({"type": "teleport"})


def test_every_event_of_whole_hands_is_marked_and_none_is_private_to_nobody():
    rng = random.Random(5)
    types = set()
    for h in range(12):
        n = 2 + h % 3
        st, log = new_hand(Options(players=n), rng.randrange(10**6), h % n)
        while st.phase != ENDED:
            p = rng.choice(waiting_player(st))
            acts = legal_actions(st, p)
            wins = [a for a in acts if a.kind == "win"]
            st, ev = apply(st, wins[0] if wins and rng.random() < 0.3 else rng.choice(acts))
            log += ev
        json.dumps(log)
        for e in log:
            types.add(e["type"])
            who = audience(e)
            assert who is None or (who and who <= set(range(n))), e
            for seat in list(range(n)) + [None]:
                seen = visible_to(e, seat)
                if seen is None:
                    assert who is not None and seat not in who
                    continue
                json.dumps(seen)
                if e["type"] == "draw" and seat != e["seat"]:
                    assert "tile" not in seen  # nobody sees another's draw
                if who is None or (seat is not None and seat in who and e["type"] != "claim_window"):
                    assert seen == e
    assert {"deal", "draw", "discard", "claim_window", "claim_answer", "win"} <= types


def test_events_keep_their_stored_shape():
    st = window()
    assert st.phase == CLAIM
    _, ev = play(st, A("pass", 3), A("pung", 2, "5p"))
    assert ev == [{"type": "claim_answer", "seat": 3, "kind": "pass"},
                  {"type": "claim_answer", "seat": 2, "kind": "claim"},
                  {"type": "pung", "seat": 2, "from": 1, "tile": "5p", "meld": "pung:555p"}]
    st0, deal = new_hand(Options(players=4), 1, 0)
    assert deal == [{"type": "deal", "dealer": 0, "indicator": "9m", "wild": "9m", "wall": 82}]
    assert st0.phase == DISCARD
