"""Per-host connection slots: threads on different hosts run in parallel, threads on one host queue.

PubFetcher locks around every connection so that many worker threads never hammer one host (hosts compared
case-insensitively with "www." removed). The same here, with a configurable number of slots per host (Scrapy's
per-domain download slots). A slot is held for one exchange: request, headers and the whole body, because the
connection is busy until the body is read. Entries are reference-counted and dropped when idle, so a run over a million
publications does not keep a semaphore for every host it ever saw.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager

from pubfetch.net.urls import host_key

logger = logging.getLogger(__name__)


class _Slot:
    __slots__ = ("semaphore", "users")

    def __init__(self, size: int) -> None:
        self.semaphore = threading.BoundedSemaphore(size)
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
        if size is None:
            yield
            return
        with self._lock:
            slot = self._slots.get(key)
            if slot is None:
                slot = self._slots[key] = _Slot(size)
            slot.users += 1
        try:
            if not slot.semaphore.acquire(blocking=False):
                logger.info("Waiting behind host %s", key)
                slot.semaphore.acquire()
                logger.info("Resuming for host %s", key)
            try:
                yield
            finally:
                slot.semaphore.release()
        finally:
            with self._lock:
                slot.users -= 1
                if slot.users == 0:
                    del self._slots[key]

    def active_hosts(self) -> int:
        """Hosts currently held or waited for (for tests and monitoring)."""
        with self._lock:
            return len(self._slots)
