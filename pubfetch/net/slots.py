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

import logging
import threading
from collections import deque
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager

from pubfetch.net.urls import host_key

logger = logging.getLogger(__name__)


class _Slot:
    """The connections of one host, given out first come, first served (a thread that lets its turn go and asks
    again queues behind those already waiting)."""

    __slots__ = ("free", "queue", "turn", "users")

    def __init__(self, size: int, lock: threading.Lock) -> None:
        self.free = size
        self.queue: deque[object] = deque()
        self.turn = threading.Condition(lock)
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
        self._held = threading.local()  # the hosts this thread holds, with how many holds deep

    def size(self, key: str) -> int | None:
        """Slots of a normalised host (``None``: unlimited)."""
        if key in self._unlimited:
            return None
        return self._overrides.get(key, self._per_host)

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
                slot = self._slots[key] = _Slot(size, self._lock)
            slot.users += 1
            if slot.free == 0 or slot.queue:
                logger.info("Waiting behind host %s", key)
                ticket = object()
                slot.queue.append(ticket)
                while slot.free == 0 or slot.queue[0] is not ticket:
                    slot.turn.wait()
                slot.queue.popleft()
                logger.info("Resuming for host %s", key)
            slot.free -= 1
            slot.turn.notify_all()  # the next in the queue may take another free connection
        held[key] = 1
        try:
            yield
        finally:
            held[key] = 0
            with self._lock:
                slot.free += 1
                slot.users -= 1
                if slot.users == 0:
                    del self._slots[key]
                slot.turn.notify_all()

    def waiting(self, url: str) -> int:
        """Threads waiting for a slot of the URL's host now."""
        with self._lock:
            slot = self._slots.get(host_key(url))
            return len(slot.queue) if slot is not None else 0

    def active_hosts(self) -> int:
        """Hosts currently held or waited for (for tests and monitoring)."""
        with self._lock:
            return len(self._slots)
