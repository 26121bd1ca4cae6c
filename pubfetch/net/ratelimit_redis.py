"""Rate limits shared by every pubfetch process on every machine, kept in Redis (``--rate-db redis://host:6379/N``).

The same limits, GCRA schedule, rolling windows, Retry-After penalties and daily quotas as the SQLite file of
:mod:`pubfetch.net.ratelimit`, so the two are interchangeable. Each permit is one Lua script, which Redis runs
atomically: it reads a service's "theoretical arrival time", books the next slot and answers how long to wait. The
clock is the Redis server's (``TIME``), not the caller's, so machines whose clocks disagree still share one schedule.

Why a script and not a library: pyrate-limiter's and limits' Redis backends answer "allowed or not" for a window; the
fetcher needs a booked future slot (to sleep until, not to poll for) and a way to push every process's schedule back
when a server sends Retry-After. Both are a few lines of GCRA here.

Keys: ``<prefix>rate:<service>`` (expires once its slot is in the past), ``<prefix>window:<service>:<count>/<seconds>``
(a rolling window's last ``count`` slots, a list expiring a window after its last slot) and
``<prefix>quota:<service>:<UTC day>`` (kept two days). ``?prefix=NAME:`` in the URL sets the prefix (default
``pubfetch:``), so several clusters can share a Redis. Whoever can write the broker's Redis can write these keys: a
schedule more than :data:`~pubfetch.net.ratelimit.MAX_AHEAD_S` ahead (a window's slot more than that and its span), or
a count that is not a whole number up to the quota, is reset by the script (one warning per service), never obeyed
with a sleep of days.

Redis may be away for a while (a restart, a network cut): a permit asked during an outage waits for Redis to answer
again, asking with a doubling pause (to 10 s) for up to :data:`OUTAGE_S`, with one warning when the outage starts and
one when it ends, instead of failing the request (every request of a worker's batches would end as a fetch exception).
Opening the limiter fails at once by default, so that a command line started against a wrong URL says so; a worker,
which opens it in its first batch, waits there too (``open_wait_s``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pubfetch.net.ratelimit import (
    MAX_AHEAD_S,
    Limit,
    QuotaExceeded,
    SharedRateLimiter,
    default_limits,
    is_redis_url,
    note_reset,
    window_name,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

PREFIXES = ("redis://", "rediss://", "unix://")
DEFAULT_KEY_PREFIX = "pubfetch:"
QUOTA_TTL_S = 2 * 86_400
#: Seconds a permit waits for Redis to answer again before its request fails.
OUTAGE_S = 300.0
#: Longest pause between two tries during an outage.
MAX_PAUSE_S = 10.0

# KEYS: schedule, quota, then one list per rolling window (its last `count` slots, oldest first). ARGV: interval, burst,
# daily quota (0: none), now (negative: the server's clock), quota TTL, longest schedule ahead, number of windows, then
# each window's count and span. Returns {wait seconds as text, calls today, what was reset as text ('' if nothing)};
# calls -1 when the quota is used up (nothing booked then).
_RESERVE = """
local interval, burst, daily = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local ahead = tonumber(ARGV[6])
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
local reset = ''
local calls = 0
if daily > 0 then
  local stored = redis.call('GET', KEYS[2])
  calls = tonumber(stored or '0')
  if calls == nil or calls ~= math.floor(calls) or calls < 0 or calls > daily then
    reset = 'daily call count ' .. string.sub(tostring(calls or 'that is not a number'), 1, 24) ..
            ' (the quota is ' .. daily .. ')'
    redis.call('DEL', KEYS[2])
    calls = 0
  end
  if calls >= daily then return {'0', -1, reset} end
end
local stored_tat = redis.call('GET', KEYS[1])
local tat = tonumber(stored_tat or now)
if tat == nil or tat ~= tat or tat > now + ahead then
  reset = 'schedule ' .. (tat and string.format('%.0f s ahead', tat - now) or 'that is not a number')
  tat = now
end
local start = math.max(now, tat - (burst - 1) * interval)
local windows = tonumber(ARGV[7])
for i = 1, windows do
  local count, span = tonumber(ARGV[6 + 2 * i]), tonumber(ARGV[7 + 2 * i])
  local kind = redis.call('TYPE', KEYS[2 + i])['ok']
  if kind ~= 'list' and kind ~= 'none' then
    reset = "rolling window's slots in a " .. kind .. ', not a list'
    redis.call('DEL', KEYS[2 + i])
  end
  if redis.call('LLEN', KEYS[2 + i]) >= count then
    local stored = redis.call('LINDEX', KEYS[2 + i], -count)
    local at = tonumber(stored)
    if at == nil or at ~= at or at > now + ahead + span then
      reset = "rolling window's slot " .. (at and string.format('%.0f s ahead', at - now) or 'that is not a number')
      redis.call('DEL', KEYS[2 + i])
    else
      start = math.max(start, at + span)
    end
  end
end
local new_tat = math.max(tat, start) + interval
redis.call('SET', KEYS[1], string.format('%.17g', new_tat), 'PX', math.ceil((new_tat - now) * 1000) + 60000)
for i = 1, windows do
  local count, span = tonumber(ARGV[6 + 2 * i]), tonumber(ARGV[7 + 2 * i])
  redis.call('RPUSH', KEYS[2 + i], string.format('%.17g', start))
  redis.call('LTRIM', KEYS[2 + i], -count, -1)
  redis.call('PEXPIRE', KEYS[2 + i], math.ceil((start - now + span) * 1000) + 60000)
end
if daily > 0 then
  calls = redis.call('INCR', KEYS[2])
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[5]))
end
return {string.format('%.17g', start - now), calls, reset}
"""

# KEYS: schedule. ARGV: seconds, now (negative: the server's clock). No slot before now + seconds.
_PENALIZE = """
local now = tonumber(ARGV[2])
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
local until_ = now + tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if until_ > tat then
  redis.call('SET', KEYS[1], string.format('%.17g', until_), 'PX', math.ceil((until_ - now) * 1000) + 60000)
end
return 1
"""


def is_redis(target: str) -> bool:
    return is_redis_url(str(target))


def split_prefix(url: str, default: str = "") -> tuple[str, str]:
    """The URL without pubfetch's own ``prefix`` query parameter, and that prefix (``default`` when it has none)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    prefix = next((v for k, v in query if k == "prefix"), default)
    rest = urlencode([(k, v) for k, v in query if k != "prefix"])
    return urlunsplit(parts._replace(query=rest)), prefix


def connect(url: str) -> Any:
    """A Redis client for a ``redis://`` URL, with a clear message when the driver is missing."""
    try:
        import redis
    except ImportError:
        raise ValueError('Redis rate limits need the redis driver: pip install "pubfetch[redis]"') from None
    return redis.Redis.from_url(url, socket_timeout=30, socket_connect_timeout=10, health_check_interval=30)


class RedisAway(ConnectionError):
    """Redis did not answer for as long as its caller waits for it; one line saying so."""


class RedisOutages:
    """Calls to one Redis, asked again while it is away (refused, cut, timing out, still loading) with a doubling pause
    (to :data:`MAX_PAUSE_S`), and one warning when an outage starts and one when it ends, whichever threads meet it.
    A Redis that answers no (a wrong password, a ConnectionError to redis-py too) fails at once.

    Args:
        what: the Redis in messages ("the rate limits' Redis at HOST:PORT/N").
        waiting: who waits for it ("requests wait for it").
    """

    def __init__(self, what: str, waiting: str) -> None:
        import redis

        self.what, self.waiting = what, waiting
        self._away = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
        self._answered_no = (redis.exceptions.AuthenticationError, redis.exceptions.AuthorizationError)
        self._lock = threading.Lock()
        self._lost = False

    def call(self, limit: float, op: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``op(*args, **kwargs)``, asked again for up to ``limit`` seconds while Redis is away (0: not asked again);
        :class:`RedisAway` once that is over."""
        started: float | None = None
        pause = 0.25
        while True:
            try:
                result = op(*args, **kwargs)
            except self._answered_no:
                raise
            except self._away as e:
                now = time.monotonic()
                if started is None:
                    started = now
                if now - started + pause > limit:
                    if limit > 0:
                        raise RedisAway(f"{self.what} has not answered for {now - started:.0f} s "
                                        f"({type(e).__name__})") from None
                    raise
                self._note(True, e, limit)
                time.sleep(pause)
                pause = min(pause * 2, MAX_PAUSE_S)
            else:
                if started is not None:
                    self._note(False)
                return result

    def _note(self, lost: bool, error: BaseException | None = None, limit: float = 0.0) -> None:
        with self._lock:
            if lost == self._lost:
                return
            self._lost = lost
        if lost:
            log.warning("%s does not answer (%s); %s for up to %.0f s", self.what, type(error).__name__, self.waiting,
                        limit)
        else:
            log.warning("%s answers again", self.what)


@dataclass
class RedisRateLimiter:
    """Cluster-wide limiter with :class:`~pubfetch.net.ratelimit.SharedRateLimiter`'s methods.

    Args:
        url: ``redis://host:6379/N`` (optionally ``?prefix=NAME:`` for the keys).
        limits: per service key; a key without its own limit uses ``limits["host"]`` (per publisher host).
        clock: None (the default) uses the Redis server's clock; tests pass a fake one, with ``sleep``.
        outage_s: how long a permit waits through a Redis outage (see the module docstring).
        open_wait_s: how long opening waits for Redis to answer (0: it fails at once).
    """

    url: str
    limits: Mapping[str, Limit] = field(default_factory=default_limits)
    clock: Callable[[], float] | None = None
    sleep: Callable[[float], None] = time.sleep
    outage_s: float = OUTAGE_S
    open_wait_s: float = 0.0
    _warned: set[str] = field(default_factory=set, repr=False)
    _reset: set[str] = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        url, self.prefix = split_prefix(self.url, DEFAULT_KEY_PREFIX)
        self.where = url.split("@")[-1]
        self.redis = connect(url)
        self._outages = RedisOutages(f"the rate limits' Redis at {self.where}", "requests wait for it")
        try:
            self._outages.call(self.open_wait_s, self.redis.ping)
        except RedisAway as e:
            raise ValueError(str(e)) from None
        except Exception as e:  # redis-py's errors; the driver is imported lazily
            raise ValueError(f"Redis at {self.where} does not answer: {e}") from None
        self._reserve = self.redis.register_script(_RESERVE)
        self._penalize = self.redis.register_script(_PENALIZE)

    def limit_of(self, key: str) -> Limit:
        return self.limits.get(key) or self.limits.get("host") or Limit(4.0)

    def _now_arg(self) -> float:
        return self.clock() if self.clock is not None else -1.0

    def _day(self) -> str:
        now = self.clock() if self.clock is not None else time.time()
        return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")

    def _quota_key(self, key: str) -> str:
        return f"{self.prefix}quota:{key}:{self._day()}"

    def wait_for(self, key: str) -> float:
        """Book the next slot of a service; return the seconds until it starts (0: now)."""
        limit = self.limit_of(key)
        keys = [f"{self.prefix}rate:{key}", self._quota_key(key)]
        args = [repr(limit.interval), limit.burst, limit.daily, repr(self._now_arg()), QUOTA_TTL_S, repr(MAX_AHEAD_S),
                len(limit.windows)]
        for window in limit.windows:
            keys.append(f"{self.prefix}window:{key}:{window_name(window)}")
            args += [window[0], repr(limit.span(window))]
        wait, calls, reset = self._outages.call(self.outage_s, self._reserve, keys=keys, args=args)
        if reset:
            text = reset.decode("utf-8", "replace") if isinstance(reset, bytes) else str(reset)
            note_reset(self._reset, key, text, self.where)
        calls = int(calls)
        if calls < 0:
            raise QuotaExceeded(f"daily quota of {limit.daily} calls to {key} used up for {self._day()} (UTC)")
        if limit.daily and calls >= 0.9 * limit.daily and key not in self._warned:
            self._warned.add(key)
            log.warning("%d of the %d daily calls to %s used today", calls, limit.daily, key)
        return min(max(0.0, float(wait)), MAX_AHEAD_S)

    def acquire(self, key: str) -> float:
        """Block until the next request to a service may go; return the seconds waited."""
        wait = self.wait_for(key)
        if wait > 0:
            self.sleep(wait)
        return wait

    def penalize(self, key: str, seconds: float) -> None:
        """A server asked everybody to wait (429/503 with Retry-After): no slot of this service before then."""
        if seconds <= 0:
            return
        seconds = min(float(seconds), MAX_AHEAD_S)
        self._outages.call(self.outage_s, self._penalize, keys=[f"{self.prefix}rate:{key}"],
                           args=[repr(seconds), repr(self._now_arg())])
        log.info("%s asked to wait %.1f s; every process on every machine holds back", key, seconds)

    def calls_today(self, key: str) -> int:
        return int(self._outages.call(self.outage_s, self.redis.get, self._quota_key(key)) or 0)

    def close(self) -> None:
        self.redis.close()


def shared_limiter(target: str | None, limits: Mapping[str, Limit], *,
                   open_wait_s: float = 0.0) -> SharedRateLimiter | RedisRateLimiter:
    """The limiter named by ``target`` (``--rate-db``, else ``$PUBFETCH_RATE_DB``, which the configuration resolves:
    :func:`pubfetch.config.rate_db_default`): Redis for a ``redis://`` URL (opening waits ``open_wait_s`` for it to
    answer), else the SQLite file (the default path if none is named)."""
    if target and is_redis(target):
        return RedisRateLimiter(target, limits, open_wait_s=open_wait_s)
    if target:
        return SharedRateLimiter(Path(target), limits)
    return SharedRateLimiter(limits=limits)
