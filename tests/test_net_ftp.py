"""Tests for pubfetch.net.ftp: ftp downloads (for PDFs) from a loopback FTP server: the body and a guessed type, the
size cap, missing files, refused connections, and the peer check of untrusted URLs."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from pubfetch.net.body import BodyTooLarge
from pubfetch.net.ftp import FtpTransport, fetch_ftp
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.retry import ExchangeFailed
from pubfetch.net.transport import Request
from support.ftpserver import FtpServer

PDF = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"


@pytest.fixture(autouse=True)
def no_ftp_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """These downloads go straight to the server (an ftp proxy in the environment would take them)."""
    for name in ("ftp_proxy", "FTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[FtpServer]:
    ftp = FtpServer({"/pub/paper.pdf": PDF, "/pub/notes": b"plain notes"})
    yield ftp
    ftp.close()


def transport(max_bytes: int = 1_000_000, allow_private_addresses: bool = True) -> FtpTransport:
    return FtpTransport(timeout=30, max_bytes=max_bytes, total_timeout=None,
                        allow_private_addresses=allow_private_addresses)


def test_a_download_gives_the_body_and_the_type_its_name_suggests(server: FtpServer) -> None:
    assert fetch_ftp(server.url("/pub/paper.pdf"), timeout=30, max_bytes=1000, deadline=None) == (PDF,
                                                                                                   "application/pdf")
    assert fetch_ftp(server.url("/pub/notes"), timeout=30, max_bytes=1000, deadline=None) == (b"plain notes", None)
    assert server.commands[:4] == ["USER anonymous", "PASS anonymous@", "TYPE I", "PASV"]


def test_the_transport_answers_without_a_status_and_counts_its_time(server: FtpServer) -> None:
    request = Request("GET", server.url("/pub/paper.pdf"))
    response = transport().send(request)
    assert (response.url, response.status, response.body) == (request.url, None, PDF)
    assert response.headers == {"Content-Type": "application/pdf"} and request.spent_s > 0


def test_a_body_over_the_cap_is_too_large(server: FtpServer) -> None:
    with pytest.raises(BodyTooLarge, match="body exceeds the cap of 10 bytes"):
        fetch_ftp(server.url("/pub/paper.pdf"), timeout=30, max_bytes=10, deadline=None)
    with pytest.raises(ExchangeFailed) as failed:
        transport(max_bytes=10).send(Request("GET", server.url("/pub/paper.pdf")))
    assert failed.value.kind is OutcomeKind.TOO_LARGE


def test_a_missing_file_is_not_found(server: FtpServer) -> None:
    with pytest.raises(ExchangeFailed) as failed:
        transport().send(Request("GET", server.url("/pub/none.pdf")))
    assert failed.value.kind is OutcomeKind.NOT_FOUND and "550" in failed.value.message


def test_an_untrusted_url_that_reaches_a_loopback_address_is_refused_before_logging_in(server: FtpServer) -> None:
    with pytest.raises(ExchangeFailed) as failed:
        transport(allow_private_addresses=False).send(Request("GET", server.url("/pub/paper.pdf"), untrusted=True))
    assert failed.value.kind is OutcomeKind.FORBIDDEN_ADDRESS
    assert failed.value.message == "127.0.0.1 connected to 127.0.0.1, a loopback address"
    assert server.commands == []
    assert transport(allow_private_addresses=False).send(Request("GET", server.url("/pub/paper.pdf"))).body == PDF


def test_a_refused_connection_and_a_url_without_host() -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    with pytest.raises(ExchangeFailed) as refused:
        transport().send(Request("GET", f"ftp://127.0.0.1:{port}/pub/paper.pdf"))
    assert refused.value.kind is OutcomeKind.CONNECTION
    with pytest.raises(ExchangeFailed) as no_host:
        transport().send(Request("GET", "ftp:///pub/paper.pdf"))
    assert no_host.value.kind is OutcomeKind.BAD_URL
