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
