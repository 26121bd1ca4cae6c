"""Retry policy for one request (one redirect hop), built on tenacity.

PubFetcher retries a timeout once, at once, unless ``quick``. pubfetch adds polite retries of 503 and 429: after the
server's Retry-After (seconds or HTTP date), or after a doubling backoff when it gives none. A Retry-After longer than
the cap is not waited for at all: the outcome is recorded as busy (fetchException) and the next run retries, rather
than a worker sleeping for an hour or knocking early.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime

import tenacity

from pubfetch.net.config import HttpConfig
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.proxies import NamedProxy

logger = logging.getLogger(__name__)


class ExchangeFailed(Exception):
    """A request failed in a way the client classifies (raised inside the retried function, caught by the client)."""

    def __init__(self, kind: OutcomeKind, message: str, *, retryable: bool = False, payload: object = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retryable = retryable
        #: what was received before the failure (the client's response summary), if anything
        self.payload = payload
        #: requests sent for this hop, retries included (set by the retry layer once retrying gave up)
        self.attempts = 0
        #: the URL of the hop where it failed (set by the redirect layer)
        self.url: str | None = None
        #: the proxy it failed at, when it failed at one (:func:`~pubfetch.net.errors.classify_exception`)
        self.proxy: NamedProxy | None = None


class ServerBusy(Exception):
    """The server answered 503 or 429; carries what the outcome needs if no retry succeeds."""

    def __init__(self, status: int, retry_after: float | None, payload: object) -> None:
        super().__init__(f"HTTP {status}" + (f", Retry-After {retry_after:g} s" if retry_after is not None else ""))
        self.status = status
        self.retry_after = retry_after
        self.payload = payload
        #: as for :class:`ExchangeFailed`
        self.attempts = 0
        self.url: str | None = None


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP-date); ``None`` if absent or unparsable."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    return max(0.0, (when - now).total_seconds())


class _Budget:
    """Counts failures per cause for one request and decides whether to try again.

    Everything is decided in the retry predicate, which tenacity calls exactly once per failed attempt; tenacity
    computes the wait BEFORE it asks the stop condition, so counting in ``stop`` would make the backoff lag by one.
    """

    def __init__(self, config: HttpConfig, out_of_time: Callable[[], bool]) -> None:
        self.config = config
        self.out_of_time = out_of_time
        self.timeouts = 0
        self.busy = 0

    def retryable(self, exc: BaseException) -> bool:
        if self.out_of_time():
            logger.info("not retrying (%s): the exchange deadline is spent", exc)
            return False
        if isinstance(exc, ServerBusy):
            self.busy += 1
            if exc.retry_after is not None and exc.retry_after > self.config.retry_after_cap_s:
                logger.warning(
                    "Retry-After %.0f s is over the cap of %.0f s, not retrying now",
                    exc.retry_after,
                    self.config.retry_after_cap_s,
                )
                return False
            return self.busy <= self.config.busy_retries
        if isinstance(exc, ExchangeFailed) and exc.retryable and exc.kind is OutcomeKind.TIMEOUT:
            self.timeouts += 1
            return self.timeouts <= self.config.effective_timeout_retries
        return False

    def wait(self, state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, ServerBusy):
            seconds = exc.retry_after
            if seconds is None:
                seconds = self.config.busy_backoff_s * 2 ** (self.busy - 1)
            seconds = min(seconds, self.config.retry_after_cap_s)
            logger.info("server busy (%s), retrying in %.1f s", exc, seconds)
            return seconds
        logger.info("timeout (%s), retrying at once", exc)
        return 0.0


def build_retrying(config: HttpConfig, sleep: Callable[[float], None] = time.sleep,
                   out_of_time: Callable[[], bool] = lambda: False) -> tenacity.Retrying:
    """A fresh tenacity controller for one request (the budget is per request, so never share it between calls).

    The last exception is re-raised when retries are exhausted, or when ``out_of_time()`` says the request's one
    exchange deadline is used up (a 503 whose body drips must not cost a deadline per retry), for the client to
    classify.
    """
    budget = _Budget(config, out_of_time)
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception(budget.retryable),
        stop=tenacity.stop_never,  # the retry predicate holds the budget
        wait=budget.wait,
        sleep=sleep,
        reraise=True,
    )
