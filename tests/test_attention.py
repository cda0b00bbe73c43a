"""Sound and attention on the room page, and the web app manifest (issue 14).

Fast tests: the manifest is valid JSON, served with its content type, every icon it names is a PNG
of the stated size (read from the PNG header) and is what tools/make_icons.py draws; base.html
pages link the manifest, the theme colour and the apple-touch-icon; the room page loads
static/js/attention.js.

A browser test (headless Chromium on the real stack, like tests/test_e2e_browser.py): the mute
button, its per-device memory across a reload, no AudioContext before a gesture (one after it),
what the script detects from an injected table (your turn, the last move in both languages, the
ticks of the last 3 seconds), the 轮到你 title while hidden and the resync (a new socket, the full
view) when the page is visible again; then a real two-player hand: the dealer's page notices its
turn, the other page hears the discard, and a resync mid-hand replays nothing.
"""

import importlib.util
import json
import re
import struct
import time
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.contrib.staticfiles import finders
from django.test import Client

BASE_DIR = Path(__file__).resolve().parent.parent
MANIFEST = BASE_DIR / "static" / "manifest.webmanifest"
SCRIPT = BASE_DIR / "static" / "js" / "attention.js"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    length, tag = struct.unpack(">I4s", data[8:16])
    assert tag == b"IHDR" and length == 13
    return struct.unpack(">II", data[16:24])


def manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def felt_green() -> str:
    css = (BASE_DIR / "static" / "css" / "site.css").read_text(encoding="utf-8")
    return re.search(r"--felt:\s*(#[0-9a-fA-F]{6})", css).group(1).lower()


def asgi_get(path):
    """GET through the ASGI application (daphne's static handler included), as in test_asgi_channels."""
    from mahjong_site.asgi import application

    async def fetch():
        scope = {
            "type": "http", "http_version": "1.1", "method": "GET", "scheme": "http", "path": path,
            "raw_path": path.encode(), "query_string": b"", "root_path": "",
            "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
        }
        communicator = ApplicationCommunicator(application, scope)
        await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
        start = await communicator.receive_output(10)
        body = b""
        while True:
            chunk = await communicator.receive_output(10)
            body += chunk.get("body", b"")
            if not chunk.get("more_body", False):
                break
        await communicator.wait(10)
        return start["status"], dict(start.get("headers", [])), body

    return async_to_sync(fetch)()


def test_the_manifest_is_valid_and_every_icon_is_a_png_of_its_size():
    data = manifest()
    assert data["name"] == "台州麻将 · 浙江麻将"
    assert data["short_name"] and len(data["short_name"]) <= 12
    assert data["start_url"] == "/lobby/" and data["display"] == "standalone"
    assert data["start_url"].startswith(data["scope"])  # the room pages are inside the app too
    assert data["theme_color"].lower() == data["background_color"].lower() == felt_green()
    sizes = set()
    for icon in data["icons"]:
        assert icon["type"] == "image/png"
        path = finders.find(icon["src"])  # relative to the manifest, which sits at the static root
        assert path, icon["src"]
        w, h = png_size(Path(path).read_bytes())
        assert icon["sizes"] == f"{w}x{h}", icon
        sizes.add((w, icon.get("purpose", "any")))
    assert {(192, "any"), (512, "any"), (512, "maskable")} <= sizes


def test_the_manifest_and_an_icon_are_served_with_their_content_types():
    status, headers, body = asgi_get("/static/manifest.webmanifest")
    assert status == 200
    assert headers[b"Content-Type"].split(b";")[0] == b"application/manifest+json"
    assert json.loads(body.decode("utf-8")) == manifest()
    status, headers, body = asgi_get("/static/icons/icon-192.png")
    assert status == 200 and headers[b"Content-Type"] == b"image/png"
    assert png_size(body) == (192, 192)


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/lobby/", "/accounts/login/", "/calculator/"])
def test_pages_link_the_manifest_theme_colour_and_touch_icon(path):
    response = Client().get(path, follow=True)
    assert response.status_code == 200
    page = response.content.decode()
    assert '<link rel="manifest" href="/static/manifest.webmanifest">' in page
    assert f'<meta name="theme-color" content="{manifest()["theme_color"]}">' in page
    touch = re.search(r'<link rel="apple-touch-icon" href="/static/([^"]+)">', page).group(1)
    assert png_size(Path(finders.find(touch)).read_bytes()) == (180, 180)


@pytest.mark.django_db
def test_the_room_page_loads_the_attention_script_after_the_table_script():
    from room_helpers import make_room

    room, users = make_room(players=2)
    client = Client()
    client.force_login(users[0])
    page = client.get(f"/room/{room.pk}/").content.decode()
    table = page.index('<script src="/static/js/table.js" defer></script>')
    attention = page.index('<script src="/static/js/attention.js" defer></script>')
    assert table < attention


def test_the_script_fetches_nothing_and_the_icons_are_reproducible():
    js = SCRIPT.read_text(encoding="utf-8")
    assert not re.search(r"https?:|\bfetch\(|XMLHttpRequest|\.(mp3|ogg|wav|m4a)\b|import\s", js)
    spec = importlib.util.spec_from_file_location("make_icons", BASE_DIR / "tools" / "make_icons.py")
    make_icons = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_icons)
    for name in ("icon-192.png", "apple-touch-icon.png"):  # the two small ones (the 512s take seconds)
        assert make_icons.icon_bytes(name) == (BASE_DIR / "static" / "icons" / name).read_bytes(), \
            f"{name} differs from tools/make_icons.py's drawing: run it again"


# --- in a real browser -------------------------------------------------------------------------------

COUNT_AUDIO = """(() => {
  window.__audioContexts = 0;
  const AC = window.AudioContext;
  if (AC) window.AudioContext = class extends AC { constructor(...a) { super(...a); window.__audioContexts += 1; } };
})();"""
SET_VISIBILITY = """state => {
  Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => state});
  Object.defineProperty(document, 'hidden', {configurable: true, get: () => state === 'hidden'});
  document.dispatchEvent(new Event('visibilitychange'));
}"""
# What the script reads (its SEL table): my turn with a countdown ending in `ms`, a last move.
INJECT_TURN = """ms => {
  document.querySelector('#table').innerHTML =
    '<div class="bar-item turn mine">轮到你出牌 <span class="countdown" data-deadline="' + (Date.now() + ms) + '"></span></div>' +
    '<p class="last-move">上一步：碰碰胡 碰 三万</p><div class="river"><span data-tile="1m"></span></div>';
  document.querySelector('#hand').innerHTML = '<div class="my-hand can-discard"></div>';
  document.querySelector('#room').dispatchEvent(new CustomEvent('htmx:wsAfterMessage', {bubbles: true, detail: {}}));
}"""
PROMPT_THEN_WIN = """what => {
  if (what === 'prompt') {
    document.querySelector('#hand').innerHTML = '<div class="my-hand"></div>';
    document.querySelector('#actions').insertAdjacentHTML('beforeend', '<div class="claim-buttons"><button>碰</button></div>');
  } else {
    const me = document.querySelector('#seats .seat.me').dataset.position;
    document.querySelector('#result').innerHTML = '<div class="score-card winner" data-position="' + me + '"></div>';
  }
  document.querySelector('#room').dispatchEvent(new CustomEvent('htmx:wsAfterMessage', {bubbles: true, detail: {}}));
}"""
STALE_CLOSE = """() => {
  const stale = {readyState: 3};
  document.querySelector('#room').dispatchEvent(new CustomEvent('htmx:wsClose',
    {bubbles: true, detail: {event: {type: 'close', code: 1006, target: stale}, socketWrapper: null}}));
}"""
SET_MOVE = """text => {
  document.querySelector('#table .last-move').textContent = text;
  document.querySelector('#room').dispatchEvent(new CustomEvent('htmx:wsAfterMessage', {bubbles: true, detail: {}}));
}"""


def state(page):
    return page.evaluate("() => window.mjAttention.state()")


def cue_names(page):
    return [c["name"] for c in state(page)["cues"]]


def wait_state(page, condition_js, timeout=10000):
    page.wait_for_function(f"() => {{ const s = window.mjAttention.state(); return {condition_js}; }}", timeout=timeout)


@pytest.mark.slow
@pytest.mark.own_sqlite
def test_sound_toggle_detection_title_and_resync_in_the_browser(tmp_path):
    e2e = pytest.importorskip("tests.test_e2e_browser")  # skips without Chromium, as the e2e tests do
    output_dir = e2e.OUTPUT.parent / "attention"
    output_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    with e2e.real_stack(tmp_path) as (base, output, _env), e2e.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=e2e.CHROMIUM, args=e2e.LAUNCH_ARGS)
        try:
            host_ctx = browser.new_context(viewport=e2e.PHONE, locale="zh-CN", is_mobile=True, has_touch=True)
            guest_ctx = browser.new_context(viewport=e2e.DESKTOP, locale="en-US")
            host, guest = host_ctx.new_page(), guest_ctx.new_page()
            errors = []
            for ctx_, pg in ((host_ctx, host), (guest_ctx, guest)):
                ctx_.add_init_script(COUNT_AUDIO)
                pg.on("pageerror", lambda e: errors.append(str(e)))
            e2e.sign_up(host, base, "ding0")
            e2e.sign_up(guest, base, "ding1")
            host.goto(f"{base}/lobby/")
            host.check("input[name=players][value='2']")
            host.select_option("select[name=length]", "hands:4")
            host.fill("input[name=turn_seconds]", "120")
            host.fill("input[name=claim_seconds]", "60")
            host.click("form.room-form button[type=submit]")
            host.wait_for_url(re.compile(r"/room/\d+/"))
            e2e.wait_connected(host)
            title = host.title()

            # the button, and no sound yet: nothing was pressed on this page
            button = host.locator("#room .sound-toggle")
            assert button.count() == 1
            assert button.get_attribute("aria-label") == "静音" and button.get_attribute("aria-pressed") == "false"
            s = state(host)
            assert (s["audio"], s["gestured"], s["muted"], s["opens"]) == ("none", False, False, 1), s
            assert host.evaluate("window.__audioContexts") == 0

            # detection, from an injected table: my turn (and the 碰 it follows), then the ticks
            host.evaluate(INJECT_TURN, 3300)
            s = state(host)
            assert s["myTurn"] and s["handOn"] and s["lastMove"] == "pung", s
            assert cue_names(host) == ["pung", "turn"]
            assert not any(c["audible"] for c in s["cues"])  # no gesture yet: silent, and no context
            wait_state(host, "s.cues.filter(c => c.name === 'tock').length === 1", timeout=8000)
            assert cue_names(host)[2:] == ["tick", "tick", "tock"]  # 3, 2, 1 (the last one higher)
            for text, kind in [("Last move: Kong Wei discarded 5p", "discard"), ("上一步：胡一刀 暗杠", "kong"),
                               ("上一步：小吃 吃 三万 超时自动", "chow"), ("Last move: Pung Li Chow 3s", "chow"),
                               ("Last move: Winnie Win (self-drawn) 5p", "hu"), ("上一步：碰碰 打出 东", "discard")]:
                host.evaluate(SET_MOVE, text)
                assert state(host)["lastMove"] == kind, text
                assert cue_names(host)[-1] == kind, text

            # a claim offered to me (not my turn to discard), then a hand won by me (the seat marked 你)
            host.evaluate(PROMPT_THEN_WIN, "prompt")
            assert state(host)["prompt"] and not state(host)["myTurn"] and cue_names(host)[-1] == "prompt"
            host.evaluate(PROMPT_THEN_WIN, "win")
            assert cue_names(host)[-2:] == ["hu", "win"]
            host.evaluate(INJECT_TURN, 60000)
            assert state(host)["myTurn"] and cue_names(host)[-1] == "turn"

            # hidden while it is my turn: the title says so; visible again: restored, and a resync
            host.evaluate(SET_VISIBILITY, "hidden")
            assert host.title() == "轮到你 · " + title
            host.evaluate(SET_VISIBILITY, "visible")
            assert host.title() == title
            wait_state(host, "s.opens === 2 && s.resyncs === 1")
            # the server's full view (a waiting room) replaced the injected table
            wait_state(host, "!s.myTurn && !s.handOn")
            assert host.locator("#conn").is_hidden()
            assert host.evaluate("window.__audioContexts") == 0

            # mute: a click (a gesture, so a context now), remembered across a reload
            button.click()
            assert button.get_attribute("aria-pressed") == "true" and button.get_attribute("data-sound") == "off"
            assert host.evaluate("localStorage.getItem('mj-muted')") == "1"
            assert host.evaluate("window.__audioContexts") == 1 and state(host)["audio"] != "none"
            host.reload()
            e2e.wait_connected(host)
            button = host.locator("#room .sound-toggle")
            assert button.get_attribute("aria-pressed") == "true"
            host.locator("#status h1").click()  # a gesture while muted starts no sound at all
            assert state(host)["muted"] and state(host)["audio"] == "none"
            assert host.evaluate("window.__audioContexts") == 0
            button.click()  # unmuted: a context, and a chime to hear that sound is on
            assert button.get_attribute("aria-pressed") == "false" and button.get_attribute("data-sound") == "on"
            assert host.evaluate("localStorage.getItem('mj-muted')") == "0"
            wait_state(host, "s.audio === 'running' && s.cues.some(c => c.name === 'turn' && c.audible)")
            host.screenshot(path=str(output_dir / "waiting-phone.png"))

            # the guest reads English; the same device memory is per browser (not muted here)
            invite = host.locator("input.invite-url").first.input_value()
            guest.goto(invite)
            guest.click("main form button[type=submit].primary")
            guest.wait_for_url(host.url)
            e2e.wait_connected(guest)
            gbutton = guest.locator("#room .sound-toggle")
            assert gbutton.get_attribute("aria-label") == "Mute sound"
            assert gbutton.get_attribute("aria-pressed") == "false"
            assert state(guest)["audio"] == "none"

            # a real hand; a tap on the guest's page first starts its sound (the host's is on)
            guest.locator("#status h1").click()
            for pg in (host, guest):
                wait_state(pg, "s.audio === 'running'")
            for pg in (host, guest):
                assert e2e.click_if_visible(pg, "#actions button.primary.big"), "no Ready button"
            for pg in (host, guest):
                pg.wait_for_selector("#hand .my-hand", timeout=15000)
                wait_state(pg, "s.handOn")
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and not (state(host)["myTurn"] or state(guest)["myTurn"]):
                host.wait_for_timeout(100)
            dealer, other = (host, guest) if state(host)["myTurn"] else (guest, host)
            assert state(dealer)["myTurn"] and not state(other)["myTurn"]
            turn_cues = [c for c in state(dealer)["cues"] if c["name"] == "turn"]
            assert turn_cues and turn_cues[-1]["audible"], state(dealer)["cues"]
            assert state(dealer)["wakeLock"] in ("held",) or state(dealer)["wakeLock"].startswith("refused")
            for pg, name in ((host, "hand-phone.png"), (guest, "hand-desktop.png")):
                pg.screenshot(path=str(output_dir / name))
            print("wake lock on the dealer's page:", state(dealer)["wakeLock"])

            # the dealer's page goes to the background and comes back: title, then a resync that
            # brings the same table back and replays no sound
            prefix = state(dealer)["titlePrefix"]
            dealer_title = dealer.title()
            before = state(dealer)
            dealer.evaluate(SET_VISIBILITY, "hidden")
            assert dealer.title() == prefix + dealer_title
            dealer.evaluate(SET_VISIBILITY, "visible")
            assert dealer.title() == dealer_title
            wait_state(dealer, f"s.opens === {before['opens'] + 1}")
            dealer.wait_for_timeout(500)
            after = state(dealer)
            assert after["myTurn"] and after["cues"] == before["cues"], (before["cues"], after["cues"])
            assert dealer.locator("#conn").is_hidden()
            # a replaced socket's close arriving after the new socket opened (a race of the resync):
            # table.js would forget the open socket and show 连接中断; the open one is announced again
            dealer.evaluate(STALE_CLOSE)
            assert dealer.locator("#conn").is_hidden()
            assert state(dealer)["opens"] == after["opens"]

            # the discard after the resync goes through the new socket; the other page hears it
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and not e2e.discard_by_policy(dealer):
                dealer.wait_for_timeout(100)
            wait_state(other, "s.cues.some(c => c.name === 'discard' && c.audible)")
            wait_state(dealer, "!s.myTurn")
            # then the other player's turn (after a claim prompt, passed, if the discard was claimable)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not state(other)["myTurn"]:
                if state(other)["prompt"]:
                    e2e.click_if_visible(other, "#actions button.act-pass")
                other.wait_for_timeout(100)
            assert state(other)["myTurn"], state(other)
            assert "turn" in cue_names(other)
            for pg in (host, guest):
                assert pg.locator("#conn").is_hidden()
            assert not errors, errors
        finally:
            browser.close()
    print(f"browser test: {time.monotonic() - t0:.1f} s")
