"""Tests for pubfetch.net.requests_transport: one hop over HTTP to a loopback server, never following redirects,
reading only as much of a body as the response deserves, recording the exchange when asked, refusing forbidden
peers, and cut (now and later) by an abort."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pubfetch.net.config import HttpConfig
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.requests_transport import SMALL_BODY, EnvironmentSettings, RequestsTransport, read_response
from pubfetch.net.retry import ExchangeFailed, ServerBusy
from pubfetch.net.transport import Request, Response
from support.loopback import LoopbackServer, Reply

PDF = b"%PDF-1.4\n%%EOF\n"


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    routes = {
        "/page": Reply(200, "<html>page</html>", headers={"X-Served": "yes"}),
        "/moved": Reply(302, "moved " * 30_000, headers={"Location": "/page"}),
        "/busy": Reply(503, "busy", "text/plain", {"Retry-After": "7"}),
        "/gone": Reply(404, "x" * (2 * SMALL_BODY), "text/plain"),
        "/image": Reply(200, b"\x89PNG" + b"\0" * 5000, "image/png"),
        "/paper": Reply(200, PDF, "application/pdf"),
        "/big": Reply(200, "b" * 5000, "text/plain"),
    }
    with LoopbackServer(routes) as loopback:
        yield loopback


@pytest.fixture
def transport() -> Iterator[RequestsTransport]:
    network = RequestsTransport(HttpConfig(allow_private_addresses=True, max_bytes=4096, timeout=30_000))
    yield network
    network.close()


def test_a_page_is_read_whole_with_its_headers(server: LoopbackServer, transport: RequestsTransport) -> None:
    request = Request("GET", server.url("/page"))
    response = transport.send(request)
    assert (response.status, response.body, response.headers["x-served"]) == (200, b"<html>page</html>", "yes")
    assert response.exchange is None and request.spent_s > 0


def test_a_redirect_is_not_followed_and_its_body_is_read_only_in_part(server: LoopbackServer,
                                                                      transport: RequestsTransport) -> None:
    response = transport.send(Request("GET", server.url("/moved")))
    assert (response.status, response.location) == (302, server.url("/page"))
    assert len(response.body) == SMALL_BODY and server.count("/page") == 0


def test_a_busy_server_raises_with_its_wait(server: LoopbackServer, transport: RequestsTransport) -> None:
    with pytest.raises(ServerBusy) as busy:
        transport.send(Request("GET", server.url("/busy")))
    assert (busy.value.status, busy.value.retry_after, busy.value.payload.body) == (503, 7.0, b"busy")


def test_an_error_page_is_read_only_in_part(server: LoopbackServer, transport: RequestsTransport) -> None:
    response = transport.send(Request("GET", server.url("/gone")))
    assert response.status == 404 and len(response.body) == SMALL_BODY


def test_skipped_media_and_unwanted_pdfs_are_not_downloaded(server: LoopbackServer,
                                                            transport: RequestsTransport) -> None:
    image = transport.send(Request("GET", server.url("/image")))
    assert (image.skipped, image.body) == (True, b"")
    unwanted = transport.send(Request("GET", server.url("/paper"), accept_pdf=False))
    wanted = transport.send(Request("GET", server.url("/paper")))
    assert (unwanted.skipped, wanted.skipped, wanted.body) == (True, False, PDF)


def test_a_body_over_the_cap_fails_with_the_response_as_payload(server: LoopbackServer,
                                                                transport: RequestsTransport) -> None:
    with pytest.raises(ExchangeFailed) as failed:
        transport.send(Request("GET", server.url("/big")))
    assert failed.value.kind is OutcomeKind.TOO_LARGE and failed.value.payload.status == 200


def test_a_recorded_exchange_has_what_was_sent_and_received(server: LoopbackServer,
                                                            transport: RequestsTransport) -> None:
    response = transport.send(Request("POST", server.url("/page"), {"q": "tides"}, {"X-Asked": "1"}, record=True))
    record = response.exchange
    assert record is not None
    assert (record.method, record.url, record.status, record.reason, record.http_version) == (
        "POST", server.url("/page"), 200, "OK", "HTTP/1.1")
    assert record.request_body == b"q=tides" and ("X-Asked", "1") in record.request_headers
    assert ("X-Served", "yes") in record.response_headers and record.body == b"<html>page</html>"
    assert not record.truncated and record.peer == server.base.removeprefix("http://")


def test_an_untrusted_hop_to_a_loopback_address_is_refused_before_it_is_sent(server: LoopbackServer) -> None:
    guarded = RequestsTransport(HttpConfig(timeout=30_000))
    try:
        with pytest.raises(ExchangeFailed) as refused:
            guarded.send(Request("GET", server.url("/page"), untrusted=True))
        assert guarded.send(Request("GET", server.url("/page"))).status == 200  # a trusted URL may be local
    finally:
        guarded.close()
    assert refused.value.kind is OutcomeKind.FORBIDDEN_ADDRESS and "127.0.0.1" in refused.value.message
    assert server.count("/page") == 1


def test_after_an_abort_nothing_more_is_sent(server: LoopbackServer, transport: RequestsTransport) -> None:
    transport.abort("the run is stopping")
    with pytest.raises(ExchangeFailed) as failed:
        transport.send(Request("GET", server.url("/page")))
    assert (failed.value.kind, failed.value.message) == (OutcomeKind.CONNECTION, "the run is stopping")
    assert server.count() == 0


def test_proxies_come_from_the_config_then_the_environment_unless_no_proxy_exempts_the_host(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                 "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert EnvironmentSettings(HttpConfig()).proxies("http://journal.test/a") == {}
    monkeypatch.setenv("http_proxy", "http://env-proxy.test:3128")
    monkeypatch.setenv("no_proxy", "internal.test")
    settings = EnvironmentSettings(HttpConfig(proxies={"https": "http://explicit.test:8080"}))
    assert settings.proxies("http://journal.test/a") == {"http": "http://env-proxy.test:3128",
                                                         "https": "http://explicit.test:8080"}
    assert settings.proxies("http://internal.test/a") == {"https": "http://explicit.test:8080"}
    assert EnvironmentSettings(HttpConfig(ca_bundle="/etc/ssl/bundle.pem")).verify == "/etc/ssl/bundle.pem"


def test_read_response_reads_what_each_response_deserves() -> None:
    """The classification any transport shares: a body read in part, or not kept when nobody wants it."""
    calls: list[str] = []

    def some(limit: int) -> tuple[bytes, bool]:
        calls.append(f"some {limit}")
        return b"piece", True

    def whole() -> bytes:
        calls.append("whole")
        return b"everything"

    recorded: list[tuple[bytes, bool]] = []
    head_only = read_response(Request("GET", "https://x/a", read_body=False, record=True),
                              Response("https://x/a", 200, {"Content-Type": "text/html"}), some, whole,
                              lambda body, truncated: recorded.append((body, truncated)))
    assert (head_only.body, calls, recorded) == (b"", [f"some {SMALL_BODY}"], [(b"piece", True)])
    with pytest.raises(ExchangeFailed) as bad:
        read_response(Request("GET", "https://x/a"), Response("https://x/a", 301, {"Location": "http://[bad/"}), some,
                      whole, lambda body, truncated: None)
    assert bad.value.kind is OutcomeKind.BAD_URL and bad.value.payload.status == 301
    page = read_response(Request("GET", "https://x/a"), Response("https://x/a", 200, {"Content-Type": "text/html"}),
                         some, whole, lambda body, truncated: None)
    assert page.body == b"everything" and calls[-1] == "whole"
