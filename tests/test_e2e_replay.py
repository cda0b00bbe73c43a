"""The replay viewer in headless Chromium on the real stack (daphne, Redis, Celery; the same
server fixture as tests/test_e2e_browser.py).

A finished hand is put into the server's own SQLite database by tests/e2e_replay_data.py (played
through games.services). Then: on a 360 px phone, signed out, the share link is stepped through
with the "next" button to the result screen; on a desktop the host logs in, opens 战绩, the game,
the hand's replay link, steps through the whole hand with the → key, back with ←, and plays a few
steps at 2× with the space bar. Screenshots go to test-output/e2e/.
"""

import json
import os
import subprocess
import sys

import pytest

from tests.test_e2e_browser import CHROMIUM, DESKTOP, LAUNCH_ARGS, OUTPUT, BASE_DIR, server  # noqa: F401
from tests.e2e_replay_data import PASSWORD

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite]

sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
PHONE_360 = {"width": 360, "height": 740}


def make_hand(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    env.update(VAR_DIR=str(tmp_path), DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    out = subprocess.run([sys.executable, str(BASE_DIR / "tests" / "e2e_replay_data.py")], cwd=BASE_DIR, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-3000:]
    data = json.loads(out.stdout.strip().splitlines()[-1])
    assert data["status"] == "ok" and data["winner"] == 1
    return data


def step_of(page) -> int:
    return int(page.locator("#frame").get_attribute("data-step"))


def wait_step(page, k):
    page.wait_for_function(f"() => document.querySelector('#frame') && document.querySelector('#frame').dataset.step === '{k}'",
                           timeout=5000)


def assert_result(page):
    text = page.locator("#frame #result").inner_text()
    assert "第 1 局结果" in text and "e2e-guest昵称 胡 e2e-host昵称 打出的" in text, text
    assert page.locator("#frame .rp-score.winner").count() == 1
    assert "金豆" in text and "合计" in text


def test_a_replay_stepped_through_on_a_phone_and_with_the_keyboard(server, tmp_path):
    base, output = server
    data = make_hand(tmp_path)
    last = data["steps"]
    OUTPUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            errors = []
            # a phone, signed out, with the share link: the "next" button to the end
            phone = browser.new_context(viewport=PHONE_360, locale="zh-CN", is_mobile=True, has_touch=True).new_page()
            phone.on("pageerror", lambda e: errors.append(str(e)))
            phone.goto(base + data["replay"])
            assert step_of(phone) == 0
            assert f"第 0 / {last} 步" in phone.locator("#frame .rp-count").inner_text()
            assert phone.locator("#frame .rp-seat").count() == 2
            assert phone.locator("#frame .rp-hand [data-tile]").count() == 27  # every hand open: 14 + 13
            for k in range(1, last + 1):
                phone.locator('#frame [data-nav="next"]').click()
                wait_step(phone, k)
                if k == 12:
                    phone.screenshot(path=str(OUTPUT / "replay-phone.png"), full_page=True)
            assert phone.locator('#frame [data-nav="next"]').count() == 0
            assert_result(phone)
            assert f"?step={last}" in phone.url  # htmx pushed each step's URL
            assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE_360["width"]
            phone.screenshot(path=str(OUTPUT / "replay-result-phone.png"), full_page=True)

            # a desktop: the host finds the replay through 战绩 and uses the keyboard
            desk = browser.new_context(viewport=DESKTOP, locale="zh-CN").new_page()
            desk.on("pageerror", lambda e: errors.append(str(e)))
            desk.goto(f"{base}/accounts/login/")
            desk.fill("input[name=username]", "e2e-host")
            desk.fill("input[name=password]", PASSWORD)
            desk.click("main form button[type=submit]")
            desk.wait_for_load_state()
            desk.click("header a[href='/history/']")
            desk.click(f"a[href='/history/{data['game']}/']")
            desk.click("tr[data-hand='1'] a.hist-replay")
            desk.wait_for_url(f"**{data['replay']}")
            assert step_of(desk) == 0
            for k in range(1, last + 1):
                desk.keyboard.press("ArrowRight")
                wait_step(desk, k)
            assert_result(desk)
            assert desk.locator("#moves li[aria-current='step']").get_attribute("data-k") == str(last)
            desk.keyboard.press("ArrowRight")  # nothing after the end
            desk.wait_for_timeout(200)
            assert step_of(desk) == last
            desk.keyboard.press("ArrowLeft")
            wait_step(desk, last - 1)
            desk.screenshot(path=str(OUTPUT / "replay-desktop.png"), full_page=True)

            # jump from the list of moves, then play at 2× with space and pause again
            desk.locator("#moves li[data-k='0'] a").click()
            wait_step(desk, 0)
            desk.click("[data-speed='2']")
            desk.keyboard.press("Space")
            wait_step(desk, 3)
            desk.keyboard.press("Space")
            stopped = step_of(desk)
            desk.wait_for_timeout(1200)
            assert step_of(desk) - stopped <= 1  # a click already under way may still land
            assert desk.locator("[data-play]").get_attribute("aria-pressed") == "false"

            # the game's history page on a phone
            desk.set_viewport_size(PHONE_360)
            desk.goto(f"{base}/history/{data['game']}/")
            desk.evaluate("() => document.fonts.ready.then(() => true)")  # measured in its own fonts
            desk.wait_for_timeout(300)  # and laid out again at the new size
            assert "合计" in desk.locator("table.hist-table").inner_text()
            assert desk.evaluate("() => document.documentElement.scrollWidth") <= PHONE_360["width"]
            desk.screenshot(path=str(OUTPUT / "history-phone.png"), full_page=True)
            assert not errors, errors
        finally:
            browser.close()
    assert (OUTPUT / "replay-phone.png").stat().st_size > 10_000
