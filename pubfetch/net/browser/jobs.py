"""What the renderer hands its worker thread: the settings of every page, and one render request that is finished
exactly once (by the worker, or by the watchdog when the worker is abandoned), whichever comes first."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from pubfetch.net.browser.chromium import BrowserUnavailable
from pubfetch.net.outcome import FetchResult


@dataclass(frozen=True)
class RenderSettings:
    """What every page of one renderer shares (see :class:`~pubfetch.net.browser.renderer.BrowserRenderer`)."""

    user_agent: str
    timeout_ms: int
    max_bytes: int
    executable: str | None
    allow_private_addresses: bool
    settle_ms: int
    kill_grace_ms: int

    @property
    def limit_s(self) -> float:
        return self.timeout_ms / 1000


@dataclass(eq=False)
class RenderJob:
    """One render request; ``url`` ``None`` asks only that the browser be started. Finished exactly once, by the
    worker or (when the worker is abandoned) by the watchdog."""

    url: str | None
    wait_until: str | None = None
    result: FetchResult | None = None
    error: BrowserUnavailable | None = None
    executable: str | None = None
    deadline: float | None = None
    done: threading.Event = field(default_factory=threading.Event, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _started: bool = field(default=False, init=False)

    def begin(self) -> bool:
        with self._lock:
            if self.done.is_set():
                return False
            self._started = True
            return True

    @property
    def started(self) -> bool:
        return self._started

    def finish(self, result: FetchResult | None = None, error: BrowserUnavailable | None = None) -> bool:
        with self._lock:
            if self.done.is_set():
                return False
            self.result, self.error = result, error
            self.done.set()
            return True
