"""The header's 金豆 on the room page follows the settled hand (issue 14), over the real sockets
(channels.testing.WebsocketCommunicator through the ASGI application): four seats, each sees its
own new balance as an out-of-band #header-beans when the result comes; a socket that (re)connects
on the result screen gets it in its first view; nothing is sent again while it has not changed.
(tests/test_header_beans.py covers two seats and the page's own chip.)"""

import re

import pytest

from accounts.models import Wallet
from games.models import Hand
from tests.replay_helpers import fixed_seeds, play_hand
from tests.room_helpers import act, connect, current_hand, db, make_room, run, start, sync_all

pytestmark = pytest.mark.django_db(transaction=True)

SEED_4 = 2  # 4 players, policy play: seat 2 wins on seat 1's discard; the others pay 52 / 26 / 26 胡


def balances(users):
    return {p: Wallet.objects.get(user=u).balance for p, u in users.items()}


def chip_balance(html):
    m = re.search(r'<span class="bean-balance">([\d,]+) 金豆</span>', html)
    assert m, html
    return int(m.group(1).replace(",", ""))


def test_four_seats_each_see_their_own_new_balance_when_the_hand_settles(monkeypatch):
    fixed_seeds(monkeypatch, [SEED_4])
    room, users = make_room(players=4, length=4)

    async def scenario():
        players = await start(room, users)
        before = await db(balances, users)
        hand = await db(current_hand, room.pk)
        for p in players:
            assert not any("header-beans" in m for m in p.messages)  # nothing during the hand
        await db(lambda: play_hand(Hand.objects.get(pk=hand.pk), users))
        await sync_all(players, room.pk)
        after = await db(balances, users)
        result = await db(lambda: Hand.objects.get(pk=hand.pk).result)
        assert result["winner"] == 2 and result["discarder"] == 1
        assert all(after[p] != before[p] for p in users), (before, after)
        for p in players:
            chip = p.page["header-beans"]
            assert chip.startswith('<div id="header-beans"') and 'hx-swap-oob="true"' in chip
            assert chip_balance(chip) == after[p.position]
            assert sum(m.count('id="header-beans"') for m in p.messages) == 1  # sent once, when it changed

        # a later update of the result screen (a seat presses 准备下一局) does not send it again
        await act(players, room.pk, players[3], {"action": "ready"})
        for p in players:
            assert sum(m.count('id="header-beans"') for m in p.messages) == 1

        # a page opened (or a socket reconnected) on the result screen: its first view has the chip
        again = await connect(room.pk, users[1], 1)
        assert chip_balance(again.page["header-beans"]) == after[1]
        for p in [*players, again]:
            await p.comm.disconnect()

    run(scenario)
