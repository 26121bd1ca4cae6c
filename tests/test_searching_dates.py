"""Day ranges for PubMed's date split: parts that never share a day and cover the range exactly."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pubfetch.searching.dates import DayRange, eutils_date


@given(st.dates(min_value=date(1700, 1, 1), max_value=date(2100, 1, 1)), st.integers(0, 5000), st.integers(1, 40))
def test_parts_cover_the_range_without_sharing_a_day(first: date, length: int, parts: int) -> None:
    span = DayRange(first, first + timedelta(days=length))
    split = span.split(parts)
    assert split[0].first == span.first and split[-1].last == span.last
    assert len(split) == min(parts, span.days)
    for before, after in zip(split, split[1:], strict=False):
        assert after.first == before.last + timedelta(days=1)
    assert max(p.days for p in split) - min(p.days for p in split) <= 1


def test_a_single_day_cannot_be_split_and_dates_read_as_eutils_takes_them() -> None:
    day = DayRange(date(2024, 3, 1), date(2024, 3, 1))
    assert day.split(4) == [day] and str(day) == "2024-03-01"
    assert eutils_date(date(2024, 3, 1)) == "2024/03/01"
    with pytest.raises(ValueError):
        DayRange(date(2024, 3, 2), date(2024, 3, 1))
