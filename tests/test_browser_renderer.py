"""Tests for pubfetch.net.browser.renderer, the public face of pubfetch.net.browser: JavaScript rendering in
headless Chromium against loopback pages.

Browser tests skip (with the reason) when no Chromium is found; the unavailable-browser path and URL refusals run
everywhere.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import lxml.html
import pytest

from pubfetch.net import addresses, browser
from pubfetch.net.browser import (
    UNAVAILABLE_MESSAGE,
    BrowserRenderer,
    BrowserUnavailable,
    chromium,
    find_chromium,
    processes,
)
from pubfetch.net.browser import worker as browser_worker
from pubfetch.net.client import HttpClient
from pubfetch.net.config import HttpConfig
from pubfetch.net.outcome import OutcomeKind
from support.loopback import LoopbackServer, Reply, Request

PAGES = Path(__file__).parent / "data" / "pages" / "js"
#: The page limit of the tests that wait for it to run out (``timing`` tests, run apart by .ci/run).
LIMIT_MS = 4000
#: The page limit of the tests of healthy pages: a loaded machine can take seconds to render one, and such a page must
#: never reach its limit (they check what a page gives, not how fast).
HEALTHY_LIMIT_MS = 60_000
GRACE_MS = 1000
UA = "pubfetch-test-browser/1.0"

ARTICLE_TITLE = "A JavaScript-rendered article page for testing"
ARTICLE_TEXT = (
    "A JavaScript-rendered article page for testing "
    "Ada Example, Bo Sample "
    "Background: many publisher sites ship an empty shell and fill it from a JSON state object. "
    "Results: without a browser only the shell is seen; with one the abstract appears. "
    "Conclusions: JavaScript rendering is needed for such pages."
)


def visible_text(html: str) -> str:
    """Text a reader would see in the body: scripts, styles and noscript dropped, whitespace collapsed."""
    doc = lxml.html.fromstring(html)
    for el in doc.xpath("//script|//style|//noscript"):
        el.drop_tree()
    body = doc.find("body")
    return " ".join(" ".join((body if body is not None else doc).itertext()).split())


def _chromium_or_skip() -> str:
    path = find_chromium()
    if path is None:
        pytest.skip(f"no Chromium found for the browser tests ({UNAVAILABLE_MESSAGE})")
    return path


# ---------------------------------------------------------------------------------------------------------------------
# Loopback pages
# ---------------------------------------------------------------------------------------------------------------------

_release = threading.Event()  # lets handlers that hang on purpose go at the end of the module


def _slow_script(req: Request) -> Reply:
    _release.wait(30)
    return Reply(reset=True)  # the browser hung up long ago


_WAIT_PAGE = """<!DOCTYPE html><html><head><title>wait</title></head><body><p>early text</p>
<script>fetch("/late-data").then(function (r) { return r.text(); }).then(function (text) {
  var d = document.createElement("div"); d.id = "late"; d.textContent = text;
  document.body.appendChild(d);
});</script></body></html>"""
#: Until set, the late data of the /wait page does not come at all (so a page read without waiting for it cannot have
#: it, however slow the machine); once set, it comes after LATE_DATA_S, longer than a read without a selector waits
#: for the network to go quiet (the renderers' settle time).
_late_data_released = threading.Event()
LATE_DATA_S = 2.5


def _late_data(req: Request) -> Reply:
    if _late_data_released.is_set():
        return Reply(200, "late text", "text/plain", delay=LATE_DATA_S)
    _late_data_released.wait(60)
    return Reply(reset=True)  # the page was read and closed meanwhile: nobody is listening for this answer

_BIG_PAGE = """<!DOCTYPE html><html><body><div id="x"></div>
<script>document.getElementById("x").textContent = new Array(20001).join("ab");</script></body></html>"""


def _routes() -> dict[str, Reply | object]:
    return {
        "/article": Reply(200, (PAGES / "article.html").read_bytes()),
        "/wait": Reply(200, _WAIT_PAGE),
        "/late-data": _late_data,
        "/hang": Reply(200, '<html><body><p>loading</p><script src="/slow.js"></script></body></html>'),
        "/slow.js": _slow_script,
        "/busy": Reply(200, "<html><body><p>busy</p><script>setTimeout(function () { while (true) {} }, 200);"
                            "</script></body></html>"),
        "/gone": Reply(404, "<html><body><h1>Not Found</h1></body></html>"),
        "/busy503": Reply(503, "<html><body>try later</body></html>"),
        "/doc.pdf": Reply(200, b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n", "application/pdf"),
        "/download": Reply(200, b"%PDF-1.4\n%%EOF\n", "application/octet-stream",
                           headers={"Content-Disposition": 'attachment; filename="paper.pdf"'}),
        "/data.xml": Reply(200, "<?xml version='1.0'?><article><title>x</title></article>", "application/xml"),
        "/jsredirect": Reply(200, "<html><body><script>location.replace('/article');</script></body></html>"),
        "/moved": Reply(302, "", headers={"Location": "/article"}),
        "/big": Reply(200, _BIG_PAGE),
        "/img": Reply(200, '<html><body><img src="/pixel.png"><p>with image</p></body></html>'),
        "/pixel.png": Reply(200, b"\x89PNG\r\n\x1a\n", "image/png"),
    }


@pytest.fixture(scope="module")
def server():
    with LoopbackServer(_routes()) as srv:
        yield srv
        _release.set()
        _late_data_released.set()


@pytest.fixture(scope="module")
def renderer():
    """For healthy pages: a limit no healthy page comes near on a loaded machine."""
    _chromium_or_skip()
    r = BrowserRenderer(user_agent=UA, timeout_ms=HEALTHY_LIMIT_MS, allow_private_addresses=True,
                        kill_grace_ms=GRACE_MS)
    yield r
    r.close()


@pytest.fixture(scope="module")
def short_renderer():
    """For the pages that must run into the limit (``timing`` tests, which check when it strikes)."""
    _chromium_or_skip()
    r = BrowserRenderer(user_agent=UA, timeout_ms=LIMIT_MS, allow_private_addresses=True, kill_grace_ms=GRACE_MS)
    yield r
    r.close()


# ---------------------------------------------------------------------------------------------------------------------
# Without a browser
# ---------------------------------------------------------------------------------------------------------------------


def test_importing_does_not_load_playwright():
    code = "import sys, pubfetch.net.client, pubfetch.net.browser; print(sorted(m for m in sys.modules if 'playwright' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "[]"


def test_no_browser_gives_a_classified_failure_with_the_install_hint(server, monkeypatch):
    monkeypatch.setattr(chromium, "choose_chromium", lambda configured, bundled: None)
    with BrowserRenderer(timeout_ms=LIMIT_MS, allow_private_addresses=True) as r:
        result = r.render(server.url("/article"), publication=True)
        assert result.kind is OutcomeKind.OTHER
        assert result.message == UNAVAILABLE_MESSAGE
        assert result.fetch_exception is True
        assert result.text is None
        with pytest.raises(BrowserUnavailable) as info:
            r.ensure_browser()
        assert str(info.value) == UNAVAILABLE_MESSAGE
        assert "apt-get install chromium" in str(info.value) and "PUBFETCH_CHROMIUM=/path" in str(info.value)
    assert server.count("/article") == 0


def test_a_browser_that_is_there_but_does_not_start_is_not_called_missing(server, monkeypatch):
    """A Chromium that exits at once (as one killed by a Ctrl-C does) is reported as not started, with its path;
    the message does not tell the user to install a browser that is installed."""
    pytest.importorskip("playwright")
    monkeypatch.setattr(chromium, "choose_chromium", lambda configured, bundled: "/bin/false")
    with BrowserRenderer(timeout_ms=LIMIT_MS, allow_private_addresses=True) as r:
        with pytest.raises(BrowserUnavailable) as info:
            r.ensure_browser()
    message = str(info.value)
    assert message.startswith("JavaScript fetching is unavailable: Chromium at /bin/false did not start ("), message
    assert "install" not in message
    assert server.count("/article") == 0


@pytest.mark.parametrize("to_group", [True, False], ids=["ctrl-c", "kill-int"])
def test_ctrl_c_while_rendering_ends_with_one_line(tmp_path: Path, to_group: bool) -> None:
    """Ctrl-C at a terminal reaches the whole process group, Playwright's driver too: the command ends with its one
    line and status 130, without asyncio's "Future exception was never retrieved" about the driver it lost. A SIGINT
    to pubfetch alone (``kill -INT``, ``timeout -s INT``) leaves Chromium rendering: it is killed at close, which the
    interrupt asked for, so that is no warning either."""
    pytest.importorskip("playwright")
    _chromium_or_skip()
    arrived = threading.Event()

    def page(_request: Request) -> Reply:
        arrived.set()
        return Reply(hold=True)  # the page never comes: the interrupt lands while it is being rendered

    with LoopbackServer({"/page": page}) as server:
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]) + os.pathsep +
                   os.environ.get("PYTHONPATH", ""), PUBFETCH_RATE_DB=str(tmp_path / "rates.sqlite"))
        proc = subprocess.Popen([sys.executable, "-m", "pubfetch", "-fetch-document-javascript", server.url("/page"),
                                 "--allow-private-addresses"], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            assert arrived.wait(300), proc.communicate(timeout=60)
            if to_group:
                os.killpg(proc.pid, signal.SIGINT)  # as the terminal sends it: to every process of the group
            else:
                proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    assert (proc.returncode, err) == (130, "pubfetch: error: interrupted\n")


def test_untrusted_and_malformed_urls_are_refused_before_the_browser(server):
    with BrowserRenderer(timeout_ms=LIMIT_MS) as r:  # private addresses not allowed
        result = r.render(server.url("/article"))
        assert result.kind is OutcomeKind.FORBIDDEN_ADDRESS
        assert result.message == "127.0.0.1 is a loopback address"
        assert r.render("http://169.254.169.254/latest/meta-data/").message == \
            "169.254.169.254 is a cloud metadata address"
        assert r.render("file:///etc/passwd").kind is OutcomeKind.BAD_SCHEME
        assert r.render("javascript:alert(1)").kind is OutcomeKind.BAD_SCHEME
        assert r.render("not a url").kind is OutcomeKind.BAD_URL
        assert r.render("http:///nohost").kind is OutcomeKind.BAD_URL
        assert r.executable is None  # no browser was started for any of them
    assert server.count("/article") == 0


def test_bad_arguments():
    with pytest.raises(ValueError, match="timeout_ms"):
        BrowserRenderer(timeout_ms=0)
    with pytest.raises(ValueError, match="max_bytes"):
        BrowserRenderer(max_bytes=0)
    r = BrowserRenderer()
    r.close()
    with pytest.raises(RuntimeError, match="closed"):
        r.render("https://example.org/")
    with pytest.raises(TypeError):
        BrowserRenderer().render(b"https://example.org/")  # type: ignore[arg-type]


def test_javascript_text_needs_the_browser(server, renderer):
    plain = HttpClient(HttpConfig(allow_private_addresses=True)).get(server.url("/article"))
    assert plain.ok
    assert visible_text(plain.text) == ""  # only the shell and the noscript warning
    assert "Ada Example" in plain.text  # the data is there, as JSON

    result = renderer.render(server.url("/article"))
    assert result.kind is OutcomeKind.OK
    assert result.status == 200
    assert result.content_type == "text/html; charset=utf-8"
    assert result.final_url == server.url("/article")
    assert visible_text(result.text) == ARTICLE_TEXT
    doc = lxml.html.fromstring(result.text)
    assert doc.findtext(".//title") == ARTICLE_TITLE
    assert doc.xpath("//meta[@name='citation_doi']/@content") == ["10.1234/jsdemo.2024.0042"]
    assert result.body == result.text.encode("utf-8")
    assert result.encoding == "utf-8"
    assert result.fetch_exception is False

    request = [r for r in server.requests if r.path == "/article"][-1]
    assert request.headers["User-Agent"] == UA
    assert request.headers["Referer"] == server.base + "/"  # PubFetcher's Referer: the site's origin


def test_wait_until_selector_waits_for_late_content(server, renderer, caplog):
    """Without a selector the page is read after the settle time although its data has not come; with one, the
    render waits for the data (which comes after the settle time), and not until the wait's time runs out."""
    caplog.set_level(logging.INFO, logger=browser.__name__)
    quick = renderer.render(server.url("/wait"))
    assert quick.ok
    assert visible_text(quick.text) == "early text"  # the late data is held back by the server meanwhile

    _late_data_released.set()
    waited = renderer.render(server.url("/wait"), wait_until="#late")
    assert waited.ok
    assert visible_text(waited.text) == "early text late text"
    assert "did not appear" not in caplog.text  # the selector came: the wait did not run into its limit


@pytest.mark.timing
def test_wait_until_that_never_appears_returns_the_page_as_it_is(server, short_renderer):
    assert short_renderer.render(server.url("/article")).ok  # Chromium started before the clock is (a loaded
    # machine took 1.5 s more for the first render of the module's renderer, which this test happened to be)
    started = time.monotonic()
    result = short_renderer.render(server.url("/article"), wait_until="div.never-there")
    elapsed = time.monotonic() - started
    assert result.ok
    assert visible_text(result.text) == ARTICLE_TEXT
    assert (LIMIT_MS - browser_worker.READ_RESERVE_MS) / 1000 - 0.5 < elapsed < LIMIT_MS / 1000 + 1


@pytest.mark.timing
def test_page_that_never_finishes_loading_is_a_timeout(server, short_renderer):
    started = time.monotonic()
    result = short_renderer.render(server.url("/hang"), publication=True)
    elapsed = time.monotonic() - started
    assert result.kind is OutcomeKind.TIMEOUT
    assert result.status == 200  # the document came; a script it needs never did
    assert result.text is None
    assert result.fetch_exception is True
    assert LIMIT_MS / 1000 - 0.5 < elapsed < LIMIT_MS / 1000 + 3
    assert short_renderer.render(server.url("/article")).ok  # the browser is still fine


@pytest.mark.timing
def test_script_stuck_in_a_loop_gets_the_browser_killed_and_restarted(server, short_renderer):
    started = time.monotonic()
    result = short_renderer.render(server.url("/busy"))
    elapsed = time.monotonic() - started
    assert result.kind is OutcomeKind.TIMEOUT
    assert "browser killed" in result.message
    assert result.status == 200
    assert (LIMIT_MS + GRACE_MS) / 1000 - 0.5 < elapsed < (LIMIT_MS + GRACE_MS) / 1000 + 3
    after = short_renderer.render(server.url("/article"))
    assert after.ok and visible_text(after.text) == ARTICLE_TEXT


def test_http_errors_are_classified_like_plain_http(server, renderer):
    gone = renderer.render(server.url("/gone"), publication=True)
    assert gone.kind is OutcomeKind.NOT_FOUND
    assert gone.status == 404
    assert gone.message == "HTTP 404"
    assert gone.fetch_exception is True  # a publication page, not doi.org nor a PDF
    assert renderer.render(server.url("/gone")).fetch_exception is False  # a webpage
    busy = renderer.render(server.url("/busy503"))
    assert busy.kind is OutcomeKind.SERVER_BUSY
    assert busy.status == 503 and busy.fetch_exception is True


def test_a_failed_render_s_line_promises_a_retry_exactly_when_its_entry_policy_marks_the_entry(server, renderer,
                                                                                               caplog):
    """As for a plain request (tests/test_failure_promise.py): a publisher page rendered with JavaScript that fails
    marks the entry from the request's EntryPolicy, and its warning says what that means."""
    from pubfetch.console import LATER_FETCH, LATER_RUN, NEVER_LATER
    from pubfetch.net.outcome import EntryPolicy

    caplog.set_level(logging.INFO, logger="pubfetch")
    cases = ((EntryPolicy(), (LATER_FETCH, LATER_RUN)), (EntryPolicy(later=False), (NEVER_LATER,)))
    for policy, words in cases:
        caplog.clear()
        busy = renderer.render(server.url("/busy503"), publication=True, entry=policy)
        assert busy.fetch_exception is True
        [line] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert line.endswith(words), line
    caplog.clear()
    gone = renderer.render(server.url("/gone"), publication=True, entry=EntryPolicy(publication=False))
    assert gone.fetch_exception is False  # a webpage's 404 marks nothing, and its line promises nothing
    [line] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert not line.endswith((LATER_FETCH, LATER_RUN, NEVER_LATER)) and "fetchException" not in line, line


def test_non_html_documents_are_left_to_plain_fetching(server, renderer):
    pdf = renderer.render(server.url("/doc.pdf"))
    assert pdf.kind is OutcomeKind.UNSUPPORTED_TYPE
    assert pdf.is_pdf is True
    assert pdf.content_type == "application/pdf"
    download = renderer.render(server.url("/download"))
    assert download.kind is OutcomeKind.UNSUPPORTED_TYPE
    assert download.message == "a download (application/octet-stream), not a page"
    assert download.is_pdf is True  # by the file name it is offered under
    xml = renderer.render(server.url("/data.xml"))
    assert xml.kind is OutcomeKind.UNSUPPORTED_TYPE
    assert xml.is_pdf is False
    assert xml.message == "application/xml is not an HTML page"


def test_redirects_by_http_and_by_script(server, renderer):
    moved = renderer.render(server.url("/moved"))
    assert moved.ok
    assert moved.final_url == server.url("/article")
    assert moved.redirects == (server.url("/moved"),)
    assert visible_text(moved.text) == ARTICLE_TEXT
    scripted = renderer.render(server.url("/jsredirect"))
    assert scripted.ok
    assert scripted.final_url == server.url("/article")
    assert visible_text(scripted.text) == ARTICLE_TEXT


def test_images_are_not_downloaded(server, renderer):
    before = server.count("/pixel.png")
    result = renderer.render(server.url("/img"))
    assert result.ok and visible_text(result.text) == "with image"
    assert server.count("/pixel.png") == before


def test_callers_on_many_threads_share_the_browser(server, renderer):
    results = []
    threads = [threading.Thread(target=lambda: results.append(renderer.render(server.url("/article"))))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert [r.kind for r in results] == [OutcomeKind.OK] * 3
    assert all(visible_text(r.text) == ARTICLE_TEXT for r in results)


def test_size_cap_private_addresses_from_a_page_and_close(server, monkeypatch):
    _chromium_or_skip()

    def forbid_localhost(host: str) -> str | None:  # 127.0.0.1 stands for a public site, localhost for an internal one
        return "loopback address" if host == "localhost" else None

    # the guard proxy checks names and connected addresses separately: 127.0.0.1 is a public address here
    monkeypatch.setattr(addresses, "forbidden_name_reason", forbid_localhost)
    monkeypatch.setattr(addresses, "forbidden_ip_reason", lambda ip: None)
    internal = server.url("/article").replace("127.0.0.1", "localhost")
    server.route("/to-internal", Reply(302, "", headers={"Location": internal}))
    server.route("/fetches-internal", Reply(200, "<html><body><p>outside</p><script>"
                                                 f"fetch('{internal}?probe=1').catch(function () {{}});"
                                                 "</script></body></html>"))
    r = BrowserRenderer(timeout_ms=HEALTHY_LIMIT_MS, max_bytes=20_000, settle_ms=500)
    try:
        redirected = r.render(server.url("/to-internal"))
        assert redirected.kind is OutcomeKind.FORBIDDEN_ADDRESS
        assert redirected.message == f"redirected to {internal}: localhost is a loopback address"
        assert redirected.text is None

        probing = r.render(server.url("/fetches-internal"))
        assert probing.ok and visible_text(probing.text) == "outside"
        assert not any(req.query.get("probe") for req in server.requests)  # the script's request was refused

        big = r.render(server.url("/big"))
        assert big.kind is OutcomeKind.TOO_LARGE
        # <html><head></head><body>, the div with 40000 characters, a newline, the script, </body></html>
        assert big.message == "rendered page over 20000 bytes (40146 characters)"
        assert r.render(server.url("/img")).ok  # small pages still pass
        marker = r._worker._marker  # the marker finds the browser's processes
        assert processes.marked_pids(marker)
    finally:
        r.close()
    deadline = time.monotonic() + 60  # a ceiling: the loop ends as soon as the processes are gone
    while processes.marked_pids(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes.marked_pids(marker) == []  # close() stopped the browser
    r.close()  # twice is fine
    with pytest.raises(RuntimeError, match="closed"):
        r.render(server.url("/wait"))


@pytest.mark.timing
def test_worker_that_cannot_be_freed_is_replaced(server, monkeypatch):
    """Where the browser's processes cannot be found (no /proc), a stuck worker is abandoned for a new one."""
    _chromium_or_skip()
    find_pids = processes.marked_pids
    monkeypatch.setattr(processes, "marked_pids", lambda marker: [])
    with BrowserRenderer(timeout_ms=3000, allow_private_addresses=True, kill_grace_ms=300) as r:
        r.ensure_browser()
        started = time.monotonic()
        stuck = r.render(server.url("/busy"))
        elapsed = time.monotonic() - started
        monkeypatch.setattr(processes, "marked_pids", find_pids)
        assert len(r._retired) == 1
        old = r._retired[0]
        old.kill_browser()  # free the abandoned worker now: its browser spins in the script's loop
        assert old.join(10)
        assert stuck.kind is OutcomeKind.TIMEOUT
        assert stuck.message == "page did not finish within 3 s (browser worker abandoned)"
        assert 3.3 - 0.3 < elapsed < 3.3 + 2
        after = r.render(server.url("/article"))
        assert after.ok and visible_text(after.text) == ARTICLE_TEXT
