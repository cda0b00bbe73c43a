"""Issue 9, "No stuck rooms", proved in four real browsers through the real stack.

Four friends sign up (one on a phone-sized page), the host opens a 4-hand room with the shortest
clocks (5 s turns, 3 s claims), the others join by the invite link and everyone presses 准备.
A few moves into hand 1 one of them simply closes the browser. The other three go on playing as
people do — 胡 when it is offered, 过 on other claims, a discard by tests/e2e_policy.py on their
turn, 准备下一局 on the result screen after a moment (and on one result screen one of them does
not press it at all, so the countdown has to deal the next hand). Nobody uses staff tools or 解散.

The absent seat times out, goes on 托管 and then plays by itself; the result screen's ready
countdown (NEXT_HAND_SECONDS, 8 s here) and "offline and 托管 seats are ready by themselves" deal
the next hands; during hand 2 the leaver comes back in a new browser, logs in, opens the room,
presses 取消托管 and plays on. The game must reach the final summary (全场结束) on every page in
bounded time, and afterwards every player's header balance equals their ledger (the 金豆 page's
rows, each row's running balance, and the database), and the room's rows equal the summary.

Screenshots go to test-output/e2e/leaver-*.png (phone page: table with the absent seat, result
screen with the countdown, final summary).
"""

import json
import re
import sqlite3
import time

import pytest

from tests.test_e2e_browser import (CHROMIUM, click_when_shown, press_ready, DESKTOP, LAUNCH_ARGS, OUTPUT, PHONE, click_if_visible,
                                    discard_by_policy, real_stack, sign_up, sync_playwright, wait_connected)

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite]

SEED_BASE = "leaver-1"
NEXT_HAND_SECONDS = 8  # long enough to tell "everyone present pressed" from "the countdown ran out"
PASSWORD = "a-long-pass-1234"  # what tests/test_e2e_browser.sign_up uses
LEAVER = 3  # the player (and seat: players sit in the order they join) who closes the browser
PHONE_PLAYER = 1
# seconds each player takes to press 准备下一局 after the result screen appears
READY_DELAY = {0: 1.0, 1: 2.5, 2: 1.5, 3: 2.0}
# the player who does not press 准备下一局 after this hand: the countdown must deal the next one
NO_READY = (2, 3)
PLAY_SECONDS = 480  # the whole game, from the first deal to the final summary on every page
STUCK_SECONDS = 45  # no new room version for this long on any page: stuck

STATE_JS = """() => {
  const q = s => document.querySelector(s);
  const badge = q('#status .badge.phase');
  const phase = badge ? ([...badge.classList].find(c => c.startsWith('phase-')) || '').slice(6) : '';
  const no = q('#status .hand-no');
  const m = no ? no.textContent.match(/第\\s*(\\d+)/) : null;
  const clock = q('#clock');
  return {
    phase, hand: m ? Number(m[1]) : 0,
    room_v: clock ? clock.dataset.roomVersion : null, hand_v: clock ? clock.dataset.handVersion : null,
    win: !!q('#actions button.act-win'), pass: !!q('#actions button.act-pass'),
    discard: !!q('#hand .my-hand.can-discard button[data-tile]'),
    ready: !!q('#actions button.primary.big'),
    countdown: q('#actions .next-hand .countdown') ? q('#actions .next-hand .countdown').textContent : null,
    auto_off: !!q('#actions .auto-banner button.primary'),
    summary: !!q('#result .summary-table'),
    conn_lost: q('#conn') ? !q('#conn').hidden : false,
    sending: !!q('#room.sending'),
  };
}"""


@pytest.fixture
def stack(tmp_path):
    """The real stack with an 8 s ready countdown."""
    with real_stack(tmp_path, GAME_SEED_BASE=SEED_BASE, NEXT_HAND_SECONDS=str(NEXT_HAND_SECONDS)) as running:
        yield running


def state_of(page):
    try:
        return page.evaluate(STATE_JS)
    except Exception:  # navigating or closed
        return {}


def beans_number(text):
    """'+1,200' / '−300' / '1,000 金豆' -> int."""
    m = re.search(r"([+\u2212-]?)([\d,]+)", text)
    assert m, text
    n = int(m.group(2).replace(",", ""))
    return -n if m.group(1) in ("\u2212", "-") else n


def header_balance(page):
    return beans_number(page.locator("header .bean-chip .bean-balance").inner_text())


def log(t0, message):
    print(f"[{time.monotonic() - t0:6.1f}s] {message}", flush=True)


def test_a_player_who_closes_the_browser_does_not_stop_the_game(stack):
    base, output, env = stack
    db_path = env["DATABASE_URL"].removeprefix("sqlite:///")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            def new_context(i):
                phone = i == PHONE_PLAYER
                return browser.new_context(viewport=PHONE if phone else DESKTOP, locale="zh-CN",
                                           is_mobile=phone, has_touch=phone)

            contexts = {i: new_context(i) for i in range(4)}
            pages = {i: contexts[i].new_page() for i in range(4)}
            errors = []

            def watch(pg):
                pg.on("pageerror", lambda e: errors.append(str(e)))

            for i, pg in pages.items():
                watch(pg)
                sign_up(pg, base, f"player{i}")

            host = pages[0]
            host.goto(f"{base}/lobby/")
            host.check("input[name=players][value='4']")
            host.select_option("select[name=length]", "hands:4")
            host.fill("input[name=turn_seconds]", "5")
            host.fill("input[name=claim_seconds]", "3")
            host.click("form.room-form button[type=submit]")
            host.wait_for_url(re.compile(r"/room/\d+/"))
            room_url = host.url
            room_id = int(re.search(r"/room/(\d+)/", room_url).group(1))
            invite = host.locator("input.invite-url").first.input_value()
            for i in (1, 2, 3):
                pages[i].goto(invite)
                pages[i].click("main form button[type=submit].primary")
                pages[i].wait_for_url(room_url)
            for pg in pages.values():
                wait_connected(pg)
                pg.wait_for_function("() => ['player0','player1','player2','player3'].every("
                                     "n => document.querySelector('#seats').textContent.includes(n + '昵称'))",
                                     timeout=10000)
            press_ready(list(pages.values()))
            for pg in pages.values():
                pg.wait_for_selector("#hand .my-hand", timeout=15000)
            log(t0, f"room {room_id}: hand 1 dealt")

            # --- play -------------------------------------------------------------------------
            active = {0, 1, 2, 3}
            left = returned = False
            actions = 0
            result_seen = {}  # (player, hand) -> when the result screen was first seen
            pressed = set()  # (player, hand) 准备下一局 pressed
            timeline = []  # (seconds, event)
            last_phase = None
            shots = set()
            progress = time.monotonic()
            last_versions = None
            deadline = time.monotonic() + PLAY_SECONDS
            finished_at = None
            iterations = 0
            while True:
                now = time.monotonic()
                states = {i: state_of(pages[i]) for i in sorted(active)}
                people = [i for i in active]
                if all(states[i].get("phase") == "finished" and states[i].get("summary") for i in people):
                    finished_at = now
                    break
                versions = tuple(states[i].get("room_v") for i in people)
                if versions != last_versions:
                    last_versions, progress = versions, now
                host_state = states[0]
                key = (host_state.get("phase"), host_state.get("hand"))
                if key != last_phase:
                    last_phase = key
                    timeline.append((round(now - t0, 1), key))
                    log(t0, f"host sees {key}")
                if now > deadline or now - progress > STUCK_SECONDS:
                    summary = "\n".join(f"player{i}: {states[i]}" for i in people)
                    pytest.fail(("no progress for %d s" % STUCK_SECONDS if now - progress > STUCK_SECONDS
                                 else "the game did not finish in time")
                                + f"\n{summary}\ntimeline: {timeline}\n--- server ---\n" + output.text()[-6000:])

                # the leaver closes the browser a few moves into hand 1
                if not left and actions >= 8:
                    contexts[LEAVER].close()
                    active.discard(LEAVER)
                    left = True
                    log(t0, f"player{LEAVER} closed the browser after {actions} moves")
                    continue

                # the phone page shows the absent seat as 离线 and, after two timeouts, 托管
                if left and "table" not in shots and states[PHONE_PLAYER].get("phase") == "playing":
                    seat = pages[PHONE_PLAYER].locator(f"#table .player[data-position='{LEAVER}']")
                    if seat.locator(".badge.offline").count() and seat.locator(".badge.auto").count():
                        pages[PHONE_PLAYER].screenshot(path=str(OUTPUT / "leaver-table-phone.png"), full_page=True)
                        shots.add("table")
                        log(t0, f"phone page shows player{LEAVER} 离线 and 托管")

                # the leaver comes back during hand 2 in a new browser and takes the seat back
                if left and not returned and host_state.get("phase") == "playing" and host_state.get("hand") == 2:
                    ctx = new_context(LEAVER)
                    pg = ctx.new_page()
                    watch(pg)
                    pg.goto(f"{base}/accounts/login/")
                    pg.fill("input[name=username]", f"player{LEAVER}")
                    pg.fill("input[name=password]", PASSWORD)
                    pg.click("main form button[type=submit].primary")
                    pg.wait_for_load_state()
                    pg.goto(room_url)
                    wait_connected(pg)
                    st = state_of(pg)
                    assert st.get("phase") == "playing" and st.get("auto_off"), st
                    assert pg.locator("#table .player.side-bottom .name").inner_text() == f"player{LEAVER}昵称"
                    assert click_when_shown(pg, "#actions .auto-banner button.primary"), "no 取消托管 button"
                    pg.wait_for_function("() => !document.querySelector('#actions .auto-banner')", timeout=10000)
                    contexts[LEAVER], pages[LEAVER] = ctx, pg
                    active.add(LEAVER)
                    returned = True
                    log(t0, f"player{LEAVER} is back (hand 2) and pressed 取消托管")
                    host_seat = pages[0].locator(f"#table .player[data-position='{LEAVER}']")
                    pages[0].wait_for_function(
                        f"() => {{ const s = document.querySelector(\"#table .player[data-position='{LEAVER}']\");"
                        " return !s || (!s.querySelector('.badge.offline') && !s.querySelector('.badge.auto')); }",
                        timeout=10000)
                    assert host_seat.count() == 0 or host_seat.locator(".badge.auto").count() == 0
                    continue

                iterations += 1
                moved = False
                for i in sorted(active):
                    st, pg = states[i], pages[i]
                    if st.get("sending"):
                        continue  # the page dims its buttons until the server answers
                    if st.get("phase") == "playing":
                        if ((st.get("win") and click_if_visible(pg, "#actions button.act-win"))
                                or (st.get("pass") and click_if_visible(pg, "#actions button.act-pass"))
                                or (st.get("discard") and discard_by_policy(pg))):
                            moved = True
                            actions += 1
                    elif st.get("phase") == "result":
                        k = (i, st.get("hand"))
                        seen = result_seen.setdefault(k, now)
                        if i == PHONE_PLAYER and "result" not in shots and st.get("countdown") and now - seen > 0.8:
                            pages[i].screenshot(path=str(OUTPUT / "leaver-result-phone.png"), full_page=True)
                            shots.add("result")
                        if (st.get("ready") and k not in pressed and (i, st.get("hand")) != NO_READY
                                and now - seen >= READY_DELAY[i]):
                            if click_if_visible(pg, "#actions button.primary.big"):
                                pressed.add(k)
                                log(t0, f"player{i} pressed 准备下一局 after hand {st.get('hand')}")
                                moved = True
                if not moved:
                    pages[0].wait_for_timeout(100)

            log(t0, f"final summary on every page (play took {finished_at - timeline[0][0] - t0:.0f} s, "
                    f"{iterations} rounds, {actions} moves by the pages)")
            assert left and returned
            assert "result" in shots and "table" in shots, shots
            # every hand ended and was dealt: 4 result screens were seen by the host
            results = [k for (i, k) in result_seen if i == 0]
            assert sorted(results) == [1, 2, 3], result_seen  # hand 4 ends in the final summary
            db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
            try:
                hands = db.execute(
                    "SELECT h.number, h.status, h.version, julianday(h.started_at), julianday(h.ended_at)"
                    " FROM games_hand h JOIN games_game g ON g.id = h.game_id WHERE g.room_id = ? ORDER BY h.number",
                    (room_id,)).fetchall()
                events = db.execute(
                    "SELECT h.number, e.seq, e.action, e.auto FROM games_handevent e JOIN games_hand h ON h.id = e.hand_id"
                    " JOIN games_game g ON g.id = h.game_id WHERE g.room_id = ? ORDER BY h.number, e.seq",
                    (room_id,)).fetchall()
            finally:
                db.close()
            assert [(n, st) for n, st, *_ in hands] == [(k, "ended") for k in (1, 2, 3, 4)], hands
            gaps = {hands[k][0]: round((hands[k + 1][3] - hands[k][4]) * 86400, 1) for k in range(3)}
            lengths = {n: round((end - start) * 86400) for n, _st, _v, start, end in hands}
            moves = {}
            for number, _seq, action, auto in events:
                seat = json.loads(action).get("seat")
                moves.setdefault((number, seat, "auto" if auto else "own"), 0)
                moves[(number, seat, "auto" if auto else "own")] += 1
            log(t0, f"hand lengths (s): {lengths}; result -> next deal (s): {gaps}")
            log(t0, f"moves by (hand, seat, auto/own): {dict(sorted(moves.items()))}")
            # after hand 1 the three present players pressed within a few seconds: the offline 托管
            # seat was ready by itself and the next hand did not wait for the countdown
            assert gaps[1] < NEXT_HAND_SECONDS - 2, gaps
            # after hand 3 one present player never pressed: the countdown dealt hand 4
            assert NO_READY not in pressed and gaps[3] >= NEXT_HAND_SECONDS - 0.5, gaps
            # the absent seat played by itself in hand 1, and by its returned player from hand 3 on
            assert moves.get((1, LEAVER, "auto"), 0) >= 3, moves
            assert moves.get((3, LEAVER, "own"), 0) >= 3 and moves.get((4, LEAVER, "own"), 0) >= 3, moves

            phone = pages[PHONE_PLAYER]
            phone.locator("#result .summary-table").scroll_into_view_if_needed()
            phone.screenshot(path=str(OUTPUT / "leaver-final-phone.png"), full_page=True)
            for i in sorted(active):
                text = pages[i].locator("#result").inner_text()
                assert "全场结束" in text and "共打了 4 局" in text, text
            summary = {}
            for row in pages[0].locator("#result .summary-table tbody tr").all():
                position = int(row.get_attribute("data-position"))
                summary[position] = beans_number(row.locator("td.num").last.inner_text())
            assert sorted(summary) == [0, 1, 2, 3], summary
            assert sum(summary.values()) == 0, summary  # beans only move between the players
            log(t0, f"summary beans by seat: {summary}")

            # --- every player's balance is their ledger -----------------------------------------
            db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
            try:
                for i in sorted(active):
                    pg = pages[i]
                    pg.goto(f"{base}/lobby/")
                    lobby_balance = header_balance(pg)
                    pg.goto(f"{base}/accounts/beans/")
                    balance = header_balance(pg)
                    shown = int(pg.locator("#balance [data-balance]").get_attribute("data-balance"))
                    assert not pg.locator("nav.pager").count(), "the ledger should fit on one page"
                    rows = pg.locator("#ledger .ledger-row").all()
                    amounts = [beans_number(r.locator("td.amount").inner_text()) for r in rows]
                    afters = [beans_number(r.locator("td.after").inner_text()) for r in rows]
                    rooms = [r.locator("td.hand").inner_text() for r in rows]
                    assert lobby_balance == balance == shown == sum(amounts), (i, lobby_balance, balance, shown, amounts)
                    # newest first: each row's running balance is the one below it plus its amount
                    assert afters[0] == balance
                    for k in range(len(rows)):
                        below = afters[k + 1] if k + 1 < len(rows) else 0
                        assert afters[k] == below + amounts[k], (i, k, amounts, afters)
                    in_room = sum(a for a, r in zip(amounts, rooms) if f"房间 #{room_id}" in r)
                    assert in_room == summary[i], (i, in_room, summary)
                    db_sum, db_balance = db.execute(
                        "SELECT (SELECT COALESCE(SUM(e.amount), 0) FROM accounts_ledgerentry e WHERE e.wallet_id = w.id),"
                        " w.balance FROM accounts_wallet w JOIN auth_user u ON u.id = w.user_id WHERE u.username = ?",
                        (f"player{i}",)).fetchone()
                    assert db_sum == db_balance == balance, (i, db_sum, db_balance, balance)
                    log(t0, f"player{i}: header {balance} = ledger {len(rows)} rows (room {in_room:+d})")
            finally:
                db.close()
            assert not errors, errors
        finally:
            browser.close()
    for name in ("leaver-table-phone.png", "leaver-result-phone.png", "leaver-final-phone.png"):
        assert (OUTPUT / name).stat().st_size > 10_000
    log(t0, f"timeline: {timeline}")
