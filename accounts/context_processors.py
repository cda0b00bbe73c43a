"""`header_beans` for the site header: the player's 金豆 and today's won/lost against the day limit.

Cheap: one wallet read (with the day limit from SiteSettings in the same query) and one aggregate
over today's hand rows, done only when a template uses it; nothing for anonymous users.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Subquery
from django.utils.functional import SimpleLazyObject

from accounts import beans as bean_service
from accounts.models import SiteSettings, Wallet


@dataclass(frozen=True)
class HeaderBeans:
    balance: int
    won_today: int
    lost_today: int
    day_limit: int

    @property
    def at_day_limit(self) -> bool:
        return self.won_today >= self.day_limit or self.lost_today >= self.day_limit


def header_beans(user) -> HeaderBeans:
    limit = SiteSettings.objects.filter(pk=1).values("day_limit")[:1]
    row = Wallet.objects.filter(user_id=user.pk).annotate(limit=Subquery(limit)).values("pk", "balance", "limit").first()
    if row is None:  # a user from before the beans existed: the wallet (and its grant) on first sight
        wallet = bean_service.wallet_for(user)
        row = {"pk": wallet.pk, "balance": wallet.balance, "limit": SiteSettings.current().day_limit}
    day_limit = row["limit"]
    if day_limit is None:  # the settings row is made on first use
        day_limit = SiteSettings._meta.get_field("day_limit").get_default()
    won, lost = bean_service.day_totals(Wallet(pk=row["pk"], user_id=user.pk, balance=row["balance"]))
    return HeaderBeans(balance=row["balance"], won_today=won, lost_today=lost, day_limit=day_limit)


def beans(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"header_beans": SimpleLazyObject(lambda: header_beans(user))}
