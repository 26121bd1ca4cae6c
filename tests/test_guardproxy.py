"""The browser's guarding proxy: what it refuses is logged at a level that says whether it is news. Chromium's own
background services (sign-in, updates) are refused by design on every run, so they are logged at info; a page's
request to an internal address is a warning."""

from __future__ import annotations

import logging
import socket
from urllib.parse import urlsplit

import pytest

from pubfetch.net.guardproxy import GuardProxy


def _connect_through(proxy: GuardProxy, target: str) -> bytes:
    split = urlsplit(proxy.url)
    with socket.create_connection((split.hostname, split.port), timeout=30) as conn:
        conn.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        return conn.recv(4096)


@pytest.mark.parametrize(("target", "level"), [("accounts.google.com:443", logging.INFO),
                                               ("127.0.0.1:9", logging.WARNING)])
def test_refusals_are_warnings_only_when_they_are_news(target: str, level: int,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="pubfetch.net.guardproxy"), GuardProxy(upstream=lambda url: None) as proxy:
        answer = _connect_through(proxy, target)
        refused = list(proxy.refused)
    assert answer.startswith(b"HTTP/1.1 403")
    assert [url for url, _ in refused] == [f"https://{target}/"]
    records = [r for r in caplog.records if r.getMessage().startswith("browser connection refused")]
    assert [r.levelno for r in records] == [level]
