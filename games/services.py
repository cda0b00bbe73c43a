"""The only code that changes rooms, games and hands.

Every change: one transaction, the room (or hand) row locked, the version checked, the pure
engine asked, the accepted action appended to HandEvent, the row saved, and after commit a
`{"type": "room.updated", "version": n}` sent to the room's group. Consumers, views and Celery
tasks all come through here; each consumer then renders its own seat's view.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
from dataclasses import dataclass
from datetime import timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import beans
from games.engine import game as engine
from games.engine.tiles import TileError
from games.engine.view import result_view

from . import fairness, presence
from .models import Alert, Game, Hand, HandEvent, Room, Seat

log = logging.getLogger(__name__)

AUTO_PLAY_DELAY = timedelta(seconds=1)  # a 托管 seat moves after this pause
DISSOLVE_WINDOW = timedelta(seconds=60)


def next_hand_delay() -> timedelta:
    """The ready countdown on the result screen: the next hand starts when it runs out."""
    return timedelta(seconds=getattr(settings, "NEXT_HAND_SECONDS", 15))
HAND_LENGTHS = (4, 8, 16)
ROUND_LENGTHS = (1, 2)


class ServiceError(Exception):
    """A request the rules or the room do not allow; the message is for the player."""


@dataclass(frozen=True)
class Outcome:
    ok: bool
    error: str = ""
    version: int = 0


# --- randomness (seeded walls; a fixed base makes e2e tests deterministic) ---------------

def new_seed(room_id: int, number: int) -> int:
    base = getattr(settings, "GAME_SEED_BASE", "")
    if base:
        digest = hashlib.sha256(f"{base}:{room_id}:{number}".encode()).digest()
        return int.from_bytes(digest[:7], "big")
    return secrets.randbits(56)


def first_dealer(room: Room) -> int:
    if getattr(settings, "GAME_SEED_BASE", ""):
        return 0
    return secrets.randbelow(room.players)  # 掷骰定庄


# --- notification ------------------------------------------------------------------------

def _bump(room: Room):
    room.version += 1
    Room.objects.filter(pk=room.pk).update(version=room.version)
    version = room.version
    group = room.group_name
    transaction.on_commit(lambda: _send(group, version))


def _send(group, version):
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": "room.updated", "version": version})
    except Exception:  # the state is saved; clients catch up on their next (re)connect
        log.exception("could not notify %s", group)


# --- state of a hand ---------------------------------------------------------------------

# The process cache holds only COMMITTED states: every write to it runs after the transaction
# that produced or read the state commits (transaction.on_commit; immediately outside one). A
# transaction that fails leaves nothing behind, so a version number always names one state.
_cache: dict = {}  # hand id -> (version, state)
_cache_lock = threading.Lock()


def hand_state(hand: Hand):
    """The engine state at hand.version: from the process cache, the cache plus the newer
    committed actions, or replayed from the log."""
    with _cache_lock:
        hit = _cache.get(hand.pk)
    if hit and hit[0] == hand.version:
        return hit[1]
    state = None
    if hit and hit[0] < hand.version:  # another process moved on: apply only the new actions
        state = _catch_up(hand, *hit)
    if state is None:
        state = _replay_log(hand)
    _remember(hand.pk, hand.version, state)
    return state


def _catch_up(hand: Hand, version: int, state):
    rows = list(hand.events.filter(seq__gt=version, seq__lte=hand.version).order_by("seq"))
    if [e.seq for e in rows] != list(range(version + 1, hand.version + 1)):
        return None
    for e in rows:
        out = engine.apply(state, engine.Action.from_dict(e.action))
        if isinstance(out, engine.Illegal):
            return None  # replay the whole log, which reports the problem
        state = out[0]
    return state


def _replay_log(hand: Hand):
    options = engine.Options.from_dict(hand.options)
    actions = [engine.Action.from_dict(e.action) for e in hand.events.filter(seq__lte=hand.version).order_by("seq")]
    out = engine.replay(options, hand.seed, hand.dealer, actions)
    if isinstance(out, engine.Illegal):
        raise RuntimeError(f"hand {hand.pk}: stored actions no longer replay: {out.reason}")
    state = out[0]
    if state.step != hand.version:
        raise RuntimeError(f"hand {hand.pk}: replayed {state.step} actions, version is {hand.version}")
    return state


def _remember(hand_id, version, state):
    """Cache the state once the transaction commits (at once outside a transaction)."""
    transaction.on_commit(lambda: _put(hand_id, version, state))


def _put(hand_id, version, state):
    with _cache_lock:
        old = _cache.get(hand_id)
        if old and old[0] > version:
            return  # a later committed state is already here
        if len(_cache) > 2000:
            _cache.clear()
        _cache[hand_id] = (version, state)


def current_hand(room: Room):
    game = getattr(room, "game", None) if room.pk else None
    if game is None:
        try:
            game = Game.objects.get(room=room)
        except Game.DoesNotExist:
            return None
    return game.hands.order_by("-number").first()


# --- rooms -------------------------------------------------------------------------------

def check_can_sit(user, min_balance: int = 0):
    """A frozen account, a player at the day's bean limit, or below the room's minimum, cannot sit down."""
    if is_frozen(user):
        raise ServiceError(_("你的账号已被冻结，不能入座；请联系客服"))
    if beans.day_limit_reached(user):
        raise ServiceError(_("你今天的金豆输赢已达到每日上限，明天再来吧（进行中的对局可以打完）"))
    balance = beans.wallet_for(user).balance
    if balance < min_balance:
        raise ServiceError(_("这个房间要求至少 %(need)s 金豆才能入座，你现在有 %(have)s") % {"need": min_balance, "have": balance})


def create_room(user, *, variant="taizhou", players=4, length_kind=Room.HANDS, length=8, stake=100,
                turn_seconds=15, claim_seconds=8, min_balance=0) -> Room:
    if variant != "taizhou":
        raise ServiceError(_("暂不支持这个玩法"))
    if players not in (2, 3, 4):
        raise ServiceError(_("人数只能是 2、3 或 4"))
    if (length_kind, length) not in [(Room.HANDS, n) for n in HAND_LENGTHS] + [(Room.ROUNDS, n) for n in ROUND_LENGTHS]:
        raise ServiceError(_("局数只能是 4/8/16 局或 1/2 圈"))
    if not 1 <= stake <= 1_000_000:
        raise ServiceError(_("底注应在 1 到 1,000,000 金豆之间"))
    if not 5 <= turn_seconds <= 120 or not 3 <= claim_seconds <= 60:
        raise ServiceError(_("出牌时间 5–120 秒，吃碰时间 3–60 秒"))
    if not isinstance(min_balance, int) or min_balance < 0:
        raise ServiceError(_("入座最低金豆不能是负数"))
    check_can_sit(user, min_balance)
    with transaction.atomic():
        room = Room.objects.create(host=user, variant=variant, players=players, length_kind=length_kind,
                                   length=length, stake=stake, turn_seconds=turn_seconds,
                                   claim_seconds=claim_seconds, min_balance=min_balance)
        Seat.objects.create(room=room, user=user, position=0)
    return room


def _locked_room(room_id) -> Room:
    return Room.objects.select_for_update(of=("self",)).get(pk=room_id)


def join_room(user, token: str) -> Seat:
    """Sit down at the next free position of the room this invite token opens."""
    if not isinstance(token, str) or not token:
        raise ServiceError(_("邀请链接无效"))
    with transaction.atomic():
        room = Room.objects.select_for_update().filter(token=token, invite_revoked=False).first()
        if room is None:
            raise ServiceError(_("邀请链接无效或已被房主收回"))
        seat = room.seats.filter(user=user).first()
        if seat:
            return seat
        if room.status != Room.WAITING:
            raise ServiceError(_("这局已经开始或结束，不能再加入"))
        check_can_sit(user, room.min_balance)
        taken = set(room.seats.values_list("position", flat=True))
        free = [p for p in range(room.players) if p not in taken]
        if not free:
            raise ServiceError(_("房间已满"))
        try:
            with transaction.atomic():
                seat = Seat.objects.create(room=room, user=user, position=free[0])
        except IntegrityError:
            raise ServiceError(_("房间已满")) from None
        _bump(room)
        return seat


def leave_room(user, room_id: int):
    with transaction.atomic():
        room = _locked_room(room_id)
        if room.status != Room.WAITING:
            raise ServiceError(_("对局已开始，不能离开；可以申请解散"))
        seat = room.seats.filter(user=user).first()
        if seat is None:
            raise ServiceError(_("你不在这个房间"))
        if room.host_id == user.pk:
            room.status = Room.DISSOLVED  # the host leaving closes the room
            room.save(update_fields=["status"])
        seat.delete()
        _bump(room)


def remove_player(host, room_id: int, position: int):
    with transaction.atomic():
        room = _locked_room(room_id)
        if room.host_id != host.pk:
            raise ServiceError(_("只有房主可以请人离开"))
        if room.status != Room.WAITING:
            raise ServiceError(_("对局已开始，不能请人离开"))
        seat = room.seats.filter(position=position).exclude(user=host).first()
        if seat is None:
            raise ServiceError(_("这个座位没有其他玩家"))
        seat.delete()
        _bump(room)


def close_room(host, room_id: int):
    """解散 before the start: the host closes the room."""
    with transaction.atomic():
        room = _locked_room(room_id)
        if room.host_id != host.pk:
            raise ServiceError(_("只有房主可以解散房间"))
        if room.status != Room.WAITING:
            raise ServiceError(_("对局已开始：请所有玩家同意解散"))
        room.status = Room.DISSOLVED
        room.save(update_fields=["status"])
        _bump(room)


def new_invite(host, room_id: int) -> Room:
    """Revoke the current invite link and make a new one."""
    with transaction.atomic():
        room = _locked_room(room_id)
        if room.host_id != host.pk:
            raise ServiceError(_("只有房主可以更换邀请链接"))
        room.token = secrets.token_urlsafe(18)
        room.invite_revoked = False
        room.save(update_fields=["token", "invite_revoked"])
        _bump(room)
        return room


def revoke_invite(host, room_id: int):
    with transaction.atomic():
        room = _locked_room(room_id)
        if room.host_id != host.pk:
            raise ServiceError(_("只有房主可以收回邀请链接"))
        room.invite_revoked = True
        room.save(update_fields=["invite_revoked"])
        _bump(room)


def set_ready(user, room_id: int, ready: bool = True):
    """Press Ready. The first hand starts when every seat is filled and ready; a later hand when
    every present player is ready (托管 and offline seats are ready by themselves) or when the
    ready countdown on the result screen runs out."""
    with transaction.atomic():
        room = _locked_room(room_id)
        seat = room.seats.filter(user=user).first()
        if seat is None:
            raise ServiceError(_("你不在这个房间"))
        if room.status in (Room.FINISHED, Room.DISSOLVED):
            raise ServiceError(_("这个房间已经结束"))
        hand = current_hand(room)
        if hand is not None and hand.status == Hand.PLAYING:
            raise ServiceError(_("这一局还在进行"))
        seat.ready = ready
        seat.save(update_fields=["ready"])
        _start_if_ready(room, hand)
        _bump(room)


def _start_if_ready(room: Room, hand) -> bool:
    """Start the first or next hand if everyone who has to be is ready (room row locked)."""
    seats = list(room.seats.all())
    if len(seats) != room.players or room.status in (Room.FINISHED, Room.DISSOLVED):
        return False
    if hand is not None and hand.status == Hand.PLAYING:
        return False
    ready = all(s.ready for s in seats)  # the first hand: everyone presses 准备
    if not ready and hand is not None:
        # later hands: the present players decide (托管 and offline seats are ready by
        # themselves); with nobody present the countdown does
        online = presence.online_positions(room.pk)
        present = [s for s in seats if s.position in online and not s.auto_play]
        ready = bool(present) and all(s.ready for s in present)
    if ready:
        _start_next_hand(room, seats)
    return ready


def check_next_hand(room_id: int) -> bool:
    """Someone left or went on 托管 on the result screen: start the next hand if the others are ready."""
    with transaction.atomic():
        room = _locked_room(room_id)
        started = _start_if_ready(room, current_hand(room))
        if started:
            _bump(room)
        return started


def _start_next_hand(room: Room, seats):
    game = Game.objects.filter(room=room).first()
    if game is None:
        dealer = first_dealer(room)
        game = Game.objects.create(room=room, first_dealer=dealer, dealer=dealer, totals=[0] * room.players)
        room.status = Room.PLAYING
        room.save(update_fields=["status"])
    number = game.hands_played + 1
    Hand.objects.filter(game=game, status=Hand.ENDED, deadline__isnull=False).update(deadline=None)
    options = engine.Options(variant=room.variant, players=room.players)
    hand = Hand.objects.create(game=game, number=number, seed=new_seed(room.pk, number), salt=fairness.new_salt(),
                               dealer=game.dealer, options=options.to_dict())
    Seat.objects.filter(room=room).update(ready=False)
    state, _events = engine.new_hand(options, hand.seed, hand.dealer)
    _remember(hand.pk, 0, state)
    _after_change(room, hand, state)
    return hand


# --- playing -----------------------------------------------------------------------------

def parse_command(position: int, command: dict) -> engine.Action:
    """A socket message -> engine Action. Raises ServiceError on malformed input."""
    if not isinstance(command, dict):
        raise ServiceError(_("消息格式不对"))
    kind = command.get("action")
    data = {"kind": kind, "seat": position}
    if command.get("tile") not in (None, ""):
        data["tile"] = command["tile"]
    tiles = command.get("tiles")
    if tiles:
        if isinstance(tiles, str):
            tiles = tiles.replace(",", " ").split()
        if not isinstance(tiles, list) or not all(isinstance(t, str) for t in tiles):
            raise ServiceError(_("消息格式不对"))
        data["tiles"] = tiles
    try:
        return engine.Action.from_dict(data)
    except (ValueError, TileError) as e:
        raise ServiceError(_("无效的操作：%(reason)s") % {"reason": e}) from None


def play(hand_id: int, user, command: dict, version) -> Outcome:
    """A player's action on a hand, checked against the version they saw (see `is_stale`)."""
    try:
        if isinstance(version, bool) or not isinstance(version, int):
            raise ServiceError(_("牌局已更新，请按最新画面操作"))
        room_id = Hand.objects.filter(pk=hand_id).values_list("game__room_id", flat=True).first()
        if room_id is None:
            return Outcome(False, _("没有这一局"))
        with transaction.atomic():
            room, hand = _lock_room_and_hand(room_id, hand_id)
            seat = room.seats.filter(user=user).first()
            if seat is None:
                raise ServiceError(_("你不在这张牌桌"))
            if is_frozen(user):
                raise ServiceError(_("你的账号已被冻结，由系统托管出牌"))
            if hand.status != Hand.PLAYING:
                raise ServiceError(_("这一局已经结束"))
            action = parse_command(seat.position, command)
            state = hand_state(hand)
            if is_stale(state, hand.version, version):
                return _late_answer(hand, action, version)
            out = engine.apply(state, action)
            if isinstance(out, engine.Illegal):
                raise ServiceError(_("不能这样做：%(reason)s") % {"reason": out.reason})
            new_state, events = out
            _append(hand, action, events, auto=False)
            if seat.timeouts:
                seat.timeouts = 0
                seat.save(update_fields=["timeouts"])
            new_state = _auto_answer_claims(hand, new_state, room)
            _after_change(room, hand, new_state)
            return Outcome(True, version=hand.version)
    except ServiceError as e:
        return Outcome(False, str(e))


def is_stale(state, current: int, seen: int) -> bool:
    """Was the player's view (hand version `seen`) overtaken? On one's turn the view must be the
    current one. Answers to a claim window are judged against that window: every version since
    the discard that opened it shows the same question, so another player's answer in the
    meantime does not make yours stale (the engine refuses a second answer by the same seat)."""
    if seen == current:
        return False
    return not (state.phase == engine.CLAIM and state.claim_opened <= seen <= current)


def _late_answer(hand: Hand, action: engine.Action, seen: int) -> Outcome:
    """An action for a view that was overtaken. If it answered a claim window that has closed
    meanwhile, say why: a pass is moot (nothing to do, no error); a claim lost to a claim of
    higher priority, or the player's time ran out. Anything else is simply stale."""
    stale = Outcome(False, _("牌局已更新，请按最新画面操作"))
    if not 0 <= seen < hand.version or action.kind not in engine.CLAIM_RANK and action.kind != engine.A_PASS:
        return stale
    rows = list(hand.events.filter(seq__lte=hand.version).order_by("seq").values_list("action", "auto"))
    options = engine.Options.from_dict(hand.options)
    out = engine.replay(options, hand.seed, hand.dealer, [engine.Action.from_dict(a) for a, _auto in rows[:seen]])
    if isinstance(out, engine.Illegal):
        return stale
    then, p = out[0], action.seat
    if not (then.phase == engine.CLAIM and then.claim_options[p] and then.claim_responses[p] is None):
        return stale  # not a claim window this player was asked about
    if action.kind == engine.A_PASS:
        return Outcome(True, version=hand.version)  # the window closed without them: passing is moot
    timed_out = any(auto and a.get("seat") == p for a, auto in rows[seen:seen + then.n])
    if timed_out:
        return Outcome(False, _("吃碰时间已过，已替你选择“过”"))
    return Outcome(False, _("这张牌已被其他玩家按优先级吃碰杠胡了"))


def _lock_room_and_hand(room_id: int, hand_id: int):
    """Every change of a room takes its locks in one order: the room row, then the hand row
    (`of=("self",)`: select_related must not lock the joined rows out of order)."""
    room = _locked_room(room_id)
    hand = Hand.objects.select_for_update(of=("self",)).select_related("game").get(pk=hand_id)
    hand.game.room = room
    return room, hand


def _append(hand: Hand, action: engine.Action, events, auto: bool):
    hand.version += 1
    HandEvent.objects.create(hand=hand, seq=hand.version, action=action.to_dict(), events=events, auto=auto)


def _auto_answer_claims(hand, state, room):
    """托管 seats answer a claim window at once (take a win, otherwise pass)."""
    auto = set(room.seats.filter(auto_play=True).values_list("position", flat=True))
    while state.phase == engine.CLAIM:
        pending = [p for p in engine.waiting_player(state) if p in auto]
        if not pending:
            break
        action = engine.auto_action(state, pending[0])
        out = engine.apply(state, action)
        if isinstance(out, engine.Illegal):  # cannot happen: auto_action is legal by construction
            log.error("auto action refused: %s", out.reason)
            break
        state, events = out
        _append(hand, action, events, auto=True)
    return state


def _after_change(room: Room, hand: Hand, state):
    """Save the hand at its new version, set the next deadline, finish the hand if it ended."""
    now = timezone.now()
    _remember(hand.pk, hand.version, state)
    if state.phase == engine.ENDED:
        _finish_hand(room, hand, state, now)
    else:
        waiting = engine.waiting_player(state)
        auto = set(room.seats.filter(auto_play=True).values_list("position", flat=True))
        if waiting and all(p in auto for p in waiting):
            hand.deadline = now + AUTO_PLAY_DELAY
        elif state.phase == engine.CLAIM:
            hand.deadline = now + timedelta(seconds=room.claim_seconds)
        else:
            hand.deadline = now + timedelta(seconds=room.turn_seconds)
        hand.save()
        hand_id, version, eta = hand.pk, hand.version, hand.deadline
        transaction.on_commit(lambda: _schedule_timeout(hand_id, version, eta))
    _bump(room)


def _schedule_timeout(hand_id, version, eta):
    from .tasks import turn_timeout

    try:
        turn_timeout.apply_async((hand_id, version), eta=eta)
    except Exception:  # the beat sweeper catches overdue hands whose task was lost
        log.warning("could not schedule the timeout of hand %s v%s", hand_id, version, exc_info=True)


def _schedule_replay(hand_id):
    from .tasks import build_replay

    try:
        build_replay.delay(hand_id)
    except Exception:  # rebuilt on demand by the replay page when the task was lost
        log.warning("could not schedule the replay of hand %s", hand_id, exc_info=True)


def _finish_hand(room, hand, state, now):
    game = hand.game
    hand.status = Hand.ENDED
    hand.deadline = None
    hand.ended_at = now
    hand.result = result_view(state, "zh")
    if state.result.winner is not None:
        users = {s.position: s.user for s in room.seats.select_related("user")}
        order = [(hand.dealer + k) % room.players for k in range(room.players)]
        settlement = beans.settle_hand(hand, state.result.transfers, users, room.stake, order)
        hand.result["beans"] = {"stake": settlement.stake, "owed": settlement.owed, "paid": settlement.paid,
                                "reasons": settlement.reasons}
    hand.save()
    hand_id = hand.pk
    transaction.on_commit(lambda: _schedule_replay(hand_id))
    game.totals = [a + b for a, b in zip(game.totals, state.result.net)]
    game.hands_played += 1
    nxt = engine.next_dealer(state)
    if nxt != game.dealer:
        game.dealer_passes += 1
    game.dealer = nxt
    if game.is_over():
        game.finished_at = now
        room.status = Room.FINISHED
        room.save(update_fields=["status"])
    else:
        # the ready countdown: the next hand starts by itself when it runs out
        hand.deadline = now + next_hand_delay()
        hand.save(update_fields=["deadline"])
        hand_id, version, eta = hand.pk, hand.version, hand.deadline
        transaction.on_commit(lambda: _schedule_timeout(hand_id, version, eta))
    game.save()
    Seat.objects.filter(room=room).update(ready=False)


def timeout(hand_id: int, version: int, now=None) -> Outcome:
    """Time ran out for whoever the hand waits on at `version`: make their automatic moves; or,
    for a finished hand, the ready countdown ran out: deal the next hand. Acts only if the hand is
    still at that version and its deadline has passed; a stale task takes no lock at all."""
    now = now or timezone.now()
    row = Hand.objects.filter(pk=hand_id).values("status", "version", "deadline", "game__room_id").first()
    if row is None:
        return Outcome(False, "no such hand")
    if row["version"] != version or row["status"] not in (Hand.PLAYING, Hand.ENDED):
        return Outcome(False, "stale", row["version"])
    if row["deadline"] is None or row["deadline"] > now:
        return Outcome(False, "not yet", row["version"])
    with transaction.atomic():
        room, hand = _lock_room_and_hand(row["game__room_id"], hand_id)
        if hand.version != version or hand.status not in (Hand.PLAYING, Hand.ENDED):
            return Outcome(False, "stale", hand.version)
        if hand.deadline is None or hand.deadline > now:
            return Outcome(False, "not yet", hand.version)
        if hand.status == Hand.ENDED:
            return _countdown_over(room, hand)
        state = hand_state(hand)
        seats = {s.position: s for s in room.seats.all()}
        for p in engine.waiting_player(state):
            if p not in engine.waiting_player(state):
                continue  # the claim window closed meanwhile
            action = engine.auto_action(state, p)
            out = engine.apply(state, action)
            if isinstance(out, engine.Illegal):
                log.error("timeout action refused: %s", out.reason)
                continue
            state, events = out
            _append(hand, action, events, auto=True)
            seat = seats.get(p)
            if seat is not None and not seat.auto_play:
                seat.timeouts += 1
                if seat.timeouts >= 2:
                    seat.auto_play = True  # two timeouts in a row: 托管
                seat.save(update_fields=["timeouts", "auto_play"])
            if state.phase == engine.ENDED:
                break
        state = _auto_answer_claims(hand, state, room)
        _after_change(room, hand, state)
        return Outcome(True, version=hand.version)


def _countdown_over(room: Room, hand: Hand) -> Outcome:
    """The result screen's countdown ran out: deal the next hand whoever pressed 准备."""
    latest = current_hand(room)
    if room.status != Room.PLAYING or latest is None or latest.pk != hand.pk:
        hand.deadline = None
        hand.save(update_fields=["deadline"])
        return Outcome(False, "stale", hand.version)
    seats = list(room.seats.all())
    if len(seats) != room.players:
        return Outcome(False, "seats", hand.version)
    _start_next_hand(room, seats)
    _bump(room)
    return Outcome(True, version=hand.version)


def sweep_overdue(now=None, grace=timedelta(seconds=1)) -> int:
    """Catch hands whose timeout task was lost (broker restart): act on every overdue hand,
    deal the next hand where a ready countdown ran out, and close expired dissolve requests."""
    now = now or timezone.now()
    overdue = list(Hand.objects.filter(status__in=(Hand.PLAYING, Hand.ENDED), deadline__lt=now - grace)
                   .values_list("pk", "version"))
    done = 0
    for hand_id, version in overdue:
        if timeout(hand_id, version, now=now).ok:
            done += 1
    expired = Room.objects.filter(status=Room.PLAYING, dissolve_started_at__lt=now - DISSOLVE_WINDOW - grace)
    for room_id in expired.values_list("pk", flat=True):
        end_dissolve_window(room_id, now=now)
    return done


def set_auto_play(user, room_id: int, on: bool):
    """托管 on/off: a player takes back control with the button."""
    with transaction.atomic():
        room = _locked_room(room_id)
        seat = room.seats.filter(user=user).first()
        if seat is None:
            raise ServiceError(_("你不在这个房间"))
        if not on and is_frozen(user):
            raise ServiceError(_("你的账号已被冻结，由系统托管出牌"))
        seat.auto_play = on
        seat.timeouts = 0
        seat.save(update_fields=["auto_play", "timeouts"])
        if on and room.status == Room.PLAYING:
            _start_if_ready(room, current_hand(room))  # the others may be waiting on the result screen
        _bump(room)


# --- dissolving during a game (解散) ------------------------------------------------------

def vote_dissolve(user, room_id: int, agree: bool = True, now=None):
    """Any seated player may ask to dissolve (申请解散); the hand in progress is then void.
    The rule shown on the page: the room closes as soon as every seat agrees; when the 60 s
    window ends, seats that are offline or on 托管 and did not answer count as agreeing, so
    the present players can close a room a friend walked away from. Any refusal ends the
    request."""
    now = now or timezone.now()
    with transaction.atomic():
        room = _locked_room(room_id)
        seat = room.seats.filter(user=user).first()
        if seat is None:
            raise ServiceError(_("你不在这个房间"))
        if room.status != Room.PLAYING:
            raise ServiceError(_("对局没有在进行"))
        started = room.dissolve_started_at
        if started is None or now - started > DISSOLVE_WINDOW:
            if not agree:
                raise ServiceError(_("没有进行中的解散申请"))
            room.dissolve_started_at = now
            room.dissolve_votes = []
            room_pk, eta = room.pk, now + DISSOLVE_WINDOW
            transaction.on_commit(lambda: _schedule_dissolve_end(room_pk, eta))
        if not agree:
            room.dissolve_started_at = None
            room.dissolve_votes = []
        elif seat.position not in room.dissolve_votes:
            room.dissolve_votes = sorted(room.dissolve_votes + [seat.position])
        if agree and len(room.dissolve_votes) == room.players:
            _dissolve(room, now)
        room.save(update_fields=["dissolve_started_at", "dissolve_votes", "status"])
        _bump(room)


def end_dissolve_window(room_id: int, now=None) -> bool:
    """The dissolve request's 60 s are over: dissolve if every seat agreed or is absent (offline
    or 托管) without having answered; otherwise the request lapses. True if dissolved."""
    now = now or timezone.now()
    with transaction.atomic():
        room = _locked_room(room_id)
        started = room.dissolve_started_at
        if room.status != Room.PLAYING or started is None or now - started < DISSOLVE_WINDOW:
            return False
        online = presence.online_positions(room.pk)
        seats = list(room.seats.all())
        absent = {s.position for s in seats if s.position not in online or s.auto_play}
        agreed = set(room.dissolve_votes)
        dissolved = bool(agreed) and all(s.position in agreed or s.position in absent for s in seats)
        if dissolved:
            _dissolve(room, now)
        else:
            room.dissolve_started_at = None
            room.dissolve_votes = []
        room.save(update_fields=["dissolve_started_at", "dissolve_votes", "status"])
        _bump(room)
        return dissolved


def _dissolve(room: Room, now):
    """Close a running room (row locked): the hand in progress is void, no beans move."""
    room.status = Room.DISSOLVED
    hand = current_hand(room)
    if hand is not None and hand.status == Hand.PLAYING:
        hand.status = Hand.VOID
        hand.deadline = None
        hand.save(update_fields=["status", "deadline"])
    elif hand is not None and hand.deadline is not None:
        hand.deadline = None  # no next hand to deal
        hand.save(update_fields=["deadline"])
    game = Game.objects.filter(room=room).first()
    if game and not game.finished_at:
        game.finished_at = now
        game.save(update_fields=["finished_at"])


def _schedule_dissolve_end(room_id, eta):
    from .tasks import dissolve_window_end

    try:
        dissolve_window_end.apply_async((room_id,), eta=eta)
    except Exception:  # the beat sweeper closes expired requests too
        log.warning("could not schedule the end of room %s's dissolve request", room_id, exc_info=True)


# --- customer service (every staff action is audited) -----------------------------------

def is_frozen(user) -> bool:
    """Read fresh from the database: a socket's user object lives as long as the socket."""
    from accounts.models import Profile

    if user is None or not getattr(user, "pk", None):
        return False
    return Profile.objects.filter(user_id=user.pk, frozen=True).exists()


def set_frozen(staff, user, frozen: bool, reason: str):
    """Freeze (or unfreeze) an account: a frozen player cannot sit down or play; their seats in
    running games go on auto-play (托管)."""
    from accounts.audit import record
    from accounts.models import Profile

    if frozen and not (reason or "").strip():
        raise ServiceError(_("请填写冻结原因"))
    with transaction.atomic():
        profile, _created = Profile.objects.select_for_update().get_or_create(user=user)
        profile.frozen = frozen
        profile.frozen_reason = (reason or "").strip()[:200] if frozen else ""
        profile.save(update_fields=["frozen", "frozen_reason"])
        if frozen:
            for seat in Seat.objects.select_related("room").filter(user=user, room__status=Room.PLAYING):
                seat.auto_play = True
                seat.save(update_fields=["auto_play"])
                _bump(seat.room)
        record(staff, "freeze" if frozen else "unfreeze", f"user:{user.pk}", reason or "")


def force_dissolve(staff, room_id: int, reason: str):
    """Close a stuck room: the hand in progress is void and no beans move."""
    from accounts.audit import record

    if not (reason or "").strip():
        raise ServiceError(_("请填写解散原因"))
    with transaction.atomic():
        room = _locked_room(room_id)
        if room.status in (Room.FINISHED, Room.DISSOLVED):
            raise ServiceError(_("这个房间已经结束"))
        _dissolve(room, timezone.now())
        room.save(update_fields=["status"])
        record(staff, "force_dissolve", f"room:{room.pk}", reason)
        _bump(room)


# --- anti-collusion (同IP报警, GPS) --------------------------------------------------------

def record_presence(user, room_id: int, ip: str | None):
    """Remember where a seated player connects from; warn about shared addresses."""
    from accounts.models import SeenIP

    if not ip:
        return
    with transaction.atomic():
        room = _locked_room(room_id)
        seat = room.seats.filter(user=user).first()
        if seat is None:
            return
        SeenIP.objects.update_or_create(user=user, ip=ip)
        if seat.ip != ip:
            seat.ip = ip
            seat.save(update_fields=["ip"])
            _bump(room)
        _check_same_ip(room)


def same_ip_groups(seats) -> list:
    """Groups of 2+ seats sharing an address: [(ip, [positions])]."""
    by_ip: dict = {}
    for s in seats:
        if s.ip:
            by_ip.setdefault(s.ip, []).append(s.position)
    return [(ip, sorted(ps)) for ip, ps in sorted(by_ip.items()) if len(ps) > 1]


def _check_same_ip(room):
    seats = list(room.seats.select_related("user"))
    for ip, positions in same_ip_groups(seats):
        alert, created = Alert.objects.get_or_create(
            room=room, kind=Alert.SAME_IP, detail=f"{ip}: " + ",".join(str(p) for p in positions),
            defaults={"positions": positions})
        if created:
            alert.users.set([s.user for s in seats if s.position in positions])


def set_location(user, room_id: int, latitude, longitude):
    """A player shares their browser location (never required)."""
    import math

    if isinstance(latitude, bool) or isinstance(longitude, bool):
        raise ServiceError(_("位置格式不对"))
    try:
        lat, lon = float(latitude), float(longitude)
    except (TypeError, ValueError, OverflowError):
        raise ServiceError(_("位置格式不对")) from None
    if not (math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180):
        raise ServiceError(_("位置格式不对"))
    with transaction.atomic():
        room = _locked_room(room_id)
        seat = room.seats.filter(user=user).first()
        if seat is None:
            raise ServiceError(_("你不在这个房间"))
        seat.latitude, seat.longitude, seat.located_at = lat, lon, timezone.now()
        seat.save(update_fields=["latitude", "longitude", "located_at"])
        _check_distances(room)
        _bump(room)


def distance_m(a, b) -> float:
    """Great-circle distance in metres between two (lat, lon) points (haversine)."""
    import math

    lat1, lon1, lat2, lon2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6_371_000 * math.asin(min(1.0, math.sqrt(h)))


def seat_distances(seats) -> list:
    """[(position a, position b, metres)] for every pair that shared a location."""
    located = [s for s in seats if s.latitude is not None and s.longitude is not None]
    out = []
    for i, a in enumerate(located):
        for b in located[i + 1:]:
            out.append((a.position, b.position, distance_m((a.latitude, a.longitude), (b.latitude, b.longitude))))
    return out


def _check_distances(room):
    from accounts.models import SiteSettings

    limit = SiteSettings.current().near_meters
    seats = list(room.seats.select_related("user"))
    by_pos = {s.position: s for s in seats}
    for a, b, metres in seat_distances(seats):
        if metres < limit:
            alert, created = Alert.objects.get_or_create(
                room=room, kind=Alert.NEAR, detail=f"{a},{b} < {limit} m", defaults={"positions": [a, b]})
            if created:
                alert.users.set([by_pos[a].user, by_pos[b].user])
