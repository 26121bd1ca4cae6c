"""Helpers shared by the tests/test_net_*.py files (network layer tests).

``FastServer`` is tests/support/loopback.py's server with a short shutdown poll: ``serve_forever`` only notices a shutdown
request between polls (0.5 s by default), which would add half a second to every test that starts a server.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Self

from pubfetch.net.client import HttpClient
from pubfetch.net.config import HttpConfig, ResponseHook
from pubfetch.net.outcome import FetchResult
from support.loopback import LoopbackServer, Reply, Request

POLL_INTERVAL = 0.02


class FastServer(LoopbackServer):
    """A LoopbackServer that shuts down within ``POLL_INTERVAL``."""

    def __enter__(self) -> Self:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL}, daemon=True
        )
        self._thread.start()
        return self


class Sleeps(list[float]):
    """Stands in for time.sleep: records the waits the retry policy asked for, without waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def make_client(sleeps: Sleeps | None = None, response_hook: ResponseHook | None = None,
                **config: object) -> HttpClient:
    """A client allowed to reach 127.0.0.1 (unless the test says otherwise) whose retries do not really wait."""
    config.setdefault("allow_private_addresses", True)
    return HttpClient(HttpConfig(**config), sleep=sleeps if sleeps is not None else Sleeps(),  # type: ignore[arg-type]
                      response_hook=response_hook)


def both(client: HttpClient, url: str, **kwargs: object) -> tuple[FetchResult, FetchResult]:
    """The same GET made for a publication and for a webpage (fetch_exception differs between them)."""
    pub = client.get(url, publication=True, **kwargs)  # type: ignore[arg-type]
    page = client.get(url, publication=False, **kwargs)  # type: ignore[arg-type]
    return pub, page


def sequence(*replies: Reply) -> Callable[[Request], Reply]:
    """A handler answering with the given replies in turn, then repeating the last one."""
    counter = itertools.count()
    lock = threading.Lock()

    def handler(_: Request) -> Reply:
        with lock:
            i = next(counter)
        return replies[min(i, len(replies) - 1)]

    return handler
