"""Tests for pubfetch.net.record: the response hook sees each exchange, and a failing hook never fails the fetch."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest

from pubfetch.net.record import ExchangeRecord, call_hook

RECORD = ExchangeRecord("GET", "https://x/a", (("Accept", "*/*"),), None, 200, "OK", "HTTP/1.1",
                        (("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")), b"<html/>", False,
                        datetime(2026, 1, 2, tzinfo=UTC), 0.5, "127.0.0.1:80")


def test_the_hook_receives_the_exchange() -> None:
    seen: list[ExchangeRecord] = []
    call_hook(seen.append, RECORD)
    assert seen == [RECORD] and seen[0].response_headers[1] == ("Set-Cookie", "b=2")
    call_hook(None, RECORD)  # no hook: nothing to do


def test_a_failing_hook_is_logged_and_swallowed(caplog: pytest.LogCaptureFixture) -> None:
    def broken(record: ExchangeRecord) -> None:
        raise OSError("disk full")

    with caplog.at_level(logging.ERROR, logger="pubfetch.net.record"):
        call_hook(broken, RECORD)
    [logged] = caplog.records
    assert logged.getMessage() == "response hook failed for https://x/a" and logged.exc_info is not None
    assert isinstance(logged.exc_info[1], OSError)


def test_records_are_values() -> None:
    with pytest.raises(AttributeError):
        RECORD.status = 500  # type: ignore[misc]
    assert ExchangeRecord(*[getattr(RECORD, f) for f in RECORD.__dataclass_fields__]) == RECORD
