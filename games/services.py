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

from . import fairness
from .models import Alert, Game, Hand, HandEvent, Room, Seat

log = logging.getLogger(__name__)

AUTO_PLAY_DELAY = timedelta(seconds=1)  # a 托管 seat moves after this pause
DISSOLVE_WINDOW = timedelta(seconds=60)
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

_cache: dict = {}
_cache_lock = threading.Lock()


def hand_state(hand: Hand):
    """The engine state at hand.version: from the process cache or replayed from the log."""
    with _cache_lock:
        hit = _cache.get(hand.pk)
    if hit and hit[0] == hand.version:
        return hit[1]
    options = engine.Options.from_dict(hand.options)
    actions = [engine.Action.from_dict(e.action) for e in hand.events.order_by("seq")]
    out = engine.replay(options, hand.seed, hand.dealer, actions)
    if isinstance(out, engine.Illegal):
        raise RuntimeError(f"hand {hand.pk}: stored actions no longer replay: {out.reason}")
    state = out[0]
    if state.step != hand.version:
        raise RuntimeError(f"hand {hand.pk}: replayed {state.step} actions, version is {hand.version}")
    _remember(hand.pk, hand.version, state)
    return state


def _remember(hand_id, version, state):
    with _cache_lock:
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
    return Room.objects.select_for_update().get(pk=room_id)


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
    """Press Ready. When every seat is filled and ready, the game (or its next hand) starts."""
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
        seats = list(room.seats.all())
        if len(seats) == room.players and all(s.ready for s in seats):
            _start_next_hand(room, seats)
        _bump(room)


def _start_next_hand(room: Room, seats):
    game = Game.objects.filter(room=room).first()
    if game is None:
        dealer = first_dealer(room)
        game = Game.objects.create(room=room, first_dealer=dealer, dealer=dealer, totals=[0] * room.players)
        room.status = Room.PLAYING
        room.save(update_fields=["status"])
    number = game.hands_played + 1
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
    """A player's action on a hand, checked against the version they saw."""
    try:
        with transaction.atomic():
            hand = Hand.objects.select_for_update().select_related("game__room").get(pk=hand_id)
            room = hand.game.room
            seat = room.seats.filter(user=user).first()
            if seat is None:
                raise ServiceError(_("你不在这张牌桌"))
            if is_frozen(user):
                raise ServiceError(_("你的账号已被冻结，由系统托管出牌"))
            if hand.status != Hand.PLAYING:
                raise ServiceError(_("这一局已经结束"))
            if isinstance(version, bool) or not isinstance(version, int) or version != hand.version:
                raise ServiceError(_("牌局已更新，请按最新画面操作"))
            action = parse_command(seat.position, command)
            state = hand_state(hand)
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
    except Hand.DoesNotExist:
        return Outcome(False, _("没有这一局"))
    except ServiceError as e:
        return Outcome(False, str(e))


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
    game.save()
    Seat.objects.filter(room=room).update(ready=False)


def timeout(hand_id: int, version: int, now=None) -> Outcome:
    """Time ran out for whoever the hand waits on at `version`: make their automatic moves.
    Acts only if the hand is still at that version and its deadline has passed."""
    now = now or timezone.now()
    with transaction.atomic():
        try:
            hand = Hand.objects.select_for_update().select_related("game__room").get(pk=hand_id)
        except Hand.DoesNotExist:
            return Outcome(False, "no such hand")
        if hand.status != Hand.PLAYING or hand.version != version:
            return Outcome(False, "stale", hand.version)
        if hand.deadline is None or hand.deadline > now:
            return Outcome(False, "not yet", hand.version)
        room = hand.game.room
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


def sweep_overdue(now=None, grace=timedelta(seconds=1)) -> int:
    """Catch hands whose timeout task was lost (broker restart): act on every overdue hand."""
    now = now or timezone.now()
    overdue = list(Hand.objects.filter(status=Hand.PLAYING, deadline__lt=now - grace).values_list("pk", "version"))
    done = 0
    for hand_id, version in overdue:
        if timeout(hand_id, version, now=now).ok:
            done += 1
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
        _bump(room)


def set_connected(user, room_id: int, delta: int):
    """Count a player's open sockets (offline = none)."""
    with transaction.atomic():
        room = _locked_room(room_id)
        seat = room.seats.filter(user=user).first()
        if seat is None:
            return
        seat.connections = max(0, seat.connections + delta)
        seat.save(update_fields=["connections"])
        _bump(room)


# --- dissolving during a game (解散) ------------------------------------------------------

def vote_dissolve(user, room_id: int, agree: bool = True, now=None):
    """Any seated player may ask; the room closes when all agree within 60 s. A refusal
    ends the request. The hand in progress is void."""
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
        if not agree:
            room.dissolve_started_at = None
            room.dissolve_votes = []
        elif seat.position not in room.dissolve_votes:
            room.dissolve_votes = sorted(room.dissolve_votes + [seat.position])
        if agree and len(room.dissolve_votes) == room.players:
            room.status = Room.DISSOLVED
            hand = current_hand(room)
            if hand is not None and hand.status == Hand.PLAYING:
                hand.status = Hand.VOID
                hand.deadline = None
                hand.save(update_fields=["status", "deadline"])
            game = room.game
            game.finished_at = now
            game.save(update_fields=["finished_at"])
        room.save(update_fields=["dissolve_started_at", "dissolve_votes", "status"])
        _bump(room)


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
        room.status = Room.DISSOLVED
        room.save(update_fields=["status"])
        hand = current_hand(room)
        if hand is not None and hand.status == Hand.PLAYING:
            hand.status = Hand.VOID
            hand.deadline = None
            hand.save(update_fields=["status", "deadline"])
        game = Game.objects.filter(room=room).first()
        if game and not game.finished_at:
            game.finished_at = timezone.now()
            game.save(update_fields=["finished_at"])
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
