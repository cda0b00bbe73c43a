"""Beans (金豆): the one path that changes a wallet. Append-only ledger, atomic, idempotent.

Every change is a LedgerEntry with a unique idempotency key, written in the same transaction
as the cached Wallet.balance it updates; wallets are locked in id order (no deadlocks).
A hand's settlement is written once (HandSettlement is unique per hand).
"""

from __future__ import annotations

import uuid
from zoneinfo import ZoneInfo

from django.db import IntegrityError, transaction
from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from .cutting import Limits, cut_settlement, owed_beans
from .models import HandSettlement, LedgerEntry, SiteSettings, Wallet


class BeanError(Exception):
    """A bean operation that is not allowed; nothing changed."""


BEAN_DAY_ZONE = ZoneInfo("Asia/Shanghai")  # the calendar day of the daily limits, whatever zone is active


def today():
    return timezone.localdate(timezone=BEAN_DAY_ZONE)


def limits() -> Limits:
    s = SiteSettings.current()
    return Limits(per_hand=s.hand_limit, per_day=s.day_limit)


def wallet_for(user) -> Wallet:
    """The user's wallet, created with the starting grant the first time."""
    wallet = Wallet.objects.filter(user=user).first()
    if wallet is None:
        grant_start(user)
        wallet = Wallet.objects.get(user=user)
    return wallet


def _locked_wallets(user_ids):
    """Lock the wallets of these users in id order, creating missing ones first."""
    for uid in user_ids:
        Wallet.objects.get_or_create(user_id=uid)
    return {w.user_id: w for w in Wallet.objects.select_for_update().filter(user_id__in=user_ids).order_by("id")}


def _post(wallet: Wallet, amount: int, reason: str, key: str, *, hand=None, staff=None, note="", day=None):
    """Append one ledger row and move the cached balance (the wallet row is locked)."""
    new_balance = wallet.balance + amount
    if new_balance < 0:
        raise BeanError(_("金豆不足"))
    entry = LedgerEntry.objects.create(wallet=wallet, amount=amount, balance_after=new_balance, reason=reason,
                                       key=key, hand=hand, staff=staff, note=note[:200], day=day or today())
    wallet.balance = new_balance
    wallet.save(update_fields=["balance"])
    return entry


def _once(key, func):
    """Run `func` in a savepoint unless a row with `key` exists already (idempotent retries)."""
    existing = LedgerEntry.objects.filter(key=key).first()
    if existing:
        return existing
    try:
        with transaction.atomic():
            return func()
    except IntegrityError:
        existing = LedgerEntry.objects.filter(key=key).first()
        if existing:
            return existing
        raise


def grant_start(user):
    amount = SiteSettings.current().starting_grant
    with transaction.atomic():
        wallet = _locked_wallets([user.pk])[user.pk]
        if amount <= 0:
            return None
        return _once(f"start:{user.pk}", lambda: _post(wallet, amount, LedgerEntry.GRANT, f"start:{user.pk}"))


def claim_relief(user):
    """救济金: once a calendar day, for a player below the threshold."""
    s = SiteSettings.current()
    day = today()
    key = f"relief:{user.pk}:{day.isoformat()}"
    with transaction.atomic():
        wallet = _locked_wallets([user.pk])[user.pk]
        if LedgerEntry.objects.filter(key=key).exists():
            raise BeanError(_("今天已经领过救济金了"))
        if wallet.balance >= s.relief_threshold:
            raise BeanError(_("金豆不少于 %(n)s 时不能领救济金") % {"n": s.relief_threshold})
        return _post(wallet, s.relief_amount, LedgerEntry.RELIEF, key)


def can_claim_relief(user) -> bool:
    s = SiteSettings.current()
    wallet = wallet_for(user)
    key = f"relief:{user.pk}:{today().isoformat()}"
    return wallet.balance < s.relief_threshold and not LedgerEntry.objects.filter(key=key).exists()


def adjust(staff, user, amount: int, note: str, key: str | None = None):
    """A staff adjustment (客服调整): a reason is required; the balance never goes below zero."""
    if not note or not note.strip():
        raise BeanError(_("请填写调整原因"))
    if not isinstance(amount, int) or isinstance(amount, bool) or amount == 0:
        raise BeanError(_("调整数量必须是非零整数"))
    with transaction.atomic():
        wallet = _locked_wallets([user.pk])[user.pk]
        # a fresh key per call: two adjustments in the same microsecond (or under a frozen clock)
        # must not collapse into one; callers that retry pass their own key
        key = key or f"adjust:{user.pk}:{uuid.uuid4().hex}"
        return _once(key, lambda: _post(wallet, amount, LedgerEntry.ADJUST, key, staff=staff, note=note.strip()))


def day_totals(wallet_or_user, day=None):
    """(won, lost) in hand settlements (and 逃跑 penalties) on a calendar day, both >= 0."""
    wallet = wallet_or_user if isinstance(wallet_or_user, Wallet) else wallet_for(wallet_or_user)
    rows = LedgerEntry.objects.filter(wallet=wallet, day=day or today(),
                                      reason__in=(LedgerEntry.HAND, LedgerEntry.ESCAPE))  # what play moved
    agg = rows.aggregate(won=Sum("amount", filter=Q(amount__gt=0)), lost=Sum("amount", filter=Q(amount__lt=0)))
    return agg["won"] or 0, -(agg["lost"] or 0)


def day_limit_reached(user) -> bool:
    won, lost = day_totals(user)
    lim = limits()
    return won >= lim.per_day or lost >= lim.per_day


def _cut_for(by_pos: dict, transfers, stake: int, order):
    """The beans owed by the rules and what may move (balances, per-hand and daily limits)."""
    day = today()
    won, lost = {}, {}
    for p, w in by_pos.items():
        won[p], lost[p] = day_totals(w, day)
    owed = owed_beans(transfers, stake, list(by_pos))
    return cut_settlement(owed, {p: w.balance for p, w in by_pos.items()}, won, lost, limits(), order), day


def settle_escape(key: str, transfers, users_by_position: dict, stake: int, order, note: str = ""):
    """Move the beans of a 逃跑 penalty (the leaver to the others), cut like a hand's (it is one
    payment for the per-hand limit). `key` names it once (e.g. "escape:<game>:<position>"): a
    retry moves nothing more. Returns the Cut, or None if it was settled already. Call inside
    the caller's transaction."""
    with transaction.atomic():
        wallets = _locked_wallets(sorted(u.pk for u in users_by_position.values()))
        if LedgerEntry.objects.filter(key__startswith=f"{key}:").exists():
            return None
        by_pos = {p: wallets[users_by_position[p].pk] for p in users_by_position}
        cut, day = _cut_for(by_pos, transfers, stake, order)
        for p in sorted(by_pos, key=lambda q: cut.paid[q]):  # the leaver first: no balance dips below zero
            if cut.paid[p]:
                _post(by_pos[p], cut.paid[p], LedgerEntry.ESCAPE, f"{key}:{p}", note=note, day=day)
        return cut


def settle_hand(hand, transfers, users_by_position: dict, stake: int, order) -> HandSettlement:
    """Move the beans of one finished hand, cut to balances and limits. Idempotent per hand.
    `transfers`: [{"from": pos, "to": pos, "amount": 胡}]; `order`: positions from the dealer."""
    existing = HandSettlement.objects.filter(hand=hand).first()
    if existing:
        return existing
    positions = list(users_by_position)
    with transaction.atomic():
        wallets = _locked_wallets(sorted(u.pk for u in users_by_position.values()))
        if HandSettlement.objects.filter(hand=hand).exists():  # settled while we waited for the locks
            return HandSettlement.objects.get(hand=hand)
        by_pos = {p: wallets[users_by_position[p].pk] for p in positions}
        cut, day = _cut_for(by_pos, transfers, stake, order)
        settlement = HandSettlement.objects.create(hand=hand, stake=stake, owed={str(k): v for k, v in cut.owed.items()},
                                                   paid={str(k): v for k, v in cut.paid.items()},
                                                   reasons={str(k): v for k, v in cut.reasons.items()})
        # losers first so no balance dips below zero on the way
        for p in sorted(positions, key=lambda q: cut.paid[q]):
            amount = cut.paid[p]
            if amount:
                _post(by_pos[p], amount, LedgerEntry.HAND, f"hand:{hand.pk}:{p}", hand=hand, day=day)
        return settlement


def staff_adjust(staff, user, amount: int, note: str):
    """A customer-service adjustment: within the per-action ceiling unless a superuser; audited."""
    from .audit import record

    if not staff.is_superuser:
        ceiling = SiteSettings.current().cs_adjust_ceiling
        if isinstance(amount, int) and abs(amount) > ceiling:
            raise BeanError(_("超过客服单次调整上限 %(n)s 金豆") % {"n": ceiling})
    with transaction.atomic():
        entry = adjust(staff, user, amount, note)
        record(staff, "adjust_beans", f"user:{user.pk}", f"{amount:+d}: {note}")
        return entry
