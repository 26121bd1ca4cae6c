"""PubMed's date elements as complete and partial ISO dates: PubFetcher's padding of an ArticleDate, MEDLINE's
free-text dates, seasons and impossible days."""

from __future__ import annotations

import pytest

from pubfetch.extract.pubmed_dates import pubmed_date
from pubfetch.extract.xmlsafe import parse_xml


def date_of(inner: str, pad: bool = False) -> tuple[str, str]:
    return pubmed_date(parse_xml(f"<PubDate>{inner}</PubDate>".encode()), pad=pad)


@pytest.mark.parametrize(("inner", "padded", "unpadded"), [
    ("<Year>2012</Year><Month>Feb</Month><Day>29</Day>", ("2012-02-29", "2012-02-29"), ("2012-02-29", "2012-02-29")),
    ("<Year>2012</Year><Month>7</Month>", ("2012-07-01", "2012-07"), ("", "2012-07")),
    ("<Year>2012</Year>", ("2012-01-01", "2012"), ("", "2012")),
    ("<Year>2013</Year><Month>02</Month><Day>29</Day>", ("", "2013-02"), ("", "2013-02")),  # no such day
    ("<Year>2020</Year><Month>August</Month><Day>3</Day>", ("2020-08-03", "2020-08-03"), ("2020-08-03", "2020-08-03")),
    ("<Year>12</Year>", ("", ""), ("", "")),
])
def test_year_month_day_complete_only_when_whole_unless_padded(inner: str, padded: tuple, unpadded: tuple) -> None:
    assert date_of(inner, pad=True) == padded
    assert date_of(inner) == unpadded


@pytest.mark.parametrize(("medline", "expected"), [
    ("1998 Dec-1999 Jan", ("", "1998")),  # a range: its first year only
    ("2000 Spring", ("", "2000")),
    ("1975 Jun 12", ("1975-06-12", "1975-06-12")),
    ("1975 Jun", ("", "1975-06")),
    ("Winter 1999-2000", ("", "1999")),
    ("undated", ("", "")),
])
def test_a_medline_date_gives_what_it_says(medline: str, expected: tuple[str, str]) -> None:
    assert date_of(f"<MedlineDate>{medline}</MedlineDate>") == expected


def test_a_season_keeps_only_the_year_and_a_missing_element_gives_nothing() -> None:
    assert date_of("<Year>2001</Year><Season>Summer</Season>") == ("", "2001")
    assert date_of("<Year>2001</Year><Month>Summer</Month>") == ("", "2001")
    assert pubmed_date(None) == ("", "")
