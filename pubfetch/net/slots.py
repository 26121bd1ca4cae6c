"""Per-host connection slots: threads on different hosts run in parallel, threads on one host queue.

PubFetcher locks around every connection so that many worker threads never hammer one host (hosts compared
case-insensitively with "www." removed). The same here, with a configurable number of slots per host (Scrapy's
per-domain download slots). A slot is held for one exchange: request, headers and the whole body, because the
connection is busy until the body is read. Entries are reference-counted and dropped when idle, so a run over a million
publications does not keep a semaphore for every host it ever saw.

A thread that holds a host's slot may send more requests to that host without taking another (the hold is
re-entrant): the batcher holds the slot of a batched service while it gathers the batch, then sends within that hold
(see :meth:`~pubfetch.net.client.HttpClient.turn`).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager

from pubfetch.net.urls import host_key

logger = logging.getLogger(__name__)


class _Slot:
    """The connections of one host, given out in order of rank, then first come, first served: a released
    connection goes straight to the next waiting thread (only that one is woken), so a thread that lets its turn go
    and asks again queues behind those of its rank already waiting."""

    __slots__ = ("free", "queue", "users")

    def __init__(self, size: int) -> None:
        self.free = size
        self.queue: list[tuple[int, int, threading.Event]] = []  # a heap of (rank, arrival, woken when handed one)
        self.users = 0


class HostSlots:
    """A bounded number of concurrent connections per normalised host.

    Args:
        per_host: slots of a host without an override.
        overrides: slots per normalised host (see :func:`~pubfetch.net.urls.host_key`).
        unlimited: normalised hosts that are never limited (PubFetcher exempts doi.org and dx.doi.org).
    """

    def __init__(
        self, per_host: int = 1, overrides: Mapping[str, int] | None = None, unlimited: Collection[str] = ()
    ) -> None:
        if per_host < 1:
            raise ValueError("per_host must be >= 1")
        self._per_host = per_host
        self._overrides = {host_key(k): v for k, v in (overrides or {}).items()}
        self._unlimited = frozenset(host_key(h) for h in unlimited)
        self._lock = threading.Lock()
        self._slots: dict[str, _Slot] = {}
        self._held = threading.local()  # the hosts this thread holds, with how many holds deep; its rank
        self._arrivals = itertools.count()

    def size(self, key: str) -> int | None:
        """Slots of a normalised host (``None``: unlimited)."""
        if key in self._unlimited:
            return None
        return self._overrides.get(key, self._per_host)

    def rank_thread(self, rank: int) -> None:
        """This thread's waits for a host come before those of threads of a higher rank (the fetch engine ranks a
        publication's thread by its batch: the oldest batch in flight finishes first, while the next keeps the hosts
        busy). Threads not ranked have rank 0."""
        self._held.rank = rank

    @contextmanager
    def hold(self, url: str) -> Iterator[None]:
        """Hold one slot of the URL's host for the duration of the ``with`` block (blocks while all are taken)."""
        key = host_key(url)
        size = self.size(key)
        held: dict[str, int] = self._held.__dict__.setdefault("depth", {})
        if size is None or held.get(key):
            held[key] = held.get(key, 0) + 1
            try:
                yield
            finally:
                held[key] -= 1
            return
        with self._lock:
            slot = self._slots.get(key)
            if slot is None:
                slot = self._slots[key] = _Slot(size)
            slot.users += 1
            handed: threading.Event | None = None
            if slot.free and not slot.queue:
                slot.free -= 1
            else:
                handed = threading.Event()
                heapq.heappush(slot.queue, (getattr(self._held, "rank", 0), next(self._arrivals), handed))
        if handed is not None:
            logger.info("Waiting behind host %s", key)
            try:
                handed.wait()  # the releasing thread gave its connection to this one
            except BaseException:  # interrupted while waiting: leave the queue, or pass on what was handed over
                self._leave(key, slot, handed)
                raise
            logger.info("Resuming for host %s", key)
        held[key] = 1
        try:
            yield
        finally:
            held[key] = 0
            self._leave(key, slot, None)

    def _leave(self, key: str, slot: _Slot, waiting: threading.Event | None) -> None:
        """A thread is done with the host: its connection (if it had one) goes to the next in the queue."""
        with self._lock:
            slot.users -= 1
            mine = [entry for entry in slot.queue if entry[2] is waiting] if waiting is not None else []
            if mine:
                slot.queue.remove(mine[0])  # it never had a connection
                heapq.heapify(slot.queue)
            elif slot.queue:
                heapq.heappop(slot.queue)[2].set()
            else:
                slot.free += 1
            if slot.users == 0:
                del self._slots[key]

    def waiting(self, url: str) -> int:
        """Threads waiting for a slot of the URL's host now."""
        with self._lock:
            slot = self._slots.get(host_key(url))
            return len(slot.queue) if slot is not None else 0

    def active_hosts(self) -> int:
        """Hosts currently held or waited for (for tests and monitoring)."""
        with self._lock:
            return len(self._slots)
