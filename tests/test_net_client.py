"""HttpClient against loopback servers: statuses, redirects, retries, timeouts, failures, POST, hooks, headers, proxies.

Every test asserts the whole classified outcome (kind, status, attempts, fetch_exception for a publication and for a
webpage) because that is what the fetcher stores and decides on.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

import pytest

from pubfetch.net.client import HttpClient
from pubfetch.net.config import HttpConfig
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.record import ExchangeRecord
from support.depwords import urlsplit_error
from support.loopback import Reply, Request
from support.netsupport import FastServer as LoopbackServer
from support.netsupport import Sleeps, both, make_client, sequence

PAGE = "<html><head><title>Article</title></head><body><p>Text.</p></body></html>"
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


# ---------------------------------------------------------------------------------------------------- statuses


def test_200_is_ok_with_text_and_no_fetch_exception() -> None:
    with LoopbackServer({"/article": Reply(200, PAGE)}) as server:
        pub, page = both(make_client(), server.url("/article"))
    for r in (pub, page):
        assert r.kind is OutcomeKind.OK
        assert r.status == 200
        assert r.text == PAGE
        assert r.body == PAGE.encode()
        assert (r.encoding, r.encoding_source) == ("utf-8", "header")
        assert r.final_url == server.url("/article")
        assert r.redirects == ()
        assert r.attempts == 1
        assert r.fetch_exception is False
        assert r.is_pdf is False
        assert r.message == ""


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirect_is_followed(status: int) -> None:
    routes = {"/old": Reply(status, "", headers={"Location": "/new?x=1"}), "/new": Reply(200, PAGE)}
    with LoopbackServer(routes) as server:
        r = make_client().get(server.url("/old"), publication=True)
        assert [req.path for req in server.requests] == ["/old", "/new"]
        assert server.requests[1].query == {"x": ["1"]}
    assert r.kind is OutcomeKind.OK
    assert r.status == 200
    assert r.url == server.url("/old")
    assert r.final_url == server.url("/new?x=1")
    assert r.redirects == (server.url("/old"),)
    assert r.text == PAGE
    assert r.attempts == 1
    assert r.fetch_exception is False


def test_redirect_chain_relative_and_absolute_locations() -> None:
    with LoopbackServer() as server:
        server.route("/a/b", Reply(301, "", headers={"Location": "../c/d"}))
        server.route("/c/d", Reply(302, "", headers={"Location": server.url("/e")}))
        server.route("/e", Reply(200, PAGE))
        r = make_client().get(server.url("/a/b"))
    assert r.kind is OutcomeKind.OK
    assert r.redirects == (server.url("/a/b"), server.url("/c/d"))
    assert r.final_url == server.url("/e")


@pytest.mark.parametrize(("status", "kind"), [(404, OutcomeKind.NOT_FOUND), (410, OutcomeKind.NOT_FOUND),
                                              (500, OutcomeKind.HTTP_ERROR), (403, OutcomeKind.HTTP_ERROR)])
def test_error_status_sets_fetch_exception_for_publications_only(status: int, kind: OutcomeKind) -> None:
    with LoopbackServer({"/gone": Reply(status, "<h1>error</h1>")}) as server:
        pub, page = both(make_client(), server.url("/gone"))
        assert server.count("/gone") == 2  # not retried
    for r in (pub, page):
        assert r.kind is kind
        assert r.status == status
        assert r.attempts == 1
        assert r.message == f"HTTP {status}"
        assert r.text == "<h1>error</h1>"  # the error page is kept (small), it can say why
    assert pub.fetch_exception is True
    assert page.fetch_exception is False


@pytest.mark.parametrize("path", ["/files/paper.pdf", "/files/paper.PS", "/files/data.gz"])
def test_error_status_on_file_urls_never_sets_fetch_exception(path: str) -> None:
    with LoopbackServer({path: Reply(404, "no")}) as server:
        r = make_client().get(server.url(path), publication=True)
    assert (r.kind, r.status, r.fetch_exception) == (OutcomeKind.NOT_FOUND, 404, False)


def test_error_status_judged_on_the_url_that_failed_after_redirects() -> None:
    routes = {"/article": Reply(302, "", headers={"Location": "/article.pdf"}), "/article.pdf": Reply(404, "no")}
    with LoopbackServer(routes) as server:
        r = make_client().get(server.url("/article"), publication=True)
    assert (r.kind, r.status, r.fetch_exception) == (OutcomeKind.NOT_FOUND, 404, False)
    assert r.final_url == server.url("/article.pdf")
    assert r.redirects == (server.url("/article"),)


# ---------------------------------------------------------------------------------------------------- 429 / 503


def test_429_retried_after_retry_after_then_server_busy() -> None:
    sleeps = Sleeps()
    busy = Reply(429, "slow down", "text/plain", headers={"Retry-After": "2"})
    with LoopbackServer({"/api": busy}) as server:
        r = make_client(sleeps).get(server.url("/api"), publication=False)
        assert server.count("/api") == 3
    assert r.kind is OutcomeKind.SERVER_BUSY
    assert r.status == 429
    assert r.attempts == 3  # the first try and busy_retries=2
    assert sleeps == [2.0, 2.0]
    assert r.retry_after == 2.0
    assert r.fetch_exception is True  # even for a webpage: busy is temporary
    assert r.message == "HTTP 429, Retry-After 2 s"


def test_503_busy_sets_fetch_exception_for_publication_and_webpage() -> None:
    sleeps = Sleeps()
    with LoopbackServer({"/x": Reply(503, "maintenance", "text/plain", headers={"Retry-After": "1"})}) as server:
        pub, page = both(make_client(sleeps), server.url("/x"))
        assert server.count("/x") == 6
    for r in (pub, page):
        assert (r.kind, r.status, r.attempts, r.fetch_exception) == (OutcomeKind.SERVER_BUSY, 503, 3, True)
    assert sleeps == [1.0, 1.0, 1.0, 1.0]


def test_503_on_pdf_url_still_sets_fetch_exception() -> None:
    with LoopbackServer({"/paper.pdf": Reply(503, "", headers={"Retry-After": "0"})}) as server:
        r = make_client(busy_retries=0).get(server.url("/paper.pdf"), publication=True)
    assert (r.kind, r.attempts, r.fetch_exception) == (OutcomeKind.SERVER_BUSY, 1, True)


def test_503_without_retry_after_backs_off_doubling() -> None:
    sleeps = Sleeps()
    with LoopbackServer({"/x": Reply(503, "")}) as server:
        r = make_client(sleeps, busy_backoff_s=0.5, busy_retries=3).get(server.url("/x"))
    assert (r.kind, r.attempts, r.retry_after) == (OutcomeKind.SERVER_BUSY, 4, None)
    assert sleeps == [0.5, 1.0, 2.0]


def test_retry_after_over_the_cap_is_not_waited_for() -> None:
    sleeps = Sleeps()
    with LoopbackServer({"/x": Reply(503, "", headers={"Retry-After": "3600"})}) as server:
        r = make_client(sleeps, retry_after_cap_s=30).get(server.url("/x"), publication=True)
        assert server.count("/x") == 1
    assert (r.kind, r.status, r.attempts, r.retry_after, r.fetch_exception) == (
        OutcomeKind.SERVER_BUSY, 503, 1, 3600.0, True)
    assert sleeps == []


def test_503_then_200_succeeds_on_retry() -> None:
    sleeps = Sleeps()
    handler = sequence(Reply(503, "", headers={"Retry-After": "1"}), Reply(200, PAGE))
    with LoopbackServer({"/x": handler}) as server:
        r = make_client(sleeps).get(server.url("/x"), publication=True)
    assert (r.kind, r.status, r.attempts, r.text, r.fetch_exception) == (OutcomeKind.OK, 200, 2, PAGE, False)
    assert sleeps == [1.0]


def test_real_retry_waits_are_short_when_configured() -> None:
    """Without a fake sleep: the configured backoff is what is waited (kept tiny here)."""
    with LoopbackServer({"/x": sequence(Reply(503, ""), Reply(503, ""), Reply(200, "ok", "text/plain"))}) as server:
        r = HttpClient(HttpConfig(allow_private_addresses=True, busy_backoff_s=0.01)).get(server.url("/x"))
    assert (r.kind, r.attempts, r.text) == (OutcomeKind.OK, 3, "ok")


# ---------------------------------------------------------------------------------------------------- redirect trouble


def test_redirect_loop() -> None:
    routes = {"/a": Reply(302, "", headers={"Location": "/b"}), "/b": Reply(302, "", headers={"Location": "/a"})}
    with LoopbackServer(routes) as server:
        pub, page = both(make_client(), server.url("/a"))
        assert server.count("/a") == 4 and server.count("/b") == 4  # each URL visited twice per call
    for r in (pub, page):
        assert r.kind is OutcomeKind.REDIRECT_LOOP
        assert r.status == 302
        assert r.final_url == server.url("/b")
        assert r.location == server.url("/a")
        assert r.redirects == (server.url("/a"), server.url("/b"), server.url("/a"))
        assert r.attempts == 1
        assert r.fetch_exception is False


def test_self_redirect_once_is_allowed() -> None:
    """A -> A (setting a cookie) -> 200 is common and must not count as a loop."""
    handler = sequence(Reply(302, "", headers={"Location": "/a"}), Reply(200, PAGE))
    with LoopbackServer({"/a": handler}) as server:
        r = make_client().get(server.url("/a"))
    assert (r.kind, r.redirects) == (OutcomeKind.OK, (server.url("/a"),))


def test_too_many_redirects() -> None:
    def hop(req: Request) -> Reply:
        n = int(req.path.rsplit("/", 1)[1])
        return Reply(302, "", headers={"Location": f"/hop/{n + 1}"})

    with LoopbackServer({"/hop/*": hop}) as server:
        pub, page = both(make_client(max_redirects=3), server.url("/hop/0"))
        assert server.count("/hop/") == 8
    for r in (pub, page):
        assert r.kind is OutcomeKind.TOO_MANY_REDIRECTS
        assert r.status == 302
        assert r.redirects == tuple(server.url(f"/hop/{i}") for i in range(3))
        assert r.final_url == server.url("/hop/3")
        assert r.location == server.url("/hop/4")
        assert r.fetch_exception is False


def test_redirect_without_location_is_the_final_answer() -> None:
    with LoopbackServer({"/x": Reply(302, "moved, somewhere")}) as server:
        r = make_client().get(server.url("/x"))
    assert (r.kind, r.status, r.location, r.text) == (OutcomeKind.OK, 302, None, "moved, somewhere")


def test_malformed_location_is_a_bad_url() -> None:
    records: list[ExchangeRecord] = []
    with LoopbackServer({"/x": Reply(302, "moved", headers={"Location": "http://[oops/x"})}) as server:
        r = make_client(response_hook=records.append).get(server.url("/x"), publication=True)
    assert (r.kind, r.status, r.location, r.attempts, r.fetch_exception) == (OutcomeKind.BAD_URL, 302, None, 1, False)
    assert r.message == f"malformed Location 'http://[oops/x': {urlsplit_error('http://[oops/x')}"
    assert [(rec.status, rec.body) for rec in records] == [(302, b"moved")]


def test_utf8_location_is_followed_as_utf8() -> None:
    """http.client reads header bytes as Latin-1; a UTF-8 Location must not be encoded twice."""
    utf8_as_latin1 = "/caf\u00e9?q=\u00fc".encode().decode("latin-1")  # what the server's bytes look like to http.client
    routes = {"/x": Reply(302, "", headers={"Location": utf8_as_latin1}),
              "/caf*": lambda req: Reply(200, req.path, "text/plain")}
    with LoopbackServer(routes) as server:
        r = make_client().get(server.url("/x"))
        assert server.requests[1].query == {"q": ["\u00fc"]}
    assert (r.kind, r.text) == (OutcomeKind.OK, "/caf%C3%A9")
    assert r.final_url == server.url("/caf\u00e9?q=\u00fc")


# ---------------------------------------------------------------------------------------------------- timeouts and failures


def test_slow_response_times_out_retried_once() -> None:
    sleeps = Sleeps()
    with LoopbackServer({"/slow": Reply(200, PAGE, hold=True)}) as server:
        r = make_client(sleeps, timeout=150).get(server.url("/slow"), publication=False)
        assert server.count("/slow") == 2
    assert r.kind is OutcomeKind.TIMEOUT
    assert r.status is None
    assert r.attempts == 2
    assert r.fetch_exception is True
    assert sleeps == [0.0]  # PubFetcher retries a timeout at once


def test_slow_response_for_publication_sets_fetch_exception() -> None:
    with LoopbackServer({"/slow.pdf": Reply(200, PDF, "application/pdf", hold=True)}) as server:
        r = make_client(timeout=150).get(server.url("/slow.pdf"), publication=True)
    assert (r.kind, r.attempts, r.fetch_exception) == (OutcomeKind.TIMEOUT, 2, True)


def test_quick_does_not_retry_a_timeout() -> None:
    with LoopbackServer({"/slow": Reply(200, PAGE, hold=True)}) as server:
        r = make_client(timeout=150, quick=True).get(server.url("/slow"), publication=True)
        assert server.count("/slow") == 1
    assert (r.kind, r.status, r.attempts, r.fetch_exception) == (OutcomeKind.TIMEOUT, None, 1, True)


def test_timeout_while_reading_the_body_is_retried() -> None:
    stalled = Reply(200, b"", "text/html", chunks=[b"<html>"], hold=True)  # the rest never comes
    with LoopbackServer({"/stall": stalled}) as server:
        r = make_client(timeout=150).get(server.url("/stall"))
        assert server.count("/stall") == 2
    assert (r.kind, r.status, r.attempts, r.body, r.fetch_exception) == (OutcomeKind.TIMEOUT, 200, 2, b"", True)


def test_body_dripping_past_the_deadline_is_a_timeout() -> None:
    """Each byte comes well within the read timeout, so only the exchange deadline stops it (and it is not retried).

    The read timeout is far above the gaps between bytes even when a loaded machine delays the server's thread, and
    the drip lasts far beyond the deadline (the server stops when the client has closed the connection)."""
    drip = Reply(200, b"", "text/html", chunks=[b"x"] * 400, chunk_delay=0.05)
    with LoopbackServer({"/drip": drip}) as server:
        r = make_client(timeout=15_000, total_timeout_ms=300).get(server.url("/drip"), publication=True)
        assert server.count("/drip") == 1
    assert (r.kind, r.status, r.attempts, r.fetch_exception) == (OutcomeKind.TIMEOUT, 200, 1, True)
    assert r.message.startswith("body not read within the deadline")


def test_connection_reset_is_an_io_error_without_fetch_exception() -> None:
    with LoopbackServer({"/reset": Reply(reset=True)}) as server:
        pub, page = both(make_client(), server.url("/reset"))
        assert server.count("/reset") == 2  # not retried
    for r in (pub, page):
        assert (r.kind, r.status, r.attempts, r.fetch_exception) == (OutcomeKind.IO_ERROR, None, 1, False)
        assert "Remote end closed connection" in r.message


def test_connection_refused_sets_fetch_exception() -> None:
    with LoopbackServer() as server:
        url = server.url("/x")
    # the server is closed now: nothing listens on its port
    pub, page = both(make_client(), url)
    for r in (pub, page):
        assert (r.kind, r.status, r.attempts, r.fetch_exception) == (OutcomeKind.CONNECTION, None, 1, True)


def test_tls_failure_is_ssl_without_fetch_exception() -> None:
    """https to a plain-HTTP server fails the handshake; PubFetcher retries such pages with a browser instead."""
    with LoopbackServer({"/x": Reply(200, PAGE)}) as server:
        pub, page = both(make_client(), server.url("/x").replace("http://", "https://"))
    for r in (pub, page):
        assert (r.kind, r.status, r.attempts, r.fetch_exception) == (OutcomeKind.SSL, None, 1, False)


# ---------------------------------------------------------------------------------------------------- schemes


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("file:///etc/passwd", OutcomeKind.BAD_SCHEME),
        ("javascript:alert(1)", OutcomeKind.BAD_SCHEME),
        ("mailto:someone@example.org", OutcomeKind.BAD_SCHEME),
        ("data:text/html,<p>hi</p>", OutcomeKind.BAD_SCHEME),
        ("gopher://example.org/", OutcomeKind.BAD_SCHEME),
        ("not a url", OutcomeKind.BAD_URL),
        ("http://", OutcomeKind.BAD_URL),
        ("https:///path-only", OutcomeKind.BAD_URL),
    ],
)
def test_bad_urls_are_refused_without_a_request(url: str, kind: OutcomeKind) -> None:
    client = make_client()
    for r in both(client, url) + (client.post(url, {"a": "1"}), client.resolve_redirect(url)):
        assert (r.kind, r.status, r.attempts, r.fetch_exception) == (kind, None, 0, False)
        assert r.url == url


def test_ftp_is_refused_when_no_pdf_is_wanted() -> None:
    client = make_client()
    for r in (client.get("ftp://ftp.example.org/pub/page.html", accept_pdf=False),
              client.post("ftp://ftp.example.org/pub/paper.pdf", {"a": "1"}),
              client.resolve_redirect("ftp://ftp.example.org/pub/paper.pdf")):
        assert (r.kind, r.fetch_exception) == (OutcomeKind.BAD_SCHEME, False)
        assert r.message.startswith("ftp is fetched only for PDFs")


@pytest.mark.parametrize("target", ["file:///etc/passwd", "ftp://ftp.example.org/paper.pdf", "javascript:void(0)"])
def test_redirect_to_a_bad_scheme_is_refused(target: str) -> None:
    with LoopbackServer({"/x": Reply(302, "", headers={"Location": target})}) as server:
        r = make_client().get(server.url("/x"), publication=True)
    assert (r.kind, r.final_url, r.redirects, r.fetch_exception) == (
        OutcomeKind.BAD_SCHEME, target, (server.url("/x"),), False)


@pytest.fixture
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """An environment without any proxy settings (tests then add the ones they need)."""
    for name in ("http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    return monkeypatch


def test_ftp_pdf_fetched_through_ftp_proxy(no_proxy_env: pytest.MonkeyPatch) -> None:
    """ftp URLs are tried as PDFs (PubFetcher's MalformedURLException path); urllib honours ftp_proxy."""
    routes = {"/pub/paper.pdf": Reply(200, PDF, "application/pdf"), "/pub/page.html": Reply(200, PAGE)}
    with LoopbackServer(routes) as proxy:
        no_proxy_env.setenv("ftp_proxy", proxy.base)
        client = make_client()
        pdf = client.get("ftp://ftp.example.org/pub/paper.pdf", publication=True)
        html = client.get("ftp://ftp.example.org/pub/page.html", publication=True)
        assert [r.headers.get("Host") for r in proxy.requests] == ["ftp.example.org", "ftp.example.org"]
    assert (pdf.kind, pdf.is_pdf, pdf.body, pdf.attempts, pdf.fetch_exception) == (OutcomeKind.OK, True, PDF, 1, False)
    assert pdf.final_url == "ftp://ftp.example.org/pub/paper.pdf"
    assert (html.kind, html.is_pdf, html.fetch_exception) == (OutcomeKind.UNSUPPORTED_TYPE, False, False)


# ---------------------------------------------------------------------------------------------------- POST


def test_post_form_data() -> None:
    with LoopbackServer({"/efetch": lambda req: Reply(200, "<ok/>", "text/xml")}) as server:
        r = make_client().post(server.url("/efetch"), {"db": "pubmed", "id": "1,2,3", "retmode": "xml"})
        (req,) = server.requests
    assert (r.kind, r.status, r.text, r.attempts) == (OutcomeKind.OK, 200, "<ok/>", 1)
    assert req.method == "POST"
    assert req.headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert req.form == {"db": ["pubmed"], "id": ["1,2,3"], "retmode": ["xml"]}
    assert req.headers["User-Agent"] == HttpConfig().user_agent


def test_post_raw_body_with_headers() -> None:
    with LoopbackServer({"/search": Reply(200, "{}", "application/json")}) as server:
        r = make_client().post(server.url("/search"), b'{"q": "x"}', headers={"Content-Type": "application/json"})
        (req,) = server.requests
    assert (r.kind, r.text) == (OutcomeKind.OK, "{}")
    assert (req.body, req.headers["Content-Type"]) == (b'{"q": "x"}', "application/json")


def test_post_303_becomes_get_and_307_keeps_the_body() -> None:
    def echo(req: Request) -> Reply:
        return Reply(200, f"{req.method} {sorted(req.form.items())}", "text/plain")

    routes = {"/see": Reply(303, "", headers={"Location": "/echo"}),
              "/temp": Reply(307, "", headers={"Location": "/echo"}), "/echo": echo}
    with LoopbackServer(routes) as server:
        client = make_client()
        r303 = client.post(server.url("/see"), {"a": "1"})
        r307 = client.post(server.url("/temp"), {"a": "1"})
    assert r303.text == "GET []"
    assert r307.text == "POST [('a', ['1'])]"


def test_post_retried_after_503() -> None:
    sleeps = Sleeps()
    handler = sequence(Reply(503, "", headers={"Retry-After": "3"}), Reply(200, "done", "text/plain"))
    with LoopbackServer({"/efetch": handler}) as server:
        r = make_client(sleeps).post(server.url("/efetch"), {"id": "1"})
        assert [req.form for req in server.requests] == [{"id": ["1"]}, {"id": ["1"]}]
    assert (r.kind, r.attempts, r.text) == (OutcomeKind.OK, 2, "done")
    assert sleeps == [3.0]


# ---------------------------------------------------------------------------------------------------- resolve_redirect


def test_resolve_redirect_returns_location_without_fetching_it() -> None:
    routes = {"/10.1000/xyz": Reply(302, "<a>moved</a>", headers={"Location": "/landing/xyz?from=doi"}),
              "/landing/*": Reply(200, PAGE)}
    with LoopbackServer(routes) as server:
        r = make_client().resolve_redirect(server.url("/10.1000/xyz"))
        assert server.count("/landing") == 0
        assert [req.path for req in server.requests] == ["/10.1000/xyz"]
    assert r.kind is OutcomeKind.OK
    assert r.status == 302
    assert r.location == server.url("/landing/xyz?from=doi")
    assert r.final_url == server.url("/10.1000/xyz")
    assert (r.body, r.text, r.redirects, r.attempts, r.fetch_exception) == (b"", None, (), 1, False)


def test_resolve_redirect_of_a_non_redirect_and_of_an_unknown_doi() -> None:
    with LoopbackServer({"/page": Reply(200, PAGE), "/10.1000/unknown": Reply(404, "DOI not found")}) as server:
        client = make_client()
        page = client.resolve_redirect(server.url("/page"))
        missing = client.resolve_redirect(server.url("/10.1000/unknown"))
    assert (page.kind, page.status, page.location, page.body) == (OutcomeKind.OK, 200, None, b"")
    assert (missing.kind, missing.status, missing.location, missing.fetch_exception) == (
        OutcomeKind.NOT_FOUND, 404, None, False)


def test_resolve_redirect_retries_busy() -> None:
    sleeps = Sleeps()
    handler = sequence(Reply(429, "", headers={"Retry-After": "1"}), Reply(301, "", headers={"Location": "/t"}))
    with LoopbackServer({"/doi": handler}) as server:
        r = make_client(sleeps).resolve_redirect(server.url("/doi"))
    assert (r.kind, r.status, r.location, r.attempts) == (OutcomeKind.OK, 301, server.url("/t"), 2)


# ---------------------------------------------------------------------------------------------------- response hook


def test_response_hook_sees_every_hop_and_retry() -> None:
    records: list[ExchangeRecord] = []
    routes = {
        "/start": Reply(302, "", headers={"Location": "/middle"}),
        "/middle": Reply(301, "", headers={"Location": "/final"}),
        "/final": sequence(Reply(503, "busy", "text/plain", headers={"Retry-After": "1"}), Reply(200, PAGE)),
    }
    with LoopbackServer(routes) as server:
        r = make_client(response_hook=records.append).get(server.url("/start"))
        port = server.base.rsplit(":", 1)[1]
    assert r.kind is OutcomeKind.OK
    assert [(rec.method, rec.url, rec.status) for rec in records] == [
        ("GET", server.url("/start"), 302),
        ("GET", server.url("/middle"), 301),
        ("GET", server.url("/final"), 503),
        ("GET", server.url("/final"), 200),
    ]
    assert [rec.body for rec in records] == [b"", b"", b"busy", PAGE.encode()]
    assert all(rec.truncated is False for rec in records)
    assert all(rec.http_version == "HTTP/1.1" for rec in records)
    # best effort: urllib3 hands a body-less response's connection back to the pool before anyone can ask
    assert [rec.peer for rec in records if rec.body] == [f"127.0.0.1:{port}"] * 2
    assert dict(records[0].request_headers)["User-Agent"] == HttpConfig().user_agent
    assert ("Location", "/middle") in records[0].response_headers
    assert records[3].reason == "OK"


def test_response_hook_records_post_bodies_and_skipped_media() -> None:
    records: list[ExchangeRecord] = []
    routes = {"/form": Reply(200, "ok", "text/plain"), "/img": Reply(200, b"\x89PNG\r\n" * 100, "image/png")}
    with LoopbackServer(routes) as server:
        client = make_client(response_hook=records.append)
        client.post(server.url("/form"), {"q": "a b"})
        client.get(server.url("/img"))
    assert [(rec.method, rec.request_body, rec.body, rec.truncated) for rec in records] == [
        ("POST", b"q=a+b", b"ok", False),
        ("GET", None, b"", True),
    ]


def test_failing_response_hook_does_not_fail_the_fetch() -> None:
    def broken(_: ExchangeRecord) -> None:
        raise RuntimeError("disk full")

    with LoopbackServer({"/x": Reply(200, PAGE)}) as server:
        r = make_client(response_hook=broken).get(server.url("/x"))
    assert (r.kind, r.text) == (OutcomeKind.OK, PAGE)


# ---------------------------------------------------------------------------------------------------- headers


def test_user_agent_and_referer_as_pubfetcher_sends_them() -> None:
    """User-Agent is the userAgent parameter; Referer is the origin (protocol://authority) of the requested URL."""
    with LoopbackServer({"/a/b.html": Reply(200, PAGE)}) as server:
        make_client().get(server.url("/a/b.html?q=1#frag"))
        (req,) = server.requests
    assert req.headers["User-Agent"] == HttpConfig().user_agent
    assert req.headers["User-Agent"] == "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0"
    assert req.headers["Referer"] == server.base
    assert req.headers["Accept"].startswith("text/html")


def test_referer_stays_the_origin_of_the_first_url_across_redirects() -> None:
    routes = {"/a": Reply(302, "", headers={"Location": "/b"}), "/b": Reply(200, PAGE)}
    with LoopbackServer(routes) as server:
        make_client().get(server.url("/a"))
        assert [req.headers["Referer"] for req in server.requests] == [server.base, server.base]


def test_configured_user_agent_and_explicit_headers() -> None:
    with LoopbackServer({"/x": Reply(200, PAGE)}) as server:
        client = make_client(user_agent="pubfetch-test/1.0", extra_headers={"X-Run": "7", "Accept-Language": "et"})
        client.get(server.url("/x"), referer="https://example.org/list", headers={"Accept": "application/xml"})
        client.get(server.url("/x"), params={"query": "ext_id:123 src:med", "format": "xml"})
        first, second = server.requests
    assert first.headers["User-Agent"] == "pubfetch-test/1.0"
    assert first.headers["Referer"] == "https://example.org/list"
    assert first.headers["Accept"] == "application/xml"
    assert (first.headers["X-Run"], first.headers["Accept-Language"]) == ("7", "et")
    assert second.query == {"query": ["ext_id:123 src:med"], "format": ["xml"]}


# ---------------------------------------------------------------------------------------------------- proxies


class RecordingProxy:
    """A forward HTTP proxy stand-in on 127.0.0.1: records the raw request target and answers itself."""

    def __init__(self) -> None:
        self.targets: list[tuple[str, str, str | None]] = []
        proxy = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                proxy.targets.append((self.command, self.path, self.headers.get("Host")))
                body = b"<html><title>via proxy</title></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def proxy() -> Iterator[RecordingProxy]:
    with RecordingProxy() as p:
        yield p


def test_http_proxy_from_environment_gets_absolute_form_request(
    no_proxy_env: pytest.MonkeyPatch, proxy: RecordingProxy
) -> None:
    no_proxy_env.setenv("HTTP_PROXY", proxy.base)
    r = HttpClient(HttpConfig()).get("http://publisher.example/article?id=7")
    assert proxy.targets == [("GET", "http://publisher.example/article?id=7", "publisher.example")]
    assert (r.kind, r.status, r.text) == (OutcomeKind.OK, 200, "<html><title>via proxy</title></html>")
    assert r.final_url == "http://publisher.example/article?id=7"


def test_configured_proxy(no_proxy_env: pytest.MonkeyPatch, proxy: RecordingProxy) -> None:
    r = HttpClient(HttpConfig(proxies={"http": proxy.base})).get("http://journal.example/a")
    assert proxy.targets == [("GET", "http://journal.example/a", "journal.example")]
    assert r.kind is OutcomeKind.OK


def test_no_proxy_bypasses_the_proxy(no_proxy_env: pytest.MonkeyPatch, proxy: RecordingProxy) -> None:
    no_proxy_env.setenv("HTTP_PROXY", proxy.base)
    no_proxy_env.setenv("NO_PROXY", "127.0.0.1")
    with LoopbackServer({"/x": Reply(200, PAGE)}) as server:
        r = make_client().get(server.url("/x"))
        assert server.count("/x") == 1
    assert proxy.targets == []
    assert r.text == PAGE


def test_unreachable_proxy_is_a_connection_failure(no_proxy_env: pytest.MonkeyPatch) -> None:
    with LoopbackServer() as gone:
        dead = gone.base
    no_proxy_env.setenv("HTTP_PROXY", dead)
    r = HttpClient(HttpConfig()).get("http://publisher.example/article", publication=True)
    assert (r.kind, r.attempts, r.fetch_exception) == (OutcomeKind.CONNECTION, 1, True)
