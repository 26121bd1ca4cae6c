"""The page-reading workers every door reads its pages in (pubfetch/extract/reader_workers.py): a job runs with the
worker's copy of the run's rules and its log records are told in the run's process; a job that fails on its page
gives the reason instead of a value and leaves its worker serving; without workers the job runs here."""

from __future__ import annotations

import logging
import os

import pytest

from pubfetch.extract.page_read import PageReading, read_page
from pubfetch.extract.reader_workers import Abandoned, page_workers, read_isolated
from pubfetch.extract.webpage_read import Selectors, WebpageReading, read_webpage
from pubfetch.rules import ScrapingRules

MARSH_RULE = "'^https?://marsh\\.example/': marsh\n---\nmarsh:\n  title: h1.no-such-title\n  fulltext: div.body\n"
MARSH_PAGE = ("<html><head><title>T</title></head><body><h1>Sediment supply and marsh resilience</h1><div class='body'>"
              + "<p>Marshes with a high sediment supply kept pace with the rising sea.</p>" * 20 + "</div></body></html>")


@pytest.fixture
def rules() -> ScrapingRules:
    rules = ScrapingRules()
    rules.add_journals(MARSH_RULE, "marsh.yaml")
    return rules


def test_a_job_reads_with_the_runs_rules_and_its_records_are_told_here(rules: ScrapingRules,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="pubfetch")
    with page_workers(1, rules) as workers:
        reading = read_isolated(read_page, (MARSH_PAGE, "https://marsh.example/a"), rules, workers, time_limit=60,
                                memory_limit=0, meta=False)
    told = [r for r in caplog.records if r.name == "pubfetch.extract.page_read"]
    assert [r.getMessage() for r in told] == [
        "https://marsh.example/a: the rule found no title; read from the page without it"]
    assert told[0].process == os.getpid()
    assert isinstance(reading, PageReading) and reading.rule_site == "marsh"  # the user's rule, rebuilt in the worker
    assert reading == read_page(MARSH_PAGE, "https://marsh.example/a", rules, meta=False)


def test_a_job_that_fails_on_its_page_gives_why_and_its_worker_serves_the_next(rules: ScrapingRules) -> None:
    with page_workers(1, rules) as workers:
        why = read_isolated(read_webpage, (MARSH_PAGE, "https://tool.example/"), rules, workers, time_limit=60,
                            memory_limit=0, selectors=Selectors(title="h1:not("))  # not valid CSS: the job raises
        assert isinstance(why, Abandoned) and why.startswith("its reader failed: ValueError: ")
        assert why.is_bug and "report" in why.what_next  # the reader's failure is pubfetch's, not the page's
        after = read_isolated(read_webpage, (MARSH_PAGE, "https://tool.example/"), rules, workers, time_limit=60,
                              memory_limit=0, selectors=Selectors(title="h1"))
        assert isinstance(after, WebpageReading) and after.content.title == "Sediment supply and marsh resilience"
        assert workers.started == 1


def test_without_workers_the_job_runs_here_without_a_limit(rules: ScrapingRules) -> None:
    reading = read_isolated(read_webpage, (MARSH_PAGE, "https://tool.example/"), rules, None, time_limit=0.1,
                            memory_limit=1)
    assert isinstance(reading, WebpageReading) and reading.content.title == "T"
