"""A resource per thread (an HTTP session, a database connection), dropped some time after its thread ends.

A fetch run starts a thread per publication, batch after batch, so such resources come and go by the hundred. Kept to
the end of the run they would hold file descriptors and caches until a long run runs out of descriptors; dropped by
looking over every registered thread each time another one makes its resource, the looking would cost more than the
resource with hundreds of threads alive (docs/benchmarks.md has the figures). So the registry is looked over once a
quarter as many new threads as it holds have registered: each new thread costs a few checks, and at most that quarter
of ended threads' resources waits to be released.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["PerThread"]

T = TypeVar("T")

#: registrations between two looks over the registry, at least (fewer threads than this: every so many)
_MIN_SWEEP_INTERVAL = 16


class PerThread(Generic[T]):
    """``get()`` gives the calling thread its own resource, made by ``make`` on its first call; the resources of
    ended threads are handed to ``release`` (on the thread making a new one), and :meth:`drain` takes all of them."""

    def __init__(self, make: Callable[[], T], release: Callable[[list[T]], None] | None = None) -> None:
        self._make = make
        self._release = release
        self._local = threading.local()
        self._lock = threading.Lock()
        self._by_thread: dict[threading.Thread, T] = {}
        self._next_sweep = _MIN_SWEEP_INTERVAL

    def get(self) -> T:
        held: list[T] | None = getattr(self._local, "held", None)
        if held is not None:
            return held[0]
        value = self._make()
        self._local.held = [value]
        with self._lock:
            self._by_thread[threading.current_thread()] = value
            stale = self._sweep() if len(self._by_thread) >= self._next_sweep else []
        if stale and self._release is not None:
            self._release(stale)
        return value

    def _sweep(self) -> list[T]:
        ended = [thread for thread in self._by_thread if not thread.is_alive()]
        stale = [self._by_thread.pop(thread) for thread in ended]
        live = len(self._by_thread)
        self._next_sweep = live + max(_MIN_SWEEP_INTERVAL, live // 4)
        return stale

    def discard(self) -> T | None:
        """Forget the calling thread's resource (a broken connection), returned for closing: its next ``get`` makes
        a new one."""
        held: list[T] | None = getattr(self._local, "held", None)
        if held is None:
            return None
        del self._local.held
        with self._lock:
            self._by_thread.pop(threading.current_thread(), None)
        return held[0]

    def drain(self) -> list[T]:
        """Every resource made so far, forgotten: each thread makes a new one on its next ``get``."""
        with self._lock:
            values, self._by_thread = list(self._by_thread.values()), {}
            self._local = threading.local()
            self._next_sweep = _MIN_SWEEP_INTERVAL
        return values

    def __len__(self) -> int:
        return len(self._by_thread)
