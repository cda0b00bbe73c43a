"""Beans under concurrency (PostgreSQL): many threads settle overlapping hands - some the same hand
twice from different threads - while staff adjust the same wallets. Afterwards every balance is
its ledger's sum, the ledger nets to the grants and adjustments, no hand is settled twice, no
limit is overshot, nobody is below zero, and every thread finished (no deadlock)."""

import random
import threading
from collections import defaultdict

import pytest
from django.db import connection
from django.db.models import Sum

from accounts import beans
from accounts.models import HandSettlement, LedgerEntry, SiteSettings, Wallet
from games.models import Game, Hand, Room, Seat
from tests.bean_helpers import make_player

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="select_for_update races only mean something on PostgreSQL"),
    pytest.mark.django_db(transaction=True),
]

THREADS = 8
OPS_PER_THREAD = 25
FINISH_WITHIN = 120  # seconds for all threads; a deadlock would hang or raise
HAND_LIMIT = 5_000
DAY_LIMIT = 40_000
STAKE = 100


@pytest.fixture
def players():
    """Eight players with the starting grant; two of them nearly broke (their losses get cut)."""
    users = [make_player(f"p{i}") for i in range(8)]
    for poor in users[:2]:
        beans.adjust(None, poor, 2_000 - beans.wallet_for(poor).balance, "set-up: nearly broke", key=f"setup:{poor.pk}")
    return users


@pytest.fixture
def limits():
    SiteSettings.objects.update_or_create(pk=1, defaults={"hand_limit": HAND_LIMIT, "day_limit": DAY_LIMIT})


def _make_hand(rng, users, number):
    """A finished hand of 2-4 of `users` (overlapping other hands) and its transfers in 胡."""
    seated = rng.sample(users, rng.randint(2, 4))
    room = Room.objects.create(host=seated[0], players=len(seated), stake=STAKE, status=Room.PLAYING)
    for position, user in enumerate(seated):
        Seat.objects.create(room=room, user=user, position=position)
    dealer = rng.randrange(len(seated))
    game = Game.objects.create(room=room, first_dealer=dealer, dealer=dealer, totals=[0] * len(seated))
    hand = Hand.objects.create(game=game, number=1, seed=number, dealer=dealer, status=Hand.ENDED)
    winner = rng.randrange(len(seated))
    transfers = [{"from": p, "to": winner, "amount": rng.randint(1, 60) / 2} for p in range(len(seated)) if p != winner]
    if len(seated) > 2:  # non-winners settle among themselves too
        a, b = rng.sample([p for p in range(len(seated)) if p != winner], 2)
        transfers.append({"from": a, "to": b, "amount": rng.randint(1, 20) / 2})
    order = [(dealer + k) % len(seated) for k in range(len(seated))]
    return {"hand": hand, "users": dict(enumerate(seated)), "transfers": transfers, "order": order}


def _plan(rng, users, hands):
    """THREADS lists of OPS_PER_THREAD operations: every hand settled once, a third of them a second
    time from another thread, staff adjustments (some with a shared key, sent twice) in between."""
    ops = [[] for _ in range(THREADS)]
    settles = [(i, rng.randrange(THREADS)) for i in range(len(hands))]
    for i, t in list(settles)[: len(hands) // 3]:
        settles.append((i, (t + rng.randrange(1, THREADS)) % THREADS))
    for i, t in settles:
        ops[t].append(("settle", i))
    adjust_no = 0
    for t in range(THREADS):
        while len(ops[t]) < OPS_PER_THREAD:
            adjust_no += 1
            user = rng.choice(users)
            amount = rng.choice([rng.randint(1, 3_000), -rng.randint(1, 3_000)])
            key = f"ticket:{adjust_no}"
            ops[t].append(("adjust", (user, amount, key)))
            if adjust_no % 5 == 0 and len(ops[(t + 1) % THREADS]) < OPS_PER_THREAD:  # the same ticket twice
                ops[(t + 1) % THREADS].append(("adjust", (user, amount, key)))
        rng.shuffle(ops[t])
    return ops


def test_overlapping_settlements_and_adjustments_from_many_threads(players, limits):
    rng = random.Random(2026)
    hands = [_make_hand(rng, players, n) for n in range(60)]
    plan = _plan(rng, players, hands)
    assert sum(len(o) for o in plan) >= THREADS * OPS_PER_THREAD
    grants = LedgerEntry.objects.aggregate(s=Sum("amount"))["s"]  # grants and set-up so far

    barrier = threading.Barrier(THREADS, timeout=30)
    lock = threading.Lock()
    settled = defaultdict(set)  # hand index -> settlement ids returned
    adjusted = {}  # key -> amount, for adjustments that went through
    refused = []  # adjustments refused (would go below zero): nothing written
    errors = []

    def work(ops):
        try:
            barrier.wait()
            for kind, arg in ops:
                if kind == "settle":
                    h = hands[arg]
                    s = beans.settle_hand(h["hand"], h["transfers"], h["users"], STAKE, h["order"])
                    with lock:
                        settled[arg].add(s.pk)
                else:
                    user, amount, key = arg
                    try:
                        entry = beans.adjust(None, user, amount, "客服调整 (test)", key=key)
                    except beans.BeanError:
                        with lock:
                            refused.append(key)
                    else:
                        with lock:
                            adjusted[key] = entry.amount
        except Exception as e:  # noqa: BLE001 - reported below
            with lock:
                errors.append(repr(e))
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(ops,), daemon=True) for ops in plan]
    for t in threads:
        t.start()
    for t in threads:
        t.join(FINISH_WITHIN)
    assert not any(t.is_alive() for t in threads), "threads did not finish: deadlock or lock wait"
    assert errors == []

    # no hand settled twice: one HandSettlement each, both threads got the same one
    assert HandSettlement.objects.count() == len(hands)
    assert all(len(ids) == 1 for ids in settled.values()) and len(settled) == len(hands)
    for i, h in enumerate(hands):
        s = HandSettlement.objects.get(hand=h["hand"])
        assert s.pk in settled[i]
        rows = dict(LedgerEntry.objects.filter(hand=h["hand"]).values_list("key", "amount"))
        assert rows == {f"hand:{h['hand'].pk}:{p}": v for p, v in s.paid.items() if v}
        assert sum(s.paid.values()) == 0 and sum(rows.values()) == 0
        assert all(abs(v) <= HAND_LIMIT for v in s.paid.values())

    # the ledger nets to grants and adjustments; each adjustment key written once
    adjust_rows = LedgerEntry.objects.filter(reason=LedgerEntry.ADJUST, key__startswith="ticket:")
    assert dict(adjust_rows.values_list("key", "amount")) == adjusted
    assert not adjust_rows.filter(key__in=set(refused) - set(adjusted)).exists()
    total = LedgerEntry.objects.aggregate(s=Sum("amount"))["s"]
    assert total == grants + sum(adjusted.values())
    assert LedgerEntry.objects.filter(reason=LedgerEntry.HAND).aggregate(s=Sum("amount"))["s"] == 0

    # every balance is its ledger: row by row in id order (the wallet lock serialises them), never below 0
    day = beans.today()
    for wallet in Wallet.objects.all():
        running = 0
        for amount, after in LedgerEntry.objects.filter(wallet=wallet).order_by("id").values_list("amount", "balance_after"):
            running += amount
            assert after == running and after >= 0
        assert wallet.balance == running >= 0
        won, lost = beans.day_totals(wallet, day)
        assert won <= DAY_LIMIT and lost <= DAY_LIMIT  # the limits were read under the locks
    assert any(s.was_cut for s in HandSettlement.objects.all())  # the limits and balances did bite
