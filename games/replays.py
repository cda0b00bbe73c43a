"""Replays (回放): re-run a finished hand through the engine and check it against the record.

The replay is the hand's inputs — seed, options, dealer — and its accepted actions, plus what
was recorded (result, settlement). Building it re-runs the engine from the inputs and compares
every event, the result and the bean amounts owed; any difference is stored as a mismatch.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.cutting import owed_beans

from games.engine import game as engine
from games.engine.tiles import face_name

from .models import Hand, Replay, Room

FORMAT = 1


def _players(hand):
    room = hand.game.room
    return [{"position": s.position, "name": s.name} for s in room.seats.select_related("user__profile")]


def record_of(hand: Hand) -> dict:
    """The compact, downloadable replay of a hand as stored (not yet verified)."""
    events = list(hand.events.order_by("seq"))
    settlement = getattr(hand, "settlement", None)
    return {
        "format": FORMAT,
        "variant": hand.options.get("variant", "taizhou"),
        "options": hand.options,
        "room": hand.game.room_id,
        "hand": hand.number,
        "seed": hand.seed,
        "salt": hand.salt,  # revealed after the hand: opens the commitment shown at its start
        "commitment": hand.commitment,
        "dealer": hand.dealer,
        "carry": hand.carry or {},  # the variant's state from the hand before (an input, like the seed)
        "indicator": None,
        "players": _players(hand),
        "actions": [e.action for e in events],
        "events": [e.events for e in events],
        "auto": [e.seq for e in events if e.auto],
        "result": hand.result,
        "stake": 0 if hand.game.room.practice else hand.game.room.stake,  # 练习: nothing in beans
        "settlement": None if settlement is None else {"owed": settlement.owed, "paid": settlement.paid,
                                                       "reasons": settlement.reasons},
    }


def verify(record: dict) -> tuple[list, object]:
    """Re-run a replay record. Returns (problems, final_state_or_None)."""
    problems = []
    try:
        options = engine.Options.from_dict(record["options"])
        actions = [engine.Action.from_dict(a) for a in record["actions"]]
    except (KeyError, TypeError, ValueError) as e:
        return [f"unreadable replay: {e}"], None
    state, _ = engine.new_hand(options, record["seed"], record["dealer"], record.get("carry") or None)
    for i, action in enumerate(actions):
        out = engine.apply(state, action)
        if isinstance(out, engine.Illegal):
            return [f"action {i + 1} ({action.kind}) is not legal on re-run: {out.reason}"], None
        state, events = out
        stored = record["events"][i] if i < len(record.get("events", [])) else None
        if stored is not None and stored != events:
            problems.append(f"action {i + 1}: the events differ from the record")
    if state.phase != engine.ENDED:
        problems.append("the actions do not finish the hand")
        return problems, state
    r = state.result
    recorded = record.get("result") or {}
    if recorded.get("winner") != r.winner:
        problems.append(f"winner: recorded {recorded.get('winner')}, re-run {r.winner}")
    if recorded.get("net") is not None and list(recorded["net"]) != list(r.net):
        problems.append(f"net 胡: recorded {recorded['net']}, re-run {list(r.net)}")
    rec_scores = recorded.get("scores") or []
    for p, s in enumerate(r.scores):
        if s is not None and p < len(rec_scores) and rec_scores[p] and rec_scores[p].get("total") != s.total:
            problems.append(f"seat {p} total: recorded {rec_scores[p].get('total')}, re-run {s.total}")
    settlement = record.get("settlement")
    practice = bool((record.get("result") or {}).get("practice"))  # 练习: no beans move
    if r.transfers and not practice:  # a win, or a failed 包 contract
        owed = owed_beans(r.transfers, record.get("stake", 0), range(state.n))
        if settlement is None:
            problems.append("the hand had payments but no bean settlement was recorded")
        elif {int(k): v for k, v in settlement["owed"].items()} != owed:
            problems.append(f"beans owed: recorded {settlement['owed']}, re-run {owed}")
    return problems, state


def build(hand_id: int) -> Replay | None:
    """Build (or rebuild) and verify the replay of a finished hand. Idempotent."""
    with transaction.atomic():
        # the hand row lock serialises builders of one hand (the task, its retry, a page on demand)
        hand = Hand.objects.select_for_update().filter(pk=hand_id).first()
        if hand is None or hand.status != Hand.ENDED:
            return None
        record = record_of(hand)
        problems, state = verify(record)
        if state is not None:
            record["indicator"] = None if state.indicator is None else face_name(state.indicator)
            record["wilds"] = [face_name(f) for f in state.rules.wild_faces(state)]  # Zhuji: none, one or two
        replay, _ = Replay.objects.select_for_update().get_or_create(hand=hand)
        replay.data = record
        replay.status = Replay.MISMATCH if problems else Replay.OK
        replay.problem = "\n".join(problems)
        replay.save()
        return replay


def ensure(hand: Hand) -> Replay | None:
    """The hand's replay, built now if the task has not (yet) stored it (a lost task)."""
    replay = Replay.objects.filter(hand=hand).first()
    if replay is not None and replay.status != Replay.PENDING and replay.data:
        return replay
    return build(hand.pk)


def set_sharing(user, room_id: int, visibility: str, hide_names: bool) -> Room:
    """The host decides who may open the room's replay links and whether others see nicknames."""
    from .services.errors import ServiceError

    if visibility not in (Room.REPLAY_LINK, Room.REPLAY_PLAYERS):
        raise ServiceError("bad_option", _("回放可见范围无效"))
    with transaction.atomic():
        room = Room.objects.select_for_update().get(pk=room_id)
        if room.host_id != getattr(user, "pk", None):
            raise ServiceError("not_host", _("只有房主可以修改回放设置"))
        room.replay_visibility = visibility
        room.replay_hide_names = bool(hide_names)
        room.save(update_fields=["replay_visibility", "replay_hide_names"])
        return room
