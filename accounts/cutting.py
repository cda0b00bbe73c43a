"""Cutting a hand's settlement to the bean limits (shared/design/beans.md). Pure Python.

1. Each transfer in 胡 becomes beans (胡 × stake, each transfer rounded up to a whole bean);
   each player's net follows.
2. A loser's loss is cut to min(balance, hand loss room, day loss room); a winner's gain to
   min(hand win room, day win room).
3. Paid = min(sum of cut losses, sum of cut gains); the larger side is scaled down to Paid in
   proportion, the remainders going by largest remainder, ties in seat order from the dealer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction


@dataclass(frozen=True)
class Limits:
    per_hand: int = 1_000_000
    per_day: int = 10_000_000


@dataclass
class Cut:
    owed: dict  # position -> net beans before any cut (+ won, - lost)
    paid: dict  # position -> net beans that actually move
    reasons: dict = field(default_factory=dict)  # position -> list of reason codes

    @property
    def was_cut(self) -> bool:
        return self.owed != self.paid


def beans_of(amount_hu, stake: int) -> int:
    """胡 × stake rounded up to a whole bean (half payments round up)."""
    return math.ceil(Fraction(str(amount_hu)) * stake)


def owed_beans(transfers, stake: int, positions) -> dict:
    net = {p: 0 for p in positions}
    for t in transfers:
        beans = beans_of(t["amount"], stake)
        net[t["from"]] -= beans
        net[t["to"]] += beans
    return net


def _scale(amounts: dict, target: int, order) -> dict:
    """Scale non-negative `amounts` down so they sum to `target` (<= their sum): floor of the
    proportional share, then +1 by largest remainder, ties in `order`."""
    total = sum(amounts.values())
    if total == target:
        return dict(amounts)
    if total == 0:
        return {p: 0 for p in amounts}
    out = {}
    rems = []
    for p, a in amounts.items():
        share = Fraction(a * target, total)
        out[p] = math.floor(share)
        rems.append((share - out[p], p))
    left = target - sum(out.values())
    rank = {p: i for i, p in enumerate(order)}
    rems.sort(key=lambda r: (-r[0], rank[r[1]]))
    for _rem, p in rems[:left]:
        out[p] += 1
    return out


def cut_settlement(owed: dict, balances: dict, won_today: dict, lost_today: dict,
                   limits: Limits, order) -> Cut:
    """`owed`: position -> net beans; `won_today`/`lost_today`: beans already won/lost today
    (both >= 0); `order`: positions in seat order from the dealer (for remainder ties)."""
    losses, gains, reasons = {}, {}, {p: [] for p in owed}
    for p, net in owed.items():
        if net < 0:
            want = -net
            rooms = {"balance": max(0, balances[p]), "hand_limit": limits.per_hand,
                     "day_limit": max(0, limits.per_day - lost_today[p])}
            can = min(want, *rooms.values())
            if can < want:
                reasons[p] = [k for k, v in rooms.items() if v == can]
            losses[p] = can
        elif net > 0:
            rooms = {"hand_limit": limits.per_hand, "day_limit": max(0, limits.per_day - won_today[p])}
            can = min(net, *rooms.values())
            if can < net:
                reasons[p] = [k for k, v in rooms.items() if v == can]
            gains[p] = can
    paid_total = min(sum(losses.values()), sum(gains.values()))
    if sum(losses.values()) > paid_total:
        for p in losses:
            if losses[p] and not reasons[p]:
                reasons[p] = ["winners_cut"]
    if sum(gains.values()) > paid_total:
        for p in gains:
            if gains[p] and not reasons[p]:
                reasons[p] = ["losers_cut"]
    losses = _scale(losses, paid_total, order)
    gains = _scale(gains, paid_total, order)
    paid = {p: 0 for p in owed}
    for p, v in losses.items():
        paid[p] = -v
    for p, v in gains.items():
        paid[p] = v
    return Cut(owed=dict(owed), paid=paid, reasons={p: r for p, r in reasons.items() if r})
