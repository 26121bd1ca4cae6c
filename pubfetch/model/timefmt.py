"""Time values as PubFetcher writes them: epoch milliseconds, and Java ``Instant.toString()`` for humans."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from datetime import UTC, date, datetime

Clock = Callable[[], int]
"""A source of "now" in epoch milliseconds; injected so cooldown rules can be tested without waiting."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def civil_date(ms: int) -> tuple[int, int, int]:
    """The UTC (year, month, day) of an instant, for any year: Python's datetime stops at 9999, Java's Instant
    does not, and a stored value past it must still be written (days to civil date, proleptic Gregorian)."""
    days = ms // 86_400_000 + 719_468  # days since 0000-03-01
    era, day_of_era = divmod(days, 146_097)
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    month_index = (5 * day_of_year + 2) // 153  # March is 0
    day = day_of_year - (153 * month_index + 2) // 5 + 1
    month = month_index + 3 if month_index < 10 else month_index - 9
    return year_of_era + era * 400 + (month <= 2), month, day


def _java_date(ms: int) -> str:
    """``YYYY-MM-DD`` as Java writes it: four-digit years, "+" before a longer one, "-" before a negative one."""
    year, month, day = civil_date(ms)
    sign = "+" if year > 9999 else "-" if year < 0 else ""
    return f"{sign}{abs(year):04d}-{month:02d}-{day:02d}"


# cached: every entry stored writes three of them (its fetch time, publication date, citations time), nearly always
# the same few values (0, -1, a publication date shared by thousands of records)
@functools.lru_cache(maxsize=4096)
def instant_human(ms: int) -> str:
    """Java's ``Instant.ofEpochMilli(ms).toString()``: ISO-8601 in UTC, milliseconds only when non-zero."""
    seconds = ms // 1000 % 86_400
    base = f"{_java_date(ms)}T{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    millis = ms % 1000
    return f"{base}.{millis:03d}Z" if millis else f"{base}Z"


@functools.lru_cache(maxsize=4096)
def date_human(ms: int) -> str:
    """The UTC calendar date of an instant, as Java's ``LocalDate.toString()``."""
    return _java_date(ms)


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
