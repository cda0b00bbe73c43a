"""The fault tests' hands inside a running stack: `python -m tests.fault_probe` with the stack's
environment (DATABASE_URL, REDIS_URL, ...) reads one JSON command per line on stdin and answers
one JSON line on stdout. It goes through games.services like the site does, so the timeouts it
schedules land on the stack's broker (tests/test_faults.py drives it).

Commands:
  {"cmd": "setup", "left": 12}         4 players on 托管, turn 5 s / claim 3 s, the first hand dealt
                                       and played on (services.timeout with a later clock) until
                                       `left` tiles are left in the wall -> {"room", "hand"}
  {"cmd": "next_hand", "room": id, "left": 12}   everyone presses 准备, the same fast-forward
  {"cmd": "check", "room": id}         every hand's log, replay, settlement; every wallet's ledger
  {"cmd": "quit"}
"""

import json
import os
import sys
import traceback
from datetime import timedelta


def setup_django():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_site.settings")
    import django

    django.setup()


def fast_forward(hand_id, left):
    """Make the timed-out moves now (a clock past the deadline) until `left` wall tiles are left.
    The stack's worker may move the same hand meanwhile: services.timeout takes the row lock and
    checks the version, so one of two calls for a version does nothing."""
    from django.utils import timezone

    from games import services
    from games.models import Hand

    for _ in range(500):
        hand = Hand.objects.get(pk=hand_id)
        if hand.status != Hand.PLAYING:
            return
        if len(services.hand_state(hand).wall) <= left:
            return
        now = max(hand.deadline or timezone.now(), timezone.now()) + timedelta(seconds=2)
        services.timeout(hand_id, hand.version, now=now)
    raise RuntimeError("the hand did not get down to %s tiles" % left)


def current_hand(room_id):
    from games.models import Hand

    return Hand.objects.filter(game__room_id=room_id).order_by("-number").first()


def setup(left):
    from django.contrib.auth import get_user_model

    from accounts import beans
    from accounts.models import Profile
    from games import services

    users = []
    for i in range(4):
        user = get_user_model().objects.create_user(f"fault{i}", password=f"pw-fault{i}-long")
        Profile.objects.create(user=user, nickname=f"故障{i}")
        beans.grant_start(user)
        users.append(user)
    room = services.create_room(users[0], players=4, length=4, stake=100, turn_seconds=5, claim_seconds=3)
    for user in users[1:]:
        services.join_room(user, room.token)
    for user in users:
        services.set_auto_play(user, room.pk, True)
    for user in users:
        services.set_ready(user, room.pk, True)
    hand = current_hand(room.pk)
    fast_forward(hand.pk, left)
    return {"room": room.pk, "hand": hand.pk}


def next_hand(room, left):
    """Everyone presses 准备 (the ready countdown may have dealt it already), then the new hand
    is played on like the first one."""
    from django.contrib.auth import get_user_model

    from games import services
    from games.models import Hand

    for user in get_user_model().objects.filter(seats__room_id=room):
        if current_hand(room).status == Hand.PLAYING:
            break
        try:
            services.set_ready(user, room, True)
        except services.ServiceError:  # dealt by the countdown meanwhile
            pass
    hand = current_hand(room)
    fast_forward(hand.pk, left)
    return {"hand": hand.pk}


def check(room):
    """Facts for the test to assert on: per hand, the event log (seqs), whether it replays
    through the engine, its settlement and ledger rows, its verified replay; per wallet, the
    balance against the sum of its ledger rows and the balance_after chain."""
    from django.db.models import Sum

    from accounts.models import HandSettlement, LedgerEntry, Wallet
    from games import replays
    from games.engine import game as engine
    from games.models import Hand

    hands = []
    for hand in Hand.objects.filter(game__room_id=room).order_by("number"):
        events = list(hand.events.order_by("seq"))
        info = {
            "id": hand.pk, "number": hand.number, "status": hand.status, "version": hand.version,
            "seqs": [e.seq for e in events], "auto": sum(1 for e in events if e.auto),
            "winner": (hand.result or {}).get("winner"),
        }
        actions = [engine.Action.from_dict(e.action) for e in events]
        out = engine.replay(engine.Options.from_dict(hand.options), hand.seed, hand.dealer, actions,
                            hand.carry or None)
        if isinstance(out, engine.Illegal):
            info["replay_error"] = out.reason
        else:
            info["step"], info["phase"] = out[0].step, out[0].phase
        info["settlements"] = HandSettlement.objects.filter(hand=hand).count()
        rows = list(LedgerEntry.objects.filter(hand=hand).values("wallet_id", "amount", "key"))
        info["ledger_rows"] = len(rows)
        info["ledger_wallets"] = len({r["wallet_id"] for r in rows})
        info["ledger_sum"] = sum(r["amount"] for r in rows)
        if hand.status == Hand.ENDED:
            replay = replays.build(hand.pk)
            info["replay_status"], info["replay_problem"] = replay.status, replay.problem
            settlement = HandSettlement.objects.filter(hand=hand).first()
            if settlement is not None:
                info["paid"] = {k: v for k, v in settlement.paid.items() if v}
        hands.append(info)
    wallets = []
    for wallet in Wallet.objects.all():
        total = wallet.entries.aggregate(total=Sum("amount"))["total"] or 0
        running, chain_ok = 0, True
        for amount, after in wallet.entries.order_by("id").values_list("amount", "balance_after"):
            running += amount
            chain_ok = chain_ok and running == after
        wallets.append({"id": wallet.pk, "balance": wallet.balance, "ledger": total, "chain_ok": chain_ok})
    return {"hands": hands, "wallets": wallets}


def main():
    setup_django()
    from django.db import close_old_connections

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        cmd = request.pop("cmd")
        if cmd == "quit":
            break
        close_old_connections()
        try:
            result = {"setup": setup, "next_hand": next_hand, "check": check}[cmd](**request)
            reply = {"ok": True, "result": result}
        except Exception as e:  # reported to the test, which shows it
            reply = {"ok": False, "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
