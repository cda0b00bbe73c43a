"""The `Variant` the state machine asks: everything that differs between Zhejiang rule sets.

`games/engine/game.py` holds only what every variant shares (phases, turn order, claim windows,
kongs and their replacement draws, the log of events); it never names a variant. For every
rule it asks `state.rules`, the registered `Variant` of `state.options.variant`:

| question                          | hook (state = the HandState)                               |
|-----------------------------------|------------------------------------------------------------|
| the wall                          | `build_wall(seed)` (None = the standard 136)               |
| tiles dealt (dealer +1)           | `hand_size` (13; 16 in Wenzhou)                            |
| wilds                             | `turn_up(rest)` -> indicator, `wild_faces(state)`,         |
|                                   | `wild(state)`, `white_stands_in`, `stand_in(state)`        |
| after the deal / a draw (flowers) | `after_deal(state, events)`, `after_draw(state, p, tile, events)` |
| a question before the first turn  | `pre_hand(state)` -> `Decision` or None; `decided(...)`   |
| ... or before the deal            | `decide_before_deal` (stakes set before the tiles are seen)|
| every question answered, play on  | `before_play(state, events)` (wilds drawn after a decision)|
| may this tile be discarded        | `check_discard(state, p, tile)` -> Illegal or None         |
| claims on a discard (or on a tile | `claim_options(state, q, tile, last)`, `chow_options`,     |
| added to a pung: `robbing_kong`)  |                                                            |
|                                   | `self_kong_options(state, p)`, `claim_rank(state, q, kind)`,|
|                                   | `answered(state, q, options, response)` (note an answer)   |
| win shapes                        | `is_winning(state, p, tiles)` (standard + `special_win`),  |
|                                   | `waits(state, tiles)`, `opening_win_tile(state, p)`        |
| the wall is exhausted             | `exhausted(state)` (`wall_reserve` tiles left; 0 = empty)  |
| tiles set aside (flowers shown)   | `tiles_aside(state)` (counted by `game.tiles_accounted`)   |
| a win when nobody claimed         | `win_before_draw(state)` -> (state, winner, tile) or None  |
| scoring and settlement            | `settle_win(state, winner, tile, discarder)` -> `Result`,  |
|                                   | `settle_drawn(state)`                                      |
| dealer rotation, streak           | `next_dealer(state)`, `next_hand(state)` -> (dealer, carry)|
| what the table shows beyond tiles | `table_info(state)` (public: a base, a streak, decisions)  |
| room options                      | `room_options` (data + `validate(dict)`)                   |
| offered for new rooms             | `playable` (a rule set still being written is not)         |
| the JSON contracts                | `has_contract`, `score_winner`, `score_nonwinner`, `settle`|

A variant is an immutable object (a frozen dataclass): a rule set with options is a new
object (`dataclasses.replace(v, wall_reserve=8)`), never a mutated one. The defaults below are
the common Zhejiang rules of shared/rules/README.md; a variant overrides what differs.
Variant-owned data of a hand (a carried dealer streak, decisions made before the hand, flowers
shown, chosen wild faces) lives in `state.extra`, a sorted tuple of (key, value) pairs that
the variant reads with `state.get_extra(key, default)` and writes with `with_extra`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from ..events import A_CHOW, A_KONG, A_PUNG, A_WIN, CLAIM_KINDS
from ..melds import PUNG, logical_chow_faces
from ..tiles import NUM_FACES, WHITE
from ..winning import is_complete, is_winning_tiles

CLAIM_RANK = {A_WIN: 3, A_PUNG: 2, A_KONG: 2, A_CHOW: 1}  # win > pung/kong > chow


def standard_wall(seed: int) -> list:
    """The 136 tiles shuffled by `random.Random(seed)`: the wall of every hand, bit for bit."""
    tiles = [f for f in range(NUM_FACES) for _ in range(4)]
    random.Random(seed).shuffle(tiles)
    return tiles


@dataclass(frozen=True)
class Result:
    """How a hand ended, as the variant scores and settles it."""

    winner: int | None
    discarder: int | None
    win_tile: int | None
    self_drawn: bool
    scores: tuple  # per player: the variant's score object (Taizhou: taizhou.Score), or None
    transfers: tuple  # ({"from": p, "to": p, "amount": x}, ...) in the variant's unit, by player index
    net: tuple  # per player
    liable: int | None = None
    liable_reason: str | None = None


@dataclass(frozen=True)
class Decision:
    """A question a variant asks before the first turn (买底/顶底, a contract, throws).
    Every seat in `seats` answers with Action("decide", seat, value=one of `choices`)."""

    name: str
    seats: tuple
    choices: tuple


# --- room options ------------------------------------------------------------------------

ROOM_CODES = {
    # code: English text; validate() returns (field, code) pairs, the site words them
    "not_a_number": "must be a whole number",
    "not_allowed": "is not one of the allowed values",
    "out_of_range": "is out of range",
    "unknown_field": "is not an option of this variant",
}

LENGTHS = (("hands", 4), ("hands", 8), ("hands", 16), ("rounds", 1), ("rounds", 2))


@dataclass(frozen=True)
class Setting:
    """A variant's own room setting (e.g. Zhuji's mode, Wenzhou's odd base): one of `choices`."""

    name: str
    choices: tuple
    default: object


@dataclass(frozen=True)
class RoomOptions:
    """What a room of this variant may be set to, as data: the lobby form takes its choices and
    bounds from here and validates once with `validate`."""

    players: tuple = (2, 3, 4)
    lengths: tuple = LENGTHS  # (length_kind, length): "hands" = hands, "rounds" = 圈
    stake: tuple = (1, 1_000_000)  # beans per unit, inclusive bounds
    turn_seconds: tuple = (5, 120)
    claim_seconds: tuple = (3, 60)
    min_balance: tuple = (0, 1_000_000_000_000)
    defaults: tuple = (("players", 4), ("length_kind", "hands"), ("length", 8), ("stake", 100),
                       ("turn_seconds", 15), ("claim_seconds", 8), ("min_balance", 0))
    settings: tuple = ()  # Setting(...) of the variant's own options

    BOUNDED = ("stake", "turn_seconds", "claim_seconds", "min_balance")

    def default(self, name):
        for s in self.settings:
            if s.name == name:
                return s.default
        return dict(self.defaults)[name]

    def with_defaults(self, data: dict) -> dict:
        """`data` with every missing option set to its default."""
        out = dict(self.defaults)
        out.update({s.name: s.default for s in self.settings})
        out.update(data)
        return out

    def validate(self, data: dict) -> list:
        """[(field, code)] for every bad value in `data` (missing ones take their defaults; a
        "variant" key is the registry's business and ignored here). Codes: ROOM_CODES."""
        errors = []
        own = {s.name: s for s in self.settings}
        known = {"variant", "players", "length_kind", "length"} | set(self.BOUNDED) | set(own)
        for key in data:
            if key not in known:
                errors.append((key, "unknown_field"))
        full = self.with_defaults({k: v for k, v in data.items() if k in known})

        def whole(key):
            v = full[key]
            if isinstance(v, bool) or not isinstance(v, int):
                errors.append((key, "not_a_number"))
                return None
            return v

        players = whole("players")
        if players is not None and players not in self.players:
            errors.append(("players", "not_allowed"))
        length = whole("length")
        if length is not None and (full["length_kind"], length) not in self.lengths:
            errors.append(("length", "not_allowed"))
        for key in self.BOUNDED:
            v = whole(key)
            lo, hi = getattr(self, key)
            if v is not None and not lo <= v <= hi:
                errors.append((key, "out_of_range"))
        errors += self.validate_settings({k: v for k, v in data.items() if k in own})
        return errors

    def validate_settings(self, settings: dict) -> list:
        own = {s.name: s for s in self.settings}
        errors = []
        for key, value in settings.items():
            if key not in own:
                errors.append((key, "unknown_field"))
            elif value not in own[key].choices:
                errors.append((key, "not_allowed"))
        return errors


# --- the variant -------------------------------------------------------------------------

@dataclass(frozen=True)
class Variant:
    """One rule set. The defaults are the common rules of shared/rules/README.md."""

    name: str = ""
    title: tuple = ()  # (("zh", "台州麻将"), ("en", "Taizhou"))
    hand_size: int = 13  # tiles dealt to each player; the dealer gets one more
    wall_reserve: int = 0  # the hand is drawn when this many tiles are left (the indicator not counted)
    white_stands_in: bool = False  # whites (5z) stand in for the wild's face
    room_options: RoomOptions = field(default_factory=RoomOptions)
    robbing_kong: bool = False  # 抢杠: others may win on a tile added to a shown pung (state.robbing)
    has_contract: bool = False  # answers the JSON scoring/settlement contracts
    playable: bool = False  # complete enough for a table: the site offers it for new rooms
    decide_before_deal: bool = False  # pre_hand's questions come before the deal (no hands yet)

    # --- the deal ---
    def build_wall(self, seed: int):
        """The shuffled wall of this seed, or None for the standard one (`game.build_wall`:
        the 136 tiles shuffled by random.Random(seed), which games/fairness.py proves)."""
        return None

    def turn_up(self, rest: list):
        """(indicator or None, rest of the live wall) after the deal. Default: turn up the last
        tile of the wall (跳牌); it stays out of play."""
        return rest[-1], rest[:-1]

    def wild_faces(self, state) -> tuple:
        """The faces whose tiles are wild this hand (the other tiles of the indicator's face)."""
        return () if state.indicator is None else (state.indicator,)

    def wild(self, state):
        """The one wild face, or None (a variant with several faces answers its first)."""
        faces = self.wild_faces(state)
        return faces[0] if faces else None

    def is_wild(self, state, tile) -> bool:
        return tile in self.wild_faces(state)

    def stand_in(self, state):
        """The face a white (5z) may be read as, or None."""
        if not self.white_stands_in:
            return None
        w = self.wild(state)
        return None if w is None or w == WHITE else w

    def after_deal(self, state, events):
        """(state, events) once the tiles are dealt (flowers shown and replaced, ...)."""
        return state, events

    def after_draw(self, state, player, tile, events):
        """(state, events) after `player` drew `tile` (a flower: show it, draw again)."""
        return state, events

    def pre_hand(self, state):
        """A `Decision` to ask before the first turn, or None to start playing. Asked again
        after each decision is answered (several rounds are possible). With
        `decide_before_deal` it is first asked before the deal (every hand empty, the whole
        shuffled wall in `state.wall`, no indicator); once it answers None the tiles are dealt
        and it is asked again."""
        return

    def decided(self, state, decision, answers: dict):
        """The state once every seat answered `decision` (answers: seat -> value): record it."""
        return state.with_extra(decision.name, tuple(sorted(answers.items())))

    def before_play(self, state, events):
        """(state, events) once `pre_hand` has nothing more to ask, just before the dealer's first
        turn (called once a hand; after the deal when nothing is asked). Zhuji draws its wild
        faces here, after the dealer's contract. Default: nothing."""
        return state, events

    # --- discards and claims ---
    def check_discard(self, state, player, tile):
        """An Illegal if `player` may not discard `tile` now (forced honours, wilds), else None."""
        return

    def may_discard(self, state, player, tile) -> bool:
        return self.check_discard(state, player, tile) is None

    def chow_options(self, state, player, tile):
        """Pairs of `player`'s tiles that chow `tile` (with the white stand-in where the variant
        has one: a white may stand in as the wild face, and a discarded white may be chowed as it)."""
        wilds = self.wild_faces(state)
        hand = [t for t in state.hands[player] if t not in wilds]
        stand_in = self.stand_in(state)
        logical = stand_in if (tile == WHITE and stand_in is not None) else tile
        if logical >= 27:
            return []
        wild = self.wild(state) if stand_in is not None else None
        out = set()
        # only tiles that read as a face of the discard's suit within two of it can join its chow
        # (logical_chow_faces below decides; this keeps it from trying every pair of the hand)
        def reads_as(t):  # as logical_chow_faces reads a tile
            return wild if (t == WHITE and wild is not None and wild != WHITE) else t

        centre = reads_as(tile)
        low = centre - centre % 9
        window = range(max(low, centre - 2), min(low + 9, centre + 3)) if centre < 27 else range(0)
        uniq = sorted(t for t in set(hand) if reads_as(t) in window)
        for i, a in enumerate(uniq):
            for b in uniq[i:]:
                if a == b and hand.count(a) < 2:
                    continue
                if logical_chow_faces((tile, a, b), wild) is not None:
                    out.add((a, b))
        return sorted(out)

    def claim_options(self, state, player, tile, last: bool) -> tuple:
        """Claims `player` could make on `tile` just discarded by state.turn; `last` = the
        discard after the last draw (it may only be won on)."""
        if self.is_wild(state, tile):
            return ()  # wilds are never claimed
        opts = []
        if tile not in state.furiten[player] and self.is_winning(state, player, list(state.hands[player]) + [tile]):
            opts.append(A_WIN)
        if not last:
            same = state.hands[player].count(tile)
            if same >= 2:
                opts.append(A_PUNG)
            if same >= 3 and not self.exhausted(state):
                opts.append(A_KONG)
            if player == (state.turn + 1) % state.n and self.chow_options(state, player, tile):
                opts.append(A_CHOW)
        return tuple(opts)

    def self_kong_options(self, state, player):
        """(kind, face) of concealed kongs (暗杠) and added kongs (加杠) possible now."""
        if self.exhausted(state):
            return []
        hand = state.hands[player]
        out = []
        for f in sorted(set(hand)):
            if hand.count(f) == 4 and not self.is_wild(state, f):
                out.append(("ckong", f))
        for m in state.melds[player]:
            if m.kind == PUNG and m.face in hand:
                out.append(("akong", m.face))
        return out

    def answered(self, state, player, options, response):
        """The state once `player`, offered `options` on the last discard, answered `response`
        (an Action: a claim or pass). Default: nothing to note (the temporary furiten of a
        declined win is the state machine's)."""
        return state

    def claim_rank(self, state, q, kind) -> tuple:
        """Priority of player q's claim `kind` on the last discard (higher wins; a total order):
        win > pung/kong > chow, then nearest the discarder in turn order."""
        return (CLAIM_RANK[kind], -((q - state.turn) % state.n))

    # --- winning ---
    def is_winning(self, state, player, tiles) -> bool:
        """Do these concealed tiles (with the winning one) win, with `player`'s melds?"""
        stand_in = self.stand_in(state)
        if stand_in is not None and len(self.wild_faces(state)) == 1:
            ok = is_winning_tiles(tiles, self.wild(state))
        else:
            wilds = self.wild_faces(state)
            counts = [0] * NUM_FACES
            jokers = 0
            for t in tiles:
                if t in wilds:
                    jokers += 1
                else:
                    counts[t] += 1
            ok = is_complete(counts, jokers)
        return ok or self.special_win(state, player, tiles)

    def special_win(self, state, player, tiles) -> bool:
        """Winning shapes besides sets + a pair (eight pairs, three wilds). None by default."""
        return False

    def waits(self, state, tiles) -> list:
        """Faces that would complete these concealed tiles (听牌)."""
        base = list(tiles)
        return [f for f in range(NUM_FACES) if self.is_winning(state, None, base + [f])]

    def opening_win_tile(self, state, player):
        """The winning tile of a win on the dealer's dealt hand (天胡: nothing was drawn)."""
        return max(state.hands[player])

    # --- the end of a hand ---
    def win_before_draw(self, state):
        """Nobody claimed the last discard: a win that ends the hand before the next draw, as
        (state, winner, tile shown as the winning one), or None (the default: play on)."""
        return None

    def exhausted(self, state) -> bool:
        """No more draws: the wall is down to its reserve."""
        return len(state.wall) <= self.wall_reserve

    def tiles_aside(self, state) -> int:
        """Tiles out of wall, hands, melds and rivers (flowers shown), for `tiles_accounted`."""
        return 0

    def settle_win(self, state, winner, tile, discarder) -> Result:
        """Score and settle a win. The default scores nothing (a variant without scoring)."""
        n = state.n
        return Result(winner, discarder, tile, discarder is None, tuple(None for _ in range(n)), (),
                      tuple(0 for _ in range(n)))

    def settle_drawn(self, state) -> Result:
        n = state.n
        return Result(None, None, None, False, tuple(None for _ in range(n)), (), tuple(0 for _ in range(n)))

    def win_total(self, result, player):
        """The figure a win event shows (the winner's total), or None."""
        s = result.scores[player] if result.scores else None
        return getattr(s, "total", None)

    def keeps_deal(self, state) -> bool:
        """连庄: the dealer deals again (default: only after winning)."""
        r = state.result
        return r is not None and r.winner == state.dealer

    def next_dealer(self, state) -> int:
        return state.dealer if self.keeps_deal(state) else (state.dealer + 1) % state.n

    def next_hand(self, state):
        """(next dealer, carry): what the next hand starts from. `carry` is a JSON-able dict the
        site keeps with the game and passes to `new_hand`; default: the dealer's streak (1 for a
        new dealer's first hand, +1 for each hand kept)."""
        dealer = self.next_dealer(state)
        streak = state.get_extra("streak", 1) + 1 if dealer == state.dealer else 1
        return dealer, {"streak": streak}

    def table_info(self, state) -> dict:
        """What the table shows of this hand beyond tiles (public to every seat): e.g. Wenzhou's
        base, dealer streak and who bought / topped. JSON-able; {} = nothing more."""
        return {}

    def escape_payments(self, players: int, leaver: int, settings: dict):
        """逃跑: the payments [{"from", "to", "amount", "why"}] (positions, in the variant's unit)
        when player `leaver` leaves a game in progress, or None if the variant has no such rule
        (then a player cannot leave a game; 托管 and 解散 remain). `settings`: the room's own."""
        return None

    # --- the JSON contracts (shared/rules/README.md) ---
    @property
    def cap(self):
        """The capped total, or None for no cap."""
        return None

    def score_winner(self, hand, melds, win, self_drawn, seat_wind, wild):
        raise NotImplementedError(f"{self.name} has no scoring contract")

    def score_nonwinner(self, hand, melds, seat_wind):
        raise NotImplementedError(f"{self.name} has no scoring contract")

    def settle(self, seats, dealer, winner, totals, capped, liable=None):
        raise NotImplementedError(f"{self.name} has no settlement contract")

    def with_options(self, **changes):
        """A copy of this rule set with some data changed (never mutate a shared variant)."""
        return replace(self, **changes)


__all__ = [
    "CLAIM_KINDS",
    "CLAIM_RANK",
    "LENGTHS",
    "ROOM_CODES",
    "Decision",
    "Result",
    "RoomOptions",
    "Setting",
    "Variant",
    "standard_wall",
]


class IndicatorWild:
    """For a variant whose every hand has an indicator and whose wild is that one face (Taizhou,
    Wenzhou): the base's answers without the None checks, on the hot paths of claims and wins.
    List it before Variant: `class Taizhou(IndicatorWild, Variant)`."""

    def wild_faces(self, state) -> tuple:
        return (state.indicator,)

    def wild(self, state):
        return state.indicator

    def is_wild(self, state, tile) -> bool:
        return tile == state.indicator
