"""Every regular expression of pubfetch runs in time linear in its input: none holds the shape that backtracks
exponentially (see ``support.patterns``), and the text scans that replaced such patterns over page text cost what
the text's length says on the runs that made the patterns hang."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest

import pubfetch
from pubfetch.extract.article_title import tidy_title, without_trailing_marks
from pubfetch.extract.maincontent import is_back_matter
from support.hostile_pages import trailing_marks_title
from support.patterns import nested_quantifiers, package_patterns


def test_no_pattern_of_pubfetch_nests_an_unbounded_quantifier_in_a_repeated_group() -> None:
    found = package_patterns(pubfetch)
    modules = {p.module for p in found}
    assert {"pubfetch.extract.article_title", "pubfetch.extract.maincontent", "pubfetch.ids"} <= modules
    bad = [f"{p.module} ({p.where}): {p.pattern!r}: {'; '.join(why)}"
           for p in found if (why := nested_quantifiers(p.pattern, p.flags))]
    assert bad == [], "\n".join(bad)


@pytest.mark.parametrize("pattern", [
    r"[\s\u00a0]*(?:[*\u2020\u2021]+[\s\u00a0,]*\d?)+$",  # the trailing-footnote-mark pattern that hung on "T***...x"
    r"(a+)+b",
    r"^(\d+(\.\d+)*\.?\s*)?references",  # repeated at most once outside, but the inner group repeats a \d+
    r"(?:x|y\s*)*z",  # one branch of the repeated group
    r"(?:a+b?){2,9}",  # a bounded repeat more than once of an unbounded one
    r"(?:a{1,3})+",  # unbounded repeat of a variable count: as many ways to split a run
    r"(?=(?:a*)*)b",  # inside a lookahead
])
def test_the_check_names_a_repeated_group_holding_a_variable_quantifier(pattern: str) -> None:
    assert nested_quantifiers(pattern)


@pytest.mark.parametrize("pattern", [
    r"[\s\u00a0]+",
    r"(?:\s*html)?(?:\s*page)?",  # groups repeated at most once split nothing
    r"^(\d+(\.\d+)*+\.?\s*)?references",  # a possessive repeat is never re-entered
    r"(?>a+)+b",  # nor an atomic group
    r"(?:ab){2,}",  # fixed-width group
    r"(?:a{3})+",
])
def test_the_check_passes_patterns_that_cannot_split_a_run_two_ways(pattern: str) -> None:
    assert nested_quantifiers(pattern) == []


def test_the_check_reads_bytes_patterns_and_flags() -> None:
    assert nested_quantifiers(rb"(?:[a-z]+\s?)+$")
    assert nested_quantifiers(r"(?:A+)+$", re.IGNORECASE)


@pytest.mark.parametrize(("title", "tidy"), [
    ("Marsh resilience\u2020", "Marsh resilience"),
    ("Marsh resilience*,1", "Marsh resilience"),
    ("Marsh resilience *\u2021 \u00a7", "Marsh resilience"),
    ("Marsh resilience \u2020,1\u2020,2", "Marsh resilience"),
    ("Marsh resilience 2", "Marsh resilience 2"),  # a digit without a mark before it is the title's
    ("Marsh resilience 1*", "Marsh resilience 1"),
    ("Marsh*resilience", "Marsh*resilience"),
    ("Marsh resilience*12", "Marsh resilience*12"),  # one digit per mark: "12" is not a note's number
    ("*", ""),
])
def test_trailing_footnote_marks_are_cut_from_a_title(title: str, tidy: str) -> None:
    assert tidy_title(title) == tidy


def test_a_title_ending_in_a_long_run_of_marks_not_at_its_end_is_kept_whole() -> None:
    for mark in ("*", "\u2020"):
        title = trailing_marks_title(40, mark)
        assert tidy_title(title) == title
        assert without_trailing_marks(title + mark * 40) == title


# ------------------------------------------------------------------------------------------------------ growth (timing)


def _cost(fn: Callable[[], object]) -> float:
    """The fastest of three calls: the least disturbed by the machine's other work."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def _growth(build: Callable[[int], str], read: Callable[[str], object], small: int) -> float:
    """How much more reading the input of ``8 * small`` costs than that of ``small``: about 8 for a linear reader, 64
    for a quadratic one (the bound of 32 the tests set leaves room for caches and a loaded machine)."""
    little, big = build(small), build(8 * small)
    return _cost(lambda: read(big)) / max(_cost(lambda: read(little)), 1e-6)


@pytest.mark.timing
@pytest.mark.parametrize("mark", ["*", "\u2020"])
def test_tidying_a_title_grows_linearly_with_a_run_of_marks(mark: str) -> None:
    assert _growth(lambda n: trailing_marks_title(n, mark), tidy_title, 50_000) < 32
    assert _growth(lambda n: "Marsh" + mark * n, tidy_title, 50_000) < 32


@pytest.mark.timing
def test_back_matter_headings_are_told_in_linear_time() -> None:
    assert _growth(lambda n: "1" + ".1" * n + " x", is_back_matter, 50_000) < 32
