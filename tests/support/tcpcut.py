"""A TCP forwarder on 127.0.0.1 to a local service that can be cut (every connection dropped, new ones refused) and
restored: an outage of that service as its clients see it, without touching the shared service itself."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable


class CuttableForwarder:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self._cut = False
        self._closed = False
        #: connections turned away while cut (a client has tried again)
        self.refused = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def outage_at(self, report: int, seconds: float) -> Callable[[object], None]:
        """A job's progress callback that cuts the way at the ``report``-th progress report and restores it ``seconds``
        later, so the outage starts while the job is known to be under way."""
        seen = 0

        def progress(_status: object) -> None:
            nonlocal seen
            seen += 1
            if seen == report:
                self.cut()
                threading.Timer(seconds, self.restore).start()

        return progress

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                if self._cut:
                    self.refused += 1
                    client.close()
                    continue
                try:
                    upstream = socket.create_connection(self.target, timeout=5)
                except OSError:
                    client.close()
                    continue
                upstream.settimeout(None)
                self._open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        """Drop every connection and refuse new ones until :meth:`restore`."""
        with self._lock:
            self._cut = True
            for s in self._open:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            self._open.clear()

    def restore(self) -> None:
        with self._lock:
            self._cut = False

    def close(self) -> None:
        self._closed = True
        self.cut()
        self._listener.close()

    def __enter__(self) -> CuttableForwarder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
