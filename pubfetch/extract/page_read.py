"""Reading a fetched publisher page: everything that is learnt from its HTML, as one picklable :class:`PageReading`,
in a time-limited worker process.

A page is whatever its server sent, and reading one (lxml's parse, the rule's selectors, the generic reader's passes,
trafilatura) runs in C and in Python that holds the interpreter lock: a page built to make any of it slow would stop
every thread of the process, the Celery worker's heartbeat and signal handlers included, and a tag-dense page takes
about a hundred bytes of memory per byte of HTML. So a run reads its pages as it extracts its PDFs, in worker
processes reused from page to page (:class:`~pubfetch.extract.workerpool.WorkerPool`) that are killed at the page's
time limit and capped in memory; the fetching thread waits on a pipe without the lock and gets the reading, or
``None`` for a page abandoned. What the reading says is merged into the publication by the caller
(``pubfetch.resources.site``): this module knows pages, rules and the readers, not publications.

Each worker builds the run's scraping rules once, from the texts the run's rules were made of (compiled rules do not
pickle); the page's HTML goes to the worker as one string and the reading comes back with the worker's log records,
which are told again in the run's process as if the page had been read there.
"""

from __future__ import annotations

import functools
import gc
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from bs4 import BeautifulSoup

from pubfetch.extract.article import GenericArticle, cleaned_page, read_article
from pubfetch.extract.article_abstract import gives_way
from pubfetch.extract.article_title import meta_title
from pubfetch.extract.blockpage import block_reason
from pubfetch.extract.clean import parse_html
from pubfetch.extract.description import why_not_an_abstract
from pubfetch.extract.identity_claims import page_claims
from pubfetch.extract.meta import parse_meta
from pubfetch.extract.page_license import page_license
from pubfetch.extract.page_sections import page_sections, ranked_sections
from pubfetch.extract.scrape import scrape_journal
from pubfetch.extract.workerpool import Outcome, WorkerPool
from pubfetch.model.identity import Claims
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import Section
from pubfetch.rules import JournalRule, RuleSource, ScrapingRules
from pubfetch.rules.page_index import PageIndex

__all__ = ["PageReading", "page_workers", "read_page", "read_page_isolated"]

log = logging.getLogger(__name__)

#: What the workers' fork server imports: the page readers and the PDF extractor (one server serves both pools of a
#: process, and the first pool to start it decides).
PRELOAD = ("pubfetch.extract.page_read", "pubfetch.extract.pdf")
#: Pages a worker reads before it is replaced: a new worker rebuilds the rules and compiles their selectors again
#: (about a second), which the pool's default of 200 jobs would make a few per cent of a page's time; the memory cap
#: still holds per page.
PAGES_PER_WORKER = 2000
#: The logger whose records a worker sends back with its reading (the package's).
_PACKAGE_LOGGER = "pubfetch"


@dataclass
class PageReading:
    """What a fetched page says, before anything of it is merged.

    ``block``: the page is a bot gate, challenge or refusal (why), and says nothing else. ``rule_site``: the rule that
    read it (by host, else by the platform the page shows); ``None`` when the generic reader did. ``record``: the
    rule's fields (its full text with the title and abstract in front), or the generic reader's record; ``fill``: what
    the reader found that the rule's selectors did not; ``sections``: the rule's body sections; ``meta``: the meta
    tags' record (``None`` when they were not asked for); ``claims``: the identifiers and titles the page and its rule
    give, judged where the page is merged; ``licence`` and ``licence_where`` (``"dc"`` or the other
    tags): the page's licence statement."""

    url: str
    block: str | None = None
    rule_site: str | None = None
    record: ArticleRecord = field(default_factory=ArticleRecord)
    fill: ArticleRecord = field(default_factory=ArticleRecord)
    sections: list[Section] = field(default_factory=list)
    meta: ArticleRecord | None = None
    #: the identifiers and titles the page claims (its tags' and its rule's), for the identity check where it is merged
    claims: Claims | None = None
    licence: str = ""
    licence_where: str = ""
    #: the worker's log records (logger name, level, message), told again in the run's process
    log: list[tuple[str, int, str]] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------------------------------
# The reading
# ---------------------------------------------------------------------------------------------------------------------


def read_page(html: str, url: str, rules: ScrapingRules, *, meta: bool) -> PageReading:
    """Read a page fetched from ``url`` (its final address): nothing from a block page; else its licence and meta tags
    (a title without footnote marks or the site's part; a description that truncates or says less than the page's
    abstract, or that is not an abstract at all, left out) and its rule's fields, what they miss read by the generic
    reader, or for a page without a rule the generic reader's record (PubFetcher's cleaned page as the full text when
    it found no body). In this process, without a time limit: :func:`read_page_isolated` is the protected call."""
    soup = parse_html(html)
    index = PageIndex(soup)  # one walk over the page for the block markers and the platforms' fingerprints
    if (reason := block_reason(soup, index)) is not None:
        return PageReading(url, block=reason)
    licence, where = page_license(soup) if meta else ("", "")  # read before a rule's scraping edits the tree
    rule = _page_rule(rules, url, soup, index)
    meta_record = parse_meta(html, url, site=rule.site if rule is not None else None) if meta else None
    if meta_record is not None and meta_record.title:  # read before a rule's scraping or the reader edits the tree
        types = meta_record.flags.get("types")
        source = str(types.get("title", "")) if isinstance(types, dict) else ""
        meta_record.title = meta_title(meta_record.title, source, soup, url, _site_names(meta_record))
    reading = PageReading(url, rule_site=rule.site if rule is not None else None, meta=meta_record, licence=licence,
                          licence_where=where)
    if rule is not None:
        reading.record = scrape_journal(soup, url, rule)
        reading.claims = page_claims(html, url, reading.record)  # before the reader adds to the rule's record
        body = rule.selector("fulltext")
        if body is not None:  # a fresh index: the scraping took hidden elements out of the tree the first describes
            reading.sections = page_sections(body.select(soup, PageIndex(soup)))
        reading.fill = _reader_fill(reading.record, html, soup, url, meta_record)
        shown_abstract = reading.record.abstract or reading.fill.abstract
        page_text = reading.record.fulltext or reading.fill.fulltext
    else:
        reading.claims = page_claims(html, url)
        reading.record = _read_without_rule(html, soup, url, meta_record)
        shown_abstract, page_text = reading.record.abstract, reading.record.fulltext
    if meta_record is not None:
        _keep_meta_abstract(meta_record, shown_abstract, reading.record.title, page_text, url)
    return reading


def _keep_meta_abstract(meta_record: ArticleRecord, shown_abstract: str, page_title: str, page_text: str,
                        url: str) -> None:
    """Drop the meta record's abstract where it gives way to the abstract the page shows, or where its tag's text is
    not the paper's abstract (extract/description.py)."""
    if gives_way(meta_record.abstract, shown_abstract):
        log.debug("%s: the meta description truncates or says less than the page's abstract", url)
        meta_record.abstract = ""
        return
    types = meta_record.flags.get("types")
    family = str(types.get("abstract", "")) if isinstance(types, dict) else ""
    if why := why_not_an_abstract(meta_record.abstract, family=family, title=meta_record.title or page_title,
                                  site_names=_site_names(meta_record), page_text=page_text):
        log.debug("%s: the meta description is not the abstract: %s", url, why)
        meta_record.abstract = ""


def _site_names(meta_record: ArticleRecord | None) -> tuple[str, ...]:
    return tuple(n for n in (meta_record.journal_title, meta_record.publisher) if n) if meta_record else ()


def _read_without_rule(html: str, soup: BeautifulSoup, url: str, meta_record: ArticleRecord | None) -> ArticleRecord:
    """A page no rule knows, read by the generic reader; without a body found there, the cleaned page as the full
    text (PubFetcher's fallback), all of the part type "webpage"."""
    article = read_article(html, soup, url, meta_record.title if meta_record else "", _site_names(meta_record))
    return ArticleRecord(title=article.title, abstract=article.abstract, fulltext=article.fulltext or cleaned_page(
        soup, url, article), sections=_sections(article))


def _sections(article: GenericArticle) -> list[Section]:
    """The reader's body sections (its own heading levels, ranked as a rule's page sections are)."""
    return ranked_sections((s.level, s.title, s.text) for s in article.sections) if article.body else []


def _reader_fill(record: ArticleRecord, html: str, soup: BeautifulSoup, url: str,
                 meta_record: ArticleRecord | None) -> ArticleRecord:
    """The title, abstract and full text a rule's selectors found nothing for, read by the generic reader (to be
    merged as the part type "webpage", as content read without a rule). A full text the rule did find gets the title
    and abstract the reader found put in front of it, so that it reads as the whole article."""
    if record.title and record.abstract and record.fulltext:
        return ArticleRecord()
    article = read_article(html, soup, url, meta_record.title if meta_record else "", _site_names(meta_record),
                           body=not record.fulltext)
    title, abstract = record.title or article.title, record.abstract or article.abstract
    filled = ArticleRecord(title="" if record.title else article.title,
                           abstract="" if record.abstract else article.abstract)
    if record.fulltext:
        body = str(record.flags.get("body", ""))
        record.fulltext = "\n\n".join(p for p in (title, abstract, body) if p)
    elif article.body:
        filled.fulltext = "\n\n".join(p for p in (title, abstract, article.body) if p)
        filled.sections = _sections(article)
    found = [name for name, value in (("title", filled.title), ("abstract", filled.abstract),
                                      ("full text", filled.fulltext)) if value]
    if found:
        log.info("%s: the rule found no %s; read from the page without it", url, ", ".join(found))
    return filled


def _page_rule(rules: ScrapingRules, url: str, soup: BeautifulSoup, index: PageIndex) -> JournalRule | None:
    """The rule of the page's host, else of the platform the page shows (its ``recognise`` fingerprint)."""
    rule = rules.journal_rule(url)
    if rule is not None:
        return rule
    platform = rules.recognise(soup, index)
    if platform is not None:
        log.info("%s: no rule for the host, the page shows the platform '%s'", url, platform.site)
    return platform


# ---------------------------------------------------------------------------------------------------------------------
# The worker side
# ---------------------------------------------------------------------------------------------------------------------

#: The worker's rules, built once by :func:`_install_rules` when the worker starts.
_worker_rules: ScrapingRules | None = None


def _install_rules(sources: tuple[RuleSource, ...]) -> None:
    """Run once in each worker: the run's rules, rebuilt from their texts."""
    global _worker_rules  # noqa: PLW0603 - one worker process, one set of rules
    _worker_rules = ScrapingRules.from_sources(sources)
    logging.getLogger(_PACKAGE_LOGGER).propagate = False  # its records go back to the run, not to this stderr
    gc.freeze()  # the libraries and rules stay for the worker's life: the collections a page's tree sets off skip them


class _Collect(logging.Handler):
    """The records of one page's reading, kept to be sent back with it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.exc_info:
            message += "\n" + logging.Formatter().formatException(record.exc_info)
        self.records.append((record.name, record.levelno, message))


def _read_in_worker(html: str, url: str, meta: bool, level: int) -> PageReading:
    """The job a worker runs: :func:`read_page` with the worker's rules, its log records at the run's level kept."""
    if _worker_rules is None:
        raise RuntimeError("page worker started without its rules")
    logger = logging.getLogger(_PACKAGE_LOGGER)
    logger.setLevel(level)
    collect = _Collect()
    logger.addHandler(collect)
    try:
        reading = read_page(html, url, _worker_rules, meta=meta)
    finally:
        logger.removeHandler(collect)
    reading.log = collect.records
    return reading


# ---------------------------------------------------------------------------------------------------------------------
# The run's side
# ---------------------------------------------------------------------------------------------------------------------


def page_workers(size: int, rules: ScrapingRules) -> WorkerPool:
    """Worker processes that read pages with ``rules``, reused from page to page: at most ``size`` of them, each
    started on first need from a fork server that has this module (lxml, BeautifulSoup, trafilatura) imported. The
    owner closes the pool (``Context.close`` for a fetch run)."""
    return WorkerPool(size, setup=functools.partial(_install_rules, rules.sources), preload=PRELOAD,
                      max_jobs=PAGES_PER_WORKER, name="pubfetch-page")


def _level() -> int:
    """The lowest level the run's process would show of the package's records: the worker keeps only those."""
    logger = logging.getLogger(_PACKAGE_LOGGER)
    return next((level for level in (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR)
                 if logger.isEnabledFor(level)), logging.CRITICAL)


def _tell(records: Sequence[tuple[str, int, str]]) -> None:
    for name, level, message in records:
        logger = logging.getLogger(name)
        if logger.isEnabledFor(level):
            logger.log(level, "%s", message)


def read_page_isolated(html: str, url: str, rules: ScrapingRules, workers: WorkerPool | None, *, meta: bool,
                       time_limit: float, memory_limit: int) -> PageReading | str:
    """:func:`read_page` in one of ``workers``, killed after ``time_limit`` seconds, its address space capped at
    ``memory_limit`` bytes (0: no cap): the reading, or why the page was abandoned (over its time or memory, or the
    reader failed on it). Without ``workers`` (a caller with no run to own them) the page is read here, unprotected.
    A daemonic process (a Celery ``--pool prefork`` child) starts its workers too (``pubfetch.extract.workerpool``)."""
    if workers is None:
        return read_page(html, url, rules, meta=meta)
    outcome = workers.run(_read_in_worker, html, url, meta, _level(), time_limit=time_limit,
                          memory_limit=memory_limit)
    if outcome.kind == "ok" and isinstance(outcome.value, PageReading):
        _tell(outcome.value.log)
        outcome.value.log = []
        return outcome.value
    return _abandoned(outcome, time_limit, memory_limit)


def _abandoned(outcome: Outcome, time_limit: float, memory_limit: int) -> str:
    """Why a page's reading gave nothing, in the words of the warning the caller gives."""
    if outcome.kind == "timeout":
        return (f"not read within the page time limit of {time_limit:g} s (page_time_limit; raise it to give pages "
                "longer)")
    if outcome.kind == "memory":
        return (f"needed more than the page memory limit of {memory_limit:,} bytes (page_memory_limit; raise it to "
                "give pages more)")
    if outcome.kind == "died":
        cap = f"; the page memory limit is {memory_limit:,} bytes (page_memory_limit)" if memory_limit > 0 else ""
        return f"its reader process died (exit code {outcome.exitcode}{cap})"
    if outcome.kind == "closed":
        return "the run was closing"
    return f"its reader failed: {outcome.message}"
