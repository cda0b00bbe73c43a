"""The header's 金豆 follows a settled hand live: every seat's socket swaps its own balance into the
site header when the result screen comes (no reload), and never another player's."""

import re

import pytest

from accounts.models import Wallet
from games.models import Hand
from tests.replay_helpers import SEED_GUEST_WINS, fixed_seeds, play_hand
from tests.room_helpers import current_hand, db, make_room, run, start, sync_all

pytestmark = pytest.mark.django_db(transaction=True)


def balances(users):
    return {p: Wallet.objects.get(user=u).balance for p, u in users.items()}


def shown_balance(html):
    m = re.search(r'<span class="bean-balance">([\d,]+) 金豆</span>', html)
    assert m, html
    return int(m.group(1).replace(",", ""))


def test_the_header_balance_is_refreshed_when_the_hand_settles(monkeypatch):
    fixed_seeds(monkeypatch, [SEED_GUEST_WINS])  # the guest wins on the host's discard
    room, users = make_room(players=2, length=4)

    async def scenario():
        players = await start(room, users)
        before = await db(balances, users)
        for p in players:  # during the hand the header is the page's own (no live chip is sent)
            assert "header-beans" not in p.page
        hand = await db(current_hand, room.pk)
        # both seats play through the services (the same path as their sockets), the sockets listen
        await db(lambda: play_hand(Hand.objects.get(pk=hand.pk), users))
        await sync_all(players, room.pk)
        after = await db(balances, users)
        result = await db(lambda: Hand.objects.get(pk=hand.pk).result)
        assert result is not None and result.get("winner") is not None  # this seed's hand is won
        assert after != before, "a won hand moved no beans"
        for p in players:
            chip = p.page["header-beans"]
            assert 'hx-swap-oob="true"' in chip
            assert shown_balance(chip) == after[p.position]
            other = after[1 - p.position]
            if other != after[p.position]:
                assert f"{other:,} 金豆" not in chip  # only one's own wallet
        for p in players:
            await p.comm.disconnect()

    run(scenario)


def test_the_room_page_header_has_the_stable_id(client, settings):
    settings.GAME_SEED_BASE = "tests"
    room, users = make_room(players=2, length=4)
    client.force_login(users[0])
    html = client.get(f"/room/{room.pk}/").content.decode()
    assert html.count('id="header-beans"') == 1
    assert shown_balance(html) == Wallet.objects.get(user=users[0]).balance


def test_the_kept_chip_follows_every_ledger_entry_the_day_and_the_language(host, django_assert_num_queries):
    """The chip is kept per wallet state (games.table.render_header_beans): a result screen's
    every update reads one row for it; a new ledger entry shows at once, even one that leaves the
    balance where it was (today's won and lost moved), and so does a new day limit."""
    from django.utils import translation

    from accounts import beans
    from accounts.models import LedgerEntry, SiteSettings
    from games import table

    with translation.override("zh-hans"):
        first = table.render_header_beans(host)
        with django_assert_num_queries(1):  # kept: the wallet's state only
            assert table.render_header_beans(host) == first
        start = shown_balance(first)
        assert "今日 +0 / −0" in first

        wallet = Wallet.objects.get(user=host)
        beans._post(wallet, 300, LedgerEntry.HAND, "t:won")
        beans._post(wallet, -300, LedgerEntry.HAND, "t:lost")
        moved = table.render_header_beans(host)
        assert shown_balance(moved) == start and "今日 +300 / −300" in moved

        SiteSettings.objects.update_or_create(pk=1, defaults={"day_limit": 300})
        capped = table.render_header_beans(host)
        assert "at-limit" in capped and "at-limit" not in moved
    with translation.override("en"):
        assert table.render_header_beans(host) != capped  # the English chip is its own
