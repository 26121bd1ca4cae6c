"""Tests for pubfetch.metadata.tdb.ranges: the first and last value of a range set and whether a coverage includes a
value, as LOCKSS' BibliographicUtil and NumberUtil have them."""

from __future__ import annotations

import pytest

from pubfetch.metadata.tdb import coverage_includes, range_set_end, range_set_start


@pytest.mark.parametrize(("text", "start"), [
    ("2003-2004", "2003"), ("2003", "2003"), ("1990, 1992-1995", "1990"), ("1-022", "1"), ("s2-1", "s2-1"),
    ("A-B", "A"), ("1a-1c", "1a"), ("v1; v3", "v1"), ("", None), (None, None), (" - ", "-"),
    ("MCMLXXI-1977", "MCMLXXI"), ("xiv-xx", "xiv"), ("IV-9", "IV")])
def test_range_set_start(text: str | None, start: str | None) -> None:
    assert range_set_start(text) == start


@pytest.mark.parametrize(("text", "end"), [
    ("2003-2004", "2004"), ("2003", "2003"), ("1990, 1992-1995", "1995"), ("s2-1", "s2-1"), ("v1; v3", "v3"),
    ("MCMLXXI-1977", "1977"), ("1977-MCMLXXX", "MCMLXXX"), ("", None), (None, None)])
def test_range_set_end(text: str | None, end: str | None) -> None:
    """LOCKSS' BibliographicUtil.getRangeSetEnd: the end of the last range."""
    assert range_set_end(text) == end


@pytest.mark.parametrize(("coverage", "value", "included"), [
    ("2003-2005", "2004", True), ("2003-2005", "2006", False), ("1990, 1992-1995", "1991", False),
    ("1990, 1992-1995", "1990", True), ("1990; 1992-1995", "1995", True), ("MCMLXXI-1977", "1975", True),
    ("MCMLXXI-1977", "MCMLXXIII", True), ("MCMLXXI-1977", "1970", False), ("1a-1c", "1b", True),
    ("1a-1c", "1d", False), ("v1-v10", "v9", True), ("s2-1", "s2-1", True), ("s2-1", "s2", False),
    ("vol. A", "Vol. a", True), ("5", "V", True), ("5", "", False), (None, "5", False)])
def test_coverage_includes(coverage: str | None, value: str, included: bool) -> None:
    """LOCKSS' BibliographicUtil.coverageIncludes, used by TdbAu.includesYear/Volume/Issue."""
    assert coverage_includes(coverage, value) is included


def test_a_topic_range_includes_the_topics_beginning_with_its_end() -> None:
    """LOCKSS NumberUtil.rangeIncludes: "the value is compared to the range start and stop values as a topic range.
    That is, "Georgia", "Kansas", and "Massachusetts" are topics within the volume "Ge-Ma"" -- ``(value.compareTo(
    endRange) <= 0) || value.startsWith(endRange)``; and TestBibliographicUtil: ``rangeIncludes("aa-cc", "bbb")``."""
    for topic in ("Georgia", "Kansas", "Massachusetts", "Mathematics", "Ma"):
        assert coverage_includes("Ge-Ma", topic), topic
    for outside in ("Gamma", "Mb", "Nevada"):
        assert not coverage_includes("Ge-Ma", outside), outside
    assert coverage_includes("aa-cc", "bbb") and coverage_includes("a-c", "bb")
