"""Reading a fetched page in a time-limited worker process (pubfetch/extract/page_read.py): the worker reads as the
run's process would (same rules, same records, its log records told in the run's process), a page over its time or
memory budget is abandoned and the next page is read by a fresh worker, and the run's threads keep running while a
worker reads."""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
import weakref

import pytest

from pubfetch.extract.clean import parse_html
from pubfetch.extract.page_read import _take_apart, page_workers, read_page, read_page_isolated
from pubfetch.rules import ScrapingRules
from support import hostile_pages
from support.article_pages import article_page
from support.waits import wait_until

HOST_RULE = """\
'^https?://marsh\\.example/': marsh
---
marsh:
  title: h1.marsh-title
  fulltext: div.marsh-body
"""
RULE_PAGE = ("<html><head><title>T</title><meta name='citation_doi' content='10.1000/marsh'></head><body>"
             "<h1 class='marsh-title'>Sediment supply and marsh resilience</h1><div class='marsh-body'>"
             + "<p>Marshes with a high sediment supply kept pace with the rising sea.</p>" * 20 + "</div></body></html>")


@pytest.fixture
def rules() -> ScrapingRules:
    rules = ScrapingRules()
    rules.add_journals(HOST_RULE, "marsh.yaml")
    return rules


def test_a_pages_tree_is_freed_without_the_cyclic_collector() -> None:
    """After the reading the tree's nodes are no longer in cycles: reference counting frees them as the reading
    ends, so the collection that follows has no page's worth of garbage to walk."""
    soup = parse_html(RULE_PAGE)
    paragraph, text = soup.find("p"), soup.find("p").string
    freed = [weakref.ref(paragraph), weakref.ref(text), weakref.ref(soup)]
    del paragraph, text
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        _take_apart(soup)
        del soup
        assert [ref() for ref in freed] == [None, None, None]
    finally:
        if was_enabled:
            gc.enable()


def test_a_worker_reads_a_page_as_the_run_would_with_the_runs_rules(rules: ScrapingRules) -> None:
    with page_workers(1, rules) as workers:
        isolated = read_page_isolated(RULE_PAGE, "https://marsh.example/a", rules, workers, meta=True,
                                      time_limit=60, memory_limit=0)
    here = read_page(RULE_PAGE, "https://marsh.example/a", rules, meta=True)
    assert not isinstance(isolated, str)
    assert isolated.rule_site == "marsh" and isolated.record.title == "Sediment supply and marsh resilience"
    assert isolated == here


def test_a_page_no_rule_knows_is_read_by_the_generic_reader_in_the_worker() -> None:
    page = article_page()
    rules = ScrapingRules()
    with page_workers(1, rules) as workers:
        isolated = read_page_isolated(page, "https://publisher.invalid/a", rules, workers, meta=True,
                                      time_limit=60, memory_limit=0)
    assert not isinstance(isolated, str)
    assert isolated.rule_site is None and isolated.record.fulltext
    assert isolated == read_page(page, "https://publisher.invalid/a", rules, meta=True)


def test_a_page_without_a_rule_claims_the_title_the_generic_reader_found() -> None:
    """The site's name in the first ``<h1>`` and a placeholder ``<title>``: the article's heading, which the reader
    finds, is claimed too (the identity check compares it with a known title)."""
    title = "Sediment transport in braided rivers under changing flow"
    page = ("<html><head><title>Loading...</title></head><body><header><h1>River Studies Online</h1></header>"
            f"<main><article><h1>{title}</h1>" + "<p>The full text of the article as the site shows it.</p>" * 60
            + "</article></main></body></html>")
    reading = read_page(page, "https://publisher.invalid/a", ScrapingRules(), meta=True)
    assert reading.rule_site is None and reading.claims is not None
    assert reading.claims.titles[0] == title and "River Studies Online" in reading.claims.titles


def test_a_title_ending_in_a_run_of_marks_before_a_letter_is_read_whole() -> None:
    """The title cleaning once backtracked for ever on such a title (in the meta tags, the <title> and the <h1>)."""
    reading = read_page(hostile_pages.trailing_marks_page(40), "https://publisher.invalid/a", ScrapingRules(),
                        meta=True)
    title = hostile_pages.trailing_marks_title(40, "\u2020")
    assert reading.meta is not None and reading.meta.title == title
    assert reading.record.title == title


def test_the_workers_log_records_are_told_in_the_runs_process(rules: ScrapingRules,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    untitled = RULE_PAGE.replace("class='marsh-title'", "")  # the rule's title selector finds nothing: the reader does
    caplog.set_level(logging.INFO, logger="pubfetch")
    with page_workers(1, rules) as workers:
        reading = read_page_isolated(untitled, "https://marsh.example/a", rules, workers, meta=True, time_limit=60,
                                     memory_limit=0)
    assert not isinstance(reading, str) and reading.fill.title == "Sediment supply and marsh resilience"
    told = [r for r in caplog.records if r.name == "pubfetch.extract.page_read"]
    assert [r.getMessage() for r in told] == [
        "https://marsh.example/a: the rule found no title; read from the page without it"]
    assert told[0].process == os.getpid() and told[0].levelno == logging.INFO


def test_a_page_over_its_time_limit_is_abandoned_and_the_next_is_read_by_a_fresh_worker() -> None:
    rules = ScrapingRules()
    dense = hostile_pages.tag_dense(20_000_000)  # seconds of parsing: far over a tenth of one
    with page_workers(1, rules) as workers:
        why = read_page_isolated(dense, "https://publisher.invalid/a", rules, workers, meta=True, time_limit=0.1,
                                 memory_limit=0)
        assert why == "not read within the page time limit of 0.1 s (page_time_limit; raise it to give pages longer)"
        assert getattr(why, "kind", None) == "timeout"
        assert workers.started == 1
        after = read_page_isolated(RULE_PAGE, "https://publisher.invalid/b", rules, workers, meta=True,
                                   time_limit=60, memory_limit=0)
        assert not isinstance(after, str) and after.record.fulltext
        assert workers.started == 2


def test_a_page_over_its_memory_limit_is_abandoned() -> None:
    """A page of the body cap's size whose text alone, copied as a reading copies it (four bytes a character: one
    character beyond Latin-1), is several times the limit: the worker reaches the limit within seconds."""
    rules = ScrapingRules()
    page = "<html><body><p>\N{GRINNING FACE}" + "word " * 10_000_000 + "</p></body></html>"
    with page_workers(1, rules) as workers:
        why = read_page_isolated(page, "https://publisher.invalid/a", rules, workers, meta=True, time_limit=600,
                                 memory_limit=512 * 1024 ** 2)
        assert why == ("needed more than the page memory limit of 536,870,912 bytes (page_memory_limit; raise it to "
                       "give pages more)")
        assert getattr(why, "kind", None) == "memory"
        after = read_page_isolated(RULE_PAGE, "https://publisher.invalid/b", rules, workers, meta=True,
                                   time_limit=60, memory_limit=512 * 1024 ** 2)
        assert not isinstance(after, str) and after.record.fulltext  # the next page is read under the same limit


@pytest.mark.slow
def test_a_tag_dense_page_over_its_memory_limit_is_abandoned() -> None:
    """The red team's shape: tiny paragraphs at the body cap's size, about 6 GB of parse tree, grown element by element
    until the limit (one to two minutes of parsing on a loaded machine)."""
    rules = ScrapingRules()
    dense = hostile_pages.tag_dense(50_000_000)  # the body cap's size: about 6 GB of parse tree
    with page_workers(1, rules) as workers:
        why = read_page_isolated(dense, "https://publisher.invalid/a", rules, workers, meta=True, time_limit=600,
                                 memory_limit=512 * 1024 ** 2)
    assert isinstance(why, str) and "536,870,912 bytes (page_memory_limit" in why
    assert getattr(why, "kind", None) in ("memory", "died")  # a page too large, in the run's failure words


def test_the_runs_threads_keep_running_while_a_worker_reads_a_page() -> None:
    """A heartbeat-like thread of the run's process beats while a page that takes seconds is read: the thread that
    waits for the worker holds no lock the others need."""
    rules = ScrapingRules()
    dense = hostile_pages.tag_dense(20_000_000)
    beats = [0]
    stop = threading.Event()

    def heartbeat() -> None:
        while not stop.wait(0.01):
            beats[0] += 1

    with page_workers(1, rules) as workers:
        reader = threading.Thread(target=read_page_isolated, args=(dense, "https://publisher.invalid/a", rules,
                                                                   workers), kwargs={"meta": True, "time_limit": 600,
                                                                                     "memory_limit": 0})
        beating = threading.Thread(target=heartbeat)
        beating.start()
        reader.start()
        wait_until(lambda: workers.pids(), 60, "the page's worker to start")
        started = beats[0]
        wait_until(lambda: beats[0] >= started + 50, 60, "fifty heartbeats while the page is read")
        still_reading = reader.is_alive()
        stop.set()
        beating.join()
    reader.join()
    assert still_reading


# ------------------------------------------------------------------------------------------------------ growth (timing)


def _cost(page: str, rules: ScrapingRules) -> float:
    """The fastest of three readings of a page in this process: the least disturbed by the machine's other work."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        read_page(page, "https://publisher.invalid/a", rules, meta=True)
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.timing
@pytest.mark.parametrize(("shape", "small"), [
    ("sup_marks_heading", 1_250), ("abstract_headings", 320), ("references_headings", 1_250),
    ("nested_headers", 1_250), ("headings_against_title", 6_250)])
def test_reading_a_page_grows_linearly_with_the_shapes_that_made_the_reader_hang(shape: str, small: int) -> None:
    """Each shape at an eighth of half the size that held the reader for minutes, then at half that size: eight times
    the page costs about eight times the reading (a quadratic loop would cost 64 times); 32 leaves room for caches
    and a loaded machine."""
    build = {"sup_marks_heading": hostile_pages.sup_marks_heading, "abstract_headings": hostile_pages.abstract_headings,
             "references_headings": hostile_pages.references_headings, "nested_headers": hostile_pages.nested_headers,
             "headings_against_title": lambda n: hostile_pages.headings_against_title(n, 20 * n)}[shape]
    rules = ScrapingRules()
    read_page(build(small), "https://publisher.invalid/a", rules, meta=True)  # the selectors compiled once
    growth = _cost(build(8 * small), rules) / _cost(build(small), rules)
    assert growth < 32, growth


@pytest.mark.timing
@pytest.mark.parametrize("shape", sorted(hostile_pages.SHAPES))
def test_a_page_built_to_hang_the_reader_costs_at_most_its_time_budget(shape: str) -> None:
    """Each red-team page, read in a worker under a one-second budget and the default memory cap: read or abandoned,
    the call returns within the budget and the kill (a worker's start is not the page's time)."""
    page = hostile_pages.SHAPES[shape]()
    rules = ScrapingRules()
    with page_workers(1, rules) as workers:
        read_page_isolated("<p>x</p>", "https://publisher.invalid/", rules, workers, meta=True, time_limit=60,
                           memory_limit=1024 ** 3)  # the worker started
        started = time.perf_counter()
        result = read_page_isolated(page, "https://publisher.invalid/a", rules, workers, meta=True, time_limit=1.0,
                                    memory_limit=1024 ** 3)
        elapsed = time.perf_counter() - started
    assert not isinstance(result, str) or "limit" in result, result
    assert elapsed < 1.0 + 3.0, elapsed  # sending a 50 MB page and killing its worker included


def test_a_rule_pages_links_follow_the_sections_it_marks(rules: ScrapingRules) -> None:
    page = ("<html><head><title>T</title></head><body><h1 class='marsh-title'>Marsh data</h1><div class='marsh-body'>"
            "<h2>Methods</h2><p>Cores were dated as before.</p><h3>Data availability</h3>"
            "<p>Sequences are in GenBank under accession MW342606 and code at https://github.com/marsh/cores.</p>"
            "</div></body></html>")
    reading = read_page(page, "https://marsh.example/b", rules, meta=True)
    assert [(link.kind, link.value, link.section_path) for link in reading.record.text_links] == [
        ("insdc", "MW342606", ("Methods", "Data availability")),
        ("url", "https://github.com/marsh/cores", ("Methods", "Data availability"))]
