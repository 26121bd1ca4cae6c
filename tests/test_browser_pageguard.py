"""Tests for pubfetch.net.browser.pageguard: one page's guard refuses requests to forbidden addresses and images,
media and fonts, and knows the main document, in a real headless Chromium against a loopback server (skipped when
no Chromium is found); the address rule itself runs everywhere."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pubfetch.net.browser import UNAVAILABLE_MESSAGE, chromium, find_chromium
from pubfetch.net.browser.jobs import RenderSettings
from pubfetch.net.browser.pageguard import PageWatch
from support.loopback import LoopbackServer, Reply


def watch(allow_private_addresses: bool) -> PageWatch:
    return PageWatch(RenderSettings("agent", 60_000, 1_000_000, None, allow_private_addresses, 0, 1000))


def test_forbidden_names_the_host_and_its_kind_of_address() -> None:
    guard = watch(False)
    assert guard.forbidden("http://127.0.0.1:8080/admin") == "127.0.0.1 is a loopback address"
    assert guard.forbidden("https://169.254.169.254/latest/meta-data/") is not None
    for allowed in ("https://93.184.215.14/", "data:text/html,<p>x</p>", "about:blank", "blob:https://x/1"):
        assert guard.forbidden(allowed) is None, allowed
    assert watch(True).forbidden("http://127.0.0.1:8080/admin") is None


PAGE = '<html><body><img src="/pixel.png"><p>with image</p><script src="/app.js"></script></body></html>'


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    routes = {"/page": Reply(200, PAGE), "/pixel.png": Reply(200, b"\x89PNG\r\n\x1a\n", "image/png"),
              "/app.js": Reply(200, "document.title = 'ran';", "text/javascript"),
              "/moved": Reply(302, "", headers={"Location": "/page"})}
    with LoopbackServer(routes) as loopback:
        yield loopback


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path = find_chromium()
    if path is None:
        pytest.skip(f"no Chromium found for the browser tests ({UNAVAILABLE_MESSAGE})")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=path, args=list(chromium.LAUNCH_ARGS))
        yield launched
        launched.close()


def guarded_page(browser: Any, guard: PageWatch) -> Any:
    context = browser.new_context()
    context.route("**/*", guard.route)
    page = context.new_page()
    page.on("response", guard.on_response)
    return page


def test_images_are_not_loaded_and_the_main_document_is_known(browser: Any, server: LoopbackServer) -> None:
    guard = watch(True)
    page = guarded_page(browser, guard)
    try:
        page.goto(server.url("/page"), wait_until="load")
        assert page.title() == "ran"  # scripts load
    finally:
        page.context.close()
    assert server.count("/pixel.png") == 0 and server.count("/app.js") == 1
    assert guard.main is not None and (guard.main.url, guard.main.status) == (server.url("/page"), 200)
    assert guard.blocked == {}


def test_the_main_document_after_a_redirect_is_the_final_one(browser: Any, server: LoopbackServer) -> None:
    guard = watch(True)
    page = guarded_page(browser, guard)
    try:
        page.goto(server.url("/moved"), wait_until="load")
        main = guard.main
        assert main is not None and main.url == server.url("/page")
        assert guard.redirect_refusal(main) is None
        strict = watch(False)  # the same hops judged by a guard that forbids loopback addresses
        assert strict.redirect_refusal(main) == f"redirected to {server.url('/page')}: 127.0.0.1 is a loopback address"
    finally:
        page.context.close()


def test_a_forbidden_page_is_refused_before_it_is_requested(browser: Any, server: LoopbackServer) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    guard = watch(False)
    page = guarded_page(browser, guard)
    before = server.count("/page")
    try:
        with pytest.raises(sync_api.Error):
            page.goto(server.url("/page"), wait_until="load")
    finally:
        page.context.close()
    assert guard.blocked == {server.url("/page"): "127.0.0.1 is a loopback address"}
    assert server.count("/page") == before and guard.main is None
