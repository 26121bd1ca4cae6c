"""Requests, failures and 429s per host, counted where requests leave for the network.

A run report has to say which hosts were asked how often and which of them refused or failed, and neither the
publications in a database (they keep only the pages that gave content) nor the log (one line per failed call, not per
attempt) can tell. :class:`CountingLayer` sits right above the network transport, under the retries, redirects and
the rate limiter, so every attempt that was actually sent is counted once: each redirect hop, each retried 503 or
429 and each timeout retry. The browser renderer records each page it loads in the same counters.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, fields

from pubfetch.net.retry import ExchangeFailed, ServerBusy
from pubfetch.net.transport import Request, Response, Transport
from pubfetch.net.urls import host_key


@dataclass
class HostCounts:
    """What the requests sent to one host met.

    Attributes:
        requests: attempts sent (redirect hops and retries included).
        failed: attempts that got no usable answer: an HTTP error status (429 and 503 included), no answer at all
            (connection refused, timeout, DNS) or an answer that could not be read (too large, too slow).
        too_many: answers with HTTP 429 (Too Many Requests).
        unavailable: answers with HTTP 503 (Service Unavailable).
        no_answer: attempts that ended without any HTTP status (connection, DNS, timeout before the headers).
    """

    requests: int = 0
    failed: int = 0
    too_many: int = 0
    unavailable: int = 0
    no_answer: int = 0

    def add(self, other: HostCounts) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


class RequestCounts:
    """Per-host counters shared by every thread of a client (``host`` as the per-host slots compare hosts:
    lower-cased, ``www.`` dropped, port ignored)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._hosts: dict[str, HostCounts] = {}

    def record(self, url: str, status: int | None, failed: bool) -> None:
        """One attempt to ``url`` ended with ``status`` (``None``: no HTTP answer) and ``failed`` or not."""
        host = host_key(url)
        with self._lock:
            counts = self._hosts.setdefault(host, HostCounts())
            counts.requests += 1
            counts.failed += failed
            counts.too_many += status == 429
            counts.unavailable += status == 503
            counts.no_answer += status is None and failed

    def by_host(self) -> dict[str, HostCounts]:
        """A copy of the counters, most requested hosts first (ties by name)."""
        with self._lock:
            items = [(h, HostCounts(**vars(c))) for h, c in self._hosts.items()]
        return dict(sorted(items, key=lambda item: (-item[1].requests, item[0])))

    def total(self) -> HostCounts:
        total = HostCounts()
        for counts in self.by_host().values():
            total.add(counts)
        return total

    def __bool__(self) -> bool:
        with self._lock:
            return bool(self._hosts)


class CountingLayer:
    """Counts every attempt passing down to the network (see the module docstring)."""

    def __init__(self, inner: Transport, counts: RequestCounts) -> None:
        self.inner = inner
        self.counts = counts

    def send(self, request: Request) -> Response:
        try:
            response = self.inner.send(request)
        except ServerBusy as busy:
            self.counts.record(request.url, busy.status, True)
            raise
        except ExchangeFailed as failed:
            status = failed.payload.status if isinstance(failed.payload, Response) else None
            self.counts.record(request.url, status, True)
            raise
        self.counts.record(request.url, response.status, response.status is not None and response.status >= 400)
        return response

    def close(self) -> None:
        self.inner.close()
