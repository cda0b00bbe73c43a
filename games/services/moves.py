"""Moves (lila's MovePlayer): a player's action on a hand, checked against the view they saw,
applied by the pure engine, appended to the log, the hand saved with its next deadline, the
room notified after commit. 托管 seats answer claim windows at once."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Profile
from games.engine import game as engine
from games import refusals
from games.engine import events
from games.hot_queries import Prepared, held_writes, insert, update_fields
from games.models import Hand, HandEvent, Room, Seat

from . import bots, finish, handstate, notify, schedule
from .errors import Outcome, ServiceError

log = logging.getLogger(__name__)

def parse_command(position: int, command: dict) -> engine.Action:
    """The command of a socket message for the seat at `position`, read by the engine's one
    parser (`events.from_wire`). Raises ServiceError with the refusal's code if it is malformed."""
    out = events.from_wire(command, position)
    if isinstance(out, events.Illegal):
        raise ServiceError(out.code, refusals.message(out))
    return out


def play(hand_id: int, user, command: dict, version, room_id: int | None = None) -> Outcome:
    """A player's action on a hand, checked against the version they saw (see `is_stale`).
    room_id: the room the hand is in when the caller knows it (the socket does); else read."""
    try:
        _check_version(version)
        if room_id is None:
            room_id = Hand.objects.filter(pk=hand_id).values_list("game__room_id", flat=True).first()
            if room_id is None:
                return Outcome(False, _("没有这一局"), code="no_hand")
        with transaction.atomic():
            room, hand = handstate.lock_room_and_hand(room_id, hand_id)
            return _play_locked(room, hand, user, command, version)
    except ServiceError as e:
        return Outcome(False, str(e), code=e.code)
    except Hand.DoesNotExist:
        return Outcome(False, _("没有这一局"), code="no_hand")


def play_current(room_id: int, user, command: dict, version, expected_hand: int | None = None) -> Outcome:
    """`play` on the room's hand in play (the socket's path): the hand is found and locked in the
    same statement as the room's lock order asks, after the room row. expected_hand: the hand
    the player's view showed (a view of an earlier hand is stale)."""
    try:
        _check_version(version)
        with transaction.atomic(), held_writes():  # the move's writes: one statement (hot_queries)
            room, hand = handstate.lock_room_and_current_hand(room_id)
            if hand is None or expected_hand is not None and expected_hand != hand.pk:
                late = _answer_to_an_ended_hand(room, expected_hand, user, command, version)
                if late is not None:
                    return late
                if hand is None:
                    raise ServiceError("no_hand", _("现在没有进行中的牌局"))
                raise ServiceError("stale", _("牌局已更新，请按最新画面操作"))
            return _play_locked(room, hand, user, command, version)
    except ServiceError as e:
        return Outcome(False, str(e), code=e.code)


def _answer_to_an_ended_hand(room: Room, hand_id, user, command: dict, version) -> Outcome | None:
    """The player's view showed a hand no longer in play (`hand_id`): an answer to the claim
    window that ended it is told as a late answer. None when it is not one."""
    if not isinstance(hand_id, int) or isinstance(hand_id, bool):
        return None
    hand = Hand.objects.filter(pk=hand_id, game__room_id=room.pk, status=Hand.ENDED).first()
    seat = room.seats.filter(user_id=user.pk).first()
    if hand is None or seat is None:
        return None
    return _late_answer_to_the_end(hand, seat.position, command, version)


def _late_answer_to_the_end(hand: Hand, position: int, command: dict, version) -> Outcome | None:
    """Two seats answer one discard at once and the first answer, a win nobody outranks, ends the
    hand before the second is read: that second answer is told as any late answer is (a pass is
    moot, a claim was outranked), not that the hand is over. None for anything else (the
    caller's refusal stands)."""
    out = _late_answer(hand, parse_command(position, command), version)
    return None if out.code == "stale" else out


def _check_version(version):
    if isinstance(version, bool) or not isinstance(version, int):
        raise ServiceError("stale", _("牌局已更新，请按最新画面操作"))


def _play_locked(room: Room, hand: Hand, user, command: dict, version) -> Outcome:
    """The move itself, under the room's and the hand's locks. The room's seats are read once
    (with each player's frozen flag) and passed on to what follows the move."""
    seats = room_seats(room)
    seat = next((s for s in seats if s.user_id == user.pk), None)
    if seat is None:
        raise ServiceError("not_seated", _("你不在这张牌桌"))
    if seat.frozen_user:
        raise ServiceError("frozen", _("你的账号已被冻结，由系统托管出牌"))
    if seat.escaped:
        raise ServiceError("already_left", _("你已经离开了这场牌局，由系统托管到结束"))
    if hand.status != Hand.PLAYING:
        late = _late_answer_to_the_end(hand, seat.position, command, version) if hand.status == Hand.ENDED else None
        if late is not None:
            return late
        raise ServiceError("hand_over", _("这一局已经结束"))
    action = parse_command(seat.position, command)
    state = handstate.hand_state(hand)
    if is_stale(state, hand.version, version):
        return _late_answer(hand, action, version)
    out = engine.apply(state, action)
    if isinstance(out, engine.Illegal):
        raise ServiceError(out.code, _("不能这样做：%(reason)s") % {"reason": refusals.message(out)})
    new_state, events = out
    append(hand, action, events, auto=False)
    if seat.timeouts:
        seat.timeouts = 0
        seat.save(update_fields=["timeouts"])
    auto = auto_seats(room, seats)
    new_state = auto_answer_claims(hand, new_state, room, auto)
    after_change(room, hand, new_state, auto, hand_move=True)
    return Outcome(True, version=hand.version)


# The frozen flag straight from the player's profile (a bot's seat: NULL), not through a join of
# auth_user: PostgreSQL's generic plan for a statement prepared on the connection may hash that
# join over a scan of every user (0.2 ms per move with a thousand users, more with more).
_SEATS = Prepared(lambda room_id: Seat.objects.filter(room_id=room_id).annotate(frozen_user=Subquery(
    Profile.objects.filter(user_id=OuterRef("user_id")).values("frozen")[:1])))


def room_seats(room: Room) -> list:
    """The room's seats, each with its player's frozen flag as `frozen_user` (one statement,
    compiled once: games/hot_queries.py)."""
    seats = _SEATS.all(room.pk)
    for seat in seats:
        seat.room = room  # as room.seats gives them: no query for seat.room
    return seats


def auto_seats(room: Room, seats: list | None = None) -> dict:
    """{position: bot?} of the seats on 托管 or played by the computer."""
    if seats is None:
        return dict(room.seats.filter(auto_play=True).values_list("position", "bot"))
    return {s.position: s.bot for s in seats if s.auto_play}


def is_stale(state, current: int, seen: int) -> bool:
    """Was the player's view (hand version `seen`) overtaken? On one's turn the view must be the
    current one. Answers to a claim window are judged against that window: every version since
    the discard that opened it shows the same question, so another player's answer in the
    meantime does not make yours stale (the engine refuses a second answer by the same seat).
    Answers to a question before the hand (顶底) are judged the same way."""
    if seen == current:
        return False
    if state.phase == engine.DECIDE:
        # several seats answer one question (顶底) at once: every answer given so far moved the
        # version on, and each since the question opened shows the same question
        opened = current - sum(a is not None for a in state.answers)
        return not opened <= seen <= current
    return not (state.phase == engine.CLAIM and state.claim_opened <= seen <= current)


def _late_answer(hand: Hand, action: engine.Action, seen: int) -> Outcome:
    """An action for a view that was overtaken. If it answered a claim window that has closed
    meanwhile, say why: a pass is moot (nothing to do, no error); a claim lost to a claim of
    higher priority, or the player's time ran out. Anything else is simply stale."""
    stale = Outcome(False, _("牌局已更新，请按最新画面操作"), code="stale")
    if not 0 <= seen < hand.version or not _answers_a_window(action.kind):
        return stale
    rows = list(hand.events.filter(seq__lte=hand.version).order_by("seq").values_list("action", "auto"))
    options = engine.Options.from_dict(hand.options)
    out = engine.replay(options, hand.seed, hand.dealer, [engine.Action.from_dict(a) for a, _auto in rows[:seen]],
                        hand.carry or None)
    if isinstance(out, engine.Illegal):
        return stale
    then, p = out[0], action.seat
    if not (then.phase == engine.CLAIM and then.claim_options[p] and then.claim_responses[p] is None):
        return stale  # not a claim window this player was asked about
    if action.kind == engine.A_PASS:
        return Outcome(True, version=hand.version)  # the window closed without them: passing is moot
    answers = _window_answers(rows[seen:], then.n)
    if any(not auto and a.get("seat") == p for a, auto in answers):
        # their own answer was taken (a second click, a resent message): it is not outranked
        return Outcome(False, _("你已经选择过了"), code="already_answered")
    timed_out = any(auto and a.get("seat") == p for a, auto in answers)
    if timed_out:
        return Outcome(False, _("吃碰时间已过，已替你选择“过”"), code="claim_timed_out")
    return Outcome(False, _("这张牌已被其他玩家按优先级吃碰杠胡了"), code="claim_outranked")


def _answers_a_window(kind) -> bool:
    """Is an action of this kind an answer to a claim window (a claim or 过)?"""
    return kind in engine.CLAIM_RANK or kind == engine.A_PASS


def _window_answers(rows, n: int) -> list:
    """The (action, auto) log rows, from the first of `rows`, that answer one claim window: passes
    and claims, one a seat, up to the first row of anything else (a discard follows every window
    that does not end the hand)."""
    out, seats = [], set()
    for a, auto in rows[:n]:
        if not _answers_a_window(a.get("kind")) or a.get("seat") in seats:
            break
        seats.add(a.get("seat"))
        out.append((a, auto))
    return out


def append(hand: Hand, action: engine.Action, events, auto: bool):
    hand.version += 1
    # by its key, not hand=hand: hand.appended holds the row, and the pair would be a reference cycle
    row = HandEvent(hand_id=hand.pk, seq=hand.version, action=action.to_dict(), events=events, auto=auto)
    insert(row)
    hand.__dict__.setdefault("appended", []).append(row)  # this transaction's rows (handstate.remember_move)


def auto_answer_claims(hand, state, room, auto: dict | None = None):
    """托管 and computer seats pass a claim window at once when the bot (games/engine/bot.py)
    would pass, and a 托管 seat answers a question before the hand (买底/顶底, 包) with its
    default. A claim, a win or a bot's own choice is left for after the pause (the timeout task,
    `after_change`'s deadline): never in the same transaction as the move before it."""
    if state.phase not in (engine.CLAIM, engine.DECIDE):
        return state
    kinds = auto_seats(room) if auto is None else auto
    while state.phase in (engine.CLAIM, engine.DECIDE):
        pending = [p for p in engine.waiting_player(state) if p in kinds]
        action = None
        for p in pending:
            action = bots.quick_answer(state, p, kinds[p])
            if action is not None:
                break
        if action is None:
            break
        out = engine.apply(state, action)
        if isinstance(out, engine.Illegal):  # cannot happen: auto_action is legal by construction
            log.error("auto action refused: %s", out.reason)
            break
        state, events = out
        append(hand, action, events, auto=True)
    return state


def after_change(room: Room, hand: Hand, state, auto: dict | None = None, hand_move: bool = False):
    """Save the hand at its new version, set the next deadline, finish the hand if it ended.
    auto: `auto_seats` when the caller has read the seats in this transaction. hand_move: the
    caller changed nothing but the hand (a player's move, not a timeout's 托管 or 超时 count):
    announced as such while the hand goes on (notify.bump)."""
    now = timezone.now()
    handstate.remember(hand.pk, hand.version, state)
    if state.phase == engine.ENDED:
        finish.finish_hand(room, hand, state, now)
    else:
        waiting = engine.waiting_player(state)
        auto = set(auto_seats(room) if auto is None else auto)
        if waiting and all(p in auto for p in waiting):
            hand.deadline = now + auto_play_delay()
        elif state.phase == engine.CLAIM:
            if not (_window_was_open(hand, state) and hand.deadline is not None):
                hand.deadline = now + timedelta(seconds=room.claim_seconds)
            # else an answer within a window that an earlier change opened: its countdown goes on
            # (restarted, it jumped back up for the players still deciding at every pass)
        else:
            hand.deadline = now + timedelta(seconds=room.turn_seconds)
        update_fields(hand, ("version", "deadline"))  # what a move changes on the row (hand.save, prepared)
        if hand.deadline - now <= timedelta(seconds=timeout_task_seconds()):
            hand_id, version, eta = hand.pk, hand.version, hand.deadline
            transaction.on_commit(lambda: schedule.timeout(hand_id, version, eta))
        # else: beat's sweeper acts on it once overdue (settings.TIMEOUT_TASK_SECONDS)
    moved = hand_move and state.phase != engine.ENDED
    notify.bump(room, hand_move=hand.pk if moved else None)
    if moved:  # this process's sockets render the new version from what was written, not read back
        handstate.remember_move(room.pk, room.version, hand)


def _window_was_open(hand: Hand, state) -> bool:
    """Was the claim window of `state` already open, its deadline set, before this transaction's
    changes (hand.appended: the log rows it wrote)? Versions count the same steps as the engine."""
    appended = hand.__dict__.get("appended") or []
    before = appended[0].seq - 1 if appended else hand.version
    return before >= state.claim_opened


def timeout_task_seconds() -> float:
    """Deadlines at most this far away get a Celery task of their own; the sweeper catches the rest."""
    from django.conf import settings

    return float(getattr(settings, "TIMEOUT_TASK_SECONDS", 3.0))


AUTO_PLAY_DELAY = timedelta(seconds=1)  # a 托管 or computer seat moves after this pause (BOT_DELAY_SECONDS)


def auto_play_delay() -> timedelta:
    """The pause before a 托管 or computer seat moves: settings.BOT_DELAY_SECONDS (default 1 s, a
    human-looking pause; 0 in tests that let the bots play at once)."""
    from django.conf import settings

    seconds = getattr(settings, "BOT_DELAY_SECONDS", None)
    return AUTO_PLAY_DELAY if seconds is None else timedelta(seconds=float(seconds))


