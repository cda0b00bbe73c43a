"""Helpers for the bean tests: players, rooms played through games.services, ledger sums."""

from __future__ import annotations

import hashlib
import random

from django.contrib.auth import get_user_model
from django.db.models import Sum

from accounts import beans
from accounts.models import LedgerEntry, Profile, Wallet
from games import services
from games.models import Hand, Seat
from tests.replay_helpers import command_for  # noqa: F401 (used by the bean tests)
from tests.replay_helpers import play_hand as _play_hand


def make_player(username, nickname=""):
    user = get_user_model().objects.create_user(username, password="pw-" + username + "-long")
    Profile.objects.create(user=user, nickname=nickname or username)
    return user


def set_balance(user, balance):
    """Move a wallet to `balance` with a staff adjustment (so the ledger still explains it)."""
    wallet = beans.wallet_for(user)
    if wallet.balance != balance:
        beans.adjust(None, user, balance - wallet.balance, "test set-up")


def balance(user) -> int:
    return Wallet.objects.get(user=user).balance


def ledger_sum(user) -> int:
    return LedgerEntry.objects.filter(wallet__user=user).aggregate(s=Sum("amount"))["s"] or 0


def assert_balances_match_ledger():
    """Every wallet's cached balance is the sum of its ledger rows, and the last row's balance_after."""
    for wallet in Wallet.objects.all():
        rows = LedgerEntry.objects.filter(wallet=wallet)
        total = rows.aggregate(s=Sum("amount"))["s"] or 0
        assert wallet.balance == total, (wallet.user_id, wallet.balance, total)
        last = rows.order_by("-id").first()
        assert last is None or last.balance_after == wallet.balance
        assert wallet.balance >= 0


def fixed_walls(monkeypatch, settings, base: str):
    """Walls that depend on `base` and the hand number only (not on the room's id, which depends on
    what ran before on PostgreSQL), and dealer 0 first: a seeded game is the same on every run."""
    settings.GAME_SEED_BASE = base

    def seed(room_id, number):
        return int.from_bytes(hashlib.sha256(f"{base}:{number}".encode()).digest()[:7], "big")

    monkeypatch.setattr(services.dealing, "new_seed", seed)


def users_by_position(room):
    return {s.position: s.user for s in Seat.objects.filter(room=room).select_related("user")}


def current_hand(room):
    return Hand.objects.filter(game__room=room).order_by("-number").first()


def ready_all(room):
    for user in users_by_position(room).values():
        services.set_ready(user, room.pk)
    return current_hand(room)


def play_hand(room, rng: random.Random, stop_before_win=False, max_actions=2000):
    """The room's current hand played by tests.replay_helpers.play_hand (a seat that may win does,
    the others act at random)."""
    return _play_hand(current_hand(room), users_by_position(room), rng=rng, limit=max_actions,
                      stop_before_win=stop_before_win)


def play_until_a_win(room, rng: random.Random, stop_before_win=False, max_hands=16):
    """Ready up and play hands until one is (or, with `stop_before_win`, is about to be) won."""
    for _ in range(max_hands):
        hand = current_hand(room)
        if hand is None or hand.status != Hand.PLAYING:
            ready_all(room)
        out = play_hand(room, rng, stop_before_win=stop_before_win)
        if stop_before_win:
            if isinstance(out, tuple):
                return out
            continue
        if out.result and out.result.get("winner") is not None:
            return out
    raise AssertionError(f"no hand was won in {max_hands} hands")
