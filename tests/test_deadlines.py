"""Deadlines that could be got around: an ftp download through ``ftp_proxy`` read a byte a second for
ever (the deadline was checked only between 64 kB reads), and a 503 whose body drips cost one full exchange deadline
per retry. Every read is under the exchange deadline, and a request's retries share one deadline."""

from __future__ import annotations

import socket
import threading

import pytest

from pubfetch.net.outcome import OutcomeKind
from support.drip import DRIP_READ_TIMEOUT_MS, DripServer, patient_client
from support.waits import within

FTP_PROXY_DRIPS = {
    "status line": (b"", b"HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\n\r\n%PDF" + b"x" * 3000),
    "body": (b"HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\n\r\n%PDF", b"x" * 3000),
    "sized body": (b"HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: 3004\r\n\r\n%PDF",
                   b"x" * 3000),
}


@pytest.fixture
def no_proxies(monkeypatch: pytest.MonkeyPatch):
    for var in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY",
                "no_proxy", "FTP_PROXY", "ftp_proxy"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


@pytest.mark.parametrize("where", FTP_PROXY_DRIPS)
def test_an_ftp_download_through_a_dripping_proxy_ends_at_the_deadline(no_proxies, where):
    prefix, drip = FTP_PROXY_DRIPS[where]
    proxy = DripServer(prefix, drip)  # 3000 bytes at 10 a second: five minutes without the deadline
    no_proxies.setenv("ftp_proxy", proxy.url)
    try:
        with patient_client(allow_private_addresses=True, timeout=DRIP_READ_TIMEOUT_MS, total_timeout_ms=800) as c:
            result = within(60, lambda: c.get("ftp://files.example/pub/paper.pdf"))
    finally:
        proxy.close()
    assert result.kind is OutcomeKind.TIMEOUT, result.message
    assert "deadline" in result.message
    assert proxy.sent < 300  # cut off, not read to the end


class CountingDripServer(DripServer):
    """A DripServer that counts the connections it answered."""

    def __init__(self, prefix: bytes, drip: bytes) -> None:
        self.connections = 0
        self.lock = threading.Lock()
        super().__init__(prefix, drip)

    def _drip(self, conn: socket.socket) -> None:
        with self.lock:
            self.connections += 1
        super()._drip(conn)


def test_a_503_with_a_dripping_body_costs_one_deadline_not_one_per_retry(no_proxies):
    head = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html\r\nContent-Length: 3000\r\n\r\n"
    server = CountingDripServer(head, b"x" * 3000)
    try:
        with patient_client(timeout=DRIP_READ_TIMEOUT_MS, total_timeout_ms=800, busy_retries=2,
                            busy_backoff_s=0.0, allow_private_addresses=True) as c:
            result = within(60, lambda: c.get(server.url))
    finally:
        server.close()
    assert result.kind is OutcomeKind.SERVER_BUSY and result.status == 503
    assert server.connections == 1  # the first answer took the request's whole deadline: no retry
    assert result.attempts == 1


def test_retries_still_happen_within_the_deadline(no_proxies):
    """The shared deadline leaves the retry policy alone for quick answers: a plain 503 is asked three times."""
    # the server closes each connection after its answer, so it says so: a client reusing the connection would race
    # the close and see a reset instead of the next 503
    head = b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    server = CountingDripServer(head, b"")
    try:
        with patient_client(timeout=DRIP_READ_TIMEOUT_MS, total_timeout_ms=60_000, busy_retries=2,
                            busy_backoff_s=0.0, allow_private_addresses=True) as c:
            result = within(60, lambda: c.get(server.url))
    finally:
        server.close()
    assert result.kind is OutcomeKind.SERVER_BUSY
    assert server.connections == 3 and result.attempts == 3
