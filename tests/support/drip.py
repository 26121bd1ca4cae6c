"""A server that drips its answer one byte at a time, and the client the deadline tests send to it.

A server that keeps sending, slowly, never lets a read timeout fire: only a deadline on the whole exchange ends it.
The tests of those deadlines need a server that does exactly that, and a client whose read timeout is far out of the
way, so that what stops the exchange can only be the deadline under test.
"""

from __future__ import annotations

import socket
import threading
import time

from pubfetch.net.client import HttpClient
from pubfetch.net.config import HttpConfig, ResponseHook

#: The read timeout of the dripping exchanges: far above the 0.1 s between bytes even when a loaded machine runs the
#: server's thread late, so that only the deadline under test (well under a second) can stop them.
DRIP_READ_TIMEOUT_MS = 30_000


def patient_client(response_hook: ResponseHook | None = None, **settings: object) -> HttpClient:
    """A client without retries whose read timeout no healthy loopback exchange reaches, even on a loaded machine."""
    values: dict[str, object] = {"timeout": 30_000, "busy_retries": 0, "timeout_retries": 0}
    values.update(settings)
    return HttpClient(HttpConfig(**values), response_hook=response_hook)  # type: ignore[arg-type]


class DripServer:
    """A raw TCP server that answers every request with ``prefix`` at once, then ``drip`` one byte every ``interval``
    seconds: well inside any read timeout, for far longer than any deadline."""

    def __init__(self, prefix: bytes, drip: bytes, interval: float = 0.1) -> None:
        self.prefix, self.drip, self.interval = prefix, drip, interval
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.sent = 0
        self.closed = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/"

    def _serve(self) -> None:
        while not self.closed.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(self.prefix)
                for byte in self.drip:
                    if self.closed.is_set():
                        return
                    conn.sendall(bytes([byte]))
                    self.sent += 1
                    time.sleep(self.interval)
            except OSError:
                return

    def close(self) -> None:
        self.closed.set()
        self.listener.close()
