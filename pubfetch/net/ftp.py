"""FTP downloads, for PDFs only.

PubFetcher retries a non-HTTP URL as a PDF because a few publication links are ``ftp://`` PDFs (old PMC and
institutional archives), and java.net.URL opens those natively. The standard library does the same through urllib's
FTP handler (passive mode, anonymous login, ``ftp_proxy`` honoured by the proxy handler), so supporting it costs no
dependency. The size cap and deadline of HTTP apply; the caller checks the result is a PDF.
"""

from __future__ import annotations

import contextlib
import ftplib
import http.client
import mimetypes
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Final
from urllib.parse import unquote, urlsplit

from pubfetch.net import connguard
from pubfetch.net.body import BodyTooLarge, DeadlineExceeded
from pubfetch.net.errors import classify_exception
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.retry import ExchangeFailed
from pubfetch.net.transport import Request, Response, time_left

_CHUNK: Final = 64 * 1024


def fetch_ftp(url: str, *, timeout: float | None, max_bytes: int, deadline: float | None,
              guarded: bool = False, proxy: str | None = None) -> tuple[bytes, str | None]:
    """Download an ftp URL; returns ``(body, guessed content type)``.

    Without an ftp proxy the download goes through ftplib directly, so that the control and data sockets are known:
    the deadline cuts both (a server dripping its greeting or its data holds no thread past it), and when ``guarded``
    the control connection's peer address is checked before logging in (the data connection goes to the same host:
    ftplib ignores the address a PASV answer names). With an ftp proxy in the environment, urllib's handler is used,
    its connection to the proxy under the same deadline. ``proxy`` is the environment's ftp proxy
    (:class:`~pubfetch.config.proxies.EnvironmentProxies`).

    Raises:
        BodyTooLarge, DeadlineExceeded, ExchangeFailed (classified; timeouts are retryable like HTTP's).
    """
    remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
    if proxy:
        with connguard.exchange(False, remaining) as proxied:  # the proxy is trusted: no peer check
            try:
                return _fetch_through_proxy(url, proxy, timeout=timeout, max_bytes=max_bytes, deadline=deadline)
            except ExchangeFailed as e:
                if proxied.expired:
                    raise DeadlineExceeded(f"no complete answer within the deadline of {round(remaining or 0, 2):g} s"
                                           ) from e
                raise
    with connguard.exchange(guarded, remaining) as state:
        try:
            return _fetch_direct(url, timeout, max_bytes, deadline, state)
        except (BodyTooLarge, DeadlineExceeded, ExchangeFailed):
            raise
        except (OSError, EOFError, ftplib.Error, ValueError) as e:
            if state.refused is not None:
                raise ExchangeFailed(OutcomeKind.FORBIDDEN_ADDRESS, state.refused) from e
            if state.expired:
                limit = round(remaining or 0, 2)
                raise DeadlineExceeded(f"no complete answer within the deadline of {limit:g} s") from e
            raise _classify(e, url) from e


def _fetch_direct(url: str, timeout: float | None, max_bytes: int, deadline: float | None,
                  state: connguard.Exchange) -> tuple[bytes, str | None]:
    split = urlsplit(url)
    if not split.hostname:
        raise ExchangeFailed(OutcomeKind.BAD_URL, f"no host in {url}")
    ftp = _GuardedFTP(state, timeout)
    try:
        ftp.connect(split.hostname, split.port or 21)
        ftp.login(unquote(split.username or "anonymous"), unquote(split.password or "anonymous@"))
        ftp.voidcmd("TYPE I")
        data, size = ftp.ntransfercmd("RETR " + unquote(split.path))
        if size is not None and size > max_bytes:
            data.close()
            raise BodyTooLarge(f"size {size} exceeds the cap of {max_bytes} bytes")
        with data:
            state.watch_socket(data)
            body = _read_all(data.recv, max_bytes, deadline)
        return body, mimetypes.guess_type(split.path)[0]
    finally:
        with contextlib.suppress(OSError, EOFError, ftplib.Error):
            ftp.close()


class _GuardedFTP(ftplib.FTP):
    """ftplib's client whose control socket is under the exchange's deadline and peer check from the start (its
    connect() reads the greeting before handing the socket over)."""

    def __init__(self, state: connguard.Exchange, timeout: float | None) -> None:
        super().__init__(timeout=timeout)
        self.state = state

    def connect(self, host: str = "", port: int = 0, timeout: float = -999,
                source_address: tuple[str, int] | None = None) -> str:
        self.host, self.port = host, port
        sock = socket.create_connection((host, port), self.timeout)
        self.sock = sock
        self.af = sock.family
        self.state.watch_socket(sock)
        connguard.check_socket(self.state, sock, host)
        self.file = sock.makefile("r", encoding=self.encoding)
        self.welcome = self.getresp()
        return self.welcome


def _read_all(read: Callable[[int], bytes], max_bytes: int, deadline: float | None) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while chunk := read(_CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise BodyTooLarge(f"body exceeds the cap of {max_bytes} bytes")
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceeded(f"body not read within the deadline ({total} bytes read)")
        chunks.append(chunk)
    return b"".join(chunks)


class _WatchedConnection(http.client.HTTPConnection):
    """The connection to the ftp proxy, cut at the exchange's deadline like the direct download's sockets (a read
    timeout bounds one read; a proxy dripping a byte a second would otherwise hold the thread for ever)."""

    def connect(self) -> None:
        super().connect()
        state = connguard.current()
        if state is not None:
            state.watch_socket(self.sock)


class _WatchedHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_WatchedConnection, req)


def _fetch_through_proxy(url: str, proxy: str, *, timeout: float | None, max_bytes: int,
                         deadline: float | None) -> tuple[bytes, str | None]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"ftp": proxy}), _WatchedHandler())
    state = connguard.current()
    try:
        with opener.open(url, timeout=timeout) as stream:
            length = stream.headers.get("Content-length")
            if length and length.isdigit() and int(length) > max_bytes:
                raise BodyTooLarge(f"size {length} exceeds the cap of {max_bytes} bytes")
            body = _read_all(stream.read1, max_bytes, deadline)
            if state is not None and state.expired:  # the cut ends the read as if the body were complete
                raise DeadlineExceeded(f"body not read within the deadline ({len(body)} bytes read)")
            return body, stream.headers.get("Content-type")
    except (BodyTooLarge, DeadlineExceeded):
        raise
    except urllib.error.URLError as e:
        raise _classify(e.reason, url) from e
    except (OSError, EOFError, ftplib.Error, http.client.HTTPException) as e:
        raise _classify(e, url) from e


def _classify(reason: object, url: str) -> ExchangeFailed:
    """Map what urllib/ftplib raised to an outcome kind (as java.net would have surfaced it to PubFetcher)."""
    text = str(reason)
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return ExchangeFailed(OutcomeKind.TIMEOUT, f"ftp timeout: {text}", retryable=True)
    if isinstance(reason, socket.gaierror):
        return ExchangeFailed(OutcomeKind.DNS, f"ftp host not found: {text}")
    if isinstance(reason, (ConnectionRefusedError, ConnectionAbortedError)) or "No route" in text:
        return ExchangeFailed(OutcomeKind.CONNECTION, f"ftp connection failed: {text}")
    if isinstance(reason, ftplib.error_perm) or "550" in text:
        return ExchangeFailed(OutcomeKind.NOT_FOUND, f"ftp: {text}")
    if isinstance(reason, ftplib.error_temp):
        return ExchangeFailed(OutcomeKind.SERVER_BUSY, f"ftp: {text}")
    return ExchangeFailed(OutcomeKind.IO_ERROR, f"ftp error for {url}: {text}")


class FtpTransport:
    """The ftp transport: one download per request; the response has no status, its Content-Type is a guess."""

    def __init__(self, timeout: float | None, max_bytes: int, total_timeout: float | None,
                 allow_private_addresses: bool = False, proxy: str | None = None) -> None:
        self.proxy = proxy
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.total_timeout = total_timeout
        self.allow_private_addresses = allow_private_addresses

    def send(self, request: Request) -> Response:
        started = time.monotonic()
        try:
            return self._send(request)
        finally:
            request.spent_s += time.monotonic() - started

    def _send(self, request: Request) -> Response:
        left = time_left(self.total_timeout, request)
        deadline = time.monotonic() + left if left is not None else None
        try:
            body, content_type = fetch_ftp(request.url, timeout=self.timeout, max_bytes=self.max_bytes,
                                           deadline=deadline, guarded=request.untrusted
                                           and not self.allow_private_addresses, proxy=self.proxy)
        except BodyTooLarge as e:
            raise ExchangeFailed(OutcomeKind.TOO_LARGE, str(e)) from e
        except DeadlineExceeded as e:
            raise ExchangeFailed(OutcomeKind.TIMEOUT, str(e)) from e
        except ExchangeFailed:
            raise
        except Exception as e:
            raise classify_exception(e) from e
        return Response(request.url, None, {"Content-Type": content_type} if content_type else {}, body)

    def close(self) -> None:
        pass
