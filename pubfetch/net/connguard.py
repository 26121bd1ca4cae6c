"""The connection-level guards of the requests transport: the address actually connected to, and one wall-clock
deadline per exchange.

Checking a URL's host before the request is not enough: DNS may answer differently at connect time (rebinding), and
any difference between how the check and urllib3 read a URL would let a request through. So urllib3's connections are
replaced by ones that check the peer address of every new socket before a byte is sent (unless the socket goes to a
configured proxy), whenever the exchange in this thread is guarded (see :func:`exchange`).

A socket timeout bounds each read, not the exchange: a server sending a header byte every few seconds, or a chunk-size
line now and then, keeps a thread for ever. So every exchange has a timer that, at its deadline, shuts the connection
down; whatever urllib3 is waiting for (status line, headers, chunks, body) then fails at once, and the transport
reports a TIMEOUT for the deadline. The same cut ends the exchanges in flight at once when the network is found down
(:meth:`Exchange.abort`, from :meth:`~pubfetch.net.requests_transport.RequestsTransport.abort`).
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from pubfetch.net import addresses

_local = threading.local()


@dataclass(eq=False)
class Exchange:
    """One exchange in flight in this thread: whether it is guarded, the connection it uses, and its deadline state."""

    guarded: bool
    deadline_s: float | None
    connection: HTTPConnection | None = None
    refused: str | None = None
    expired: bool = False
    #: why the exchange was cut before its deadline (the network was found down), if it was
    aborted: str | None = None
    done: bool = False
    sockets: list[socket.socket] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def use(self, connection: HTTPConnection) -> None:
        with self._lock:
            self.connection = connection
            if self.expired or self.aborted:
                _shutdown(connection)

    def watch_socket(self, sock: socket.socket) -> None:
        """Cut this socket too at the deadline (the sockets of an ftp download)."""
        with self._lock:
            self.sockets.append(sock)
            if self.expired or self.aborted:
                _shutdown_socket(sock)

    def expire(self) -> None:
        """The deadline passed: cut the connection so that whatever waits on it fails now."""
        with self._lock:
            self.expired = True
            self._cut()

    def abort(self, reason: str) -> None:
        """Cut the connection now, for ``reason`` (the network was found down: waiting for this answer only delays
        the stop of the run)."""
        with self._lock:
            if self.aborted is None:
                self.aborted = reason
            self._cut()

    def _cut(self) -> None:
        if self.connection is not None:
            _shutdown(self.connection)
        for sock in self.sockets:
            _shutdown_socket(sock)


def _shutdown(connection: HTTPConnection) -> None:
    sock = getattr(connection, "sock", None)
    if sock is not None:
        _shutdown_socket(sock)


def _shutdown_socket(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def current() -> Exchange | None:
    return getattr(_local, "exchange", None)


class _Watchdog:
    """One thread for every deadline of the process: a heap of (when, exchange), woken when an earlier one comes in
    (a timer thread per request would cost more than a small request's whole handling)."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Exchange]] = []
        self._wake = threading.Condition()
        self._seq = 0
        self._thread: threading.Thread | None = None

    def watch(self, when: float, state: Exchange) -> None:
        with self._wake:
            self._seq += 1
            heapq.heappush(self._heap, (when, self._seq, state))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="pubfetch-deadlines", daemon=True)
                self._thread.start()
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._heap:
                    self._wake.wait()
                when, _, state = self._heap[0]
                wait = when - time.monotonic()
                if wait > 0 and not state.done:
                    self._wake.wait(wait)
                    continue
                heapq.heappop(self._heap)
            if not state.done:
                state.expire()


_watchdog = _Watchdog()


@contextlib.contextmanager
def exchange(guarded: bool, deadline_s: float | None) -> Iterator[Exchange]:
    """Run one exchange in this thread under the guards: the peer check when ``guarded``, and the deadline."""
    state = Exchange(guarded, deadline_s)
    previous = current()
    _local.exchange = state
    if deadline_s is not None:
        _watchdog.watch(time.monotonic() + deadline_s, state)
    try:
        yield state
    finally:
        state.done = True
        _local.exchange = previous


class ForbiddenPeer(OSError):
    """A guarded connection reached a forbidden address (DNS answered differently at connect time)."""


def _check_peer(connection: HTTPConnection, sock: socket.socket) -> None:
    state = current()
    if state is None or connection.proxy:  # a configured proxy is trusted
        return
    check_socket(state, sock, connection.host)


def check_socket(state: Exchange, sock: socket.socket, host: str) -> None:
    """Raise ForbiddenPeer (closing the socket) when a guarded exchange's socket reached a forbidden address."""
    if not state.guarded:
        return
    try:
        peer = addresses.parse_ip(str(sock.getpeername()[0]))
    except OSError:
        return  # not connected after all: the request fails on its own
    reason = addresses.forbidden_ip_reason(peer) if peer is not None else "address that cannot be checked"
    if reason:
        sock.close()
        state.refused = f"{host} connected to {peer}, a {reason}"
        raise ForbiddenPeer(state.refused)


class _Guarded:
    """Mixed into urllib3's connections: check every new socket's peer, let the deadline timer (and an abort) find
    the connection an exchange uses (new or reused from the pool), and cut a socket that connected after either."""

    def _new_conn(self) -> socket.socket:
        sock: socket.socket = super()._new_conn()  # type: ignore[misc]
        _check_peer(self, sock)  # type: ignore[arg-type]
        state = current()
        if state is not None and (state.expired or state.aborted):  # cut while it connected: nothing is sent
            _shutdown_socket(sock)
        return sock

    def request(self, *args: Any, **kwargs: Any) -> None:
        state = current()
        if state is not None:
            state.use(self)  # type: ignore[arg-type]
        super().request(*args, **kwargs)  # type: ignore[misc]


class GuardedHTTPConnection(_Guarded, HTTPConnection):
    pass


class GuardedHTTPSConnection(_Guarded, HTTPSConnection):
    pass


class GuardedHTTPConnectionPool(HTTPConnectionPool):
    ConnectionCls = GuardedHTTPConnection


class GuardedHTTPSConnectionPool(HTTPSConnectionPool):
    ConnectionCls = GuardedHTTPSConnection


_POOLS = {"http": GuardedHTTPConnectionPool, "https": GuardedHTTPSConnectionPool}


@functools.lru_cache(maxsize=8)
def _is_directory(path: str) -> bool:
    return os.path.isdir(path)


class GuardedAdapter(HTTPAdapter):
    """requests' adapter with the guarded connections, for direct and proxied requests alike."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_POOLS)

    def build_connection_pool_key_attributes(self, request: Any, verify: Any, cert: Any = None) -> Any:
        """requests asks the file system whether a CA bundle path is a directory on every request (a measurable share
        of a fetch run's CPU with REQUESTS_CA_BUNDLE set, as on Debian; docs/throughput.md); the answer is the same for
        a run, so it is asked once."""
        if not isinstance(verify, str):
            return super().build_connection_pool_key_attributes(request, verify, cert)
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, True, cert)
        pool_kwargs["ca_cert_dir" if _is_directory(verify) else "ca_certs"] = verify
        return host_params, pool_kwargs

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if not proxy.lower().startswith("socks"):  # SOCKS pools have connection classes of their own
            manager.pool_classes_by_scheme = dict(_POOLS)
        return manager
