"""Tests for pubfetch.net.retry: Retry-After read as seconds or an HTTP date, and the retry budget of one request
(timeouts retried at once, 503/429 after the server's wait or a doubling backoff, none past the cap or the deadline)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from pubfetch.net.config import HttpConfig
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.retry import ExchangeFailed, ServerBusy, build_retrying, parse_retry_after

NOW = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("120", 120.0), (" 7 ", 7.0), ("0", 0.0), ("Wed, 01 May 2024 12:01:30 GMT", 90.0),
     ("Wed, 01 May 2024 11:00:00 GMT", 0.0), ("soon", None), ("-5", None), ("", None), (None, None)],
)
def test_parse_retry_after(value: str | None, seconds: float | None) -> None:
    assert parse_retry_after(value, now=NOW) == seconds


class Attempts:
    """A request that fails with the given exceptions, in turn, then answers "done"."""

    def __init__(self, *failures: BaseException) -> None:
        self.failures = list(failures)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return "done"


def run(config: HttpConfig, attempts: Attempts, out_of_time: Callable[[], bool] = lambda: False,
        ) -> tuple[str, list[float]]:
    waits: list[float] = []
    return build_retrying(config, sleep=waits.append, out_of_time=out_of_time)(attempts), waits


def timeout() -> ExchangeFailed:
    return ExchangeFailed(OutcomeKind.TIMEOUT, "read timed out", retryable=True)


def test_a_timeout_is_retried_once_at_once_unless_quick() -> None:
    assert run(HttpConfig(), Attempts(timeout())) == ("done", [0.0])
    with pytest.raises(ExchangeFailed):
        run(HttpConfig(), Attempts(timeout(), timeout()))
    quick = Attempts(timeout())
    with pytest.raises(ExchangeFailed):
        run(HttpConfig(quick=True), quick)
    assert quick.calls == 1


def test_other_failures_are_not_retried() -> None:
    for failure in (ExchangeFailed(OutcomeKind.CONNECTION, "refused"), ExchangeFailed(OutcomeKind.TIMEOUT, "deadline"),
                    ValueError("a bug")):
        attempts = Attempts(failure)
        with pytest.raises(type(failure)):
            run(HttpConfig(), attempts)
        assert attempts.calls == 1


def test_busy_servers_are_retried_after_their_retry_after_else_a_doubling_backoff() -> None:
    config = HttpConfig(busy_retries=3, busy_backoff_s=2.0, retry_after_cap_s=60.0)
    attempts = Attempts(ServerBusy(503, None, None), ServerBusy(429, 7.0, None), ServerBusy(503, None, None))
    assert run(config, attempts) == ("done", [2.0, 7.0, 8.0])  # the backoff doubles with each busy answer


def test_busy_retries_run_out() -> None:
    attempts = Attempts(*(ServerBusy(503, 1.0, None) for _ in range(3)))
    with pytest.raises(ServerBusy):
        run(HttpConfig(busy_retries=2), attempts)
    assert attempts.calls == 3


def test_a_retry_after_over_the_cap_is_not_waited_for() -> None:
    attempts = Attempts(ServerBusy(503, 3600.0, None))
    with pytest.raises(ServerBusy) as info:
        run(HttpConfig(retry_after_cap_s=60.0), attempts)
    assert info.value.retry_after == 3600.0 and attempts.calls == 1


def test_nothing_is_retried_once_the_exchange_deadline_is_spent() -> None:
    attempts = Attempts(timeout())
    with pytest.raises(ExchangeFailed):
        run(HttpConfig(), attempts, out_of_time=lambda: True)
    assert attempts.calls == 1


def test_server_busy_says_its_status_and_wait() -> None:
    assert str(ServerBusy(503, 2.5, None)) == "HTTP 503, Retry-After 2.5 s"
    assert str(ServerBusy(429, None, None)) == "HTTP 429"
