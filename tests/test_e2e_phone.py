"""The table on a phone (issue 14): friends play seeded hands through the real server while each
page is resized through the sizes players use — 360×640, 360×740, 390×844 (portrait), 740×360
(landscape) and 1280×800 — one size per move: two players, four players (four browser contexts)
and three players (at 360×740). At every move, for the player who must act:

- the page does not scroll (the table fills the screen) and nothing sticks out sideways;
- the own hand, the claim buttons and the countdown are inside the viewport;
- no two tap targets (hand tiles, claim buttons, 出牌, ☰, the safety badge, the mute button) overlap;
- in portrait at 360 px the hand's tiles are at least 40 px wide (14 tiles + the drawn one);
- no text spills out of its box or is squeezed to a character per line;
- the seats sit around the centre (上家 left, 对家 top, 下家 right; in landscape the side seats
  are columns beside it);
- a single tap on a tile only raises it (nothing is sent); the second tap discards it.
When the hand settles, the header's 金豆 chip shows the new balance (the same as a reload shows).
The hand's replay is checked at 360×740 and 1280×800: the table layout, no sideways scrolling,
nothing squeezed, the step buttons reachable.
Screenshots of every phase (waiting room, your turn, a claim window, another's turn, the result,
the replay) at every size go to test-output/phone/ (look at them).
"""

import re
import time

import pytest

from games.engine.tiles import face_name, parse_tile
from tests.e2e_policy import choose_discard
from tests.test_e2e_browser import (CHROMIUM, press_ready, LAUNCH_ARGS, OUTPUT, click_if_visible, real_stack, sign_up,
                                    sync_playwright, wait_connected)

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite]

SHOTS = OUTPUT.parent / "phone"
SIZES = [("360x640", 360, 640), ("360x740", 360, 740), ("390x844", 390, 844), ("740x360", 740, 360),
         ("1280x800", 1280, 800)]

LAYOUT_JS = """() => {
  const box = el => { const r = el.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; };
  const all = s => [...document.querySelectorAll(s)].filter(el => el.offsetParent !== null).map(box);
  const one = s => { const el = document.querySelector(s); return el && el.offsetParent !== null ? box(el) : null; };
  const root = document.scrollingElement;
  const wide = [...document.querySelectorAll('#room *')].filter(el => el.offsetParent !== null)
    .filter(el => { const r = el.getBoundingClientRect(); return r.width > 0 && (r.right > innerWidth + 1 || r.left < -1); })
    .map(el => el.className || el.tagName).slice(0, 5);
  return {
    vw: innerWidth, vh: innerHeight, scrollH: root.scrollHeight, scrollW: root.scrollWidth,
    inHand: !!document.querySelector('#room.in-hand'),
    hand: one('#hand .my-hand'), tiles: all('#hand .my-hand .mtile'),
    taps: all('#hand .my-hand button.mtile').concat(all('#actions .claim-buttons button'), all('[data-discard-raised]'),
                                                    all('#table .table-top button'), all('#sound-toggle-slot button')),
    claims: all('#actions .claim-buttons button'), countdown: one('#table .countdown'),
    handCount: document.querySelectorAll('#hand .my-hand .mtile').length,
    wide,
    seats: Object.fromEntries(['left', 'top', 'right', 'bottom'].map(s => [s, one('#table .felt .side-' + s)])),
    center: one('#table .felt .center'),
    spill: [...document.querySelectorAll('#room *')].filter(el => el.offsetParent !== null)
      .filter(el => { const st = getComputedStyle(el);
                      return st.display !== 'inline' && st.overflowX === 'visible' && el.clientWidth > 0
                        && [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())
                        && el.scrollWidth > el.clientWidth + 1; })
      .map(el => el.className + ': ' + el.textContent.trim().slice(0, 16)).slice(0, 5),
    squeezed: [...document.querySelectorAll('#room span, #room b, #room button, #room p, #room div')]
      .filter(el => el.offsetParent !== null && [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim().length >= 3))
      .filter(el => { const r = el.getBoundingClientRect(); const line = parseFloat(getComputedStyle(el).lineHeight) || 20;
                      return r.height > 2.5 * line && r.width < 3 * parseFloat(getComputedStyle(el).fontSize); })
      .map(el => el.textContent.trim().slice(0, 12)).slice(0, 5),
  };
}"""


NARROW_JS = """() => ({
  scrollW: document.scrollingElement.scrollWidth,
  squeezed: [...document.querySelectorAll('main td, main th, main span, main a, main b')]
    .filter(el => el.offsetParent !== null && el.children.length === 0 && el.textContent.trim().length >= 3)
    .filter(el => { const r = el.getBoundingClientRect(); const line = parseFloat(getComputedStyle(el).lineHeight) || 20;
                    return r.height > 2.5 * line && r.width < 3 * parseFloat(getComputedStyle(el).fontSize); })
    .map(el => el.textContent.trim().slice(0, 12)).slice(0, 5),
})"""


def inside(b, vw, vh):
    return b is not None and b["x"] >= -1 and b["y"] >= -1 and b["x"] + b["w"] <= vw + 1 and b["y"] + b["h"] <= vh + 1


def overlap(a, b):
    return (a["x"] + 1 < b["x"] + b["w"] and b["x"] + 1 < a["x"] + a["w"]
            and a["y"] + 1 < b["y"] + b["h"] and b["y"] + 1 < a["y"] + a["h"])


def check_layout(page, size):
    """The table's promises at this size (a list of what is wrong, empty when all hold)."""
    name, width, _h = size
    m = page.evaluate(LAYOUT_JS)
    problems = []
    if not m["inHand"]:
        return problems
    if m["scrollH"] > m["vh"] + 1 or m["scrollW"] > m["vw"] + 1:
        problems.append(f"{name}: the page scrolls ({m['scrollW']}x{m['scrollH']} in {m['vw']}x{m['vh']})")
    if m["wide"]:
        problems.append(f"{name}: sticks out sideways: {m['wide']}")
    if not inside(m["hand"], m["vw"], m["vh"]):
        problems.append(f"{name}: own hand outside the viewport {m['hand']}")
    for b in m["claims"]:
        if not inside(b, m["vw"], m["vh"]):
            problems.append(f"{name}: a claim button outside the viewport {b}")
    if m["countdown"] is not None and not inside(m["countdown"], m["vw"], m["vh"]):
        problems.append(f"{name}: the countdown outside the viewport {m['countdown']}")
    taps = m["taps"]
    for i, a in enumerate(taps):
        for b in taps[i + 1:]:
            if overlap(a, b):
                problems.append(f"{name}: tap targets overlap {a} {b}")
                break
    if m["spill"]:
        problems.append(f"{name}: text spills out of its box: {m['spill']}")
    if m["squeezed"]:
        problems.append(f"{name}: text squeezed to a character per line: {m['squeezed']}")
    seats, c = m["seats"], m["center"]
    if c is not None:  # 上家 left of the centre, 下家 right of it, 对家 above it, you below it
        if seats["left"] and seats["left"]["x"] + seats["left"]["w"] > c["x"] + 1:
            problems.append(f"{name}: the left seat is not left of the centre {seats['left']} {c}")
        if seats["right"] and seats["right"]["x"] < c["x"] + c["w"] - 1:
            problems.append(f"{name}: the right seat is not right of the centre {seats['right']} {c}")
        if seats["top"] and seats["top"]["y"] + seats["top"]["h"] > c["y"] + 1:
            problems.append(f"{name}: the top seat is not above the centre {seats['top']} {c}")
        if seats["bottom"] and seats["bottom"]["y"] < c["y"] + c["h"] - 1:
            problems.append(f"{name}: your seat is not below the centre {seats['bottom']} {c}")
    if width == 360 and m["handCount"] <= 15:
        narrow = [round(t["w"], 1) for t in m["tiles"] if t["w"] < 40]
        if narrow:
            problems.append(f"{name}: hand tiles narrower than 40 px: {narrow}")
    return problems


def shoot_all_sizes(page, label, who, sizes=SIZES):
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, w, h in sizes:
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(120)
        page.screenshot(path=str(SHOTS / f"{label}-{name}-{who}.png"))


def discard_twice(page, problems, size):
    """Tap the policy's tile once (it must only rise), then again (it is discarded)."""
    buttons = page.locator("#hand .my-hand.can-discard button[data-tile]")
    if not buttons.count():
        return False
    try:
        codes = buttons.evaluate_all("bs => bs.map(b => b.dataset.tile)")
        wild = parse_tile(page.locator("#table .indicator [data-tile]").first.get_attribute("data-tile", timeout=1000))
        choice = face_name(choose_discard([parse_tile(c) for c in codes], wild))
        version = page.locator("#clock").get_attribute("data-hand-version")
        tile = page.locator(f"#hand .my-hand.can-discard button[data-tile='{choice}']").last
        tile.tap(timeout=1000) if size[1] < 1000 else tile.click(timeout=1000)
        page.wait_for_timeout(250)
        if page.locator("#clock").get_attribute("data-hand-version") != version:
            problems.append(f"{size[0]}: a single tap discarded")
        if not page.locator("#hand button.mtile.raised").count():
            problems.append(f"{size[0]}: a tap did not raise the tile")
        if page.locator("[data-discard-raised]").is_disabled():
            problems.append(f"{size[0]}: 出牌 stays disabled with a raised tile")
        page.locator("[data-discard-raised]").click(timeout=1000)  # 出牌 discards the raised tile
        return True
    except Exception:  # the fragment was swapped under us; try again next round
        return False


def chip(page):
    """The header's 金豆 balance as the page shows it."""
    text = page.locator("#header-beans .bean-balance").inner_text(timeout=3000)
    return int(re.sub(r"[^\d-]", "", text))


def open_table(browser, base, n, prefix):
    """n friends on phones (a browser context each) signed up and seated in a new room."""
    contexts = [browser.new_context(viewport={"width": 360, "height": 740}, locale="zh-CN",
                                    is_mobile=True, has_touch=True, device_scale_factor=2)
                for _ in range(n)]
    pages = [c.new_page() for c in contexts]
    for i, pg in enumerate(pages):
        sign_up(pg, base, f"{prefix}{i}")
    host = pages[0]
    host.goto(f"{base}/lobby/")
    host.check(f"input[name=players][value='{n}']")
    host.select_option("select[name=length]", "hands:4")
    host.fill("input[name=turn_seconds]", "120")
    host.fill("input[name=claim_seconds]", "60")
    host.click("form.room-form button[type=submit]")
    host.wait_for_url(re.compile(r"/room/\d+/"))
    invite = host.locator("input.invite-url").first.input_value()
    for pg in pages[1:]:
        pg.goto(invite)
        pg.click("main form button[type=submit].primary")
        pg.wait_for_url(host.url)
    for pg in pages:
        wait_connected(pg)
    return pages


def play_table(pages, prefix, sizes, output, problems):
    """Everyone presses 准备 and the hand is played to its result: at every move the acting page
    takes the next size and its layout is checked; the first time a phase shows it is shot at
    every size. Then the header chip is checked against a reload. Returns the number of moves."""
    shoot_all_sizes(pages[0], f"{prefix}waiting", 0, sizes)
    before = [chip(pg) for pg in pages]
    press_ready(pages)
    for pg in pages:
        pg.wait_for_selector("#room.in-hand #hand .my-hand", timeout=15000)
    shot, step = set(), 0
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if all(pg.locator("#result .score-cards").count() for pg in pages):
            break
        moved = False
        for who, pg in enumerate(pages):
            if pg.locator("#room.sending").count():
                continue  # its last move is still on the way (a loaded machine): its raised tile and buttons are stale
            mine = pg.locator("#hand .my-hand.can-discard").count() or pg.locator("#actions .claim-buttons").count()
            if not mine:
                if step >= 4 and "wait" not in shot and pg.locator("#room.in-hand").count():
                    shoot_all_sizes(pg, f"{prefix}wait", who, sizes)  # another's turn, rivers filling
                    shot.add("wait")
                continue
            size = sizes[step % len(sizes)]
            pg.set_viewport_size({"width": size[1], "height": size[2]})
            step += 1
            pg.wait_for_timeout(80)
            problems += check_layout(pg, size)
            label = "claim" if pg.locator("#actions .claim-buttons").count() else "turn"
            if label == "turn" and "turn" in shot and step >= 16:
                label = "late"  # a turn later in the hand: rivers (and maybe melds) on the table
            if label not in shot:
                shoot_all_sizes(pg, f"{prefix}{label}", who, sizes)
                shot.add(label)
                pg.set_viewport_size({"width": size[1], "height": size[2]})
            if (click_if_visible(pg, "#actions button.act-win") or click_if_visible(pg, "#actions button.act-pass")
                    or discard_twice(pg, problems, size)):
                moved = True
                pg.wait_for_timeout(60)
        if not moved:
            pages[0].wait_for_timeout(100)
    else:
        pytest.fail(f"{prefix}: the hand did not reach the result screen in time\n" + output.text()[-3000:])
    for who, pg in enumerate(pages):
        shoot_all_sizes(pg, f"{prefix}result", who, sizes)
    # the header's 金豆 follows the settled hand without a reload, and says what a reload says
    won = pages[0].locator("#result .score-card.winner").count() > 0
    live = [chip(pg) for pg in pages]
    for who, pg in enumerate(pages):
        pg.reload()
        wait_connected(pg)
        if chip(pg) != live[who]:
            problems.append(f"{prefix}: seat {who}'s header shows {live[who]} 金豆, a reload {chip(pg)}")
    if won and live == before:
        problems.append(f"{prefix}: a won hand and no header balance changed ({before})")
    return step


REPLAY_JS = """() => {
  const box = el => { const r = el.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; };
  const nav = document.querySelector('#frame .rp-nav');
  return {seats: [...document.querySelectorAll('#frame .felt .rp-seat')].map(el => el.className),
          nav: nav ? box(nav) : null, vw: innerWidth, vh: innerHeight};
}"""


def check_replay(page, base, url, n, problems):
    """The hand's replay at 360×740 and 1280×800: the live table's layout with every hand open,
    the viewer at the bottom; no sideways scrolling, nothing squeezed; the step buttons reachable."""
    for name, w, h in (("360x740", 360, 740), ("1280x800", 1280, 800)):
        page.set_viewport_size({"width": w, "height": h})
        page.goto(base + url)
        page.wait_for_selector("#frame .felt")
        url = page.url.split("?")[0].removeprefix(base)  # the share link the hand's link led to
        for _ in range(6):  # a few steps in: rivers and a drawn tile
            page.locator('#frame [data-nav="next"]').click()
            page.wait_for_timeout(150)
        page.wait_for_load_state()
        r = page.evaluate(REPLAY_JS)
        if len(r["seats"]) != n or not any("side-bottom" in c for c in r["seats"]):
            problems.append(f"replay {name}: seats {r['seats']}")
        nav = r["nav"]
        if nav is None or not inside(nav, r["vw"], r["vh"]):
            problems.append(f"replay {name}: the step buttons are out of reach {nav}")
        if page.locator("#frame .rp-hand [data-tile]").count() < 13 * n:
            problems.append(f"replay {name}: not every hand is open")
        page.screenshot(path=str(SHOTS / f"replay-{n}p-{name}.png"), full_page=True)
        fit = page.evaluate(NARROW_JS)
        if fit["scrollW"] > w + 1:
            problems.append(f"replay {name}: scrolls sideways ({fit['scrollW']} px)")
        if fit["squeezed"]:
            problems.append(f"replay {name}: text squeezed to a character per line: {fit['squeezed']}")
        page.goto(base + url + "?step=end")
        page.screenshot(path=str(SHOTS / f"replay-{n}p-end-{name}.png"), full_page=True)
        fit = page.evaluate(NARROW_JS)
        if fit["scrollW"] > w + 1 or fit["squeezed"]:
            problems.append(f"replay {name}, last step: {fit}")


def replay_url(page):
    return page.locator("#result .replay-link a").first.get_attribute("href")


def launch(p):
    return p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)


def test_two_friends_play_a_hand_on_phones(tmp_path):
    with real_stack(tmp_path, GAME_SEED_BASE="phone-1", NEXT_HAND_SECONDS="600") as (base, output, _env):
        with sync_playwright() as p:
            browser = launch(p)
            try:
                errors, problems = [], []
                pages = open_table(browser, base, 2, "phone")
                for pg in pages:
                    pg.on("pageerror", lambda e: errors.append(str(e)))
                step = play_table(pages, "", SIZES, output, problems)
                # the history pages fit a 360 px phone: no sideways scrolling, no word broken one
                # character per line
                phone = pages[0]
                phone.set_viewport_size({"width": 360, "height": 640})
                for path, label in (("/history/", "history"), (phone.locator("#result a[href*='/history/']").first.get_attribute("href")
                                                             if phone.locator("#result a[href*='/history/']").count() else None, "history-game")):
                    if not path:
                        continue
                    phone.goto(base + path)
                    phone.wait_for_load_state()
                    phone.screenshot(path=str(SHOTS / f"{label}-360x640.png"), full_page=True)
                    fit = phone.evaluate(NARROW_JS)
                    if fit["scrollW"] > 361:
                        problems.append(f"{label}: scrolls sideways ({fit['scrollW']} px)")
                    if fit["squeezed"]:
                        problems.append(f"{label}: text squeezed to a character per line: {fit['squeezed']}")
                assert step >= 10, step
                assert not problems, "\n".join(problems[:20])
                assert not errors, errors
            finally:
                browser.close()
    assert (SHOTS / "turn-360x740-0.png").exists() or (SHOTS / "turn-360x740-1.png").exists()


def test_four_and_three_friends_play_a_hand_on_phones(tmp_path):
    """Four browser contexts at one table through a whole seeded hand at the five sizes (room 1),
    then three at 360×740 (room 2); each hand's replay at 360×740 and 1280×800."""
    # NEXT_HAND_SECONDS: the result screen stays while every size is shot and each page reloaded
    with real_stack(tmp_path, GAME_SEED_BASE="phone-4", NEXT_HAND_SECONDS="600") as (base, output, _env):
        with sync_playwright() as p:
            browser = launch(p)
            try:
                errors, problems = [], []
                four = open_table(browser, base, 4, "four")
                for pg in four:
                    pg.on("pageerror", lambda e: errors.append(str(e)))
                steps = play_table(four, "4p-", SIZES, output, problems)
                assert steps >= 10, steps
                check_replay(four[1], base, replay_url(four[1]), 4, problems)
                for pg in four:
                    pg.context.close()

                three = open_table(browser, base, 3, "three")
                for pg in three:
                    pg.on("pageerror", lambda e: errors.append(str(e)))
                steps = play_table(three, "3p-", [("360x740", 360, 740)], output, problems)
                assert steps >= 8, steps
                check_replay(three[0], base, replay_url(three[0]), 3, problems)
                assert not problems, "\n".join(problems[:30])
                assert not errors, errors
            finally:
                browser.close()
    for name in ("4p-turn-360x740", "4p-result-1280x800", "3p-turn-360x740"):
        assert any(SHOTS.glob(f"{name}-*.png")), name
    assert (SHOTS / "replay-4p-360x740.png").exists() and (SHOTS / "replay-3p-1280x800.png").exists()
