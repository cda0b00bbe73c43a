"""In real browsers against the real server: two friends at one table from the same machine see the
same-network warning; 共享位置 asks the browser (refused first, then allowed) and sends the position
over the socket; both pages then show the distance and the too-near warning, never a coordinate."""

import re

import pytest

from tests.test_e2e_browser import (  # noqa: F401  (server is a fixture)
    CHROMIUM, LAUNCH_ARGS, OUTPUT, PHONE, server, sign_up, sync_playwright, wait_connected,
)

pytestmark = [pytest.mark.slow, pytest.mark.own_sqlite]

HERE = {"latitude": 31.2304, "longitude": 121.4737}
NEAR = {"latitude": 31.2304, "longitude": 121.4737 + 40 / 95_060}  # about 40 m east


def test_same_network_and_shared_locations_in_the_browser(server):
    base, output = server
    OUTPUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            host_ctx = browser.new_context(viewport=PHONE, locale="zh-CN", is_mobile=True, has_touch=True,
                                           geolocation=HERE, permissions=["geolocation"])
            guest_ctx = browser.new_context(viewport=PHONE, locale="zh-CN")  # no permission yet
            host, guest = host_ctx.new_page(), guest_ctx.new_page()
            errors = []
            for pg in (host, guest):
                pg.on("pageerror", lambda e: errors.append(str(e)))
            sign_up(host, base, "near0")
            sign_up(guest, base, "near1")
            host.goto(f"{base}/lobby/")
            host.check("input[name=players][value='2']")
            host.select_option("select[name=length]", "hands:4")
            host.click("form.room-form button[type=submit]")
            host.wait_for_url(re.compile(r"/room/\d+/"))
            invite = host.locator("input.invite-url").first.input_value()
            guest.goto(invite)
            guest.click("main form button[type=submit].primary")
            guest.wait_for_url(host.url)
            for pg in (host, guest):
                wait_connected(pg)
            # both come from 127.0.0.1: each page names the two seats, not the address
            for pg in (host, guest):
                pg.wait_for_selector("#alerts .same-ip", timeout=10000)
                text = pg.locator("#alerts .same-ip").inner_text()
                assert "near0昵称" in text and "near1昵称" in text and "同一网络" in text
                assert "127.0.0.1" not in pg.locator("#alerts").inner_html()  # (the invite link has the host)

            host.click("#alerts [data-share-location]")
            host.wait_for_function("() => document.querySelector('#alerts [data-share-location]')"
                                   ".textContent.includes('更新位置')", timeout=10000)
            # the guest's browser refuses: a message on that page only, nothing sent
            guest.click("#alerts [data-share-location]")
            guest.wait_for_selector("#toast.show", timeout=10000)
            assert "没有拿到位置" in guest.locator("#toast").inner_text()
            assert "共享位置" in guest.locator("#alerts [data-share-location]").inner_text()
            # allowed now
            guest_ctx.grant_permissions(["geolocation"], origin=base)
            guest_ctx.set_geolocation(NEAR)
            guest.click("#alerts [data-share-location]")
            for pg in (host, guest):
                pg.wait_for_selector("#alerts .near", timeout=10000)
                box = pg.locator("#alerts").inner_text()
                assert "相距不到 100 米" in box and "40 m" in box, box
                html = pg.content()
                assert "31.2304" not in html and "121.47" not in html
            host.screenshot(path=str(OUTPUT / "alerts-phone.png"), full_page=True)
            width = host.evaluate("() => document.documentElement.scrollWidth")
            assert width <= PHONE["width"], width
            assert not errors, errors
        finally:
            browser.close()
