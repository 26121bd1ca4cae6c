"""A forward proxy on 127.0.0.1 that lets Chromium reach only public addresses (the browser's SSRF guard).

Playwright's request routing sees neither WebSockets nor the hops of a redirect Chromium follows itself, nor DNS
answers that change between a check and the connection. So a rendered page could open ``ws://127.0.0.1:...``, or
fetch a public URL that redirects to a loopback service, and read the answer. Every connection the browser makes goes
through this proxy instead (``--proxy-server`` with ``<-loopback>`` so that loopback is not exempt): the proxy
resolves the host itself, refuses it when ANY of its addresses is forbidden (:func:`addresses.forbidden_ip_reason`),
and connects to the very address it checked. Plain HTTP (absolute-form requests) and CONNECT tunnels (HTTPS, ``ws``
and ``wss``) are both covered, and a refusal is a 403 that Chromium reports as a failed request.

A plain HTTP client connection carries ONE exchange: the request head and its declared body go to the server, then
only the answer comes back, and whatever else the browser sends on that connection is dropped. Were the connection
piped both ways after the first request, a second request on it (keep-alive or pipelined, for any host) would reach
the server, or the upstream proxy, unchecked. Chromium opens a new connection when one closes; that new connection's
request is checked like the first. A tunnel carries bytes to the one checked host, so it is piped as it is.

When the environment names an upstream proxy (``HTTP_PROXY``/``HTTPS_PROXY``/``NO_PROXY``, as requests honours), the
request is handed to it unchanged after the host name check, because the upstream proxy does the resolving.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import threading
from collections.abc import Callable
from typing import Final
from urllib.parse import urlsplit

from pubfetch.config.environment import environment_proxies
from pubfetch.net import addresses

logger = logging.getLogger(__name__)

#: Longest request head accepted from the browser.
MAX_HEAD: Final = 64 * 1024
#: Idle time after which a tunnel or an HTTP exchange is closed.
IDLE_TIMEOUT_S: Final = 120.0
CONNECT_TIMEOUT_S: Final = 15.0
#: Chromium's own services (component and extension updates, network time, safe browsing, optimisation hints): the
#: browser calls them while rendering even with --disable-component-update, and a fetch run must not phone home.
BROWSER_SERVICE_HOSTS: Final = frozenset({
    "update.googleapis.com", "clients1.google.com", "clients2.google.com", "clientservices.googleapis.com",
    "safebrowsing.googleapis.com", "sb-ssl.google.com", "optimizationguide-pa.googleapis.com",
    "content-autofill.googleapis.com", "accounts.google.com", "android.clients.google.com", "dl.google.com",
    "redirector.gvt1.com", "edgedl.me.gvt1.com", "update.googleapis.cn",
})
_BROWSER_SERVICE_SUFFIXES: Final = (".gvt1.com", ".gvt2.com")
_BUFFER: Final = 64 * 1024


class Refused(Exception):
    """The target must not be connected to (its reason is the message)."""


def _split_host_port(authority: str, default_port: int) -> tuple[str, int]:
    """``host:port`` or ``[v6]:port`` -> (host, port); raises ValueError for anything else."""
    authority = authority.strip()
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port_text = authority.rpartition(":") if authority.count(":") == 1 else (authority, "", "")
    if not host or any(c in host for c in "\\/@ \t"):
        raise ValueError(f"bad host in {authority!r}")
    port = int(port_text) if port_text else default_port
    if not 0 < port < 65536:
        raise ValueError(f"bad port in {authority!r}")
    return host, port


def allowed_addresses(host: str, port: int) -> list[tuple]:
    """The socket addresses of ``host`` to connect to; Refused when any of its addresses is forbidden (the connection
    could pick that one) or a metadata/localhost name, OSError when it does not resolve."""
    reason = addresses.forbidden_name_reason(host) or browser_service_reason(host)
    if reason:
        raise Refused(f"{host} is a {reason}")
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    for info in infos:
        ip = addresses.parse_ip(str(info[4][0]))
        reason = addresses.forbidden_ip_reason(ip) if ip is not None else "address it cannot check"
        if reason:
            raise Refused(f"{host} is a {reason} ({info[4][0]})")
    return [info for info in infos]


def browser_service_reason(host: str) -> str | None:
    """Why a host is refused as one of Chromium's own services (``None`` if it is not one)."""
    host = host.strip().rstrip(".").lower()
    if host in BROWSER_SERVICE_HOSTS or host.endswith(_BROWSER_SERVICE_SUFFIXES):
        return "service of the browser itself (no phoning home)"
    return None


class GuardProxy:
    """The proxy, serving each browser connection in a thread of its own. Use as a context manager or call close().

    Args:
        upstream: maps a URL to the upstream proxy URL to hand it to (``None``: connect directly); default: the
            environment's proxies, as the configuration reads them
            (:class:`~pubfetch.config.proxies.EnvironmentProxies`).
    """

    def __init__(self, upstream: Callable[[str], str | None] | None = None) -> None:
        self._upstream = upstream or environment_proxies().upstream
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.5)
        self._closed = threading.Event()
        #: (target, reason) of every refused request, newest last (the caller reports them)
        self.refused: list[tuple[str, str]] = []
        #: every target asked for, and every target connected to (directly or through the upstream proxy), as
        #: ``host:port``: tests check what the browser reached and that nothing phoned home
        self.targets: list[str] = []
        self.connected: list[str] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._accept, name="pubfetch-guard-proxy", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def close(self) -> None:
        self._closed.set()
        with contextlib.suppress(OSError):
            self._listener.close()
        self._thread.join(timeout=2)

    def __enter__(self) -> GuardProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ serving

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), name="pubfetch-guard-conn", daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with contextlib.ExitStack() as stack:
            stack.callback(client.close)
            client.settimeout(IDLE_TIMEOUT_S)
            try:
                head, rest = _read_head(client)
                method, target, version, lines = _parse_head(head)
                server = stack.enter_context(self._open(method, target, version, lines, head, rest, client))
            except Refused as e:
                _answer(client, 403, str(e))
                return
            except (ValueError, OSError) as e:
                _answer(client, 502, f"proxy: {e}")
                return
            if method == "CONNECT":
                _pipe(client, server)
            else:
                _answer_one(client, server)

    @contextlib.contextmanager
    def _open(self, method: str, target: str, version: str, lines: list[str], head: bytes, rest: bytes,
              client: socket.socket):
        """Connect to the target (or the upstream proxy), send what must go first (for plain HTTP: the request head and
        its whole body, nothing more), and yield the server socket."""
        if method == "CONNECT":
            host, port = _split_host_port(target, 443)
            url = f"https://{host}:{port}/"
        else:
            split = urlsplit(target)
            if split.scheme != "http" or not split.netloc:
                raise ValueError(f"not an absolute http URL: {target[:200]!r}")
            host, port = _split_host_port(split.netloc.rpartition("@")[2], 80)
            url = target
            rest = _request_body(client, lines, rest)
        self._note(f"{host}:{port}")
        upstream = self._upstream(url)
        try:
            if upstream is not None:
                reason = addresses.forbidden_host_reason(host) or browser_service_reason(host)
                if reason:
                    raise Refused(f"{host} is a {reason}")
                up_host, up_port = _split_host_port(urlsplit(upstream).netloc.rpartition("@")[2], 8080)
                server = socket.create_connection((up_host, up_port), timeout=CONNECT_TIMEOUT_S)
                # the upstream proxy answers CONNECT itself; a plain request goes with "Connection: close"
                server.sendall(head + rest if method == "CONNECT" else _one_exchange_head(head) + rest)
            else:
                server = _connect(allowed_addresses(host, port))
                if method == "CONNECT":
                    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    if rest:
                        server.sendall(rest)
                else:
                    server.sendall(_origin_form(method, split, version, lines) + rest)
        except Refused as e:
            with self._lock:
                self.refused.append((url, str(e)))
            # Chromium's own background services (sign-in, updates) are refused by design: expected, not news
            (logger.info if browser_service_reason(host) else logger.warning)(
                "browser connection refused: %s (%s)", url, e)
            raise
        server.settimeout(IDLE_TIMEOUT_S)
        with self._lock:
            self.connected.append(f"{host}:{port}")
        try:
            yield server
        finally:
            server.close()

    def _note(self, target: str) -> None:
        with self._lock:
            self.targets.append(target)


def _connect(infos: list[tuple]) -> socket.socket:
    """A connection to the first of the checked addresses that answers; the peer is checked once more."""
    error: OSError | None = None
    for family, type_, proto, _, address in infos:
        sock = socket.socket(family, type_, proto)
        sock.settimeout(CONNECT_TIMEOUT_S)
        try:
            sock.connect(address)
        except OSError as e:
            sock.close()
            error = e
            continue
        peer = addresses.parse_ip(str(sock.getpeername()[0]))
        if peer is None or addresses.forbidden_ip_reason(peer):
            sock.close()
            raise Refused(f"connected peer {peer} is not a public address")
        return sock
    raise error or OSError("no address to connect to")


def _read_head(client: socket.socket) -> tuple[bytes, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(_BUFFER)
        if not chunk:
            raise ValueError("connection closed before the request head")
        data += chunk
        if len(data) > MAX_HEAD:
            raise ValueError("request head too long")
    head, _, rest = data.partition(b"\r\n\r\n")
    return head + b"\r\n\r\n", rest


def _parse_head(head: bytes) -> tuple[str, str, str, list[str]]:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        raise ValueError(f"bad request line {lines[0][:200]!r}")
    method, target, version = parts
    return method.upper(), target, version, [line for line in lines[1:] if line]


_HOP_HEADERS: Final = ("proxy-connection", "proxy-authorization", "connection", "keep-alive")
#: Longest request body forwarded (form posts of a page; nothing pubfetch renders uploads more).
MAX_REQUEST_BODY: Final = 16 * 1024 * 1024


def _origin_form(method: str, split, version: str, lines: list[str]) -> bytes:  # noqa: ANN001 - SplitResult
    """The request as a server expects it: path only, no proxy headers, one exchange per connection."""
    path = (split.path or "/") + (f"?{split.query}" if split.query else "")
    kept = [line for line in lines if line.split(":", 1)[0].strip().lower() not in _HOP_HEADERS]
    return (f"{method} {path} {version}\r\n" + "".join(f"{line}\r\n" for line in kept)
            + "Connection: close\r\n\r\n").encode("latin-1")


def _one_exchange_head(head: bytes) -> bytes:
    """A request head for the upstream proxy, as received but asking to close the connection after the answer."""
    first, *lines = [line for line in head.decode("latin-1").split("\r\n") if line]
    kept = [line for line in lines if line.split(":", 1)[0].strip().lower() not in _HOP_HEADERS]
    return (first + "\r\n" + "".join(f"{line}\r\n" for line in kept) + "Connection: close\r\n\r\n").encode("latin-1")


def _request_body(client: socket.socket, lines: list[str], rest: bytes) -> bytes:
    """The request's body, by its Content-Length, read in full: the bytes after it (a pipelined second request) are
    not the exchange's and are dropped. A body without a length (chunked) is refused: its end cannot be told from
    the next request's start without parsing the chunks."""
    fields = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip() for line in lines if ":" in line}
    if "transfer-encoding" in fields:
        raise ValueError("request bodies without a Content-Length are not forwarded")
    length_text = fields.get("content-length", "0")
    if not length_text.isdigit() or int(length_text) > MAX_REQUEST_BODY:
        raise ValueError(f"bad request Content-Length {length_text[:40]!r}")
    length = int(length_text)
    body = rest
    while len(body) < length:
        chunk = client.recv(min(_BUFFER, length - len(body)))
        if not chunk:
            raise ValueError("connection closed before the request body")
        body += chunk
    return body[:length]


def _answer(client: socket.socket, status: int, message: str) -> None:
    reason = {403: "Forbidden", 502: "Bad Gateway"}[status]
    body = message.encode("utf-8", "replace")
    with contextlib.suppress(OSError):
        client.sendall(f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain; charset=utf-8\r\n"
                       f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)


def _answer_one(client: socket.socket, server: socket.socket) -> None:
    """Copy the server's answer to the client until either side closes or nothing moves for IDLE_TIMEOUT_S; the
    client's further bytes (another request on this connection) end the exchange unforwarded.

    The answer's head is told to close the connection (:func:`_closing_head`): a browser that believed the connection
    kept alive would send its next request on it, see it dropped and only then retry on a new one, a delay on every
    resource of a page."""
    head: bytes | None = b""  # the answer's head while it comes; None once it went to the client
    with selectors.DefaultSelector() as sel:
        sel.register(server, selectors.EVENT_READ)
        sel.register(client, selectors.EVENT_READ)
        while True:
            ready = sel.select(timeout=IDLE_TIMEOUT_S)
            if not ready:
                return
            for key, _ in ready:
                try:
                    if key.fileobj is client:
                        return  # closed, or a next request: this connection's one exchange is over
                    data = server.recv(_BUFFER)
                    if not data:
                        if head:
                            client.sendall(head)  # an answer cut inside its head goes on as it came
                        return
                    if head is not None:
                        head += data
                        end = head.find(b"\r\n\r\n")
                        if end < 0 and len(head) <= MAX_HEAD:
                            continue
                        data = _closing_head(head[:end]) + head[end:] if end >= 0 else head
                        head = None
                    client.sendall(data)
                except OSError:
                    return


def _closing_head(head: bytes) -> bytes:
    """An answer's head (status line and fields, without the blank line) with its hop-by-hop connection fields
    replaced by ``Connection: close``."""
    first, *lines = head.split(b"\r\n")
    kept = [line for line in lines if line.split(b":", 1)[0].strip().lower().decode("latin-1") not in _HOP_HEADERS]
    return b"\r\n".join([first, *kept, b"Connection: close", b"Proxy-Connection: close"])


def _pipe(a: socket.socket, b: socket.socket) -> None:
    """Copy bytes both ways until either side closes or nothing moves for IDLE_TIMEOUT_S."""
    with selectors.DefaultSelector() as sel:
        sel.register(a, selectors.EVENT_READ, b)
        sel.register(b, selectors.EVENT_READ, a)
        while True:
            ready = sel.select(timeout=IDLE_TIMEOUT_S)
            if not ready:
                return
            for key, _ in ready:
                source: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data = source.recv(_BUFFER)
                    if not data:
                        return
                    key.data.sendall(data)
                except OSError:
                    return
