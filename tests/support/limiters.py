"""The shared rate limiters under a clock the test sets, on either backend, and what a schedule of permits must be.

A limiter takes its clock and its sleep as arguments: :class:`FakeTime` moves its clock forward by the seconds slept,
so a schedule of an hour is tested in milliseconds; :class:`FrozenClock` never moves, so that ``reserve`` books ahead
without waiting (threads and processes sharing one limiter then book one schedule between them, each slot returned).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from pathlib import Path

from pubfetch.net.ratelimit import Limit, SharedRateLimiter
from pubfetch.net.ratelimit_redis import RedisRateLimiter

START = 1_000_000.0


class FakeTime:
    """A clock that moves only when the limiter sleeps."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class FrozenClock:
    """A clock stopped at one moment (a picklable callable, for processes)."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def open_limiter(backend: str, where: str | Path, limits: Mapping[str, Limit], clock, sleep=None):
    """The SQLite limiter on file ``where``, or the Redis one at URL ``where``, with a test's clock."""
    extra = {"sleep": sleep} if sleep is not None else {}
    if backend == "sqlite":
        return SharedRateLimiter(Path(where), limits, clock=clock, **extra)
    return RedisRateLimiter(str(where), limits, clock=clock, **extra)


def book(rl, key: str) -> float:
    """Book a permit without waiting for it; the clock time its slot starts (the SQLite limiter answers it, the Redis
    one answers the wait)."""
    if isinstance(rl, SharedRateLimiter):
        return rl.reserve(key)
    assert rl.clock is not None, "a Redis limiter on the server's clock answers waits, not slots"
    return rl.clock() + rl.wait_for(key)


def earliest_schedule(n: int, limit: Limit, start: float = START) -> list[float]:
    """The earliest times ``n`` requests asked together may go under ``limit`` (one after another, its spacing apart,
    and no more than a rolling window's count within its seconds and the jitter), worked out request by request: the
    reference a limiter's own schedule is compared with. Bursts are the limiter's own tests' business."""
    assert limit.burst == 1, "the reference schedule has no bursts"
    spacing = (1 + limit.jitter) / limit.rate
    times: list[float] = []
    for i in range(n):
        t = times[-1] + spacing if times else start
        for count, seconds in limit.windows:
            if i >= count:
                t = max(t, times[i - count] + seconds + limit.jitter)
        times.append(t)
    return times


def most_in_any_span(times: Sequence[float], span: float) -> int:
    """The most of ``times`` (sorted) inside any half-open span ``[t, t + span)``."""
    return max((bisect.bisect_left(times, t + span) - i for i, t in enumerate(times)), default=0)
