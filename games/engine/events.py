"""The engine's one command language: commands in, events out, errors as coded values.

Three things cross the engine's edge, and each is defined here once:

Commands (what a player asks for)
    `Action(kind, seat, tile=None, tiles=(), value=None)`, kinds in `ACTION_KINDS`:
    discard, chow, pung, kong, win, pass, ckong (concealed kong), akong (added kong), and
    decide (an answer to a variant's question before the first turn, `value` = the choice).
    `from_wire(message, seat)` is THE parser: it reads both shapes that exist,
      - the socket's   {"action": "discard", "tile": "5p", "v": 41, "h": 7}
                       {"action": "chow", "tiles": ["4p", "6p"]}   (or "4p 6p" / "4p,6p")
      - the log's      {"kind": "discard", "seat": 2, "tile": "5p"}   (`Action.to_dict`)
    and returns an `Action` or an `Illegal` (never raises). `Action.to_dict` is the stored log
    format (HandEvent.action, replay records): it does not change; `Action.from_dict` reads it
    and raises ValueError, as it always did.

Errors (a command the rules refuse here; nothing changed)
    `Illegal(code, params)`: `code` is stable (one of `CODES`), `params` a small JSON-able dict
    (e.g. {"kind": "pung"}, {"tile": "5z"}). `Illegal.reason` is the English text of `CODES`
    (the text the engine has always given; the site translates the code, not the text).

Events (what happened, appended to the hand's log as plain JSON dicts)
    `{"type": ..., ...}` with the types of `EVENT_TYPES`: deal, draw, discard, claim_window,
    claim_answer, chow, pung, kong, win, drawn_hand, decide, decided. The stored shape is fixed
    (replays compare re-run events with the stored ones), so visibility is not a key in the
    event: it is declared with the event's type, and the engine asks the type:
      - `audience(event)`: None = public (everyone sees all of it), else the seats that see it
        whole (a draw: the drawer only);
      - `visible_to(event, seat)`: the event as `seat` may see it (seat None = a spectator):
        the whole event, a redacted public form (a draw without its tile; a claim window that
        lists no seat but the viewer), or None (another seat's claim answer);
      - `is_public(event)`: shown to everyone as it is (the site's "last move" line).
    A variant that adds an event type registers it with `define_event`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .tiles import TileError, face_name, parse_tile

# --- commands ----------------------------------------------------------------------------

A_DISCARD, A_WIN, A_PASS, A_CHOW, A_PUNG, A_KONG, A_CKONG, A_AKONG, A_DECIDE = (
    "discard", "win", "pass", "chow", "pung", "kong", "ckong", "akong", "decide")
ACTION_KINDS = (A_DISCARD, A_WIN, A_PASS, A_CHOW, A_PUNG, A_KONG, A_CKONG, A_AKONG, A_DECIDE)
CLAIM_KINDS = (A_WIN, A_PUNG, A_KONG, A_CHOW)  # what may be asked of a discard


@dataclass(frozen=True)
class Action:
    """A command: one player's move. Tiles are faces (ints 0..33)."""

    kind: str
    seat: int
    tile: int | None = None  # discard / kong face / the claimed discard
    tiles: tuple = ()  # chow: the two tiles from hand (sorted)
    value: str | int | None = None  # decide: the choice

    def to_dict(self):
        """The stored log format: {"kind", "seat"} (+ "tile", "tiles", "value" when set)."""
        d = {"kind": self.kind, "seat": self.seat}
        if self.tile is not None:
            d["tile"] = face_name(self.tile)
        if self.tiles:
            d["tiles"] = [face_name(t) for t in self.tiles]
        if self.value is not None:
            d["value"] = self.value
        return d

    @classmethod
    def from_dict(cls, d):
        """Read `to_dict`'s format; raises ValueError (TileError for bad tiles) on bad input."""
        out = from_wire(d)
        if isinstance(out, Illegal):
            if out.code == "no_such_tile":
                tile = out.params.get("tile", "")
                raise TileError(out.reason, "bad_text", {"text": tile, "bad": tile})
            raise ValueError(out.reason)
        return out


# --- errors ------------------------------------------------------------------------------

CODES = {
    # code: English text (str.format with the params); the site translates codes.
    "hand_over": "the hand is over",
    "no_such_seat": "no such seat",
    "no_such_tile": "no such tile",
    "not_your_turn": "it is not your turn",
    "cannot_now": "you cannot {kind} now: discard a tile, kong or win",
    "no_claim": "you have no claim on this discard",
    "wait_for_claims": "wait for the others to claim or pass",
    "already_answered": "you have already answered this discard",
    "not_last_discard": "that is not the tile just discarded",
    "bad_chow": "those tiles do not chow the discard",
    "cannot_claim": "you cannot {kind} this discard",
    "not_held": "you do not hold that tile",
    "cannot_discard": "you may not discard {tile} now",
    "bad_kong": "you cannot declare that kong",
    "must_discard": "you drew no tile: after a claim you must discard",
    "not_winning": "your hand is not a winning hand",
    "no_decision": "there is nothing for you to decide now",
    "must_decide": "answer the question before the hand first ({name})",
    "bad_choice": "{value!r} is not one of the choices",
    "unknown_action": "unknown action {action!r}",
    "bad_command": "malformed command: {field}",
}


@dataclass(frozen=True)
class Illegal:
    """A command the rules do not allow here; nothing changed. Falsy."""

    code: str
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.code not in CODES:
            raise ValueError(f"Illegal: unknown code {self.code!r} (add it to events.CODES)")

    @property
    def reason(self) -> str:
        """The English text (kept for the site until it translates codes)."""
        try:
            return CODES[self.code].format(**self.params)
        except (KeyError, IndexError):
            return CODES[self.code]

    def __bool__(self):
        return False


# --- one parser for every shape of a command ---------------------------------------------

MAX_TILE_TEXT = 4  # characters of one tile ("5p", " 5p ")
MAX_TILES = 14  # tiles in one command (a chow names two; more is refused by the rules, not here)


def _tile(text):
    if not isinstance(text, str) or len(text.strip()) > MAX_TILE_TEXT:
        return None
    try:
        return parse_tile(text.strip())
    except TileError:
        return None


def from_wire(message, seat: int | None = None):
    """A command from the socket's {"action": ...} or the log's {"kind": ..., "seat": ...}.

    `seat` is the sender's table position (the site's authenticated seat); when given, a
    "seat" in the message must agree with it. Without it the message must name its seat (the
    log). Returns an Action, or an Illegal with code unknown_action, bad_command (params
    {"field"}) or no_such_tile ({"tile"}). The seat's range and whether the tiles make sense
    are the rules' business (`game.apply`). Extra keys (the socket's "v", "h") are ignored."""
    if not isinstance(message, dict):
        return Illegal("bad_command", {"field": "message"})
    kind = message.get("action", message.get("kind"))
    if kind not in ACTION_KINDS:
        return Illegal("unknown_action", {"action": kind if isinstance(kind, (str, int, type(None))) else str(kind)})
    named = message.get("seat")
    if seat is None:
        seat = named
    elif named is not None and named != seat:
        return Illegal("bad_command", {"field": "seat"})
    if not isinstance(seat, int) or isinstance(seat, bool):
        return Illegal("bad_command", {"field": "seat"})
    tile = message.get("tile")
    if tile in (None, ""):
        tile = None
    else:
        face = _tile(tile)
        if face is None:
            return Illegal("no_such_tile", {"tile": str(tile)[:16]})
        tile = face
    raw = message.get("tiles")
    tiles = ()
    if raw not in (None, "", [], ()):
        if isinstance(raw, str):
            raw = raw.replace(",", " ").split()
        if not isinstance(raw, (list, tuple)) or len(raw) > MAX_TILES:
            return Illegal("bad_command", {"field": "tiles"})
        faces = []
        for t in raw:
            face = _tile(t)
            if face is None:
                return Illegal("no_such_tile", {"tile": str(t)[:16]})
            faces.append(face)
        tiles = tuple(sorted(faces))
    value = message.get("value")
    if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int))):
        return Illegal("bad_command", {"field": "value"})
    return Action(kind, seat, tile, tiles, value)


# --- events ------------------------------------------------------------------------------

E_DEAL, E_DRAW, E_DISCARD, E_CLAIM_WINDOW, E_CLAIM_ANSWER = (
    "deal", "draw", "discard", "claim_window", "claim_answer")
E_CHOW, E_PUNG, E_KONG, E_WIN, E_DRAWN_HAND, E_DECIDE, E_DECIDED = (
    "chow", "pung", "kong", "win", "drawn_hand", "decide", "decided")


@dataclass(frozen=True)
class EventType:
    """How an event type is seen.

    owner: the key holding the seat the event belongs to, if it is private; None = public.
    hidden: keys the other seats do not see (their public form is the event without them).
    others: whether the other seats see the public form at all (False: they see nothing).
    seat_list: a key holding a list of seats; each listed seat sees itself in it, nobody more
        (a claim window: who may claim is nobody else's business)."""

    name: str
    owner: str | None = None
    hidden: tuple = ()
    others: bool = True
    seat_list: str | None = None

    @property
    def public(self) -> bool:
        return self.owner is None and self.seat_list is None


EVENT_TYPES: dict = {}


def define_event(spec: EventType) -> EventType:
    """Register an event type (a variant's own events register here too)."""
    old = EVENT_TYPES.get(spec.name)
    if old is not None and old != spec:
        raise ValueError(f"event type {spec.name!r} is already defined differently")
    EVENT_TYPES[spec.name] = spec
    return spec


for _spec in (
    EventType(E_DEAL),  # {dealer, indicator, wild, wall}: the indicator lies face up
    EventType(E_DRAW, owner="seat", hidden=("tile",)),  # {seat, tile, replacement, wall}
    EventType(E_DISCARD),  # {seat, tile}
    EventType(E_CLAIM_WINDOW, seat_list="seats"),  # {seats}: who may claim the discard
    EventType(E_CLAIM_ANSWER, owner="seat", others=False),  # {seat, kind: pass|claim}
    EventType(E_CHOW),  # {seat, from, tile, meld}
    EventType(E_PUNG),
    EventType(E_KONG),  # {seat, kind: concealed|added, tile (None when concealed)} or a claim's
    EventType(E_WIN),  # {seat, tile, self_drawn, from, total, liable}
    EventType(E_DRAWN_HAND),  # {}
    EventType(E_DECIDE, owner="seat", others=False),  # {seat, name}: one answer before the hand
    EventType(E_DECIDED),  # {name, answers}: everyone's answers, once all are in
):
    define_event(_spec)


class UnknownEvent(ValueError):
    pass


def event_type(event) -> EventType:
    spec = EVENT_TYPES.get(event.get("type")) if isinstance(event, dict) else None
    if spec is None:
        raise UnknownEvent(f"unknown event {event!r:.80}")
    return spec


def audience(event):
    """None if the event is public; else the frozenset of seats that see it whole."""
    spec = event_type(event)
    if spec.public:
        return None
    if spec.owner is not None:
        return frozenset([event.get(spec.owner)])
    return frozenset(event.get(spec.seat_list) or ())


def is_public(event) -> bool:
    return event_type(event).public


def visible_to(event, seat: int | None):
    """What `seat` (None = a spectator) may see of `event`: the event itself, its redacted
    public form, or None. Never mutates the event."""
    spec = event_type(event)
    if spec.public:
        return event
    if spec.owner is not None:
        if seat is not None and event.get(spec.owner) == seat:
            return event
        if not spec.others:
            return None
        return {k: v for k, v in event.items() if k not in spec.hidden}
    out = dict(event)
    listed = event.get(spec.seat_list) or ()
    out[spec.seat_list] = [seat] if seat is not None and seat in listed else []
    return out


def redact(events, seat: int | None) -> list:
    """A list of events as `seat` may see them (events it may not see at all are left out)."""
    out = []
    for ev in events:
        v = visible_to(ev, seat)
        if v is not None:
            out.append(v)
    return out


# --- event constructors (the shapes, defined once) -----------------------------------------

def deal(dealer, indicator, wild, wall):
    return {"type": E_DEAL, "dealer": dealer, "indicator": None if indicator is None else face_name(indicator),
            "wild": None if wild is None else face_name(wild), "wall": wall}


def draw(seat, tile, replacement, wall):
    return {"type": E_DRAW, "seat": seat, "tile": face_name(tile), "replacement": replacement, "wall": wall}


def discard(seat, tile):
    return {"type": E_DISCARD, "seat": seat, "tile": face_name(tile)}


def claim_window(seats):
    return {"type": E_CLAIM_WINDOW, "seats": list(seats)}


def claim_answer(seat, passed: bool):
    return {"type": E_CLAIM_ANSWER, "seat": seat, "kind": "pass" if passed else "claim"}


def claimed(kind, seat, discarder, tile, meld):
    """A chow, pung or exposed kong on a discard."""
    return {"type": kind, "seat": seat, "from": discarder, "tile": face_name(tile), "meld": meld.notation()}


def self_kong(seat, concealed: bool, face):
    return {"type": E_KONG, "seat": seat, "kind": "concealed" if concealed else "added",
            "tile": None if concealed else face_name(face)}


def win(seat, tile, self_drawn, discarder, total, liable):
    return {"type": E_WIN, "seat": seat, "tile": face_name(tile), "self_drawn": self_drawn,
            "from": discarder, "total": total, "liable": liable}


def drawn_hand():
    return {"type": E_DRAWN_HAND}


def decide(seat, name):
    return {"type": E_DECIDE, "seat": seat, "name": name}


def decided(name, answers):
    return {"type": E_DECIDED, "name": name, "answers": {str(p): v for p, v in answers.items()}}
