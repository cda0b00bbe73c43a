"""Two friends play a Wenzhou (温州麻将) hand on phones through the real server.

The real stack (tests/test_e2e_browser.py's `real_stack`: daphne, Redis channel layer, Celery)
and headless Debian Chromium at 360×740 (device scale 2, touch). The host opens a Wenzhou room
in the lobby, the guest joins by the invite link, both press Ready. The dealer (the host) is
asked 买底 and taps it, the guest is then asked 顶底 and taps it; the table then shows the base
and the 庄家买底 / 顶底 badges on both phones. The hand is played to its end by tapping what the
pages offer (tests/e2e_policy.py: take a win, pass a claim, discard the policy's tile with the
two taps the table asks for), and the result names the Wenzhou kind (软胡 ×1 / 硬胡 ×2 /
双翻 ×4) or 流局, in 分.

Screenshots of both prompts, of the table once answered and of the result (the screen and the
whole page) go to test-output/wenzhou/ (look at them); the prompt buttons' bounding boxes are
printed and saved there as prompt-boxes.json (the phone layout itself is
tests/test_e2e_phone.py's subject, not asserted here).
"""

import json
import re
import time

import pytest

from tests.test_e2e_browser import (CHROMIUM, press_ready, LAUNCH_ARGS, OUTPUT, click_if_visible, discard_by_policy, real_stack,
                                    sign_up, sync_playwright, wait_connected)

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite]

SHOTS = OUTPUT.parent / "wenzhou"
PHONE = {"width": 360, "height": 740}
# With this base room 1's first hand, played by the policy with 买底 and 顶底, ends in about twenty
# moves: the guest wins on the host's discard (软胡) and 财神钱 is paid.
SEED_BASE = "e2e-wz-192"
KINDS = ("软胡 ×1", "硬胡 ×2", "双翻 ×4")


def box_of(page, selector):
    """The element's bounding box (CSS px) and whether it lies inside the viewport unscrolled."""
    b = page.locator(selector).first.bounding_box()
    fits = b is not None and b["y"] >= 0 and b["x"] >= 0 and b["y"] + b["height"] <= PHONE["height"] \
        and b["x"] + b["width"] <= PHONE["width"]
    return {"selector": selector, "box": b, "in_viewport": fits}


def test_two_friends_play_a_wenzhou_hand_on_phones(tmp_path):
    started = time.monotonic()
    SHOTS.mkdir(parents=True, exist_ok=True)
    boxes = {}
    with real_stack(tmp_path, GAME_SEED_BASE=SEED_BASE) as (base, output, _env):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            try:
                contexts = [browser.new_context(viewport=PHONE, locale="zh-CN", is_mobile=True, has_touch=True,
                                                device_scale_factor=2) for _ in range(2)]
                pages = [c.new_page() for c in contexts]
                errors = []
                for pg in pages:
                    pg.on("pageerror", lambda e: errors.append(str(e)))
                for i, pg in enumerate(pages):
                    sign_up(pg, base, f"wz{i}")

                host, guest = pages
                host.goto(f"{base}/lobby/")
                host.select_option("select[name=variant]", "wenzhou")
                host.check("input[name=players][value='2']")
                host.select_option("select[name=length]", "hands:4")
                # the longest times: no move may be made by a timeout instead of the policy
                host.fill("input[name=turn_seconds]", "120")
                host.fill("input[name=claim_seconds]", "60")
                host.click("form.room-form button[type=submit]")
                host.wait_for_url(re.compile(r"/room/\d+/"))
                assert "温州麻将" in host.content()
                invite = host.locator("input.invite-url").first.input_value()
                guest.goto(invite)
                guest.click("main form button[type=submit].primary")
                guest.wait_for_url(host.url)
                for pg in pages:
                    wait_connected(pg)
                press_ready(pages)

                # --- 买底: only the dealer (the host) is asked ---
                host.wait_for_selector("#actions #decision-prompt", timeout=15000)
                host.wait_for_selector("#actions .act-decide-yes", timeout=5000)
                guest.wait_for_selector("#actions #decision-prompt", timeout=5000)
                assert "这一局买底吗" in host.locator("#decision-prompt").inner_text()
                assert guest.locator("#actions .act-decide-yes").count() == 0
                assert "wz0昵称" in guest.locator("#decision-prompt").inner_text()  # waiting for the dealer
                assert host.locator("#actions .act-decide-yes").inner_text().strip() == "买底"
                assert host.locator("#actions .act-decide-no").inner_text().strip() == "不买"
                boxes["buy-yes"] = box_of(host, "#actions .act-decide-yes")
                boxes["buy-no"] = box_of(host, "#actions .act-decide-no")
                boxes["buy-prompt"] = box_of(host, "#decision-prompt")
                host.screenshot(path=str(SHOTS / "prompt-buy-dealer.png"))
                guest.screenshot(path=str(SHOTS / "prompt-buy-waiting.png"))
                host.locator("#actions .act-decide-yes").tap(timeout=5000)

                # --- 顶底: the guest is asked, knowing the dealer bought ---
                guest.wait_for_selector("#actions .act-decide-yes", timeout=10000)
                text = guest.locator("#decision-prompt").inner_text()
                assert "买了底" in text and "你要顶底吗" in text, text
                assert guest.locator("#actions .act-decide-yes").inner_text().strip() == "顶底"
                boxes["top-yes"] = box_of(guest, "#actions .act-decide-yes")
                boxes["top-no"] = box_of(guest, "#actions .act-decide-no")
                guest.screenshot(path=str(SHOTS / "prompt-top.png"))
                guest.locator("#actions .act-decide-yes").tap(timeout=5000)

                # --- the table bar: the base and both answers, on both phones ---
                for pg in pages:
                    pg.wait_for_selector("#table .badge.topped", timeout=10000)
                    assert pg.locator("#actions #decision-prompt").count() == 0
                    assert re.fullmatch(r"\d+", pg.locator("#table .hand-base").inner_text().strip())
                    assert pg.locator("#table .badge.bought").inner_text().strip() == "庄家买底"
                    assert pg.locator("#table .badge.topped").inner_text().strip() == "wz1昵称 顶底"
                bases = {pg.locator("#table .hand-base").inner_text().strip() for pg in pages}
                assert bases == {"2"}, bases  # even bases (the room's default) start at 2
                host.screenshot(path=str(SHOTS / "table-after-answers.png"))
                print("prompt buttons at 360x740:", json.dumps(boxes, ensure_ascii=False))
                (SHOTS / "prompt-boxes.json").write_text(json.dumps(boxes, ensure_ascii=False, indent=1))

                # --- the hand to its end, tapping what each page offers ---
                moves = 0
                deadline = time.monotonic() + 60
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
                else:
                    pytest.fail("the hand did not reach the result screen in time\n" + output.text()[-3000:])

                for who, pg in enumerate(pages):
                    result = pg.locator("#result").inner_text()
                    assert "第 1 局结果" in result, result
                    assert "流局" in result or any(k in result for k in KINDS), result
                    assert re.search(r"本局 [+-]?\d+(\.\d+)? 分", result), result  # the Wenzhou unit
                    pg.screenshot(path=str(SHOTS / f"result-{who}-screen.png"))  # what the phone shows
                    pg.screenshot(path=str(SHOTS / f"result-{who}.png"), full_page=True)
                result = host.locator("#result").inner_text()
                print(f"{moves} moves; result: {' '.join(result.split())[:300]}")
                assert not errors, errors
            finally:
                browser.close()
    for name in ("prompt-buy-dealer.png", "prompt-top.png", "result-0.png", "result-1.png"):
        assert (SHOTS / name).stat().st_size > 10_000
    print(f"test time {time.monotonic() - started:.1f} s")
