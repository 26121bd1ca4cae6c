"""Reading a fetched webpage or doc in a time-limited worker process (pubfetch/extract/webpage_read.py): the worker
reads as the run's process would (the webpage rule, the automatic cleaning, explicit selectors, the text length that
decides a JavaScript refetch), and a page over its time budget is abandoned while the next page is read."""

from __future__ import annotations

import pytest

from pubfetch.extract.reader_workers import page_workers
from pubfetch.extract.webpage_read import Selectors, WebpageReading, read_webpage, read_webpage_isolated
from pubfetch.rules import ScrapingRules
from support import hostile_pages

WEBPAGE_RULE = "'^https?://tool\\.example/':\n  title: h1.name\n  content: div.readme\n  license: span.license\n"
TOOL_PAGE = ("<html><head><title>ignored</title></head><body><h1 class='name'>AlignIt</h1><div class='readme'><p>"
             + "AlignIt aligns protein sequences. " * 10 + "</p></div><span class='license'>MIT</span>"
             "<noscript>Enable JavaScript</noscript><nav>menu</nav></body></html>")


@pytest.fixture
def rules() -> ScrapingRules:
    rules = ScrapingRules()
    rules.add_webpages(WEBPAGE_RULE, "tools.yaml")
    return rules


@pytest.mark.parametrize(("url", "selectors"), [
    ("https://tool.example/alignit", None),  # the webpage rule
    ("https://other.example/alignit", None),  # no rule: the <title> and the cleaned page
    ("https://other.example/alignit", Selectors("h1.name", "div.readme")),
    ("https://other.example/alignit", Selectors("h1.name")),  # no content selector: the cleaned page
])
def test_a_worker_reads_a_webpage_as_the_run_would(rules: ScrapingRules, url: str,
                                                   selectors: Selectors | None) -> None:
    with page_workers(1, rules) as workers:
        isolated = read_webpage_isolated(TOOL_PAGE, url, rules, workers, selectors=selectors, measure=True,
                                         time_limit=60, memory_limit=0)
    here = read_webpage(TOOL_PAGE, url, rules, selectors=selectors, measure=True)
    assert isinstance(isolated, WebpageReading) and isolated == here
    assert isolated.content.content and isolated.noscript and isolated.text_length > 300


def test_the_rule_decides_what_a_webpage_gives(rules: ScrapingRules) -> None:
    reading = read_webpage(TOOL_PAGE, "https://tool.example/alignit", rules)
    assert (reading.content.title, reading.content.license) == ("AlignIt", "MIT")
    assert reading.content.content == ("AlignIt aligns protein sequences. " * 10).strip()
    assert reading.text_length == 0  # not measured unless asked


def test_a_webpage_over_its_time_limit_is_abandoned_and_the_next_is_read(rules: ScrapingRules) -> None:
    dense = hostile_pages.tag_dense(20_000_000)  # about a minute of parsing and cleaning
    with page_workers(1, rules) as workers:
        why = read_webpage_isolated(dense, "https://other.example/hung", rules, workers, selectors=None,
                                    measure=False, time_limit=0.5, memory_limit=0)
        assert why == "not read within the page time limit of 0.5 s (page_time_limit; raise it to give pages longer)"
        after = read_webpage_isolated(TOOL_PAGE, "https://tool.example/alignit", rules, workers, selectors=None,
                                      measure=False, time_limit=60, memory_limit=0)
        assert isinstance(after, WebpageReading) and after.content.title == "AlignIt"
        assert workers.started == 2
