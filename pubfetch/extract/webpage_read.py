"""Reading a fetched webpage or doc (a tool's homepage, its documentation): its title, content, licence and language
under its webpage rule, the automatic cleaning for a page without one, or the explicit selectors of the command line,
as one picklable :class:`WebpageReading`, in a time-limited worker process (``pubfetch.extract.reader_workers`` says
why and how). What to fetch, and whether the reading replaces a stored page, is ``pubfetch.webfetch``'s business.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pubfetch.extract.clean import clean_html, parse_html
from pubfetch.extract.reader_workers import Abandoned, read_isolated
from pubfetch.extract.scrape import WebpageContent, scrape_webpage, select_first_text, select_text
from pubfetch.extract.workerpool import WorkerPool
from pubfetch.rules import ScrapingRules

__all__ = ["Selectors", "WebpageReading", "read_webpage", "read_webpage_isolated"]


@dataclass(frozen=True)
class Selectors:
    """Explicit selectors (PubFetcher's -fetch-webpage-selector) instead of the rules."""

    title: str | None = None
    content: str | None = None
    javascript: bool | None = None


@dataclass
class WebpageReading:
    """What a webpage says: ``content`` (title, content, licence, language), and, when asked for, the length of the
    text of its body and whether it has a ``<noscript>`` (which decide whether it is fetched again with JavaScript)."""

    content: WebpageContent = field(default_factory=WebpageContent)
    text_length: int = 0
    noscript: bool = False


def text_length(html: str) -> tuple[int, bool]:
    """The length of the page body's text (whitespace runs as one space) and whether the page has a ``<noscript>``."""
    soup = parse_html(html)
    noscript = soup.find("noscript") is not None
    body = soup.body or soup
    return len(" ".join(body.get_text(" ").split())), noscript


def read_webpage(html: str, url: str, rules: ScrapingRules, *, selectors: Selectors | None = None,
                 measure: bool = False) -> WebpageReading:
    """Read a webpage fetched from ``url`` (its final address) with ``selectors`` when given, else with the URL's
    webpage rule (a page without one: its ``<title>`` and cleaned body); ``measure``: also its text's length and
    ``<noscript>``. In this process, without a time limit: :func:`read_webpage_isolated` is the protected call."""
    reading = WebpageReading()
    if measure:
        reading.text_length, reading.noscript = text_length(html)
    if selectors is not None:
        content = reading.content
        if selectors.title:
            content.title = select_first_text(html, url, selectors.title)
        content.content = select_text(html, url, selectors.content) if selectors.content else clean_html(html, url)
    else:
        reading.content = scrape_webpage(html, url, rules.webpage_rule(url))
    return reading


def read_webpage_isolated(html: str, url: str, rules: ScrapingRules, workers: WorkerPool | None, *,
                          selectors: Selectors | None, measure: bool, time_limit: float,
                          memory_limit: int) -> WebpageReading | Abandoned:
    """:func:`read_webpage` in one of ``workers`` (:func:`~pubfetch.extract.reader_workers.read_isolated`), killed
    after ``time_limit`` seconds, its address space capped at ``memory_limit`` bytes (0: no cap): the reading, or why
    the page was abandoned. Without ``workers`` the page is read here, unprotected."""
    return read_isolated(read_webpage, (html, url), rules, workers, time_limit=time_limit, memory_limit=memory_limit,
                         selectors=selectors, measure=measure)
