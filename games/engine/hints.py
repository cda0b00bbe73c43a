"""Hints for one seat (issue 15): waits, what each would score, the discards closest to ready,
and why a win is not offered. Pure Python, no Django; JSON-able answers with tiles in mpsz
("5p") and stable codes (the site words them).

Computed only from what that seat may see: every function starts from
`bot.visible_state(state, player)` (other players' concealed tiles, the wall and other hidden
parts replaced by placeholders), and "unseen" counts 4 minus the tiles that seat can see (own
hand and melds, every river, the others' exposed melds, the indicator). The variant is asked
through its hooks only: `waits` (its own shapes), `is_winning` (its minimum, e.g. Zhuji's 台),
`claim_options` (what a discard would offer), `settle_win` (the score and the net, wilds and
Taizhou's white stand-in handled by the variant's scorer).

    hints(state, player) -> {
        "player": 0, "phase": "discard", "tiles": 14,
        "shanten": 1,                # of the hand as it is (3k+1), or after the best discard (3k+2)
        "ready": False,              # 听牌 (3k+1 hands) / a discard leaves it ready (3k+2)
        "can_win": False,            # 3k+2 in turn: the hand as it is wins
        "waits": [                   # 3k+1 hands that are ready: the winning tiles
            {"tile": "5p", "unseen": 3,
             "self_drawn": {"points": 22, "tai": 1, "total": 44, "net": 132} | None,
             "discard": {"points": 20, "tai": 1, "total": 40, "net": 40, "from": 3} | None,
             "no_discard_win": None | "<why_no_win code>"}, ...],
        "dead_waits": [{"tile": "2s", "why": "too_few_tai"}, ...],  # the shape, but no win
        "useful": [{"tile": "4m", "unseen": 2}, ...], "useful_count": 9,  # 3k+1 not ready
        "discards": [                # in turn (3k+2): every legal discard, best first
            {"tile": "9m", "shanten": 0, "useful": ["3p", "6p"], "useful_count": 7,
             "waits": [{"tile": "3p", "unseen": 3}, ...]}, ...],
    }

"net" is what this seat would collect net in the variant's unit (Taizhou 胡, Wenzhou/Zhuji 分)
as far as it can tell: the others' concealed tiles are unknown to it (so Taizhou's payments
between non-winners count their shown melds only). A win on a discard is priced as if the seat
before this one (上家) discarded it ("from").

`why_no_win(state, player, tile, self_drawn=None)` -> None (a win would be offered) or one code
of WHY_CODES.
"""

from __future__ import annotations

from dataclasses import replace

from . import bot
from .tiles import NUM_FACES, face_name

WHY_CODES = {
    # code: English meaning (stable; the site translates)
    "wild_not_claimable": "a discarded wild can never be claimed or won on",
    "not_winning_shape": "these tiles do not make a winning hand",
    "furiten": "temporary furiten: a win on this face was passed since your last draw",
    "too_few_tai": "the tiles make a winning shape but not the 台 (points) the rules require",
    "self_drawn_only": "this hand wins on that tile only self-drawn (e.g. Wenzhou 财神马)",
    "not_offered": "the rules do not offer this win now (the state machine's own refusal)",
    "no_draw": "a self-drawn win needs a tile just drawn (after a claim you must discard)",
}


def _score_dict(result, player, discarder=None) -> dict | None:
    if result is None:
        return None
    s = result.scores[player] if result.scores else None
    d = s.as_dict("en") if s is not None and hasattr(s, "as_dict") else {}
    out = {"points": d.get("points"), "tai": d.get("tai"), "total": d.get("total"),
           "net": result.net[player]}
    if discarder is not None:
        out["from"] = discarder
    return out


def _claim_state(vs, player, tile, discarder):
    """The visible state as a claim window on `tile` discarded by `discarder`."""
    return replace(vs, turn=discarder, last_discard=tile, drawn=None, after_kong=False, robbing=False)


def _wins_on_discard(vs, player, tile, discarder) -> bool:
    from .events import A_WIN

    cs = _claim_state(vs, player, tile, discarder)
    last = vs.rules.exhausted(vs)
    return A_WIN in vs.rules.claim_options(cs, player, tile, last)


def _wait_entries(vs, player, tiles, unseen) -> tuple:
    """(waits, dead waits): the faces that win for this seat, with their scores, and the faces
    that complete the shape but win neither way, with the reason code."""
    rules = vs.rules
    tiles = list(tiles)
    discarder = (player - 1) % vs.n
    out, dead = [], []
    for f in rules.waits(vs, tiles):
        self_ok = rules.is_winning(vs, player, tiles + [f])
        entry = {"tile": face_name(f), "unseen": unseen[f],
                 "self_drawn": _score_dict(bot.win_value(vs, player, tiles, f, None), player) if self_ok else None,
                 "discard": None, "no_discard_win": None}
        why = _why(vs, player, tiles, f, self_drawn=False, discarder=discarder)
        if why is None:
            entry["discard"] = _score_dict(bot.win_value(vs, player, tiles, f, discarder), player, discarder)
        else:
            entry["no_discard_win"] = why
        if self_ok or why is None:
            out.append(entry)
        else:
            dead.append({"tile": face_name(f), "why": _why(vs, player, tiles, f, self_drawn=True) or why})
    return out, dead


def hints(state, player: int) -> dict:
    """What that seat may be told about its own hand (see the module docstring)."""
    vs = bot.visible_state(state, player)
    rules = vs.rules
    hand = list(vs.hands[player])
    unseen = bot.unseen_counts(vs, player)
    out = {"player": player, "phase": vs.phase, "tiles": len(hand), "shanten": None, "ready": False,
           "can_win": False, "waits": [], "dead_waits": [], "discards": []}
    if len(hand) % 3 == 1:
        waits, dead = _wait_entries(vs, player, hand, unseen)
        out["waits"] = waits
        out["dead_waits"] = dead
        out["ready"] = bool(waits)
        if not waits:
            _s, useful, live, _w, _v = bot.analyse_rest(vs, player, hand, unseen, with_value=False)
            out["shanten"] = max(1, _s)
            out["useful"] = [{"tile": face_name(f), "unseen": unseen[f]} for f in useful]
            out["useful_count"] = live
        else:
            out["shanten"] = 0
        return out
    if len(hand) % 3 != 2:
        return out
    out["can_win"] = rules.is_winning(vs, player, hand)
    entries = []
    for a in bot.analyse_discards(vs, player, with_value=False, full=True):
        rest = list(hand)
        rest.remove(a.tile)
        e = {"tile": face_name(a.tile), "shanten": a.shanten, "useful": [face_name(f) for f in a.useful],
             "useful_count": a.live, "waits": []}
        if a.shanten == 0:
            waits = [f for f in rules.waits(vs, rest) if rules.is_winning(vs, player, rest + [f])]
            e["waits"] = [{"tile": face_name(f), "unseen": unseen[f]} for f in waits]
            e["useful"] = [face_name(f) for f in waits]
            e["useful_count"] = sum(unseen[f] for f in waits)
        entries.append(e)
    entries.sort(key=lambda e: (e["shanten"], -e["useful_count"], _face(e["tile"])))
    out["discards"] = entries
    out["shanten"] = entries[0]["shanten"] if entries else None
    out["ready"] = bool(entries) and entries[0]["shanten"] == 0
    return out


def _face(name):
    from .tiles import parse_tile

    return parse_tile(name)


def _why(vs, player, tiles, tile, self_drawn: bool, discarder=None):
    """The reason a win on `tile` is not there for concealed `tiles` (3k+1, without `tile`)."""
    rules = vs.rules
    tiles = list(tiles)
    if not self_drawn and rules.is_wild(vs, tile):
        return "wild_not_claimable"
    if not rules.is_winning(vs, None, tiles + [tile]):  # player None: the shape only
        return "not_winning_shape"
    if not self_drawn and tile in vs.furiten[player]:
        return "furiten"
    if not rules.is_winning(vs, player, tiles + [tile]):
        return "too_few_tai"
    if not self_drawn:
        if discarder is None:
            discarder = (player - 1) % vs.n
        if not _wins_on_discard(vs, player, tile, discarder):
            # a claim state with no furiten at all tells the variant's own refusal apart
            return "self_drawn_only"
    return None


def why_no_win(state, player: int, tile, self_drawn: bool | None = None):
    """Why `player` is not offered a win on `tile` (a face, or mpsz "5p"): None when a win would
    be offered, else a code of WHY_CODES. `self_drawn`: None = from the state (in turn holding
    the drawn tile: self-drawn; a claim window on that tile: on a discard; otherwise on a discard
    by the previous player)."""
    from .game import CLAIM, DISCARD

    if isinstance(tile, str):
        tile = _face(tile)
    if not isinstance(tile, int) or not 0 <= tile < NUM_FACES:
        raise ValueError("tile must be a face 0..33 or mpsz text")
    vs = bot.visible_state(state, player)
    hand = list(vs.hands[player])
    if self_drawn is None:
        self_drawn = vs.phase == DISCARD and vs.turn == player
    if self_drawn:
        if len(hand) % 3 == 2:
            if tile not in hand:
                return "not_winning_shape"
            hand.remove(tile)
        why = _why(vs, player, hand, tile, True)
        if why is None and vs.phase == DISCARD and vs.turn == player and vs.drawn is None and vs.step != vs.play_from:
            return "no_draw"
        return why
    discarder = vs.turn if vs.phase == CLAIM and vs.turn != player else (player - 1) % vs.n
    if len(hand) % 3 == 2:
        return "not_winning_shape"  # in turn with a full hand: nothing to win on
    why = _why(vs, player, hand, tile, False, discarder)
    if why is None and vs.phase == CLAIM and vs.last_discard == tile:
        from .events import A_WIN

        if A_WIN not in state.claim_options[player]:
            return "not_offered"
    return why
