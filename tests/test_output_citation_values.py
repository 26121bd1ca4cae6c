"""Values as citations write them (pubfetch/output/citation_values.py), each against the stored value it comes from."""

from __future__ import annotations

import pytest

from pubfetch.model import Author, PartType, Publication
from pubfetch.output import citation_values as cv


@pytest.mark.parametrize(("stored", "cited"), [
    ("Low-dose aspirin for preventing recurrent venous thromboembolism.", "Low-dose aspirin for preventing recurrent venous thromboembolism"),
    ("Why?", "Why?"),
    ("To be continued...", "To be continued..."),
    ("A title\nin two lines.\u2028", "A title in two lines"),
    ("Bell\x07 and CSI\x9b.", "Bell and CSI"),
])  # fmt: skip
def test_titles_lose_their_closing_period_line_breaks_and_controls(stored: str, cited: str) -> None:
    assert cv.title(stored) == cited


def test_one_line_joins_every_line_separator_and_text_keeps_paragraphs() -> None:
    assert cv.one_line("a\r\nb\x0bc\x0cd\x1ce\x85f\u2029g\tER  -") == "a b c d e f g ER -"
    assert cv.text("First.\n\nSecond\x00.") == "First.\n\nSecond."


def test_dois_and_their_links_are_lower_case() -> None:
    assert cv.doi("10.1371/JOURNAL.PONE.0213978") == "10.1371/journal.pone.0213978"
    assert cv.doi_url("10.1371/JOURNAL.PONE.0213978") == "https://doi.org/10.1371/journal.pone.0213978"
    assert cv.doi_url("") == ""


@pytest.mark.parametrize(("family", "split"), [
    ("King Jr", ("King", "Jr")),
    ("King Jr.", ("King", "Jr.")),
    ("Smith III", ("Smith", "III")),
    ("van der Berg", ("van der Berg", "")),
    ("Ivy", ("Ivy", "")),  # "IV" only as a word of its own
])  # fmt: skip
def test_a_generational_suffix_is_found_at_the_end_of_the_family_name(family: str, split: tuple[str, str]) -> None:
    assert cv.family_and_suffix(Author(family)) == split


def _pub(authors: list[Author], date: str = "2021-05-06") -> Publication:
    pub = Publication()
    pub.pmid.set("33579751", PartType.external, "pubfetch 0.1.0")
    pub.authors = authors
    pub.set_pub_date(date)
    return pub


@pytest.mark.parametrize(("authors", "key"), [
    ([Author("Möhrle", "Jürgen")], "Mohrle2021_33579751"),
    ([Author("Weiß", "Anna"), Author("Ørsted", "H")], "Weiss2021_33579751"),
    ([Author("van der Berg Jr", "Ludwig")], "vanderBerg2021_33579751"),
    ([Author(literal="World Health Organization")], "WorldHealthOrganization2021_33579751"),
    ([], "2021_33579751"),
])  # fmt: skip
def test_keys_are_the_first_authors_family_name_in_ascii(authors: list[Author], key: str) -> None:
    assert cv.cite_key(_pub(authors)) == key


def test_dates_are_real_ones_or_none() -> None:
    assert cv.date_parts(_pub([])) == [2021, 5, 6]
    assert cv.date_parts(_pub([], "")) == []  # unknown: -1
    past = _pub([])
    past.pub_date = 253_402_300_800_000  # 10000-01-01
    assert cv.date_parts(past) == []
