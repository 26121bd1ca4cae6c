"""Telling "the network is down" from "this service is down", so that a run stops at once instead of timing out for
every publication and spending everybody's retry budget.

One unreachable service is an ordinary per-publication failure (fetchException, retried later). But when requests to
several different hosts in a row end without any answer at all (connection refused or reset before a response, DNS
failure, timeout), the likely cause is the machine's network or proxy, and going on only repeats the wait. Any HTTP
response, even an error status, proves the network works and resets the count.

A run that stops itself when the network is found down (``fetch_many``, so the command line's publication fetching)
says so with :meth:`NetworkWatch.watching`. In such a run, while nothing has answered yet, one silence per host is
enough: a timeout is not retried (PubFetcher's one immediate retry would only double the wait on a network that never
worked), and a host that did not answer is not asked again (the Europe PMC searches for PMIDs, PMCIDs and DOIs queue
one after the other for its connection, each would wait a whole timeout); such requests fail at once as transient
failures, retried later. So two silent hosts stop the run after two timeouts, whatever the IDs. Once anything
answered, the network works: a silent host is that host's problem, asked and retried as PubFetcher does. Elsewhere
(``-fetch-document``, webpages and docs, a client on its own) nothing changes. When the network is found down, the
exchanges still in flight are cut (:meth:`NetworkWatch.when_down`), so the run ends without waiting for their
timeouts.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Final

from pubfetch import interrupts
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.proxies import NamedProxy
from pubfetch.net.retry import ExchangeFailed, ServerBusy
from pubfetch.net.transport import Request, Response, Transport
from pubfetch.net.urls import hostname

logger = logging.getLogger(__name__)

#: Outcomes without any answer from the server.
UNREACHABLE: Final = frozenset({OutcomeKind.TIMEOUT, OutcomeKind.CONNECTION, OutcomeKind.DNS})
#: Consecutive unanswered attempts, to at least two hosts, that mean the network is down once it has worked
AFTER_ANSWERS: Final = 4
#: ... and before anything ever answered in this run (nothing suggests the network works at all): the first silence
#: of a second host (a first host's timeout retry, where there is one, makes its request two attempts).
BEFORE_ANSWERS: Final = 2


class NetworkUnreachable(Exception):
    """Requests to several hosts in a row got no answer at all: the network or the proxy seems down."""

    def __init__(self, hosts: list[str], kinds: list[str], timeout_s: float | None = None,
                 proxies: Sequence[NamedProxy] = ()) -> None:
        self.hosts = hosts
        # when every host only timed out, the timeout may be what is wrong (a value meant as seconds)
        longer = (f", or give a longer timeout than {timeout_s:g} s (--timeout is in milliseconds)"
                  if kinds == ["timed out"] and timeout_s else "")
        if proxies:  # the proxy did not answer, not the services: name it and the variable that set it
            named = " and ".join(str(p) for p in proxies)
            variables = " or ".join(dict.fromkeys(p.source for p in proxies))
            super().__init__(f"network unreachable: {', '.join(hosts)} did not answer through {named} "
                             f"({', '.join(kinds)}); check that the proxy is running, or correct or unset {variables}")
            return
        super().__init__(f"network unreachable: {', '.join(hosts)} did not answer ({', '.join(kinds)}); check your "
                         f"connection or HTTPS_PROXY{longer}")


class NotSent(ExchangeFailed):
    """An attempt the watch stopped before it was sent (a transient failure: the entry is retried later)."""

    def __init__(self, message: str) -> None:
        super().__init__(OutcomeKind.CONNECTION, "not sent: " + message)


class NetworkWatch:
    """Counts consecutive unanswered attempts of one client (all its threads) and says when the network is down.

    Attempts, not requests, are counted, so a request and its timeout retry to one host are two failures of one host;
    before any answer the network is found down at the first failure on a second host.
    """

    def __init__(self, timeout_s: float | None = None) -> None:
        #: the client's timeout, named when every failure was a timeout
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._answered = False
        #: runs in progress that stop when the network is found down (see :meth:`watching`)
        self._watching = 0
        self._failures: list[tuple[str, OutcomeKind]] = []
        #: the proxies that failed attempts of :attr:`_failures` (named by the error)
        self._proxies: list[NamedProxy] = []
        #: hosts that did not answer an attempt before anything answered (see :meth:`skips`)
        self._silent: set[str] = set()
        self._when_down: list[Callable[[], None]] = []
        self.down = False
        self._stopped = False
        #: set while the watch is halted: wakes the waits of :meth:`pause`
        self._halt = threading.Event()
        interrupts.wake_on_interrupt(self._halt)

    @property
    def stopped(self) -> bool:
        """The run is stopping (interrupted, or its context closed): attempts not yet sent are not sent."""
        return self._stopped

    @stopped.setter
    def stopped(self, value: bool) -> None:
        self._stopped = value
        self._set_halt()

    def _set_halt(self) -> None:
        if self.halted:
            self._halt.set()
        else:
            self._halt.clear()

    @property
    def halted(self) -> bool:
        """Whether nothing more is sent: the network is down, the run is stopping, or the process was interrupted."""
        return self.down or self._stopped or interrupts.interrupted()

    def pause(self, seconds: float) -> None:
        """Sleep as a rate limit or a retry asks, unless the watch halts meanwhile: then raise :class:`NotSent` at
        once (an interrupted run does not wait out a rate limit or a Retry-After for a request it will not send)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0 and self._halt.wait(left):
            if self.halted:
                raise NotSent(HALTED)
            self._set_halt()  # woken by an interrupt mark that has ended since: wait on

    @contextmanager
    def watching(self) -> Iterator[None]:
        """While inside, a run stops when the network is found down (``fetch_many`` raises
        :class:`NetworkUnreachable`): then a timeout before any answer is not retried (:meth:`retries_timeout`)."""
        with self._lock:
            self._watching += 1
        try:
            yield
        finally:
            with self._lock:
                self._watching -= 1

    def retries_timeout(self) -> bool:
        """Whether an attempt that timed out without any response may be retried: always, except in a run that stops
        when the network is down (:meth:`watching`) while nothing has answered yet, where the retry would only
        double the wait before the stop."""
        with self._lock:
            return self._answered or not self._watching

    def skips(self, host: str | None) -> bool:
        """Whether an attempt to ``host`` is not sent: in a run that stops when the network is down
        (:meth:`watching`), while nothing has answered yet, a host that did not answer once is not asked again (it
        would most likely only add its timeout before the stop); once anything answered, every host is asked."""
        with self._lock:
            return bool(self._watching) and not self._answered and (host or "?") in self._silent

    def when_down(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once, on the thread that finds the network down (the client cuts the exchanges still in
        flight: waiting for their timeouts would only delay the stop)."""
        with self._lock:
            self._when_down.append(callback)

    def answered(self) -> None:
        """A server sent a response (any status)."""
        with self._lock:
            self._answered = True
            self._failures.clear()
            self._proxies.clear()
            self._silent.clear()

    def failed(self, host: str | None, kind: OutcomeKind, responded: bool,
               proxy: NamedProxy | None = None) -> None:
        """An attempt failed; only failures without any response (``responded`` False) and of the kinds of
        :data:`UNREACHABLE` count towards "the network is down". ``proxy``: the attempt failed at that proxy."""
        if responded:
            self.answered()
            return
        if kind not in UNREACHABLE:
            return
        with self._lock:
            if self.down:  # what was cut or not sent after the stop: the hosts that made it are the news
                return
            self._failures.append((host or "?", kind))
            if proxy is not None:
                self._proxies.append(proxy)
            if not self._answered:
                self._silent.add(host or "?")
            needed = AFTER_ANSWERS if self._answered else BEFORE_ANSWERS
            found = len(self._failures) >= needed and len({h for h, _ in self._failures}) >= 2
            if found:
                self.down = True
                self._halt.set()
            callbacks = list(self._when_down) if found else []
        for callback in callbacks:
            callback()

    def error(self) -> NetworkUnreachable:
        with self._lock:
            hosts = list(dict.fromkeys(h for h, _ in self._failures))
            kinds = list(dict.fromkeys(_KIND_WORDS[k] for _, k in self._failures))
            proxies = list(dict.fromkeys(self._proxies))
        return NetworkUnreachable(hosts, kinds, self.timeout_s, proxies)


#: why an attempt is not sent once the watch halted
HALTED: Final = "the network seems down or the run is stopping"

_KIND_WORDS: Final = {OutcomeKind.TIMEOUT: "timed out", OutcomeKind.CONNECTION: "could not connect",
                      OutcomeKind.DNS: "host name does not resolve"}


class WatchLayer:
    """The layer (inside the retries and the host slot, so every attempt counts and one that waited for its slot is
    checked when it gets it) that tells the watch what each attempt met, sends nothing more once the network is
    found down or the run is stopping, nor to a host the watch skips (:meth:`NetworkWatch.skips`), and marks a
    timeout not to be retried when the watch says so (:meth:`NetworkWatch.retries_timeout`)."""

    def __init__(self, inner: Transport, watch: NetworkWatch) -> None:
        self.inner = inner
        self.watch = watch

    def send(self, request: Request) -> Response:
        if self.watch.halted:
            raise NotSent(HALTED)
        host = hostname(request.url)
        if self.watch.skips(host):
            raise NotSent(f"{host} did not answer before, and nothing has answered in this run yet")
        try:
            response = self.inner.send(request)
        except ServerBusy:
            self.watch.answered()
            raise
        except ExchangeFailed as failed:
            responded = failed.payload is not None
            self.watch.failed(host, failed.kind, responded, failed.proxy)
            if failed.retryable and not responded:
                if self.watch.halted:  # the retry would not be sent; the failure stays what it was (timed out)
                    failed.retryable = False
                elif not self.watch.retries_timeout():
                    logger.info("%s did not answer in time and nothing has answered in this run yet: not retried",
                                host)
                    failed.retryable = False
            raise
        self.watch.answered()
        return response

    def close(self) -> None:
        self.inner.close()
