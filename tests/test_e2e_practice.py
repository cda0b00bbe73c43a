"""练习 at phone size (issue 15): a person opens a practice room from the lobby on a 360×740 phone
(the real stack: daphne, Redis channel layer, Celery worker with the bots' pause at 0.3 s), the
three computer players sit and the hand is dealt at once; the person turns hints on in the ☰ menu
and sees the suggested discard marked in their hand (and the waits once ready), plays a whole hand
by tapping, and the result says 练习（不计金豆）. Screenshots go to test-output/practice/."""

import re
import time

import pytest

from tests.test_e2e_browser import (CHROMIUM, LAUNCH_ARGS, OUTPUT, click_if_visible, real_stack, sign_up,
                                    sync_playwright, wait_connected)

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite]

SHOTS = OUTPUT.parent / "practice"
PHONE = {"width": 360, "height": 740}


def test_a_practice_hand_with_hints_on_a_phone(tmp_path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    with real_stack(tmp_path, GAME_SEED_BASE="e2e-practice", BOT_DELAY_SECONDS="0.3") as (base, output, _env):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            try:
                context = browser.new_context(viewport=PHONE, locale="zh-CN", is_mobile=True, has_touch=True,
                                              device_scale_factor=2)
                page = context.new_page()
                errors = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                sign_up(page, base, "px0")
                page.goto(f"{base}/lobby/")
                page.select_option("#practice select[name=variant]", "taizhou")
                page.select_option("#practice select[name=players]", "4")
                page.click("#practice button[type=submit]")
                page.wait_for_url(re.compile(r"/room/\d+/"))
                wait_connected(page)
                page.wait_for_selector("#table .felt", timeout=15000)
                assert page.locator("#table .badge.bot").count() == 3
                # hints on, from the ☰ menu
                page.locator("#table .menu-btn").tap()
                page.locator("#status .hints-toggle").tap()
                page.wait_for_selector("#status .hints-toggle:has-text('关闭提示')", timeout=10000)
                click_if_visible(page, "#status .menu-close")
                shots = 0
                marked_seen = False
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    if page.locator("#result .score-cards").count():
                        break
                    if page.locator("#hand .my-hand.can-discard").count():
                        best = page.locator("#hand .my-hand button.mtile.hint-best")
                        if best.count():
                            marked_seen = True
                            if shots < 2:
                                page.screenshot(path=str(SHOTS / f"hints-{shots}.png"))
                                shots += 1
                            try:
                                best.first.tap(timeout=1000)
                                best.first.tap(timeout=1000)
                            except Exception:
                                pass
                            continue
                    if not (click_if_visible(page, "#actions button.act-win") or click_if_visible(page, "#actions button.act-pass")):
                        page.wait_for_timeout(150)
                else:
                    pytest.fail("the practice hand did not end\n" + output.text()[-3000:])
                assert marked_seen, "no suggested discard was marked"
                page.screenshot(path=str(SHOTS / "result.png"))
                assert "练习（不计金豆）" in page.content()
                assert "练习，不计金豆" in page.locator("#result").inner_text()  # the result's net, no beans
                assert not errors, errors
            finally:
                browser.close()
