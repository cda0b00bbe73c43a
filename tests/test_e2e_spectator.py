"""观战 on phones through the real server: two players play while a third user watches.

The real stack (tests/test_e2e_browser.py's `real_stack`: daphne, Redis channel layer, Celery) and
headless Debian Chromium at 360×740 (device scale 2, touch). The host opens a 2-player Taizhou room
allowing 任何有链接的人 to watch with a delay of 1 move; the guest joins by the invite link; a third
user signs up and opens the watch link the host's page shows (☰ / the room panel: 观战链接). The
watcher sees the waiting room, then the table: no hand of their own, no button that sends anything,
the 观战中 bar with the delay, the table one move behind the players' (the clock's hand version);
the players' tables say 1 人观战. The hand is played to its end by tapping what the pages offer
(tests/e2e_policy.py); the watcher then sees the result with every hand open.

Screenshots go to test-output/spectator/ (look at them).
"""

import re
import time

import pytest

from tests.test_e2e_browser import (CHROMIUM, press_ready, LAUNCH_ARGS, OUTPUT, click_if_visible, discard_by_policy, real_stack,
                                    sign_up, sync_playwright, wait_connected)

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite]

SHOTS = OUTPUT.parent / "spectator"
PHONE = {"width": 360, "height": 740}



def one_move_behind(watcher, players, seconds=15):
    """Whether, within `seconds`, the players' pages agree on a hand version (no move on its way:
    no page still `.sending`) and the watcher shows the version just before it. Polled: on a loaded
    machine a move sent just before the check lands meanwhile, and both sides move on."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if any(pg.locator("#result .score-cards").count() for pg in players):
            return True  # the hand ended meanwhile: the watcher is shown everything (checked below)
        live = {hand_version(pg) for pg in players}
        if (len(live) == 1 and not any(pg.locator("#room.sending").count() for pg in players)
                and hand_version(watcher) == live.pop() - 1):
            return True
        watcher.wait_for_timeout(100)
    return False


def hand_version(pg) -> int:
    return int(pg.evaluate("() => document.querySelector('#clock').dataset.handVersion || '0'"))


def test_a_friend_watches_two_players_on_a_phone(tmp_path):
    started = time.monotonic()
    SHOTS.mkdir(parents=True, exist_ok=True)
    with real_stack(tmp_path, GAME_SEED_BASE="e2e-spectator-1") as (base, output, _env):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            try:
                contexts = [browser.new_context(viewport=PHONE, locale="zh-CN", is_mobile=True, has_touch=True,
                                                device_scale_factor=2) for _ in range(3)]
                pages = [c.new_page() for c in contexts]
                errors = []
                for pg in pages:
                    pg.on("pageerror", lambda e: errors.append(str(e)))
                for i, pg in enumerate(pages):
                    sign_up(pg, base, f"sp{i}")
                host, guest, watcher = pages
                players = [host, guest]

                host.goto(f"{base}/lobby/")
                host.check("input[name=players][value='2']")
                host.select_option("select[name=length]", "hands:4")
                host.fill("input[name=turn_seconds]", "120")
                host.fill("input[name=claim_seconds]", "60")
                host.select_option("select[name=spectators]", "anyone")
                host.select_option("select[name=spectator_delay]", "1")
                host.locator("select[name=spectators]").scroll_into_view_if_needed()
                host.screenshot(path=str(SHOTS / "lobby-form.png"))
                host.click("form.room-form button[type=submit]")
                host.wait_for_url(re.compile(r"/room/\d+/"))
                invite = host.locator("input.invite-url").first.input_value()
                # the socket's first full view may swap #status (closing the details) at any moment:
                # read the link's text whether it is shown or not
                watch_url = (host.locator("#status .watch-link code").first.text_content(timeout=10000) or "").strip()
                assert re.search(r"/room/\d+/watch/[0-9a-f]{20}/$", watch_url), watch_url
                guest.goto(invite)
                guest.click("main form button[type=submit].primary")
                guest.wait_for_url(host.url)

                watcher.goto(watch_url)
                wait_connected(watcher)
                assert "观战中" in watcher.locator("#actions").inner_text()
                assert watcher.locator("[ws-send]").count() == 0
                assert watcher.locator("#invite-box").inner_text().strip() == ""  # no invite link for watchers
                assert watcher.locator("[data-room-number]").count() == 0  # nor the room number (it joins)
                watcher.screenshot(path=str(SHOTS / "watcher-waiting.png"))

                for pg in players:
                    wait_connected(pg)
                press_ready(players)
                for pg in pages:
                    pg.wait_for_selector("#table .felt", timeout=15000)
                for pg in players:
                    pg.wait_for_selector("#table .watchers-count", timeout=10000)
                    assert "1 人观战" in pg.locator("#table .table-top").inner_text()
                host.screenshot(path=str(SHOTS / "player-table-1-watching.png"))
                assert watcher.locator("#hand .my-hand").count() == 0
                assert watcher.locator("[ws-send]").count() == 0
                bar = watcher.locator("#actions .spectator-bar").inner_text()
                assert "慢 1 步" in bar and "看不到任何人的手牌" in bar, bar
                assert watcher.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
                watcher.screenshot(path=str(SHOTS / "watcher-table-start.png"))

                moves, lagged, shot = 0, 0, False
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    if all(pg.locator("#result .score-cards").count() for pg in players):
                        break
                    moved = False
                    for pg in players:
                        if (click_if_visible(pg, "#actions button.act-win")
                                or click_if_visible(pg, "#actions button.act-pass")
                                or discard_by_policy(pg)):
                            moved = True
                            moves += 1
                            pg.wait_for_timeout(60)
                    if not moved:
                        host.wait_for_timeout(100)
                    if moved and moves % 3 == 0:  # at a quiet moment the watcher is exactly one move behind
                        host.wait_for_timeout(400)
                        if host.locator("#table .felt").count() and hand_version(host) >= 1:
                            assert one_move_behind(watcher, players), (hand_version(watcher), hand_version(host))
                            lagged += 1
                            if not shot and moves >= 6:
                                watcher.screenshot(path=str(SHOTS / "watcher-table-in-play.png"))
                                guest.screenshot(path=str(SHOTS / "player-table-in-play.png"))
                                shot = True
                else:
                    pytest.fail("the hand did not reach the result screen in time\n" + output.text()[-3000:])
                assert lagged >= 2, lagged
                watcher.wait_for_selector("#result .score-cards", timeout=10000)
                result = watcher.locator("#result").inner_text()
                assert "第 1 局结果" in result, result
                assert watcher.locator("#result .open-hand [data-tile]").count() >= 13 * 2
                assert watcher.locator("#result a[href*='replay']").count() == 0
                assert watcher.locator("[ws-send]").count() == 0
                watcher.screenshot(path=str(SHOTS / "watcher-result.png"), full_page=True)
                print(f"{moves} moves, the watcher one move behind at {lagged} checks")
                assert not errors, errors
            finally:
                browser.close()
    for name in ("watcher-table-start.png", "watcher-result.png", "player-table-1-watching.png"):
        assert (SHOTS / name).stat().st_size > 10_000
    print(f"test time {time.monotonic() - started:.1f} s")
