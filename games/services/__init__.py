"""The only code that changes rooms, games and hands (shared/design/architecture.md).

The flow of one action: the room socket (games/consumers.py) parses a message once and calls
`handle(room_id, user, command)`; a Celery task calls `timeouts.timeout` or the sweeper. Each
change runs in ONE transaction that locks the room row first, then the hand row
(`handstate.lock_room_and_hand`), checks the version the player saw (`moves.is_stale`: answers
to a claim window are judged against that window), asks the pure engine, appends the action to
the HandEvent log, saves the hand with its next deadline (`schedule.timeout` after commit),
settles beans once when the hand ends (`finish`), bumps the room version and, after commit,
sends {"type": "room.updated", "version": n} to the room's group (`notify`). Each socket then
renders its own seat's view. Refusals are ServiceError(code, message) (`errors`).

Modules, by concern (lila's round module is the model):
  handstate  engine state at a version (committed-only process cache) and the lock order
  rooms      create / join / leave / remove / close / invite links
  dealing    准备, the first and next hands, the ready countdown, seeded walls
  moves      a player's move on a hand (MovePlayer) and 托管 claim answers
  finish     the end of a hand: result, beans, totals, next dealer (Finisher)
  timeouts   automatic moves when time runs out, the countdown, the beat sweeper, 托管 on/off
  bots       电脑: computer seats (add / remove / 练习), the bot's moves for them and for 托管
  phrases    快捷语: a fixed phrase or emoji to the table (no version bump; stored for the replay)
  rematch    再来一局: the same rules and seats in a new room, for those who accept
  escape     逃跑: leaving a game in progress where the rules have a penalty for it (Zhuji)
  dissolve   解散 by vote (absent seats agree when the window ends) or by staff
  safety     frozen accounts, same-IP and distance warnings
  notify     room version + group message after commit
  schedule   deferred Celery work, registered by games.tasks (no import cycle)
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from .bots import add_bot, remove_bot, set_hints, start_practice
from .dealing import check_next_hand, first_dealer, new_seed, set_ready
from .dissolve import DISSOLVE_WINDOW, end_dissolve_window, force_dissolve, vote_dissolve
from .errors import Outcome, ServiceError
from .escape import can_escape, escape
from .phrases import say
from .rematch import rematch
from .room_numbers import find_room as find_room_by_number
from .finish import next_hand_delay
from .handstate import current_hand, hand_state
from .moves import AUTO_PLAY_DELAY, is_stale, parse_command, play, play_current
from .rooms import (check_can_sit, close_room, create_room, join_room, leave_room, new_invite, remove_player,
                    revoke_invite, room_option_errors)
from .safety import (distance_m, is_frozen, record_presence, same_ip_groups, seat_distances, set_frozen,
                     set_location)
from .timeouts import set_auto_play, sweep_overdue, timeout

__all__ = [
    "AUTO_PLAY_DELAY", "DISSOLVE_WINDOW", "Outcome", "ServiceError",
    "add_bot", "can_escape", "check_can_sit", "check_next_hand", "escape", "close_room", "create_room", "current_hand", "distance_m",
    "end_dissolve_window", "find_room_by_number", "first_dealer", "force_dissolve", "hand_state", "handle", "is_frozen", "is_stale",
    "join_room", "leave_room", "new_invite", "new_seed", "next_hand_delay", "parse_command", "play", "play_current",
    "record_presence", "rematch", "remove_bot", "say", "set_hints", "start_practice", "remove_player", "revoke_invite", "room_option_errors", "same_ip_groups",
    "seat_distances", "set_auto_play", "set_frozen", "set_location", "set_ready", "sweep_overdue", "timeout",
    "vote_dissolve",
]

# Room actions a seated player may send (hand actions go to `play` with the hand and version).
ROOM_ACTIONS = {
    "ready": lambda user, room_id, c: set_ready(user, room_id, c.get("ready", True)),
    "leave": lambda user, room_id, c: leave_room(user, room_id),
    "remove": lambda user, room_id, c: remove_player(user, room_id, c["position"]),
    "close": lambda user, room_id, c: close_room(user, room_id),
    "new_invite": lambda user, room_id, c: new_invite(user, room_id),
    "revoke_invite": lambda user, room_id, c: revoke_invite(user, room_id),
    "dissolve": lambda user, room_id, c: vote_dissolve(user, room_id, c.get("agree", True)),
    "auto_on": lambda user, room_id, c: set_auto_play(user, room_id, True),
    "auto_off": lambda user, room_id, c: set_auto_play(user, room_id, False),
    "escape": lambda user, room_id, c: escape(user, room_id),
    "rematch": lambda user, room_id, c: rematch(user, room_id),
    "phrase": lambda user, room_id, c: say(user, room_id, c.get("phrase")),
    "add_bot": lambda user, room_id, c: add_bot(user, room_id, c.get("position")),
    "remove_bot": lambda user, room_id, c: remove_bot(user, room_id, c["position"]),
    "hints": lambda user, room_id, c: set_hints(user, room_id, c.get("on", True)),
    "location": lambda user, room_id, c: set_location(user, room_id, c["lat"], c["lon"]),
}


def handle(room_id: int, user, command: dict) -> Outcome:
    """The one entry point for a seated player's command (already parsed by the socket): a room
    action, or a hand action {"action", "tile"/"tiles", "v", "h"} for the hand `h` at version
    `v`. Every path locks the room row first. Returns an Outcome; refusals carry a code."""
    action = command.get("action")
    try:
        if action in ROOM_ACTIONS:
            ROOM_ACTIONS[action](user, room_id, command)
            return Outcome(True)
        move = {k: command[k] for k in ("action", "tile", "tiles", "value") if command.get(k) not in (None, "", [])}
        return play_current(room_id, user, move, command.get("v"), command.get("h"))
    except ServiceError as e:
        return Outcome(False, str(e), code=e.code)

