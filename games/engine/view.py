"""What one seat may see of a hand: the only input the table templates get.

A seat's view holds its own concealed tiles and, of everyone else, only what lies face up:
melds (a concealed kong lies face down until the hand ends), rivers and tile counts. It never holds the wall or another player's concealed tiles; after the hand ends
every hand is shown (the result screen opens all hands).
"""

from __future__ import annotations

from .game import CLAIM, DECIDE, DISCARD, ENDED, A_CHOW, legal_actions
from .tiles import face_label, face_name, is_dragon


def wild_set(wild) -> tuple:
    """The wild faces as a tuple, from one face, None, or a collection (Zhuji may have two)."""
    if wild is None:
        return ()
    return tuple(wild) if isinstance(wild, (tuple, frozenset, set, list)) else (wild,)


_TILE_INFO: dict = {}  # (face, wild faces, lang) -> the dict tile_info copies; a few hundred at most


def tile_info(face: int, wild, lang: str = "zh") -> dict:
    """`wild`: the hand's wild face, None, or a collection of faces. A new dict each time (callers
    may extend it), copied from one made once per face, wild faces and language: a seat's view
    shows ~40 tiles and four seats are rendered at every move."""
    key = (face, wild if type(wild) is tuple else wild_set(wild), lang)
    made = _TILE_INFO.get(key)
    if made is None:
        made = _TILE_INFO[key] = {"code": face_name(face), "label": face_label(face, lang),
                                  "wild": face in key[1], "honor": face >= 27, "dragon": is_dragon(face)}
    return dict(made)


def _meld_view(meld, wild, lang, show):
    if meld.kind == "ckong" and not show:
        return {"kind": meld.kind, "tiles": [{"code": "back", "label": "", "hidden": True}] * 4}
    return {"kind": meld.kind, "tiles": [tile_info(f, wild, lang) for f in meld.tiles]}


def sort_hand(tiles, wild):
    """Wilds first (placed left), then by face. `wild` as for tile_info."""
    wilds = wild_set(wild)
    return sorted(tiles, key=lambda f: (f not in wilds, f))


def _player_view(state, p: int, me: int | None, show: bool, wild: tuple, lang: str) -> dict:
    hand = sort_hand(state.hands[p], wild) if show else []
    return {
        "index": p,
        "seat": state.seat_name(p),
        "wind": face_label(state.seat_wind(p), lang),
        "dealer": p == state.dealer,
        "me": p == me,
        "tile_count": len(state.hands[p]),
        "hand": [tile_info(f, wild, lang) for f in hand],
        "melds": [_meld_view(m, wild, lang, show) for m in state.melds[p]],
        "river": [tile_info(f, wild, lang) for f in state.rivers[p]],
        "in_turn": state.phase == DISCARD and p == state.turn,
    }


def public_players(state, lang: str = "zh") -> tuple:
    """Every player as someone else at the table sees them (no concealed tile): the part of
    `seat_view` that is the same for every other seat, so a table computes it once per state.
    Read only: seat_view hands out copies of these dicts, their lists shared."""
    wild = tuple(state.rules.wild_faces(state))
    ended = state.phase == ENDED
    return tuple(_player_view(state, p, None, ended, wild, lang) for p in range(state.n))


def seat_view(state, me: int | None, lang: str = "zh", public: tuple | None = None) -> dict:
    """A JSON-able dict of what player `me` sees (None = spectator: nobody's hand).
    public: `public_players(state, lang)` of this very state, when the caller keeps it."""
    n = state.n
    wild = tuple(state.rules.wild_faces(state))  # none, one or (Zhuji) two faces
    ended = state.phase == ENDED
    players = []
    for p in range(n):
        show = ended or p == me
        if public is not None and not show:
            players.append(dict(public[p]))  # me is False there, as for every other seat
        else:
            players.append(_player_view(state, p, me, show, wild, lang))
    me_drawn = None
    if me is not None and state.phase == DISCARD and state.turn == me and state.drawn is not None:
        me_drawn = face_name(state.drawn)
    actions = []
    if me is not None and not ended:
        for a in legal_actions(state, me):
            d = a.to_dict()
            if a.kind == A_CHOW:
                d["label"] = " ".join(face_label(t, lang) for t in sorted(a.tiles + (a.tile,)))
            actions.append(d)
    decision = None
    if state.phase == DECIDE and state.decision is not None:
        d = state.decision
        # who is asked and who has answered; never what they answered until all have
        decision = {"name": d.name, "seats": list(d.seats), "choices": list(d.choices),
                    "waiting": [p for p in d.seats if state.answers[p] is None]}
    view = {
        "phase": state.phase,
        "decision": decision,
        "robbing": state.phase == CLAIM and bool(getattr(state, "robbing", False)),  # 抢杠: a tile added to a pung
        "info": state.rules.table_info(state),
        "turn": state.turn,
        "step": state.step,
        "wall_count": len(state.wall),
        # Zhuji turns up no indicator, and its faces are drawn only once play starts
        "indicator": None if state.indicator is None else tile_info(state.indicator, wild, lang),
        "wild": tile_info(wild[0], wild, lang) if wild else None,
        "wilds": [tile_info(f, wild, lang) for f in wild],
        "players": players,
        "drawn": me_drawn,
        "last_discard": None if state.last_discard is None or state.phase != CLAIM else tile_info(state.last_discard, wild, lang),
        "actions": actions,
        "result": None,
    }
    if ended and state.result is not None:
        view["result"] = result_view(state, lang)
    return view


def result_view(state, lang: str = "zh") -> dict:
    r = state.result
    out = {"winner": r.winner, "discarder": r.discarder, "self_drawn": r.self_drawn,
           "win_tile": None if r.win_tile is None else tile_info(r.win_tile, tuple(state.rules.wild_faces(state)), lang),
           "drawn_hand": r.winner is None, "liable": r.liable, "liable_reason": r.liable_reason,
           "scores": [], "transfers": list(r.transfers), "net": list(r.net)}
    for p in range(state.n):
        s = r.scores[p]
        out["scores"].append(None if s is None else s.as_dict(lang))
    return out
