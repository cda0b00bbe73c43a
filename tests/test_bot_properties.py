"""Hypothesis: bots never stall a hand. Over random seeded hands in every registered variant (and
the room settings that change the play: Zhuji's 包 and its number of wild faces, Wenzhou's odd
bases) with 2, 3 and 4 players, four bots (or bots mixed with "discard the drawn tile" players,
engine.auto_action) always finish the hand, every choice legal, within a bound of actions; the
hand replays bit for bit from its actions. Pure engine."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import bot, game, variants
from games.engine.game import ENDED, Options, apply, auto_action, legal_actions, new_hand, replay, waiting_player

TABLES = [(name, room) for name in variants.names() for room in
          ({"taizhou": [{}], "wenzhou": [{}, {"odd_base": True}],
            "zhuji": [{}, {"mode": "bao"}, {"wild_faces": 0}, {"wild_faces": 2}, {"mode": "bao", "wild_faces": 2}]}
           .get(name, [{}]))]

LEAN = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _table(name, room, players):
    allowed = variants.get(name).room_options.players
    return Options(variant=name, players=players if players in allowed else allowed[-1], settings=room)


def play_hand(options, seed, dealer, bots):
    st, _ = new_hand(options, seed, dealer)
    actions = []
    while st.phase != ENDED:
        waiting = waiting_player(st)
        assert waiting, "nobody to act in an unfinished hand"
        p = waiting[0]
        a = bot.choose(st, p) if p in bots else auto_action(st, p)
        assert a in legal_actions(st, p), (options, seed, p, a)
        out = apply(st, a)
        assert not isinstance(out, game.Illegal), (options, seed, a, out)
        st = out[0]
        actions.append(a)
        assert len(actions) < 600, "the hand does not end"
    return st, actions


@LEAN
@given(st.sampled_from(TABLES), st.sampled_from([2, 3, 4]), st.integers(0, 2**31 - 1), st.integers(0, 3))
def test_four_bots_always_finish_a_hand(table, players, seed, dealer):
    name, room = table
    options = _table(name, room, players)
    dealer %= options.players
    end, actions = play_hand(options, seed, dealer, set(range(options.players)))
    assert end.result is not None
    if end.result.winner is not None:
        assert end.result.winner in range(options.players)
    again = replay(options, seed, dealer, actions)
    assert not isinstance(again, game.Illegal) and repr(again[0]) == repr(end)


@LEAN
@given(st.sampled_from(TABLES), st.sampled_from([2, 3, 4]), st.integers(0, 2**31 - 1),
       st.sets(st.integers(0, 3), min_size=1, max_size=3))
def test_bots_among_auto_players_always_finish(table, players, seed, seats):
    name, room = table
    options = _table(name, room, players)
    bots = {s % options.players for s in seats}
    end, _ = play_hand(options, seed, seed % options.players, bots)
    assert end.phase == ENDED and end.result is not None
