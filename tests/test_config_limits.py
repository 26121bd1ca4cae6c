"""The services' rate limits as windows: their text form in the settings, read and written, and a bad one refused in
one line naming the setting."""

from __future__ import annotations

import pytest

from pubfetch.config import FetchConfig
from pubfetch.config.limits import DAY, DOCUMENTED, format_windows, parse_windows


@pytest.mark.parametrize(("text", "windows", "burst"), [
    ("10/s, 500/min", ((10, 1.0), (500, 60.0)), 1),
    ("1000/5min", ((1000, 300.0),), 1),
    ("100/s 100000/day", ((100, 1.0), (100_000, DAY)), 1),
    ("20/s, burst 4", ((20, 1.0),), 4),
    ("2/0.5s, 50/h", ((2, 0.5), (50, 3600.0)), 1),
])
def test_windows_read_from_text_and_written_back(text, windows, burst):
    assert parse_windows(text) == (windows, burst)
    assert parse_windows(format_windows(windows, burst)) == (windows, burst)


def test_the_documented_windows_read_as_they_are_written():
    """docs/configuration.md shows each service's windows in the text a user gives ``rate_windows``."""
    for rates in DOCUMENTED.values():
        for windows in (rates.windows, rates.with_credential):
            if windows:
                assert parse_windows(format_windows(windows, rates.burst)) == (windows, rates.burst)


def test_a_credential_chooses_the_windows_it_earns_when_given():
    crossref = DOCUMENTED["crossref"]
    assert crossref.chosen({}) == ((5, 1.0),)
    assert crossref.chosen({"crossref_mailto": " "}) == ((5, 1.0),)
    assert crossref.chosen({"crossref_mailto": "me@example.org"}) == ((10, 1.0),)
    assert DOCUMENTED["europepmc"].chosen({"crossref_mailto": "me@example.org"}) == ((10, 1.0), (500, 60.0))


@pytest.mark.parametrize(("windows", "message"), [
    ({"europepmc": "10 a second"}, "rate_windows.europepmc: '10 a second' is not a list of windows"),
    ({"europmc": "1/s"}, "rate_windows names 'europmc', which is no service"),
    ({"europepmc": "100/2h"}, "rate_windows.europepmc: a window of 7200 s is neither up to an hour"),
    ({"europepmc": "0/s"}, "rate_windows.europepmc: a window allows at least 1 request, got 0"),
])
def test_a_bad_rate_window_is_one_line_naming_the_setting(windows, message):
    with pytest.raises(ValueError) as error:
        FetchConfig().with_changes(rate_windows=windows)
    assert str(error.value).startswith(message) and "\n" not in str(error.value)
