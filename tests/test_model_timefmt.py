"""Time values as PubFetcher writes them (pubfetch/model/timefmt.py): epoch milliseconds shown as Java's Instant and
LocalDate do, and the dates and instants a user types into the time filters read back, or refused with the form."""

from __future__ import annotations

import pytest

from pubfetch.model.timefmt import date_human, date_to_ms, instant_human, parse_instant

NOON = 1_706_702_400_000  # 2024-01-31T12:00:00Z


def test_instants_are_written_as_java_writes_them() -> None:
    assert instant_human(NOON) == "2024-01-31T12:00:00Z"
    assert instant_human(NOON + 5) == "2024-01-31T12:00:00.005Z"  # milliseconds only when there are some
    assert instant_human(0) == "1970-01-01T00:00:00Z"
    assert date_human(NOON) == "2024-01-31"


def test_dates_are_read_as_utc_midnight_and_anything_else_is_none() -> None:
    assert date_to_ms("2024-01-31") == NOON - 12 * 3600 * 1000
    assert date_to_ms(" 2024-01-31 ") == NOON - 12 * 3600 * 1000
    assert date_to_ms("20240131") is None and date_to_ms("2024-02-30") is None and date_to_ms("") is None


@pytest.mark.parametrize("text", ["2024-01-31T12:00:00Z", "2024-01-31T12:00:00z", "2024-01-31T14:00:00+02:00",
                                  "2024-01-31T12:00:00"])
def test_instants_are_read_with_or_without_an_offset(text: str) -> None:
    assert parse_instant(text) == NOON


def test_a_bare_date_is_its_utc_midnight_and_nonsense_names_the_form() -> None:
    assert parse_instant("2024-01-31") == NOON - 12 * 3600 * 1000
    with pytest.raises(ValueError, match=r"invalid time 'yesterday': expected an ISO-8601 instant such as"):
        parse_instant("yesterday")
