"""A table computes what every other seat sees of each player once per state
(games.engine.view.public_players) and each seat's view from it: that view must be exactly
seat_view computed alone, for every seat, at every step of whole seeded hands of every variant,
and never carry another player's concealed tiles."""

import random

import pytest

from games.engine import game as engine
from games.engine import variants
from games.engine.view import public_players, seat_view


def hands(variant, players, seeds):
    for seed in seeds:
        state, _events = engine.new_hand(engine.Options(variant=variant, players=players), seed)
        rng = random.Random(seed)
        for _ in range(400):
            yield state
            if state.phase == engine.ENDED:
                break
            waiting = engine.waiting_player(state)
            p = waiting[0]
            acts = engine.legal_actions(state, p)
            out = engine.apply(state, rng.choice(acts))
            assert not isinstance(out, engine.Illegal), out
            state = out[0]


@pytest.mark.parametrize("variant", variants.names())
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_view_from_the_shared_part_is_the_view_alone(variant, players):
    for state in hands(variant, players, seeds=(1, 2)):
        for lang in ("zh", "en"):
            public = public_players(state, lang)
            for me in range(state.n):
                assert seat_view(state, me, lang, public) == seat_view(state, me, lang)
            if state.phase != engine.ENDED:
                assert all(p["hand"] == [] for p in public)  # nobody's concealed tiles


def test_tile_info_is_made_once_but_handed_out_anew():
    """tile_info keeps one dict per face, wild faces and language (a seat's view asks for ~40 tiles
    at every move) and hands out copies: a caller extending its tile changes no other."""
    from games.engine.view import tile_info

    first = tile_info(30, (30,), "zh")
    assert first == {"code": "4z", "label": "北", "wild": True, "honor": True, "dragon": False}
    first["locked"] = True
    again = tile_info(30, (30,), "zh")
    assert again is not first and "locked" not in again
    assert tile_info(30, None, "en") == {"code": "4z", "label": "North", "wild": False, "honor": True, "dragon": False}
    assert tile_info(2, 2)["wild"] and tile_info(2, [5, 2])["wild"] and tile_info(2, {2})["wild"]
    assert not tile_info(2, frozenset({5}))["wild"] and tile_info(31, ())["dragon"]
