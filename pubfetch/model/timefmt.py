"""Time values as PubFetcher writes them: epoch milliseconds, and Java ``Instant.toString()`` for humans."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

Clock = Callable[[], int]
"""A source of "now" in epoch milliseconds; injected so cooldown rules can be tested without waiting."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def instant_human(ms: int) -> str:
    """Java's ``Instant.ofEpochMilli(ms).toString()``: ISO-8601 in UTC, milliseconds only when non-zero."""
    dt = _EPOCH + timedelta(milliseconds=ms)
    base = dt.strftime("%Y-%m-%dT%H:%M:%S")
    if dt.year > 9999:
        base = "+" + base
    millis = ms % 1000
    return f"{base}.{millis:03d}Z" if millis else f"{base}Z"


def date_human(ms: int) -> str:
    """The UTC calendar date of an instant, as Java's ``LocalDate.toString()``."""
    return (_EPOCH + timedelta(milliseconds=ms)).date().isoformat()


def date_to_ms(text: str) -> int | None:
    """Parse an ISO ``YYYY-MM-DD`` date to epoch milliseconds at UTC midnight; None if it is not such a date."""
    try:
        d = date.fromisoformat(text.strip())
    except (ValueError, AttributeError):
        return None
    if len(text.strip()) != 10:
        return None
    return int((datetime(d.year, d.month, d.day, tzinfo=UTC) - _EPOCH).total_seconds() * 1000)


def parse_instant(text: str) -> int:
    """Parse an ISO-8601 instant (``2024-01-31T12:00:00Z``, offsets, or a bare date) to epoch milliseconds.

    Raises ValueError with the expected form, for the CLI's time filters.
    """
    t = text.strip()
    try:
        if len(t) == 10:
            dt = datetime.fromisoformat(t).replace(tzinfo=UTC)
        else:
            dt = datetime.fromisoformat(t[:-1] + "+00:00" if t.endswith(("Z", "z")) else t)
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=UTC)
    except ValueError:
        raise ValueError(f"invalid time '{text}': expected an ISO-8601 instant such as 2024-01-31T12:00:00Z") from None
    return int((dt - _EPOCH).total_seconds() * 1000)
