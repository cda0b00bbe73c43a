"""Two friends play a Zhuji (诸暨麻将) hand in 包 mode on phones through the real server.

The real stack (tests/test_e2e_browser.py's `real_stack`: daphne, Redis channel layer, Celery)
and headless Debian Chromium at 360×740 (device scale 2, touch). The host opens a Zhuji room in
the lobby with 包 and 底分 2 (the mode, wild and unit fields appear only once Zhuji is chosen),
the guest joins by the invite link, both press Ready. The dealer (the host) gets the contract
grid — it fits the phone's width without scrolling sideways and its buttons are at least 40 px
high — and taps 2 台 with two wild faces; the guest meanwhile sees whom the table waits for. Both
phones then show 包 2 台, 底分 2 and the two wild faces. The hand is played to its end by tapping
what the pages offer (tests/e2e_policy.py), and the result is a win in 分 or 包输 (the dealer
pays). Then the guest leaves from the ☰ menu (逃跑, confirmed): the host's phone shows 已逃跑.

Screenshots go to test-output/zhuji/ (look at them).
"""

import re
import time

import pytest

from tests.test_e2e_browser import (CHROMIUM, press_ready, LAUNCH_ARGS, OUTPUT, click_if_visible, discard_by_policy, real_stack,
                                    sign_up, sync_playwright, wait_connected)

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite]

SHOTS = OUTPUT.parent / "zhuji"
PHONE = {"width": 360, "height": 740}


def test_two_friends_play_a_zhuji_bao_hand_on_phones(tmp_path):
    started = time.monotonic()
    SHOTS.mkdir(parents=True, exist_ok=True)
    with real_stack(tmp_path, GAME_SEED_BASE="e2e-zj-1") as (base, output, _env):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            try:
                contexts = [browser.new_context(viewport=PHONE, locale="zh-CN", is_mobile=True, has_touch=True,
                                                device_scale_factor=2) for _ in range(2)]
                pages = [c.new_page() for c in contexts]
                errors = []
                for pg in pages:
                    pg.on("pageerror", lambda e: errors.append(str(e)))
                    pg.on("dialog", lambda d: d.accept())  # 逃跑 asks for confirmation
                for i, pg in enumerate(pages):
                    sign_up(pg, base, f"zj{i}")

                host, guest = pages
                host.goto(f"{base}/lobby/")
                assert not host.locator("select[name=mode]").is_visible()  # Taizhou chosen: no Zhuji fields
                host.select_option("select[name=variant]", "zhuji")
                assert host.locator("select[name=mode]").is_visible()
                assert not host.locator("select[name=odd_base]").is_visible()  # Wenzhou's
                host.select_option("select[name=mode]", "bao")
                host.select_option("select[name=unit]", "2")
                host.check("input[name=players][value='2']")
                host.select_option("select[name=length]", "hands:4")
                host.fill("input[name=turn_seconds]", "120")
                host.fill("input[name=claim_seconds]", "60")
                host.screenshot(path=str(SHOTS / "lobby.png"), full_page=True)
                host.click("form.room-form button[type=submit]")
                host.wait_for_url(re.compile(r"/room/\d+/"))
                assert "诸暨麻将" in host.content()
                invite = host.locator("input.invite-url").first.input_value()
                guest.goto(invite)
                guest.click("main form button[type=submit].primary")
                guest.wait_for_url(host.url)
                for pg in pages:
                    wait_connected(pg)
                press_ready(pages)

                # --- 定包: the dealer (host) names the contract ---
                host.wait_for_selector("#actions #contract-grid", timeout=15000)
                guest.wait_for_selector("#actions #decision-prompt", timeout=5000)
                assert guest.locator("#contract-grid").count() == 0
                assert "zj0昵称" in guest.locator("#decision-prompt").inner_text()
                grid = host.locator("#contract-grid").bounding_box()
                assert grid["x"] >= 0 and grid["x"] + grid["width"] <= PHONE["width"], grid
                assert host.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
                cells = host.locator("#contract-grid button.act-contract")
                assert cells.count() == 15
                heights = cells.evaluate_all("bs => bs.map(b => b.getBoundingClientRect().height)")
                assert min(heights) >= 40, heights
                assert "定包后翻出" in host.locator("#table").inner_text()
                host.screenshot(path=str(SHOTS / "contract-dealer.png"))
                guest.screenshot(path=str(SHOTS / "contract-waiting.png"))
                host.locator("#contract-grid button[data-contract='2:2']").tap(timeout=5000)

                for pg in pages:
                    pg.wait_for_selector("#table .wild-faces [data-tile]", timeout=10000)
                    bar = pg.locator("#table").inner_text()
                    assert "包 2 台" in bar and "底分 2" in bar, bar
                    assert pg.locator("#table .wild-faces [data-tile]").count() == 2
                    assert pg.locator("#actions #decision-prompt").count() == 0
                host.screenshot(path=str(SHOTS / "table-after-contract.png"))

                # --- 快捷语: the guest says a phrase, the host sees it at the guest's seat; muted, no more ---
                guest.locator("#table .phrase-btn").tap(timeout=5000)
                guest.wait_for_selector("#phrase-panel:not([hidden])", timeout=5000)
                guest.screenshot(path=str(SHOTS / "phrases-panel.png"))
                guest.locator("#phrase-panel .phrase-list button").first.tap(timeout=5000)
                bubble = host.wait_for_selector("#phrase-bubbles .phrase-bubble", timeout=5000)
                assert "快点吧" in bubble.inner_text()
                seat = host.locator("#table .felt .side-top .player-head").bounding_box()
                box = bubble.bounding_box()
                assert abs(box["y"] - (seat["y"] + seat["height"])) < 40, (box, seat)  # at the sender's seat (对家 here)
                host.wait_for_timeout(300)  # the bubble's pop-in
                host.screenshot(path=str(SHOTS / "phrase-bubble.png"))
                assert guest.locator("#phrase-panel").get_attribute("hidden") is not None  # closed once sent
                host.locator("#table .phrase-btn").tap(timeout=5000)
                host.locator("#phrase-panel [data-mute-position]").first.check()
                host.locator("#phrase-panel .phrase-close").tap()
                host.wait_for_selector("#phrase-bubbles .phrase-bubble", state="detached", timeout=8000)
                guest.wait_for_timeout(2100)  # the phrase rate limit: one every 2 s
                guest.locator("#table .phrase-btn").tap(timeout=5000)
                guest.locator("#phrase-panel .emoji-row button").first.tap(timeout=5000)
                guest.wait_for_selector("#phrase-bubbles .phrase-bubble", timeout=5000)  # the sender sees it
                host.wait_for_timeout(800)
                assert host.locator("#phrase-bubbles .phrase-bubble").count() == 0  # muted here

                # --- the hand to its end ---
                moves = 0
                deadline = time.monotonic() + 90
                while time.monotonic() < deadline:
                    if all(pg.locator("#result .score-cards").count() for pg in pages):
                        break
                    moved = False
                    for pg in pages:
                        if (click_if_visible(pg, "#actions button.act-win")
                                or click_if_visible(pg, "#actions button.act-pass")
                                or discard_by_policy(pg)):
                            moved = True
                            moves += 1
                            pg.wait_for_timeout(60)
                    if not moved:
                        pages[0].wait_for_timeout(100)
                    if moves % 10 == 5:
                        guest.screenshot(path=str(SHOTS / "table-in-play.png"))
                else:
                    pytest.fail("the hand did not reach the result screen in time\n" + output.text()[-3000:])
                for who, pg in enumerate(pages):
                    result = pg.locator("#result").inner_text()
                    assert "第 1 局结果" in result, result
                    assert "包输" in result or " 胡 " in result or "自摸" in result, result
                    assert re.search(r"本局 [+-]?\d+ 分", result), result
                    pg.screenshot(path=str(SHOTS / f"result-{who}-screen.png"))
                print(f"{moves} moves; result: {' '.join(host.locator('#result').inner_text().split())[:300]}")

                # --- 逃跑 from the ☰ menu, between hands ---
                guest.locator("#actions .escape-btn, #status .escape-btn").first.click(timeout=5000)
                host.wait_for_selector("text=已逃跑", timeout=10000)
                guest.wait_for_selector("text=你已经离开了这场牌局", timeout=10000)
                host.screenshot(path=str(SHOTS / "after-escape-host.png"))
                guest.screenshot(path=str(SHOTS / "after-escape-guest.png"))
                assert not errors, errors
            finally:
                browser.close()
    for name in ("contract-dealer.png", "table-after-contract.png", "result-0-screen.png"):
        assert (SHOTS / name).stat().st_size > 10_000
    print(f"test time {time.monotonic() - started:.1f} s")
