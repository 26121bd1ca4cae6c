"""Rate limits shared by every thread and every pubfetch process on the machine, kept in a small SQLite file.

Pipelines run many pubfetch processes at once; a limiter inside one process lets each of them use the whole NCBI
allowance and they get HTTP 429 together. Here each service has a schedule row in a SQLite file (WAL, busy timeout):
taking a permit is one short ``BEGIN IMMEDIATE`` transaction that reads the service's "theoretical arrival time",
books the next slot (GCRA, the algorithm of token buckets without a refill thread) and commits; the caller then sleeps
until its slot. A 429 with Retry-After pushes the schedule back for everybody. Services that also count over longer
spans (Europe PMC: 500 a minute beside 10 a second) have rolling windows: the slots booked last in each window are
kept (``window_slot``), and a new slot goes no earlier than one window after the slot ``count`` bookings back, so no
span of the window's length ever holds more than ``count`` slots, whatever the bursts before. A token bucket cannot
promise that: refilled at 500 a minute, a full bucket lets 999 through in the first minute. Daily quotas (Unpaywall:
100,000 calls a day) are counted in the same file and a warning is logged at 90 %; beyond the quota requests are
refused.
The file is shared, so what it holds is checked: a schedule more than :data:`MAX_AHEAD_S` ahead, or a quota count
above the quota, was not written by a limiter (no Retry-After honoured and no queue of waiting requests gets there):
it is reset, with one warning, rather than obeyed with a sleep of days. No wait is ever longer than that bound.
SQLite is already a dependency, has no server to run, and its locking is exactly the cross-process mutex needed.
Between the threads of one process a lock of the process's comes first (:func:`_process_lock`): SQLite's busy handler
makes a writer that finds the file locked sleep in growing steps (1, 2, 5, 10 ms and on) without noticing when the
lock is released, so threads colliding on it, each holding the lock while it waits for the GIL between statements,
queued for tenths of a second where the transactions themselves take a fraction of a millisecond.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pubfetch.config.defaults import RATE_DB_FILE
from pubfetch.config.limits import DAY, DOCUMENTED, Window, check_window, parse_windows

if TYPE_CHECKING:
    from pubfetch.config import Endpoints, RunSettings

log = logging.getLogger(__name__)

BUSY_TIMEOUT_S = 30.0
#: Slack of the default limits: 3 req/s are spaced 0.35 s apart, so a request may arrive up to 50 ms late (or its
#: predecessor early) without the server counting four in one second.
JITTER_S = 0.05
#: Longest wait for a permit, and how far ahead of now a service's schedule may be before it is taken for corrupt.
MAX_AHEAD_S = 3600.0


class _FileLocks:
    """The lock of each limiter file (by its real path) that this process's writers take before SQLite's."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """New locks: a forked child runs this, since a lock held by another thread of the parent at the fork would
        never be released in the child."""
        self.guard = threading.Lock()
        self.locks: dict[str, threading.Lock] = {}

    def of(self, path: Path) -> threading.Lock:
        key = os.path.realpath(path)
        with self.guard:
            lock = self.locks.get(key)
            if lock is None:
                lock = self.locks[key] = threading.Lock()
            return lock


_FILE_LOCKS = _FileLocks()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_FILE_LOCKS.reset)


def _process_lock(path: Path) -> threading.Lock:
    """The lock the threads of this process take in turn before writing the limiter file at ``path``: every limiter
    object on the same file shares it, so that only one of them at a time meets the other processes at SQLite's lock."""
    return _FILE_LOCKS.of(path)


@dataclass(frozen=True)
class Limit:
    """``rate`` requests per second with bursts of ``burst``; at most ``count`` requests in any ``seconds`` for each
    rolling window of ``windows``; ``daily`` calls per UTC day (0: no quota). Declare a service's documented limits
    with :meth:`of`.

    ``jitter`` (seconds) lengthens every window: ``rate`` requests are spread over ``1 + jitter`` seconds instead of
    exactly one, and a window's ``count`` over ``seconds + jitter``. Requests sent exactly on the edge of a limit arrive
    at a server that counts them on that edge, and a little network or scheduling jitter then puts one more into its
    window (HTTP 429).
    """

    rate: float
    burst: int = 1
    daily: int = 0
    jitter: float = 0.0
    windows: tuple[Window, ...] = ()

    @classmethod
    def of(cls, windows: Iterable[Window], *, burst: int = 1, jitter: float = JITTER_S) -> Limit:
        """A service's limits as ``(count, seconds)`` windows, every one held: ``Limit.of([(10, 1), (500, 60)])`` is
        Europe PMC's 10 a second and 500 a minute. A window of a second or less spaces the requests (``rate``, after
        ``burst`` at once), a day's is a quota per UTC day (``daily``), and any other is held over a rolling span.
        Without a window of a second the requests are not spaced, only held to the longer windows. With a burst, a
        window of a second is held over a rolling span too: a burst after a short pause, on top of the spacing, would
        put up to ``burst`` - 1 more than its count into a second."""
        rate, daily, rolling = math.inf, 0, set()
        for count, seconds in windows:
            check_window(count, seconds)
            if seconds <= 1:
                rate = min(rate, count / seconds)
                if burst > 1:
                    rolling.add((int(count), float(seconds)))
            elif seconds == DAY:
                daily = min(daily or count, count)
            else:
                rolling.add((int(count), float(seconds)))
        return cls(rate, burst=burst, daily=daily, jitter=jitter, windows=tuple(sorted(rolling)))

    @property
    def interval(self) -> float:
        """Seconds between two permits (0: not spaced)."""
        return (1.0 + self.jitter) / self.rate

    def span(self, window: Window) -> float:
        """Seconds over which a rolling window's requests are held apart (its length and the jitter)."""
        return window[1] + self.jitter

    def __post_init__(self) -> None:
        if not self.rate > 0:
            raise ValueError(f"rate must be > 0, got {self.rate}")
        if self.burst < 1:
            raise ValueError(f"burst must be >= 1, got {self.burst}")
        if self.daily < 0:
            raise ValueError(f"daily quota must be >= 0, got {self.daily}")
        if self.jitter < 0:
            raise ValueError(f"jitter must be >= 0, got {self.jitter}")
        for count, seconds in self.windows:
            check_window(count, seconds)
            if seconds == DAY:
                raise ValueError("a day's window is the daily quota (daily=), not a rolling window")


class QuotaExceeded(Exception):
    """The service's daily quota is used up; fetching it again today would break its terms."""


def default_limits(ncbi_api_key: bool = False, *, credentials: Mapping[str, str] | None = None,
                   replaced: Mapping[str, str] | None = None) -> dict[str, Limit]:
    """The services' documented limits (:data:`pubfetch.config.limits.DOCUMENTED`: NCBI 3/s, 10/s with an API key;
    Europe PMC 10/s and 500/min; Unpaywall 100,000 a day ...), each with :data:`JITTER_S` of slack so that arrival
    jitter does not push a request over a window's count. ``credentials``: the settings that select a service's
    rewarded windows, by name (``crossref_mailto``); ``replaced``: the ``rate_windows`` setting, windows by service."""
    given = dict(credentials or {})
    if ncbi_api_key:
        given.setdefault("ncbi_api_key", "given")
    limits = {service: Limit.of(rates.chosen(given), burst=rates.burst) for service, rates in DOCUMENTED.items()}
    for service, text in (replaced or {}).items():
        windows, burst = parse_windows(text)
        limits[_limited_key(service)] = Limit.of(windows, burst=burst)
    return limits


def _limited_key(service: str) -> str:
    """The limiter's key of a service named in the settings: a host as :class:`ServiceMap` names it (``host:NAME``,
    lower case, without ``www.``)."""
    if not service.startswith("host:"):
        return service
    from pubfetch.net.urls import host_key

    return "host:" + host_key(service.removeprefix("host:"))


def configured_limits(run: RunSettings) -> dict[str, Limit]:
    """The limits of a run's settings: the documented ones, with the windows its keys and contact addresses earn,
    replaced where ``rate_windows`` says."""
    credentials = {name: getattr(run, name) for name in {r.credential for r in DOCUMENTED.values() if r.credential}}
    return default_limits(credentials=credentials, replaced=run.rate_windows)


def default_path(cache_home: str | None = None) -> Path:
    """``rate-limits.sqlite`` in the user's cache (``cache_home``, else ``~/.cache``), under ``pubfetch/``; the
    configuration module says which cache (``$XDG_CACHE_HOME``) and whether another file was chosen
    (:func:`pubfetch.config.rate_db_default`)."""
    cache = cache_home or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache).joinpath(*RATE_DB_FILE)


def _switch_to_wal(conn: sqlite3.Connection, sleep: Callable[[float], None]) -> None:
    """Put a (possibly new) limiter file in WAL mode, waiting for another process doing the same.

    The switch needs the file to itself, and SQLite answers "database is locked" at once, without its busy timeout,
    when another connection holds the file while upgrading its own lock (it would otherwise risk a deadlock). Workers
    started together all create and switch the same new file (seen in a Celery worker's two pool processes), so the
    switch is tried again for up to the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    pause = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() >= deadline:
                raise
        sleep(pause)
        pause = min(pause * 2, 0.2)


#: A rolling window's newest slot number, and the slot ``count`` bookings back (None while fewer were booked).
_RING = ("SELECT newest, (SELECT at FROM window_slot WHERE ring = ?1 AND seq = newest - ?2 + 1) "
         "FROM (SELECT MAX(seq) AS newest FROM window_slot WHERE ring = ?1)")


@dataclass
class SharedRateLimiter:
    """Cross-process limiter. ``acquire(key)`` blocks until a request to that service may go out.

    Args:
        path: the SQLite file shared by the processes (created when missing).
        limits: per service key; a key without its own limit uses ``limits["host"]`` (per publisher host).
        clock, sleep: wall clock and sleep (tests replace them).
    """

    path: Path = field(default_factory=default_path)
    limits: Mapping[str, Limit] = field(default_factory=default_limits)
    clock: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep
    _local: threading.local = field(default_factory=threading.local, repr=False)
    _warned: set[str] = field(default_factory=set, repr=False)
    _reset: set[str] = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        if is_redis_url(str(self.path)) or str(self.path).startswith(("redis:/", "rediss:/", "unix:/")):
            raise ValueError(f"{self.path} is a Redis URL, not a file: pass it to shared_limiter() "
                             "(pubfetch.net.ratelimit_redis), which opens the Redis limiter")
        self.path = Path(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._conn() as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS schedule (key TEXT PRIMARY KEY, tat REAL NOT NULL)")
            conn.execute("CREATE TABLE IF NOT EXISTS quota (key TEXT NOT NULL, day TEXT NOT NULL, "
                         "calls INTEGER NOT NULL, PRIMARY KEY (key, day))")
            conn.execute("CREATE TABLE IF NOT EXISTS window_slot (ring TEXT NOT NULL, seq INTEGER NOT NULL, "
                         "at REAL NOT NULL, PRIMARY KEY (ring, seq)) WITHOUT ROWID")

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            _switch_to_wal(conn, self.sleep)
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def limit_of(self, key: str) -> Limit:
        return self.limits.get(key) or self.limits.get("host") or Limit(4.0)

    def reserve(self, key: str) -> float:
        """Book the next slot of a service; return the wall-clock time it starts (may be now)."""
        limit = self.limit_of(key)
        interval = limit.interval
        with self._writing() as conn:
            now = self.clock()
            row = conn.execute("SELECT tat FROM schedule WHERE key = ?", (key,)).fetchone()
            tat = row[0] if row else now
            if not plausible_schedule(tat, now):
                note_reset(self._reset, key, schedule_fault(tat, now), str(self.path))
                tat = now
            start = max(now, tat - (limit.burst - 1) * interval)
            if limit.windows:
                start = self._book_windows(conn, key, limit, now, start)
            new_tat = max(tat, start) + interval
            conn.execute("INSERT INTO schedule (key, tat) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET tat = ?",
                         (key, new_tat, new_tat))
            if limit.daily:
                self._count(conn, key, limit, now)
        return start

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``, committed when the block ends, rolled back when it raises),
        taken after this process's other threads are done with theirs (:func:`_process_lock`); a thread's first one
        opens its connection in its turn too, so that none switches the file to WAL beside another's transaction."""
        with _process_lock(self.path):
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _book_windows(self, conn: sqlite3.Connection, key: str, limit: Limit, now: float, start: float) -> float:
        """The earliest slot from ``start`` on that keeps every rolling window of the service, booked in each.

        A window's ring holds its last slots, numbered by ``seq``: the slot ``count`` bookings back is the one
        numbered ``count`` - 1 below the newest, and the new slot goes at least the window's span after it. Slots
        older than that are deleted once every ``count`` bookings (one statement less on the hot path)."""
        rings = []
        for window in limit.windows:
            count, span = window[0], limit.span(window)
            ring = f"{key} {window_name(window)}"
            newest, at = conn.execute(_RING, (ring, count)).fetchone()
            seq = newest if isinstance(newest, int) else 0
            if (newest is not None and seq != newest) or (at is not None and not plausible_slot(at, now, span)):
                note_reset(self._reset, key, slot_fault(newest if seq != newest else at, now), str(self.path))
                conn.execute("DELETE FROM window_slot WHERE ring = ?", (ring,))
                seq, at = 0, None
            if at is not None:
                start = max(start, at + span)
            rings.append((ring, seq + 1, count))
        for ring, seq, count in rings:
            conn.execute("INSERT INTO window_slot (ring, seq, at) VALUES (?, ?, ?)", (ring, seq, start))
            if seq % count == 0:
                conn.execute("DELETE FROM window_slot WHERE ring = ? AND seq <= ?", (ring, seq - count))
        return start

    def _count(self, conn: sqlite3.Connection, key: str, limit: Limit, now: float) -> None:
        day = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")
        row = conn.execute("SELECT calls FROM quota WHERE key = ? AND day = ?", (key, day)).fetchone()
        calls = row[0] if row else 0
        if not plausible_count(calls, limit.daily):
            note_reset(self._reset, key, count_fault(calls, limit.daily), str(self.path))
            conn.execute("DELETE FROM quota WHERE key = ? AND day = ?", (key, day))
            calls = 0
        if calls >= limit.daily:
            raise QuotaExceeded(f"daily quota of {limit.daily} calls to {key} used up for {day} (UTC)")
        conn.execute("INSERT INTO quota (key, day, calls) VALUES (?, ?, 1) "
                     "ON CONFLICT (key, day) DO UPDATE SET calls = calls + 1", (key, day))
        if calls + 1 >= 0.9 * limit.daily and key not in self._warned:
            self._warned.add(key)
            log.warning("%d of the %d daily calls to %s used today", calls + 1, limit.daily, key)

    def acquire(self, key: str) -> float:
        """Block until the next request to a service may go (never longer than :data:`MAX_AHEAD_S`); return the
        seconds waited."""
        start = self.reserve(key)
        wait = min(start - self.clock(), MAX_AHEAD_S)
        if wait > 0:
            self.sleep(wait)
            return wait
        return 0.0

    def penalize(self, key: str, seconds: float) -> None:
        """A server asked everybody to wait (429 with Retry-After): no slot of this service before then."""
        if seconds <= 0:
            return
        with self._writing() as conn:
            until = self.clock() + min(seconds, MAX_AHEAD_S)
            conn.execute("INSERT INTO schedule (key, tat) VALUES (?, ?) "
                         "ON CONFLICT (key) DO UPDATE SET tat = MAX(tat, excluded.tat)", (key, until))
        log.info("%s asked to wait %.1f s; every process holds back", key, seconds)

    def calls_today(self, key: str) -> int:
        day = datetime.fromtimestamp(self.clock(), UTC).strftime("%Y-%m-%d")
        row = self._conn().execute("SELECT calls FROM quota WHERE key = ? AND day = ?", (key, day)).fetchone()
        return row[0] if row else 0


def is_redis_url(target: str) -> bool:
    """A ``redis://``, ``rediss://`` or ``unix://`` URL (the Redis limiter's), not a file path."""
    return target.startswith(("redis://", "rediss://", "unix://"))


def plausible_schedule(tat: object, now: float) -> bool:
    """A service's schedule as a limiter writes it: a finite number at most :data:`MAX_AHEAD_S` ahead of now."""
    return isinstance(tat, int | float) and math.isfinite(tat) and tat <= now + MAX_AHEAD_S


def plausible_count(calls: object, daily: int) -> bool:
    """A day's call count as a limiter writes it: a whole number from 0 to the quota."""
    return isinstance(calls, int) and 0 <= calls <= daily


def plausible_slot(at: object, now: float, span: float) -> bool:
    """A rolling window's booked slot as a limiter writes it: a finite number at most :data:`MAX_AHEAD_S` and the
    window's span ahead of now (the slots of the requests waiting in every process stay well within that)."""
    return isinstance(at, int | float) and math.isfinite(at) and at <= now + MAX_AHEAD_S + span


def slot_fault(at: object, now: float) -> str:
    if isinstance(at, int | float) and math.isfinite(at):
        return f"rolling window's slot {at - now:.0f} s ahead"
    return "rolling window's slot or number that is not a number"


def window_name(window: Window) -> str:
    """A window's name in the shared store (``500/60``): a service's windows changed by the settings get rings of
    their own."""
    return f"{window[0]}/{window[1]:g}"


def schedule_fault(tat: object, now: float) -> str:
    if isinstance(tat, int | float) and math.isfinite(tat):
        return f"schedule {tat - now:.0f} s ahead (more than {MAX_AHEAD_S:.0f} s)"
    return "schedule that is not a number"


def count_fault(calls: object, daily: int) -> str:
    if isinstance(calls, int | float) and math.isfinite(calls):
        return f"daily call count {calls:.0f} (the quota is {daily})"
    return "daily call count that is not a number"


def note_reset(done: set[str], key: str, fault: str, where: str) -> None:
    """Warn, once per service and limiter, that a schedule or count no limiter writes was reset (the store is shared:
    another program, or a person, wrote it)."""
    if key in done:
        return
    done.add(key)
    log.warning("rate limits of %s in %s: a %s is not a limiter's; reset", key, where, fault)


@dataclass(frozen=True)
class ServiceMap:
    """Which service key a URL belongs to: configured endpoint prefixes first, else ``host:<host>``."""

    prefixes: tuple[tuple[str, str], ...]

    @classmethod
    def for_endpoints(cls, endpoints: Endpoints) -> ServiceMap:
        pairs = [
            (endpoints.eutils, "ncbi"),
            (endpoints.europepmc_annotations, "europepmc_annotations"),
            (endpoints.europepmc, "europepmc"),
            (endpoints.unpaywall, "unpaywall"),
            (endpoints.crossref, "crossref"),
            (endpoints.openalex, "openalex"),
            (endpoints.datacite, "datacite"),
            (endpoints.biorxiv, "biorxiv"),
            (endpoints.doi, "doi"),
            (endpoints.pubmed, "ncbi"),
        ]
        pairs.sort(key=lambda p: -len(p[0]))
        return cls(tuple(pairs))

    def key(self, url: str) -> str:
        for prefix, key in self.prefixes:
            if url.startswith(prefix):
                return key
        from pubfetch.net.urls import host_key

        return "host:" + host_key(url)
