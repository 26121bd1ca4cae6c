"""A loopback HTTP server for tests: routes are plain functions, every request is recorded.

Tests must never leave 127.0.0.1, so everything the fetcher talks to in the suite is one of these. A route maps a path
(exact, or a prefix ending in "*") to a handler returning a :class:`Reply`; unknown paths get 404. Handlers run in the
server's threads, so a test can block, sleep or reset the connection to simulate a bad server.
"""

from __future__ import annotations

import select
import socket
import socketserver
import ssl
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Self
from urllib.parse import parse_qs, urlsplit

if TYPE_CHECKING:
    from support.tlsintercept import TlsInterceptor


@dataclass
class Request:
    """One request the server received."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    started: float = 0.0
    finished: float = 0.0
    #: The request target as sent: a path, or an absolute URL when the server is used as a proxy.
    target: str = ""

    @property
    def form(self) -> dict[str, list[str]]:
        """The body parsed as application/x-www-form-urlencoded."""
        return parse_qs(self.body.decode("utf-8", "replace"), keep_blank_values=True)

    def param(self, name: str) -> str | None:
        """A query or form parameter (query first)."""
        values = self.query.get(name) or self.form.get(name)
        return values[0] if values else None


@dataclass
class Reply:
    """What to answer. ``reset`` closes the connection without an answer; ``delay`` sleeps before answering;
    ``chunks`` streams the body in pieces with ``chunk_delay`` between them; ``hold`` sends nothing more (no answer at
    all, or nothing after the chunks) until the client has closed the connection, then closes it too.

    ``hold`` is the way to make a client time out: an answer that is merely late (``delay``) still comes, and on a
    loaded machine it may come before the client's timer fires, so the test would see an answer instead of a timeout.
    """

    status: int = 200
    body: bytes | str = b""
    content_type: str | None = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    reset: bool = False
    chunks: list[bytes] | None = None
    chunk_delay: float = 0.0
    hold: bool = False


def wait_until_closed(connection: socket.socket, shutting_down: threading.Event) -> None:
    """Block until the peer closes the connection (or resets it), reading and dropping whatever it sends meanwhile, or
    until the server shuts down. No time ceiling: a held connection that the server closed after a fixed time would,
    on a loaded machine, look to the client like a broken connection before the test is done with it."""
    while not shutting_down.is_set():
        try:
            readable, _, _ = select.select([connection], [], [], 0.1)
            if readable and not connection.recv(65536):
                return
        except (OSError, ValueError):  # reset, or closed under us
            return


Handler = Callable[[Request], Reply]


class _BackloggedServer(ThreadingHTTPServer):
    """The standard server with a listen queue of 128 instead of 5: a fetch run opens dozens of connections at once
    (every publication's doi.org resolution), and on a loaded machine the server thread accepts them more slowly than
    they come; with 5 the kernel drops the rest and the client's connect times out."""

    request_queue_size = 128

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hangs up mid-request (a test's timeout, a fetch cancelled at the run's end) is an expected
        event, not a traceback on the test run's output; anything else is reported as the standard server does."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 with a free port. Use as a context manager."""

    def __init__(self, routes: dict[str, Handler | Reply] | None = None, tls: TlsInterceptor | None = None) -> None:
        """``tls``: answer ``CONNECT host:port`` (the server as an HTTPS proxy) with TLS under a certificate for host
        from this interceptor; requests inside the tunnel are served like the others (their Host header names the
        real host). Without it CONNECT gets 405."""
        self.routes: dict[str, Handler | Reply] = dict(routes or {})
        self.tls = tls
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self.active = 0
        self.max_active = 0
        #: set when the server shuts down: ends the connections it holds
        self._shutting_down = threading.Event()
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out in two writes: with Nagle on, the body waits for the delayed ACK (~40 ms)
            disable_nagle_algorithm = True

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def _serve(self) -> None:
                split = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                req = Request(self.command, split.path, parse_qs(split.query, keep_blank_values=True),
                              {k: v for k, v in self.headers.items()}, body, time.monotonic(), target=self.path)
                with server._lock:
                    server.requests.append(req)
                    server.active += 1
                    server.max_active = max(server.max_active, server.active)
                try:
                    reply = server._reply(req)
                    if reply.delay:
                        time.sleep(reply.delay)
                    if reply.hold and reply.chunks is None:
                        wait_until_closed(self.connection, server._shutting_down)
                    if reply.reset or (reply.hold and reply.chunks is None):
                        self.close_connection = True
                        self.connection.close()
                        return
                    self._send(reply)
                finally:
                    req.finished = time.monotonic()
                    with server._lock:
                        server.active -= 1

            def _send(self, reply: Reply) -> None:
                payload = reply.body.encode("utf-8") if isinstance(reply.body, str) else reply.body
                self.send_response(reply.status)
                if reply.content_type is not None:
                    self.send_header("Content-Type", reply.content_type)
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                if reply.chunks is None:
                    if "Content-Length" not in reply.headers:
                        self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(payload)
                    return
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                for chunk in reply.chunks:
                    try:
                        self.wfile.write(chunk)
                        self.wfile.flush()
                    except OSError:
                        return
                    if reply.chunk_delay:
                        time.sleep(reply.chunk_delay)
                if reply.hold:
                    wait_until_closed(self.connection, server._shutting_down)

            do_GET = do_POST = do_HEAD = _serve

            def do_CONNECT(self) -> None:  # noqa: N802 - http.server's naming
                if server.tls is None:
                    self.send_error(405, "CONNECT not enabled")
                    return
                host = self.path.rsplit(":", 1)[0].strip("[]")
                self.send_response(200, "Connection established")
                self.end_headers()
                try:
                    tunnel = server.tls.context(host).wrap_socket(self.connection, server_side=True)
                except (ssl.SSLError, OSError):
                    self.close_connection = True
                    return
                # the requests that follow come through the tunnel; handle() keeps reading them from the new streams
                self.connection = tunnel
                self.rfile = tunnel.makefile("rb")
                self.wfile = socketserver._SocketWriter(tunnel)  # type: ignore[attr-defined]
                self.close_connection = False  # clients send CONNECT as HTTP/1.0, which would end the connection

        self._server = _BackloggedServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base(self) -> str:
        """``http://127.0.0.1:<port>`` (no trailing slash)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base + (path if path.startswith("/") else "/" + path)

    def route(self, path: str, handler: Handler | Reply) -> None:
        self.routes[path] = handler

    def _reply(self, req: Request) -> Reply:
        target = self.routes.get(req.path)
        if target is None:
            prefixes = [p for p in self.routes if p.endswith("*") and req.path.startswith(p[:-1])]
            if prefixes:
                target = self.routes[max(prefixes, key=len)]
        if target is None:
            return Reply(404, "not found", "text/plain")
        return target(req) if callable(target) else target

    def count(self, path_prefix: str = "") -> int:
        """Requests received whose path starts with ``path_prefix``."""
        with self._lock:
            return sum(1 for r in self.requests if r.path.startswith(path_prefix))

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._shutting_down.set()
        self._server.shutdown()
        self._server.server_close()
