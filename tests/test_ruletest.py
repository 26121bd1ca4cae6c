"""Running a rule's test entries: pages looked up in a recorded-response directory, each entry's expectations
compared with what the rule scrapes, and the outcomes as a table."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from pubfetch.extract.reader_workers import PageReaders, page_workers
from pubfetch.rules import ScrapingRules
from pubfetch.ruletest import (
    Page,
    RuleOutcome,
    compare,
    corpus_pages,
    journal_outcomes,
    outcome_table,
    webpage_outcomes,
)
from support import hostile_pages

JOURNALS = """\
'ex\\.org/': ex
---
ex:
  title: h1
  abstract: '.abs'
  tests:
    - url: 'https://ex.org/1'
      title: 'A title'
      abstract: 40
    - url: 'https://ex.org/2'
      title: 'Another title'
    - url: 'https://ex.org/unrecorded'
      untested: true
"""
PAGES = {
    "https://ex.org/1": "<html><body><h1>A title</h1><p class=abs>" + "word " * 8 + "</p></body></html>",
    "https://ex.org/2": "<html><body><h1>A different title</h1></body></html>",
}


def pages(url: str) -> Page | None:
    return Page(url, PAGES[url]) if url in PAGES else None


def test_compare_reports_each_difference() -> None:
    expect = {"title": "A", "doi": "10.1/X", "abstract": 1000, "fulltext": 0, "pdf": True}
    got = {"title": "B", "doi": "10.1/x", "abstract": 850, "fulltext": 12}
    assert compare(expect, got, []) == [
        "title: expected 'A', got 'B'",
        "abstract: expected 1000 characters (±10%), got 850",
        "fulltext: expected 0 characters (±10%), got 12",
        "pdf: expected a link, got none",
    ]
    assert compare({"abstract": 1000, "pdf": "https://x/p.pdf"}, {"abstract": 1090}, ["https://x/p.pdf"]) == []





def test_lengths_are_compared_within_the_tolerance_and_a_doi_ignores_case() -> None:
    assert compare({"abstract": 100}, {"abstract": 120}) == []  # within the 20-character slack
    assert compare({"abstract": 100}, {"abstract": 121}) != []
    assert compare({"fulltext": 0}, {"fulltext": 0}) == []
    assert compare({"doi": "10.1/ABC"}, {"doi": "10.1/abc"}) == []
    assert compare({"title": "T"}, {"title": "t"}) == ["title: expected 'T', got 't'"]


def test_journal_entries_pass_fail_or_stay_untested() -> None:
    rules = ScrapingRules()
    rules.add_journals(JOURNALS, "j.yaml")
    outcomes = list(journal_outcomes(rules, pages))
    assert [(o.url, o.status) for o in outcomes] == [("https://ex.org/1", "pass"), ("https://ex.org/2", "fail"),
                                                     ("https://ex.org/unrecorded", "untested")]
    assert outcomes[0].got["title"] == "A title" and outcomes[0].got["abstract"] == 39
    assert outcomes[1].differences == ["title: expected 'Another title', got 'A different title'"]
    assert [o.url for o in journal_outcomes(rules, pages, regex="/2$")] == ["https://ex.org/2"]
    assert {o.status for o in journal_outcomes(rules, None)} == {"untested"}


def test_webpage_entries_are_checked_with_the_rule_of_their_url() -> None:
    rules = ScrapingRules()
    rules.add_webpages("'tool\\.org/':\n  title: h1\n  tests:\n    - url: 'https://tool.org/'\n      title: Tool\n"
                       "    - url: 'https://tool.org/empty'\n", "w.yaml")
    html = {"https://tool.org/": "<h1>Tool</h1>", "https://tool.org/empty": "<h1>Other</h1>"}
    outcomes = list(webpage_outcomes(rules, lambda url: Page(url, html[url])))
    assert [(o.status, o.unchecked) for o in outcomes] == [("pass", False), ("pass", True)]
    assert outcomes[1].got["title"] == "Other"


def test_corpus_pages_find_recorded_pages_by_url_without_scheme_or_www(tmp_path: Path) -> None:
    (tmp_path / "p.html").write_text("<h1>x</h1>", encoding="utf-8")
    entries = [{"resource": "publisher_page", "url": "https://www.ex.org/a/", "body": "p.html"},
               {"resource": "europepmc_rest", "url": "https://ex.org/rest", "body": "p.html"}]
    (tmp_path / "manifest.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries) + "\n",
                                             encoding="utf-8")
    source = corpus_pages(tmp_path)
    page = source("http://EX.org/a")
    assert page is not None and page.url == "http://EX.org/a" and page.html == b"<h1>x</h1>"
    assert source("https://ex.org/rest") is None  # not a page
    assert source("https://ex.org/b") is None


def test_corpus_pages_refuse_a_directory_without_manifest_or_with_a_broken_one(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="manifest.jsonl"):
        corpus_pages(tmp_path)
    (tmp_path / "pages.jsonl").write_text("{}\nnot json\n", encoding="utf-8")
    with pytest.raises(ValueError, match="pages.jsonl:2: not JSON"):
        corpus_pages(tmp_path)


def test_outcome_table_groups_by_rule_and_counts_statuses() -> None:
    outcomes = [RuleOutcome("ex", "https://ex.org/1", "pass"),
                RuleOutcome("ex", "https://ex.org/2", "fail", ["title: expected 'A', got 'B'"]),
                RuleOutcome("web", "https://w.org/", "pass", got={"title": "W"}, unchecked=True)]
    table, counts = outcome_table(outcomes)
    assert table.splitlines() == ["ex", "  PASS     https://ex.org/1", "  FAIL     https://ex.org/2",
                                  "           title: expected 'A', got 'B'", "web", "  PASS     https://w.org/",
                                  "           nothing expected yet; got: title 'W'", "3 tests: 1 fail, 2 pass"]
    assert counts == {"pass": 2, "fail": 1}
    assert outcome_table([]) == ("0 tests: none selected\n", {})


def test_in_page_workers_the_entries_are_read_as_here_and_a_page_over_its_time_limit_fails_its_test(
        caplog: pytest.LogCaptureFixture) -> None:
    """Each entry's page read in a worker gives what it gives read here; a page that would take a minute to read
    (20 MB of tiny paragraphs) is abandoned at the page time limit with one warning, fails its test, and the next
    entry's page is read by a fresh worker."""
    rules = ScrapingRules()
    rules.add_journals(JOURNALS, "j.yaml")
    here = list(journal_outcomes(rules, pages))
    hung = {**PAGES, "https://ex.org/1": hostile_pages.tag_dense(20_000_000)}
    with page_workers(1, rules) as workers:
        readers = PageReaders(workers, time_limit=3.0, memory_limit=0)
        in_workers = list(journal_outcomes(rules, pages, readers=readers))
        caplog.set_level(logging.WARNING, logger="pubfetch")
        outcomes = list(journal_outcomes(rules, lambda url: Page(url, hung[url]) if url in hung else None,
                                         readers=readers))
    assert in_workers == here
    why = "not read within the page time limit of 3 s (page_time_limit; raise it to give pages longer)"
    assert [(o.url, o.status, o.differences) for o in outcomes] == [
        ("https://ex.org/1", "fail", [f"page abandoned: {why}"]), (here[1].url, "fail", here[1].differences),
        (here[2].url, "untested", here[2].differences)]
    assert [r.getMessage() for r in caplog.records] == [f"page https://ex.org/1 abandoned: {why}; its test failed"]
