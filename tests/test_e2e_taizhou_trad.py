"""Two friends play a traditional Taizhou (传统台州麻将) hand on phones through the real server.

The real stack (tests/test_e2e_browser.py's `real_stack`: daphne, Redis channel layer, Celery)
and headless Debian Chromium at 360×740 (device scale 2, touch). The host opens a traditional
Taizhou room in the lobby with 弹 5 and 扔弹 on (the variant's fields appear only once it is
chosen), the guest joins by the invite link, both press Ready. Before the deal each phone asks
its player how much they throw at the other (seven buttons in a grid that fits the phone's
width, at least 40 px high, 不扔 marked as the default, a countdown); the host throws 5 and sees
only "已选择", while the guest's page shows nothing of it; the guest throws 10, and both bars then
show the stake between them, 15. The hand is played by tapping what the pages offer
(tests/e2e_policy.py), wins held back until the 生牌 stage: flowers lie face up in front of the
seat that showed them, and from 30 tiles left both phones show the 生牌 warning, whose 看生牌
opens the faces still 生 without covering the hand. Then the hand goes to its end (a win in 子, or
黄牌). No page scrolls sideways.

Screenshots go to test-output/taizhou_trad/ (look at them).
"""

import re
import time

import pytest

from tests.test_e2e_browser import (CHROMIUM, press_ready, LAUNCH_ARGS, OUTPUT, click_if_visible, discard_by_policy, real_stack,
                                    sign_up, sync_playwright, wait_connected)

PlaywrightTimeoutError = pytest.importorskip("playwright.sync_api").TimeoutError

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite]

SHOTS = OUTPUT.parent / "taizhou_trad"
PHONE = {"width": 360, "height": 740}


def no_sideways_scroll(page):
    """Neither the page nor any box of the table, the hand or the prompts sticks out sideways (a
    box wider than its overflow-hidden container would let a tap scroll the whole table aside)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"
    out = page.evaluate("""() => [...document.querySelectorAll('#table *, #hand *, #actions *')]
        .map(e => [e, e.getBoundingClientRect()])
        .filter(([e, r]) => r.width > 0 && (r.left < -1 || r.right > window.innerWidth + 1))
        .map(([e, r]) => (e.id || e.className || e.tagName) + ' ' + Math.round(r.left) + '..' + Math.round(r.right))""")
    if out:
        page.screenshot(path=str(SHOTS / "sticking-out.png"))
    assert not out, out


def boxes_apart(a, b):
    """Two bounding boxes do not overlap (touching is fine)."""
    return (a["x"] + a["width"] <= b["x"] + 0.5 or b["x"] + b["width"] <= a["x"] + 0.5
            or a["y"] + a["height"] <= b["y"] + 0.5 or b["y"] + b["height"] <= a["y"] + 0.5)


def test_two_friends_throw_see_flowers_and_the_shengpai_warning_on_phones(tmp_path):
    started = time.monotonic()
    SHOTS.mkdir(parents=True, exist_ok=True)
    with real_stack(tmp_path, GAME_SEED_BASE="e2e-tt-1") as (base, output, _env):
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
                    sign_up(pg, base, f"tt{i}")

                host, guest = pages
                host.goto(f"{base}/lobby/")
                assert not host.locator("select[name=dan]").is_visible()  # Taizhou chosen: not this variant's fields
                host.select_option("select[name=variant]", "taizhou_trad")
                assert host.locator("select[name=dan]").is_visible() and host.locator("select[name=throws]").is_visible()
                assert not host.locator("select[name=mode]").is_visible()  # Zhuji's
                assert host.locator("select[name=throws]").input_value() == "True"
                host.select_option("select[name=dan]", "5")
                host.check("input[name=players][value='2']")
                host.select_option("select[name=length]", "hands:4")
                host.fill("input[name=turn_seconds]", "120")
                host.fill("input[name=claim_seconds]", "60")
                host.screenshot(path=str(SHOTS / "lobby.png"), full_page=True)
                host.click("form.room-form button[type=submit]")
                host.wait_for_url(re.compile(r"/room/\d+/"))
                assert "传统台州麻将" in host.content() and "金豆/子" in host.content()
                invite = host.locator("input.invite-url").first.input_value()
                guest.goto(invite)
                guest.click("main form button[type=submit].primary")
                guest.wait_for_url(host.url)
                for pg in pages:
                    wait_connected(pg)
                press_ready(pages)

                # --- 扔弹 before the deal ---
                for pg, other in ((host, "tt1昵称"), (guest, "tt0昵称")):
                    pg.wait_for_selector("#actions #throw-choices", timeout=15000)
                    prompt = pg.locator("#decision-prompt").inner_text()
                    assert f"你向对家 {other} 扔几弹？" in prompt and "时间到了按“不扔”处理" in prompt, prompt
                    buttons = pg.locator("#throw-choices button.act-throw")
                    assert buttons.count() == 7
                    boxes = buttons.evaluate_all("bs => bs.map(b => { const r = b.getBoundingClientRect(); "
                                                 "return {x: r.x, y: r.y, width: r.width, height: r.height}; })")
                    assert min(b["height"] for b in boxes) >= 40, boxes
                    assert all(b["x"] >= 0 and b["x"] + b["width"] <= PHONE["width"] for b in boxes), boxes
                    assert all(boxes_apart(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), boxes
                    assert pg.locator("#throw-choices button[data-default]").inner_text() == "不扔"
                    assert pg.locator("#decision-prompt .countdown").count() == 1
                    assert "扔弹后发牌" in pg.locator("#table").inner_text()
                    no_sideways_scroll(pg)
                guest.screenshot(path=str(SHOTS / "throw-prompt.png"))
                host.locator("#throw-choices button[data-throw-value='5']").tap(timeout=5000)
                host.wait_for_selector("text=已选择，等待其他玩家。", timeout=10000)
                guest.wait_for_timeout(500)
                assert guest.locator("[data-throw]").count() == 0  # nothing of the host's answer
                assert guest.locator("#throw-choices").count() == 1
                host.screenshot(path=str(SHOTS / "throw-answered.png"))
                guest.locator("#throw-choices button[data-throw-value='10']").tap(timeout=5000)
                for pg in pages:
                    pg.wait_for_selector("#table .my-hand [data-tile], #hand .my-hand [data-tile]", timeout=15000)
                    pg.wait_for_selector("#throws [data-throw]", state="attached", timeout=10000)  # in the ☰ drawer
                    assert pg.locator("#throws [data-throw]").get_attribute("data-throw") == "0-1:15"
                    badge = pg.locator("#table .side-top .badge.throw")  # on the other's head: the stake between us
                    assert badge.is_visible() and badge.inner_text() == "扔 15"
                    assert "弹" in pg.locator("#hand-stakes").inner_text()
                    assert pg.locator("#decision-prompt").count() == 0
                host.screenshot(path=str(SHOTS / "table-after-throws.png"))

                # --- the hand: wins held back until the 生牌 stage; flowers face up on the way ---
                moves = 0
                flowers_seen = stage_seen = False
                deadline = time.monotonic() + 240
                while time.monotonic() < deadline:
                    if all(pg.locator("#result .score-cards").count() for pg in pages):
                        break
                    if not flowers_seen and host.locator("#table .meld-flowers [data-tile]").count():
                        flowers_seen = True
                        flowered = host.locator("#table .player:has(.meld-flowers)").first
                        assert re.search(r"花 \d", flowered.locator(".player-head").inner_text())
                        host.screenshot(path=str(SHOTS / "flowers.png"))
                    if not stage_seen and all(pg.locator("#shengpai-alert").count() for pg in pages):
                        stage_seen = True
                        for who, pg in enumerate(pages):
                            alert = pg.locator("#shengpai-alert")
                            assert "生牌阶段" in alert.inner_text() and alert.is_visible()
                            no_sideways_scroll(pg)
                            pg.screenshot(path=str(SHOTS / f"shengpai-warning-{who}.png"))
                        guest.locator("#shengpai-alert [data-sheng-toggle]").tap(timeout=5000)
                        guest.wait_for_selector("#sheng-list .mtile", timeout=5000)
                        listed = guest.locator("#sheng-list")
                        assert listed.is_visible()
                        assert guest.locator("#sheng-list [data-tile]").count() == 0  # pictures, not table tiles
                        hand_box = guest.locator("#hand").bounding_box()
                        assert boxes_apart(listed.bounding_box(), hand_box), (listed.bounding_box(), hand_box)
                        no_sideways_scroll(guest)
                        guest.screenshot(path=str(SHOTS / "shengpai-list-open.png"))
                    moved = False
                    for pg in pages:
                        wins = pg.locator("#shengpai-alert").count() > 0
                        if ((wins and click_if_visible(pg, "#actions button.act-win"))
                                or click_if_visible(pg, "#actions button.act-pass")
                                or discard_by_policy(pg)):
                            moved = True
                            moves += 1
                            pg.wait_for_timeout(60)
                    if not moved:
                        pages[0].wait_for_timeout(100)
                    if moves % 20 == 10:
                        no_sideways_scroll(guest)
                else:
                    pytest.fail("the hand did not reach the result screen in time\n" + output.text()[-3000:])
                assert flowers_seen, "no flower was shown in the whole hand"
                assert stage_seen, "the 生牌 warning never showed"
                for who, pg in enumerate(pages):
                    result = pg.locator("#result").inner_text()
                    assert "第 1 局结果" in result, result
                    assert "全包" not in result
                    if "黄牌" not in result and "流局" not in result:
                        assert re.search(r"本局 [+-]?\d+ 子", result), result
                    no_sideways_scroll(pg)
                    pg.screenshot(path=str(SHOTS / f"result-{who}-screen.png"))
                    card = pg.locator("#result .score-card.winner")
                    if card.count():
                        card.screenshot(path=str(SHOTS / f"result-{who}-winner.png"))
                print(f"{moves} moves; result: {' '.join(host.locator('#result').inner_text().split())[:300]}")
                assert not errors, errors
            finally:
                browser.close()
    for name in ("throw-prompt.png", "table-after-throws.png", "shengpai-warning-0.png", "result-0-screen.png"):
        assert (SHOTS / name).stat().st_size > 10_000
    print(f"test time {time.monotonic() - started:.1f} s")


def test_a_four_seat_practice_table_fits_a_phone(tmp_path):
    """练习 with three computer players (they never throw, T-S20): the person answers the three
    questions (下家, 对家, 上家), the bar then lists three stakes; the crowded four-seat table,
    flowers and the 生牌 warning with its list open still fit 360 px without anything sticking out."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    with real_stack(tmp_path, GAME_SEED_BASE="e2e-tt-4", BOT_DELAY_SECONDS="0.3") as (base, output, _env):
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            try:
                context = browser.new_context(viewport=PHONE, locale="zh-CN", is_mobile=True, has_touch=True,
                                              device_scale_factor=2)
                pg = context.new_page()
                errors = []
                pg.on("pageerror", lambda e: errors.append(str(e)))
                sign_up(pg, base, "tt4")
                pg.goto(f"{base}/lobby/")
                pg.select_option("#practice select[name=variant]", "taizhou_trad")
                pg.select_option("#practice select[name=players]", "4")
                pg.click("#practice button[type=submit]")
                pg.wait_for_url(re.compile(r"/room/\d+/"))
                wait_connected(pg)
                for k, (rel, value) in enumerate((("下家", "5"), ("对家", "10"), ("上家", "2")), start=1):
                    pg.wait_for_selector(f"#decision-prompt[data-decision='throw_{k}'] #throw-choices", timeout=15000)
                    prompt = pg.locator("#decision-prompt").inner_text()
                    assert f"扔弹（第 {k}/3 问）" in prompt and f"你向{rel} " in prompt, prompt
                    no_sideways_scroll(pg)
                    if k == 1:
                        pg.screenshot(path=str(SHOTS / "practice-4p-throw-prompt.png"))
                    pg.locator(f"#throw-choices button[data-throw-value='{value}']").tap(timeout=5000)
                pg.wait_for_selector("#hand .my-hand [data-tile]", timeout=15000)
                assert pg.locator("#throws [data-throw]").count() == 3  # the bots threw nothing
                stakes = {side: pg.locator(f"#table .side-{side} .badge.throw").inner_text()
                          for side in ("right", "top", "left")}
                assert stakes == {"right": "扔 5", "top": "扔 10", "left": "扔 2"}, stakes
                no_sideways_scroll(pg)
                pg.screenshot(path=str(SHOTS / "practice-4p-table.png"))

                stage_seen = False
                lowest = 999  # the fewest wall tiles this page showed: the computer players may win
                unwarned = 0  # reads in a row showing 30 tiles or fewer and no 生牌 warning
                deadline = time.monotonic() + 300
                while time.monotonic() < deadline and not stage_seen:
                    left = pg.evaluate("""() => { const w = document.querySelector('#table .wall-count');
                                                   return w ? parseInt(w.textContent, 10) : null; }""")
                    warned = pg.locator("#shengpai-alert").count() > 0
                    if left is not None:
                        lowest = min(lowest, left)
                        unwarned = unwarned + 1 if left <= 30 and not warned else 0
                        assert unwarned < 3, f"{left} tiles left and no 生牌 warning"  # (one swap may lag)
                    if warned:
                        stage_seen = True
                        no_sideways_scroll(pg)
                        pg.screenshot(path=str(SHOTS / "practice-4p-shengpai.png"))
                        # the computer players move quickly, so the table is swapped all the time: a
                        # script's click (the 2-player test taps it)
                        pg.evaluate("""() => { const b = document.querySelector('#shengpai-alert [data-sheng-toggle]');
                                               if (b) b.click(); }""")
                        try:
                            pg.wait_for_selector("#sheng-list .mtile", timeout=5000)
                            listed = pg.locator("#sheng-list").bounding_box(timeout=2000)
                            hand_box = pg.locator("#hand").bounding_box(timeout=2000)
                        except PlaywrightTimeoutError:  # the hand ended meanwhile: look again
                            listed = None
                        if listed is None or hand_box is None:  # swapped away between two reads
                            stage_seen = False
                            continue
                        assert boxes_apart(listed, hand_box)
                        no_sideways_scroll(pg)
                        pg.screenshot(path=str(SHOTS / "practice-4p-shengpai-list.png"))
                        break
                    if pg.locator("#result .score-cards, #result .result-line").count():
                        if pg.locator("#result .final-panel").count():
                            break  # the game is over
                        print("hand over:", " ".join(pg.locator("#result .result-line").first.inner_text().split()))
                        click_if_visible(pg, "#actions button.primary.big")  # 准备下一局
                        pg.wait_for_timeout(200)
                        continue
                    if not (click_if_visible(pg, "#actions button.act-pass") or discard_by_policy(pg)):
                        pg.wait_for_timeout(100)
                    if pg.locator("#throw-choices").count():  # a later hand asks again: none
                        click_if_visible(pg, "#throw-choices button[data-default]")
                # every hand won at or before 30 tiles left: nothing more to see (the two-phone test
                # always reaches the stage); a table that stayed at 30 or fewer without the warning
                # failed above
                if not stage_seen:
                    print(f"no hand of this practice game reached the 生牌 stage (fewest tiles left: {lowest})")
                assert not errors, errors
            finally:
                browser.close()
