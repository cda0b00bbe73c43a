"""The variant seam (games/engine/variants): a registry of rule sets the state machine asks.

Toy variants registered here — a 16-tile deal with a wall that ends at 8 tiles, honours that
must go first, a question before the hand, claim priority by nearness to the discarder, a
setting of the room — change what the state machine does without a line of game.py knowing
them. The Taizhou tests (test_hand_*, test_taizhou_*, test_liability, test_simulation) prove
Taizhou did not notice.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from games.engine import game, variants
from games.engine.contract import score_request
from games.engine.events import Illegal
from games.engine.game import (
    CLAIM,
    DECIDE,
    DISCARD,
    ENDED,
    Action,
    Options,
    apply,
    legal_actions,
    new_hand,
)
from games.engine.tiles import face_name
from games.engine.variants import (
    Decision,
    Result,
    RoomOptions,
    Setting,
    UnknownVariant,
    Variant,
)
from games.engine.variants.taizhou import Taizhou
from tests.engine_helpers import A, make_state, must_fail, play

ENGINE = Path(__file__).resolve().parent.parent / "games" / "engine"


def play_out(state, rng, policy=None, wins=True):
    """Play random legal actions to the end (with wins=True half the wins offered are taken;
    with wins=False none). Returns (state, events)."""
    events = []
    for _ in range(2000):
        if state.phase == ENDED:
            return state, events
        p = rng.choice(game.waiting_player(state))
        acts = legal_actions(state, p)
        if not wins:
            acts = [a for a in acts if a.kind != "win"]
        offered = [a for a in acts if a.kind == "win"]
        a = offered[0] if offered and rng.random() < 0.5 else (policy or rng.choice)(acts)
        out = apply(state, a)
        assert not isinstance(out, Illegal), (a, out)
        state, ev = out
        events += ev
    raise AssertionError("the hand did not end")


# --- the registry --------------------------------------------------------------------------

def test_the_registry_knows_taizhou():
    assert "taizhou" in variants.names()
    v = variants.get("taizhou")
    assert isinstance(v, Variant) and isinstance(v, Taizhou) and v.name == "taizhou"
    assert v.hand_size == 13 and v.wall_reserve == 0 and v.white_stands_in and v.has_contract


@pytest.mark.parametrize("name", ["nanjing", "Taizhou", "", None, 3])
def test_unknown_variants_are_refused_clearly(name):
    with pytest.raises(UnknownVariant, match=r"unknown variant .* \(known: taizhou, taizhou_trad, wenzhou, zhuji\)"):
        variants.get(name)
    with pytest.raises(ValueError, match="unknown variant"):
        Options(variant=name)
    with pytest.raises(ValueError, match="unknown variant"):
        Options.from_dict({"variant": name, "players": 4})


def test_a_name_is_registered_once(register):
    register(replace(variants.get("taizhou"), name="toy_once"))
    with pytest.raises(ValueError, match="already registered"):
        variants.register(replace(variants.get("taizhou"), name="toy_once"))
    with pytest.raises(ValueError):
        variants.register("taizhou")


def test_options_accept_any_registered_variant(register):
    with pytest.raises(ValueError):
        Options(variant="toy_any")
    register(replace(variants.get("taizhou"), name="toy_any"))
    o = Options(variant="toy_any", players=3)
    assert o.rules.name == "toy_any" and Options.from_dict(o.to_dict()) == o
    assert o.to_dict() == {"variant": "toy_any", "players": 3}


def test_the_player_count_is_the_variants(register):
    register(replace(variants.get("taizhou"), name="toy_four", room_options=RoomOptions(players=(4,))))
    Options(variant="toy_four", players=4)
    with pytest.raises(ValueError, match="a table has 4 players"):
        Options(variant="toy_four", players=3)
    with pytest.raises(ValueError, match="a table has 2, 3 or 4 players"):
        Options(players=5)


def test_game_py_imports_no_variant_and_the_engine_no_django():
    tree = ast.parse((ENGINE / "game.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = {a.name for a in node.names}
            assert "taizhou" not in (node.module or "") and "taizhou" not in names, ast.dump(node)
    for path in ENGINE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import django" not in text and "from django" not in text, path


# --- a 16-tile deal and a wall that ends with 8 tiles ----------------------------------------

def test_a_sixteen_tile_variant_deals_sixteen(register):
    register(replace(variants.get("taizhou"), name="toy16", hand_size=16, wall_reserve=8))
    for n in (2, 3, 4):
        for dealer in range(n):
            st, events = new_hand(Options(variant="toy16", players=n), 5, dealer)
            sizes = [len(h) for h in st.hands]
            assert sizes[dealer] == 17 and all(s == 16 for q, s in enumerate(sizes) if q != dealer)
            assert st.wall_count == 136 - 17 - 16 * (n - 1) - 1 == events[0]["wall"]
            assert game.tiles_accounted(st) == 136


@dataclass(frozen=True)
class SortedWall(Taizhou):
    name: str = "toy_sorted"

    def build_wall(self, seed):
        return sorted(game.build_wall(seed))


def test_a_variant_may_build_its_own_wall(register):
    register(SortedWall())
    st, _ = new_hand(Options(variant="toy_sorted"), 9, 0)
    assert st.hands[0] == tuple(sorted([0] * 4 + [1] * 4 + [2] * 4 + [3] * 2))
    assert st.indicator == 33 and st.wall[0] == sorted(game.build_wall(9))[14 + 3 * 13]  # last up, front next
    standard, _ = new_hand(Options(), 9, 0)
    assert list(standard.hands[0]) == sorted(game.build_wall(9)[:14])


def test_the_toy_wall_ends_with_eight_tiles_left(register):
    register(replace(variants.get("taizhou"), name="toy16", hand_size=16, wall_reserve=8))
    rng = random.Random(16)
    for seed in range(8):
        st, events = new_hand(Options(variant="toy16", players=4 - seed % 3), seed, seed % 2)
        st, more = play_out(st, rng, wins=False)  # never win: play to the end of the wall
        events += more
        assert game.tiles_accounted(st) == 136
        assert all(e["wall"] >= 8 for e in events if e["type"] == "draw")
        assert st.result.winner is None and st.wall_count == 8 and events[-1] == {"type": "drawn_hand"}


def test_the_discard_at_the_reserve_is_only_won_on(register):
    register(replace(variants.get("taizhou"), name="toy_end8", wall_reserve=8))
    junk = "147m147p147s1234z"
    st = make_state(hands={0: "123m456m789m3p9p12s7z", 1: "99p369m36s13457z1p", 2: junk, 3: junk},
                    wall="1m2m3m4m5m6m7m8m", dealer=0, turn=0, drawn="7z", step=1)
    # Taizhou plays the wall to its last tile: player 1 may pung the 9p
    live, _ = play(st, A("discard", 0, "9p"))
    assert live.phase == CLAIM and live.claim_options[1] == ("pung",)
    # the toy stops at 8 tiles: the discard at the reserve may only be won on, then the hand is drawn
    toy = replace(st, options=Options(variant="toy_end8"))
    assert toy.rules.exhausted(toy) and game.self_kong_options(toy, 0) == []
    end, events = play(toy, A("discard", 0, "9p"))
    assert end.phase == ENDED and end.result.winner is None and end.wall_count == 8
    assert [e["type"] for e in events] == ["discard", "drawn_hand"]


# --- honours first, a question before the hand, claims by nearness -------------------------

@dataclass(frozen=True)
class HonoursFirst(Taizhou):
    """Toy: honours must go first; before the hand the dealer says whether it counts double."""

    name: str = "toy_honours"

    def check_discard(self, state, player, tile):
        honours = [t for t in state.hands[player] if t >= 27 and not self.is_wild(state, t)]
        if honours and tile < 27 and not self.is_wild(state, tile):
            return Illegal("cannot_discard", {"tile": face_name(tile)})
        return None

    def pre_hand(self, state):
        if state.get_extra("double") is None:
            return Decision("double", (state.dealer,), ("no", "yes"))
        return None

    def decided(self, state, decision, answers):
        return state.with_extra("double", answers[state.dealer])


@dataclass(frozen=True)
class Nearest(Taizhou):
    """Toy: several wins on one discard go to the claimant nearest the discarder (the base rule)."""

    name: str = "toy_nearest"

    def claim_rank(self, state, q, kind):
        return Variant.claim_rank(self, state, q, kind)


def test_a_question_before_the_hand(register):
    register(HonoursFirst())
    st, events = new_hand(Options(variant="toy_honours"), 3, 1)
    assert st.phase == DECIDE and game.waiting_player(st) == [1] and events[-1]["type"] == "deal"
    assert legal_actions(st, 1) == [Action("decide", 1, value="no"), Action("decide", 1, value="yes")]
    assert legal_actions(st, 0) == []
    assert must_fail(st, A("discard", 1, face_name(st.hands[1][0]))).code == "must_decide"
    assert must_fail(st, Action("decide", 0, value="yes")).code == "no_decision"
    assert must_fail(st, Action("decide", 1, value="triple")).code == "bad_choice"
    assert game.auto_action(st, 1) == Action("decide", 1, value="no")
    st, ev = play(st, Action("decide", 1, value="yes"))
    assert [e["type"] for e in ev] == ["decide", "decided"] and ev[1]["answers"] == {"1": "yes"}
    assert st.phase == DISCARD and st.turn == 1 and st.get_extra("double") == "yes"
    assert st.play_from == st.step == 1
    # the dealer's opening turn is still the opening turn: a win on the dealt hand stays possible
    assert game._may_self_win(st)
    # the log format carries the value; from_dict reads it back
    assert Action.from_dict(Action("decide", 1, value="yes").to_dict()) == Action("decide", 1, value="yes")
    again = game.replay(Options(variant="toy_honours"), 3, 1, [Action("decide", 1, value="yes")])
    assert again[0] == st


def test_honours_must_go_first(register):
    register(HonoursFirst())
    st, _ = new_hand(Options(variant="toy_honours"), 3, 1)
    st, _ = play(st, Action("decide", 1, value="no"))
    hand = st.hands[1]
    honours = {t for t in hand if t >= 27 and t != st.wild}
    assert honours, "seed 3 deals the dealer an honour"
    discards = {a.tile for a in legal_actions(st, 1) if a.kind == "discard"}
    assert discards == honours | ({st.wild} & set(hand))
    suit = next(t for t in hand if t < 27 and t != st.wild)
    refused = must_fail(st, Action("discard", 1, suit))
    assert refused.code == "cannot_discard" and refused.params == {"tile": face_name(suit)}
    assert game.auto_action(st, 1).tile in discards
    # and whole hands under the rule end properly
    rng = random.Random(7)
    for seed in range(10):
        s, _ = new_hand(Options(variant="toy_honours", players=3), seed, 0)
        s, _ = play_out(s, rng)
        assert game.tiles_accounted(s) == 136


def _two_winners(options):
    # dealer 0; player 2 discards 5p; 3 is nearest the discarder, 1 comes first from the dealer
    st = make_state(hands={0: "369m369p36s1347z8p", 1: "123m456m789m11s67p", 2: "1479m1247s12346z5p",
                           3: "234m567m888s22z46p"}, dealer=0, turn=2)
    st = replace(st, options=options)
    st, _ = play(st, A("discard", 2, "5p"))
    return st


def test_claim_priority_is_the_variants(register):
    register(Nearest())
    taizhou = _two_winners(Options())
    toy = _two_winners(Options(variant="toy_nearest"))
    assert game.waiting_player(taizhou) == game.waiting_player(toy) == [1, 3]
    t_end, _ = play(taizhou, A("win", 3, "5p"), A("win", 1, "5p"))
    assert t_end.result.winner == 1  # Taizhou: first from the dealer
    toy_end, _ = play(toy, A("win", 3, "5p"))
    assert toy_end.phase == ENDED and toy_end.result.winner == 3  # the toy: nearest the discarder, at once


# --- settings, carry, room options -------------------------------------------------------

@dataclass(frozen=True)
class Reserve(Taizhou):
    name: str = "toy_setting"
    room_options: RoomOptions = field(
        default_factory=lambda: RoomOptions(settings=(Setting("reserve", (0, 8, 16), 0),)))

    def exhausted(self, state):
        return len(state.wall) <= state.options.setting("reserve")


def test_a_variant_setting_lives_in_the_options(register):
    register(Reserve())
    o = Options(variant="toy_setting", settings={"reserve": 16})
    assert o.setting("reserve") == 16 and Options(variant="toy_setting").setting("reserve") == 0
    assert o.to_dict() == {"variant": "toy_setting", "players": 4, "settings": {"reserve": 16}}
    assert Options.from_dict(o.to_dict()) == o
    with pytest.raises(ValueError, match="bad settings"):
        Options(variant="toy_setting", settings={"reserve": 3})
    with pytest.raises(ValueError, match="bad settings"):
        Options(settings={"reserve": 8})  # Taizhou has no such setting
    st, _ = new_hand(o, 11, 0)
    st, events = play_out(st, random.Random(1), wins=False)
    assert st.wall_count == 16 and min(e["wall"] for e in events if e["type"] == "draw") >= 16


def test_the_dealer_streak_is_carried():
    st, _ = new_hand(Options(), 1, 2, carry={"streak": 3})
    assert st.get_extra("streak") == 3
    for winner, dealer, streak in ((2, 2, 4), (0, 3, 1), (None, 3, 1)):
        result = Result(winner, None, None, False, (None,) * 4, (), (0,) * 4)
        end = replace(st, phase=ENDED, result=result)
        assert game.next_hand(end) == (dealer, {"streak": streak}) and game.next_dealer(end) == dealer
    plain, _ = new_hand(Options(), 1, 0)
    assert plain.extra == () and plain.get_extra("streak", 1) == 1


def test_room_options_are_data_and_validate_once():
    ro = variants.get("taizhou").room_options
    assert ro.players == (2, 3, 4)
    assert ro.lengths == (("hands", 4), ("hands", 8), ("hands", 16), ("rounds", 1), ("rounds", 2))
    assert (ro.stake, ro.turn_seconds, ro.claim_seconds) == ((1, 1_000_000), (5, 120), (3, 60))
    assert ro.min_balance[0] == 0
    assert ro.with_defaults({}) == {"players": 4, "length_kind": "hands", "length": 8, "stake": 100,
                                    "turn_seconds": 15, "claim_seconds": 8, "min_balance": 0}
    assert ro.validate({}) == [] and ro.validate(ro.with_defaults({"variant": "taizhou"})) == []
    assert ro.validate({"players": 5}) == [("players", "not_allowed")]
    assert ro.validate({"players": True}) == [("players", "not_a_number")]
    assert ro.validate({"length_kind": "rounds", "length": 3}) == [("length", "not_allowed")]
    assert ro.validate({"length_kind": "rounds", "length": 2}) == []
    assert ro.validate({"stake": 0, "turn_seconds": 121, "claim_seconds": 2, "min_balance": -1}) == [
        ("stake", "out_of_range"), ("turn_seconds", "out_of_range"), ("claim_seconds", "out_of_range"),
        ("min_balance", "out_of_range")]
    assert ro.validate({"stake": "100"}) == [("stake", "not_a_number")]
    assert ro.validate({"colour": "red"}) == [("colour", "unknown_field")]
    for _field, code in ro.validate({"stake": 0, "colour": 1, "players": 9}):
        assert code in variants.ROOM_CODES


def test_the_contracts_answer_only_variants_with_one(register):
    register(replace(variants.get("taizhou"), name="toy_nocontract", has_contract=False))
    out = score_request({"variant": "toy_nocontract", "seat": "E", "hand": "123m456m789m123p5p", "win": "5p"})
    assert out == {"ok": False, "error": "unknown variant 'toy_nocontract' (known: taizhou, taizhou_trad, wenzhou, zhuji)"}
