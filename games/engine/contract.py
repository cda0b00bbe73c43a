"""The machine-checkable JSON contracts of shared/rules/README.md.

The variant comes from the registry (`variants.get`); every variant with `has_contract`
answers them through its `score_winner`, `score_nonwinner`, `settle`, `hand_size` and `cap`, or,
when its fields differ (Wenzhou, Zhuji, traditional Taizhou), through its own `score_json` /
`settle_json` (`_own_reader`).

score_request(dict) -> dict and settle_request(dict) -> dict never raise on bad input:
they answer {"ok": false, "error": "..."} and change nothing.
"""

from __future__ import annotations

from . import variants
from .requests import LANGS, RequestError, flag, read_hand  # noqa: F401  (RequestError: re-exported)
from .tiles import (
    NUM_FACES,
    SEAT_NAMES,
    SEAT_WIND,
    TileError,
    face_name,
    parse_tile,
)



def _fail(msg: str) -> dict:
    return {"ok": False, "error": msg}


def _variant(req):
    if not isinstance(req, dict):
        raise RequestError("a request must be a JSON object")
    name = req.get("variant")
    known = [v for v in variants.names() if variants.get(v).has_contract]
    if name not in known:
        raise RequestError(f"unknown variant {name!r} (known: {', '.join(known)})")
    return variants.get(name)


def _own_reader(req, name):
    """A variant whose contract fields and output differ (Wenzhou: base, kind, wilds, ...) reads
    its requests itself: its `score_json` / `settle_json`, or None."""
    if isinstance(req, dict) and isinstance(req.get("variant"), str) and req["variant"] in variants.names():
        v = variants.get(req["variant"])
        if v.has_contract:
            return getattr(v, name, None)
    return None


def parse_score_request(req):
    """Validate a scoring request. Returns a dict of parsed fields or raises RequestError/TileError."""
    variant = _variant(req)
    lang = req.get("lang", "en") or "en"
    if lang not in LANGS:
        raise RequestError(f"unknown lang {lang!r} (use en or zh)")
    seat = req.get("seat")
    if seat not in SEAT_WIND:
        raise RequestError(f"seat must be one of E, S, W, N (got {seat!r})")
    wild_text = req.get("wild")
    wild = None
    if wild_text not in (None, ""):
        wild = parse_tile(wild_text)
    hand, melds, win = read_hand(req, wild)
    self_drawn = flag(req, "self_drawn")
    if win is None and self_drawn:
        raise RequestError("self_drawn needs a winning tile (win)")
    size = variant.hand_size
    expected = size - 3 * len(melds)
    if expected < 1:
        raise RequestError(f"too many melds ({len(melds)})")
    if len(hand) != expected:
        raise RequestError(
            f"hand has {len(hand)} tiles; with {len(melds)} meld(s) it must have {expected}"
            + (" (the winning tile goes in win, not in hand)" if win is not None and len(hand) == expected + 1 else ""))
    counts = [0] * NUM_FACES
    for f in hand + ([win] if win is not None else []):
        counts[f] += 1
    for m in melds:
        for f in m.tiles:
            counts[f] += 1
    for f in range(NUM_FACES):
        limit = 4
        if f == wild:
            limit = 3  # the indicator itself is the fourth tile of the wild face
        if counts[f] > limit:
            extra = " (the indicator is the fourth)" if f == wild else ""
            raise RequestError(f"{counts[f]} copies of {face_name(f)}: there are only {limit}{extra}")
    if win is not None and win == wild and not self_drawn:
        raise RequestError(f"a discarded wild ({face_name(wild)}) cannot be won on")
    return {"variant": variant, "lang": lang, "seat": seat, "wild": wild, "hand": hand,
            "melds": melds, "win": win, "self_drawn": self_drawn}


def score_request(req) -> dict:
    own = _own_reader(req, "score_json")
    if own is not None:
        return own(req)
    try:
        p = parse_score_request(req)
    except (RequestError, TileError) as e:
        return _fail(str(e))
    variant = p["variant"]
    seat_wind = SEAT_WIND[p["seat"]]
    if p["win"] is None:
        score = variant.score_nonwinner(p["hand"], p["melds"], seat_wind)
    else:
        score = variant.score_winner(p["hand"], p["melds"], p["win"], p["self_drawn"], seat_wind, p["wild"])
        if score is None:
            return _fail("not a winning hand: the tiles do not make four sets and a pair")
    return score.as_dict(p["lang"])


def _seat(value, what):
    if value not in SEAT_WIND:
        raise RequestError(f"{what} must be one of E, S, W, N (got {value!r})")
    return value


def _number(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise RequestError(f"{what} must be a number of 0 or more (got {value!r})")
    return value


def settle_request(req) -> dict:
    own = _own_reader(req, "settle_json")
    if own is not None:
        return own(req)
    try:
        variant = _variant(req)
        totals_raw = req.get("totals")
        if not isinstance(totals_raw, dict) or not totals_raw:
            raise RequestError("totals must be an object like {\"E\": 16, \"S\": 60}")
        seats = [s for s in SEAT_NAMES if s in totals_raw]
        unknown = set(totals_raw) - set(SEAT_NAMES)
        if unknown:
            raise RequestError(f"unknown seat(s) in totals: {', '.join(sorted(unknown))}")
        if len(seats) < 2:
            raise RequestError("totals need at least two seats")
        if seats != list(SEAT_NAMES[:len(seats)]):
            raise RequestError(f"seats must be E, S (, W (, N)) in order; got {', '.join(seats)}")
        totals = {s: _number(totals_raw[s], f"totals[{s}]") for s in seats}
        dealer = _seat(req.get("dealer"), "dealer")
        if dealer not in totals:
            raise RequestError(f"dealer {dealer} has no total")
        winner = req.get("winner")
        if winner is not None:
            _seat(winner, "winner")
            if winner not in totals:
                raise RequestError(f"winner {winner} has no total")
        discarder = req.get("discarder")
        if discarder is not None:
            _seat(discarder, "discarder")
            if discarder not in totals or discarder == winner:
                raise RequestError("discarder must be another seated player (null when self-drawn)")
        capped_raw = req.get("capped") or {}
        if not isinstance(capped_raw, dict):
            raise RequestError("capped must be an object like {\"S\": false}")
        capped = {}
        for s, v in capped_raw.items():
            if s not in totals or not isinstance(v, bool):
                raise RequestError(f"capped[{s}] must be true/false for a seated player")
            if v and variant.cap is None:
                raise RequestError(f"capped[{s}] is true but {variant.name} has no cap")
            if v and totals[s] < variant.cap:
                raise RequestError(f"capped[{s}] is true but totals[{s}] is {totals[s]}: a capped total is {variant.cap}")
            capped[s] = v
        liable = req.get("liable")
        if isinstance(liable, dict):
            seat = liable.get("seat")
            # facts of the exemption (taizhou.md §9): the liable player's own 台, or ready
            # with a full flush, or an explicit exempt flag
            tai = liable.get("tai", 0)
            exempt = (liable.get("exempt") is True or liable.get("ready_full_flush") is True
                      or (isinstance(tai, int) and not isinstance(tai, bool) and tai >= 3))
            liable = None if (exempt or seat is None) else seat
        if liable is not None:
            _seat(liable, "liable")
            if liable not in totals or liable == winner:
                raise RequestError("liable must be a seated non-winner (or null)")
            if winner is None:
                raise RequestError("liable needs a winner")
    except RequestError as e:
        return _fail(str(e))
    transfers, net = variant.settle(seats, dealer, winner, totals, capped, liable)
    return {"ok": True, "transfers": transfers, "net": net}
