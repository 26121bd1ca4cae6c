"""Telling "the network is down" from "this service is down", so that a run stops at once instead of timing out for
every publication and spending everybody's retry budget.

One unreachable service is an ordinary per-publication failure (fetchException, retried later). But when requests to
several different hosts in a row end without any answer at all (connection refused or reset before a response, DNS
failure, timeout), the likely cause is the machine's network or proxy, and going on only repeats the wait. Any HTTP
response, even an error status, proves the network works and resets the count.
"""

from __future__ import annotations

import threading
from typing import Final

from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.retry import ExchangeFailed, ServerBusy
from pubfetch.net.transport import Request, Response, Transport
from pubfetch.net.urls import hostname

#: Outcomes without any answer from the server.
UNREACHABLE: Final = frozenset({OutcomeKind.TIMEOUT, OutcomeKind.CONNECTION, OutcomeKind.DNS})
#: Consecutive unanswered attempts, to at least two hosts, that mean the network is down once it has worked
AFTER_ANSWERS: Final = 4
#: ... and before anything ever answered in this run (nothing suggests the network works at all).
BEFORE_ANSWERS: Final = 3


class NetworkUnreachable(Exception):
    """Requests to several hosts in a row got no answer at all: the network or the proxy seems down."""

    def __init__(self, hosts: list[str], kinds: list[str]) -> None:
        self.hosts = hosts
        super().__init__(f"network unreachable: {', '.join(hosts)} did not answer ({', '.join(kinds)}); check your "
                         "connection or HTTPS_PROXY")


class NetworkWatch:
    """Counts consecutive unanswered attempts of one client (all its threads) and says when the network is down.

    Attempts, not requests, are counted, so a request and its timeout retry to one host are two failures of one host;
    the network is found down at the first failure on a second host.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._answered = False
        self._failures: list[tuple[str, OutcomeKind]] = []
        self.down = False
        #: the run is stopping (interrupted, or its context closed): attempts not yet sent are not sent
        self.stopped = False

    @property
    def halted(self) -> bool:
        """Whether nothing more is sent: the network is down or the run is stopping."""
        return self.down or self.stopped

    def answered(self) -> None:
        """A server sent a response (any status)."""
        with self._lock:
            self._answered = True
            self._failures.clear()

    def failed(self, host: str | None, kind: OutcomeKind, responded: bool) -> None:
        """An attempt failed; only failures without any response (``responded`` False) and of the kinds of
        :data:`UNREACHABLE` count towards "the network is down"."""
        if responded:
            self.answered()
            return
        if kind not in UNREACHABLE:
            return
        with self._lock:
            self._failures.append((host or "?", kind))
            needed = AFTER_ANSWERS if self._answered else BEFORE_ANSWERS
            if len(self._failures) >= needed and len({h for h, _ in self._failures}) >= 2:
                self.down = True

    def error(self) -> NetworkUnreachable:
        with self._lock:
            hosts = list(dict.fromkeys(h for h, _ in self._failures))
            kinds = list(dict.fromkeys(_KIND_WORDS[k] for _, k in self._failures))
        return NetworkUnreachable(hosts, kinds)


_KIND_WORDS: Final = {OutcomeKind.TIMEOUT: "timed out", OutcomeKind.CONNECTION: "could not connect",
                      OutcomeKind.DNS: "host name does not resolve"}


class WatchLayer:
    """The layer (inside the retries and the host slot, so every attempt counts and one that waited for its slot is
    checked when it gets it) that tells the watch what each attempt met, and sends nothing more once the network is
    found down or the run is stopping."""

    def __init__(self, inner: Transport, watch: NetworkWatch) -> None:
        self.inner = inner
        self.watch = watch

    def send(self, request: Request) -> Response:
        if self.watch.halted:
            raise ExchangeFailed(OutcomeKind.CONNECTION, "not sent: the network seems down or the run is stopping")
        host = hostname(request.url)
        try:
            response = self.inner.send(request)
        except ServerBusy:
            self.watch.answered()
            raise
        except ExchangeFailed as failed:
            self.watch.failed(host, failed.kind, failed.payload is not None)
            raise
        self.watch.answered()
        return response

    def close(self) -> None:
        self.inner.close()
