"""The HTTP client against hostile servers all on 127.0.0.1: URLs that parsers read
differently, DNS that answers differently at connect time, servers that drip the status line, headers or any body,
gzip that never yields output, and secrets that must not leave for another host or reach the WARC file."""

from __future__ import annotations

import socket
import zlib
from pathlib import Path

import pytest

from pubfetch.net import addresses
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.warc import WarcRecorder
from support.drip import DRIP_READ_TIMEOUT_MS, DripServer, patient_client
from support.ftpserver import FtpServer
from support.loopback import LoopbackServer, Reply, Request
from support.waits import within

PUBLIC_IP = addresses.parse_ip("93.184.216.34")


@pytest.fixture
def internal():
    """The internal service a hostile URL tries to reach."""
    with LoopbackServer({"/*": Reply(200, "SECRET internal answer", "text/plain")}) as server:
        yield server


@pytest.fixture
def rebinding_dns(monkeypatch: pytest.MonkeyPatch):
    """``*.rebind.example`` looks public to the address check (93.184.216.34) but connects to 127.0.0.1, as a DNS server
    switching answers between the check and the connection would make it; ``publisher.example`` does not resolve."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):  # noqa: ANN001, ANN202 - socket's signature
        if isinstance(host, str) and host.endswith("rebind.example"):
            return real("127.0.0.1", port, *args, **kwargs)
        if host == "publisher.example":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(addresses, "_resolve",
                        lambda host: (PUBLIC_IP,) if host.endswith("rebind.example") else ())
    for var in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


# ----------------------------------------------------------------------------------------------- SSRF


def test_backslash_urls_are_refused_before_any_connection(internal, rebinding_dns):
    port = internal.base.rsplit(":", 1)[1]
    with patient_client() as c:
        for url in (f"http://127.0.0.1:{port}\\@publisher.example/secret.pdf",
                    f"http://127.0.0.1:{port}\\@publisher.example/",
                    f"http://localhost:{port}\\.publisher.example/fulltext"):
            result = c.get(url, untrusted=True)
            assert result.kind is OutcomeKind.BAD_URL, url
            assert result.message.startswith("ambiguous URL ('\\\\' in the host part)"), result.message
    assert internal.requests == []


def test_a_host_that_resolves_to_loopback_at_connect_time_is_refused_by_its_peer_address(internal, rebinding_dns):
    port = internal.base.rsplit(":", 1)[1]
    url = f"http://www.rebind.example:{port}/latest/meta-data/"
    with patient_client() as c:
        result = c.get(url, untrusted=True)
    assert (result.kind, result.message) == (
        OutcomeKind.FORBIDDEN_ADDRESS, "www.rebind.example connected to 127.0.0.1, a loopback address")
    assert internal.requests == []
    # the control: the same request otherwise reaches the service
    with patient_client(allow_private_addresses=True) as c:
        assert c.get(url, untrusted=True).text == "SECRET internal answer"
    assert len(internal.requests) == 1


def test_redirects_of_a_trusted_url_to_ambiguous_or_rebinding_hosts_are_refused(internal, rebinding_dns):
    """As for a -web URL given by the user: its redirects are checked by the host that will be connected to."""
    port = internal.base.rsplit(":", 1)[1]
    hops = {"/to-backslash": f"http://127.0.0.1:{port}\\@start.rebind.example/secret",
            "/to-rebinding": f"http://other.rebind.example:{port}/secret"}
    with LoopbackServer({path: Reply(302, "", headers={"Location": target}) for path, target in hops.items()}) as web:
        start = web.base.replace("127.0.0.1", "start.rebind.example")
        with patient_client() as c:
            backslash = c.get(f"{start}/to-backslash")
            rebinding = c.get(f"{start}/to-rebinding")
    assert backslash.kind is OutcomeKind.BAD_URL
    assert (rebinding.kind, rebinding.message) == (
        OutcomeKind.FORBIDDEN_ADDRESS, "other.rebind.example connected to 127.0.0.1, a loopback address")
    assert internal.requests == []
    assert [r.path for r in web.requests] == ["/to-backslash", "/to-rebinding"]


# ------------------------------------------------------------------------------------------ deadlines


DRIPS = {
    "status line": (b"", b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
    "headers": (b"HTTP/1.1 200 OK\r\n", b"X-Slow: " + b"a" * 300 + b"\r\n\r\n"),
    "chunk-size line": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/html\r\n\r\n5\r\nhello\r\n",
                        b"0" * 300),
    "200 body": (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 300\r\n\r\n", b"x" * 300),
}


@pytest.mark.parametrize("where", DRIPS)
def test_one_deadline_covers_status_line_headers_and_body(where):
    prefix, drip = DRIPS[where]
    server = DripServer(prefix, drip)
    try:
        with patient_client(timeout=DRIP_READ_TIMEOUT_MS, total_timeout_ms=800) as c:
            result = within(60, lambda: c.get(server.url))
    finally:
        server.close()
    assert result.kind is OutcomeKind.TIMEOUT, result.message
    assert result.message == "no complete answer within the deadline of 0.8 s" or \
        result.message.startswith("body not read within the deadline")
    assert result.attempts == 1  # a server that drips once drips again: not retried
    assert server.sent < 100  # cut off, not read to the end (300 bytes at 10/s)


@pytest.mark.parametrize(("status", "kind"), [(302, OutcomeKind.TIMEOUT), (404, OutcomeKind.TIMEOUT),
                                              (503, OutcomeKind.SERVER_BUSY)])
def test_bodies_of_redirects_and_errors_are_bounded_by_the_same_deadline(status, kind):
    head = (f"HTTP/1.1 {status} X\r\nContent-Type: text/html\r\nContent-Length: 300\r\n"
            f"Location: http://127.0.0.1:9/next\r\n\r\n").encode()
    server = DripServer(head, b"x" * 300)
    try:
        with patient_client(timeout=DRIP_READ_TIMEOUT_MS, total_timeout_ms=800) as c:
            result = within(60, lambda: c.get(server.url))
    finally:
        server.close()
    assert result.kind is kind  # a 503 is busy whatever its body does (and not retried here)
    assert result.status == status
    assert server.sent < 100


# ----------------------------------------------------------------------------------------------- gzip


def tcp_buffers_max() -> int:
    """The most a loopback connection's send and receive buffers can hold together (Linux's autotuning maxima; 16 MB
    where they cannot be read)."""
    try:
        return sum(int(Path(f"/proc/sys/net/ipv4/tcp_{kind}").read_text().split()[2]) for kind in ("wmem", "rmem"))
    except (OSError, ValueError, IndexError):
        return 16_000_000


def test_gzip_that_never_yields_output_is_capped_by_its_compressed_size():
    """A deflate stream of empty stored blocks decodes to nothing, for ever: the cap counts the bytes on the wire."""
    empty_blocks = b"\x00\x00\x00\xff\xff" * 20_000  # 100 kB of empty non-final stored blocks
    gzip_header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
    sent = [0]

    def endless(req: Request) -> Reply:
        def pieces():
            yield gzip_header
            for _ in range(500):  # 50 MB in all, unless the client stops reading
                sent[0] += len(empty_blocks)
                yield empty_blocks

        return Reply(200, b"", "text/html", headers={"Content-Encoding": "gzip"}, chunks=pieces())  # type: ignore[arg-type]

    with LoopbackServer({"/gz": endless}) as server, patient_client(max_bytes=1_000_000) as c:
        result = within(60, lambda: c.get(server.url("/gz")))
    assert (result.kind, result.message) == (OutcomeKind.TOO_LARGE,
                                             "compressed body exceeds the cap of 1000000 bytes on the wire")
    # the server wrote at most what the client read (the cap), what the two sockets' buffers hold (the kernel grows
    # them up to its tcp_wmem and tcp_rmem maxima: 36 MB on one machine here) and the chunk it was writing
    assert sent[0] <= 1_000_000 + tcp_buffers_max() + len(empty_blocks)
    assert sent[0] < 500 * len(empty_blocks)  # and not the whole endless body: the client closed


def test_a_deflate_bomb_is_decoded_in_bounded_steps():
    bomb = zlib.compress(b"\0" * 200_000_000, 9)  # 200 MB from 200 kB
    with LoopbackServer({"/bomb": Reply(200, bomb, "text/html", headers={"Content-Encoding": "deflate"})}) as server, \
            patient_client(max_bytes=5_000_000) as c:
        result = c.get(server.url("/bomb"))
    assert result.kind is OutcomeKind.TOO_LARGE
    assert result.message == "body exceeds the cap of 5000000 bytes" or result.message.startswith(
        "decompression bomb")


# -------------------------------------------------------------------------------------------- secrets

KEY = "ncbiKEY0123456789abcdef"


def test_a_307_to_another_host_does_not_resend_the_api_key_or_credentials():
    with LoopbackServer({"/collect": Reply(200, "<eSearchResult/>", "text/xml")}) as other:
        elsewhere = other.url("/collect").replace("127.0.0.1", "localhost")
        with LoopbackServer({"/efetch.fcgi": Reply(307, "", headers={"Location": elsewhere})}) as eutils, \
                patient_client(allow_private_addresses=True) as c:
            result = c.post(eutils.url("/efetch.fcgi"), {"db": "pubmed", "id": "1,2", "api_key": KEY},
                            headers={"Authorization": "Bearer token", "Cookie": "session=1"})
        assert result.ok
        assert eutils.requests[0].form["api_key"] == [KEY]  # NCBI itself got the key
        sent = other.requests[0]
        assert sent.method == "POST" and sent.form == {"db": ["pubmed"], "id": ["1,2"]}
        assert not {"authorization", "cookie"} & {k.lower() for k in sent.headers}


def test_response_bodies_echoing_the_api_key_are_redacted_in_the_warc(tmp_path: Path):
    echo = f'{{"error": "API key invalid", "api-key": "{KEY}", "url": "efetch.fcgi?api_key={KEY}"}}'
    warc = tmp_path / "run.warc"
    with LoopbackServer({"/efetch.fcgi": Reply(400, echo, "application/json",
                                               headers={"X-Echo": KEY})}) as eutils, \
            WarcRecorder(warc, secrets=[KEY]) as recorder, patient_client(response_hook=recorder) as c:
        result = c.post(eutils.url("/efetch.fcgi"), {"db": "pubmed", "id": "1", "api_key": KEY})
    assert result.status == 400
    data = warc.read_bytes()
    assert KEY.encode() not in data
    assert b'"api-key": "REDACTED"' in data and b"X-Echo: REDACTED" in data



# ------------------------------------------------------------------------------------------------ ftp


PDF = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"


def test_ftp_downloads_with_a_deadline_and_a_peer_check(rebinding_dns):
    server = FtpServer({"/pub/paper.pdf": PDF})
    dripping = FtpServer({}, drip=True)
    try:
        # the healthy download gets no short deadline (a loaded machine may take seconds over its round trips)
        with patient_client(allow_private_addresses=True, timeout=DRIP_READ_TIMEOUT_MS) as c:
            ok = c.get(server.url("/pub/paper.pdf"))
        with patient_client(allow_private_addresses=True, timeout=DRIP_READ_TIMEOUT_MS, total_timeout_ms=800) as c:
            slow = within(60, lambda: c.get(dripping.url("/pub/paper.pdf")))
        with patient_client(timeout=DRIP_READ_TIMEOUT_MS) as c:
            rebinding = c.get(server.url("/pub/paper.pdf", host="ftp.rebind.example"), untrusted=True)
    finally:
        server.close()
        dripping.close()
    assert (ok.kind, ok.is_pdf, ok.body) == (OutcomeKind.OK, True, PDF)
    assert (slow.kind, slow.message) == (OutcomeKind.TIMEOUT, "no complete answer within the deadline of 0.8 s")
    assert dripping.commands == []
    assert (rebinding.kind, rebinding.message) == (
        OutcomeKind.FORBIDDEN_ADDRESS, "ftp.rebind.example connected to 127.0.0.1, a loopback address")
    assert server.commands.count("USER anonymous") == 1  # only the allowed download logged in


@pytest.mark.parametrize("url", [
    "http://pub lisher.example/x.pdf",
    # urllib.parse drops the tab (as browsers do); urllib3 keeps it (a host of its own) or refuses it, by version
    "http://publisher.example\t.evil.example/",
    "http://publisher.example:99999/x.pdf",
])
def test_other_urls_parsers_read_differently_are_refused(url, internal):
    """Refused before any connection, whatever words the URL parsers use for it: pubfetch promises the kind, that the
    message calls the URL ambiguous and names it; the reason in the parentheses may quote urllib3."""
    with patient_client() as c:
        result = c.get(url, untrusted=True)
    assert result.kind is OutcomeKind.BAD_URL
    assert result.message.startswith("ambiguous URL (") and result.message.endswith(f"): {url}"), result.message
    assert internal.requests == []
