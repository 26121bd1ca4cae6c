"""Reading a fetched publisher page: everything that is learnt from its HTML, as one picklable :class:`PageReading`,
in a time-limited worker process (``pubfetch.extract.reader_workers`` says why and how).

What the reading says is merged into the publication by the caller (``pubfetch.resources.site``): this module knows
pages, rules and the readers, not publications. A page abandoned by its worker (over its time or memory) gives the
reason instead of a reading.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from bs4 import BeautifulSoup

from pubfetch.extract.article import GenericArticle, article_title, cleaned_page, read_article
from pubfetch.extract.article_abstract import find_abstract, gives_way
from pubfetch.extract.article_title import SITE_DECORATED, main_heading, meta_title
from pubfetch.extract.blockpage import block_reason
from pubfetch.extract.clean import parse_html
from pubfetch.extract.description import why_not_an_abstract
from pubfetch.extract.gcpause import collection_paused
from pubfetch.extract.identity_claims import page_claims
from pubfetch.extract.meta import page_meta_tags, parse_meta
from pubfetch.extract.page_license import page_license
from pubfetch.extract.page_sections import page_sections, ranked_sections
from pubfetch.extract.page_structure import page_figures, page_statements, page_tables
from pubfetch.extract.reader_workers import Abandoned, page_workers, read_isolated
from pubfetch.extract.scrape import scrape_journal_tree
from pubfetch.extract.soup_build import page_from_text
from pubfetch.extract.text_links import record_links
from pubfetch.extract.title_choice import complete_title, shown_spacing
from pubfetch.extract.workerpool import WorkerPool
from pubfetch.model.identity import Claims
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import Section
from pubfetch.model.structure import DEFAULT_MAX_TABLE_CELLS, Figure, Statement, Table
from pubfetch.rules import JournalRule, ScrapingRules
from pubfetch.rules.page_index import PageIndex

__all__ = ["PageReading", "page_workers", "read_page", "read_page_isolated"]

log = logging.getLogger(__name__)


@dataclass
class PageReading:
    """What a fetched page says, before anything of it is merged.

    ``block``: the page is a bot gate, challenge or refusal (why), and says nothing else. ``rule_site``: the rule that
    read it (by host, else by the platform the page shows); ``None`` when the generic reader did. ``record``: the
    rule's fields (its full text with the title and abstract in front), or the generic reader's record; ``fill``: what
    the reader found that the rule's selectors did not; ``sections``, ``tables`` and ``figures``: those of the rule's
    body, ``statements`` those of the whole page (:mod:`pubfetch.extract.page_structure`); ``meta``: the meta tags'
    record (``None`` when they were not asked for); ``claims``: the identifiers and titles the page and its rule give,
    judged where the page is merged; ``licence`` and ``licence_where`` (``"dc"`` or the other tags): the page's
    licence statement."""

    url: str
    block: str | None = None
    rule_site: str | None = None
    record: ArticleRecord = field(default_factory=ArticleRecord)
    fill: ArticleRecord = field(default_factory=ArticleRecord)
    sections: list[Section] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    meta: ArticleRecord | None = None
    #: the identifiers and titles the page claims (its tags' and its rule's), for the identity check where it is merged
    claims: Claims | None = None
    licence: str = ""
    licence_where: str = ""


# ---------------------------------------------------------------------------------------------------------------------
# The reading
# ---------------------------------------------------------------------------------------------------------------------


def read_page(html: str, url: str, rules: ScrapingRules, *, meta: bool,
              max_table_cells: int = DEFAULT_MAX_TABLE_CELLS) -> PageReading:
    """Read a page fetched from ``url`` (its final address): nothing from a block page; else its licence and meta tags
    (a title without footnote marks or the site's part; a description that truncates or says less than the page's
    abstract, or that is not an abstract at all, left out) and its rule's fields, what they miss read by the generic
    reader, or for a page without a rule the generic reader's record (PubFetcher's cleaned page as the full text when
    it found no body). In this process, without a time limit: :func:`read_page_isolated` is the protected call.
    Python's cyclic collector waits until the reading is done (:func:`~pubfetch.extract.gcpause.collection_paused`
    says why), and the page's tree is taken apart then (:func:`_take_apart`)."""
    with collection_paused():
        built = page_from_text(html)  # the index filed as the tree is made, else one walk over the page
        soup, index = built if built is not None else (soup := parse_html(html), PageIndex(soup))
        try:
            return _read_page(html, url, soup, index, rules, meta=meta, max_table_cells=max_table_cells)
        finally:
            _take_apart(soup)


def _take_apart(soup: BeautifulSoup) -> None:
    """The links between the tree's nodes dropped, so that the nodes are freed as the last reference to each goes
    rather than by the cyclic collector. Every node is in a cycle (parent and children, siblings, document order):
    left whole, the tree's few hundred thousand objects are all garbage the first collection after the reading
    has to find by walking them, which costs about three times this walk along the document order."""
    node = soup.contents[0] if soup.contents else None
    soup.__dict__.clear()
    while node is not None:
        following = node.next_element
        node.__dict__.clear()
        node = following


def _read_page(html: str, url: str, soup: BeautifulSoup, index: PageIndex, rules: ScrapingRules, *, meta: bool,
               max_table_cells: int) -> PageReading:
    if (reason := block_reason(soup, index)) is not None:
        return PageReading(url, block=reason)
    licence, where = page_license(soup, index) if meta else ("", "")  # read before a rule's scraping edits the tree
    rule = _page_rule(rules, url, soup, index)
    # before the scraping edits the tree
    statements = page_statements(index.first("body") or soup) if rule is not None else []
    tags = page_meta_tags(html)  # read by the meta parser and the page's claims alike
    meta_record = parse_meta(html, url, site=rule.site if rule is not None else None, tags=tags) if meta else None
    # before a rule's scraping or the reader edits the tree
    heading, bibliographic = _titles(soup, index, url, meta_record)
    reading = PageReading(url, rule_site=rule.site if rule is not None else None, meta=meta_record, licence=licence,
                          licence_where=where, statements=statements)
    if rule is not None:
        # the scraping takes hidden elements out of the tree: the index it gives back describes the tree it left
        reading.record, index = scrape_journal_tree(soup, url, rule, index)
        reading.record.title = complete_title(reading.record.title, bibliographic, heading,
                                              site_names=_site_names(meta_record))
        reading.claims = page_claims(html, url, reading.record, tags)  # before the reader adds to the rule's record
        body = rule.selector("fulltext")
        if body is not None:
            roots = body.select(soup, index)
            reading.sections = page_sections(roots)
            reading.tables = page_tables(roots, max_cells=max_table_cells)
            reading.figures = page_figures(roots, url)
        reading.fill = _reader_fill(reading.record, html, soup, url, meta_record)
        reading.record.text_links = record_links(reading.record.abstract, reading.record.fulltext, reading.sections)
        shown_abstract = reading.record.abstract or reading.fill.abstract
        page_text = reading.record.fulltext or reading.fill.fulltext
    else:
        reading.record = _read_without_rule(html, soup, url, meta_record)
        reading.claims = page_claims(html, url, ArticleRecord(title=reading.record.title), tags)
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
    family = _tag_family(meta_record, "abstract")
    if why := why_not_an_abstract(meta_record.abstract, family=family, title=meta_record.title or page_title,
                                  site_names=_site_names(meta_record), page_text=page_text):
        log.debug("%s: the meta description is not the abstract: %s", url, why)
        meta_record.abstract = ""


def _tag_family(meta_record: ArticleRecord, field: str) -> str:
    """The family of meta tags (``parse_meta``'s type: citation, dc, og, ...) that gave the record's ``field``."""
    types = meta_record.flags.get("types")
    return str(types.get(field, "")) if isinstance(types, dict) else ""


def _titles(soup: BeautifulSoup, index: PageIndex, url: str, meta_record: ArticleRecord | None) -> tuple[str, str]:
    """The meta tags' title made the article's (without footnote marks or the site's part, spaced as the visible
    heading where only whitespace differs), and what a rule's title is compared with: the visible heading and the
    bibliographic meta title (extract/title_choice.py)."""
    if meta_record is None or not meta_record.title:
        return "", ""
    source = _tag_family(meta_record, "title")
    meta_record.title = meta_title(meta_record.title, source, soup, url, _site_names(meta_record), index)
    heading = main_heading(soup, meta_record.title, index)
    meta_record.title = shown_spacing(meta_record.title, heading)
    return heading, "" if source in SITE_DECORATED else meta_record.title


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
    article = _reader_parts(record, html, soup, url, meta_record)
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


def _reader_parts(record: ArticleRecord, html: str, soup: BeautifulSoup, url: str,
                  meta_record: ArticleRecord | None) -> GenericArticle:
    """What the generic reader is asked for beside a rule's ``record``: with the rule's full text, only the title and
    abstract the rule missed; else its body, which leaves out its own title and abstract, so it reads both."""
    meta_title, site_names = meta_record.title if meta_record else "", _site_names(meta_record)
    if not record.fulltext:
        return read_article(html, soup, url, meta_title, site_names)
    return GenericArticle(title="" if record.title else article_title(soup, url, meta_title, site_names),
                          abstract="" if record.abstract else find_abstract(soup))


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
# In a worker
# ---------------------------------------------------------------------------------------------------------------------


def read_page_isolated(html: str, url: str, rules: ScrapingRules, workers: WorkerPool | None, *, meta: bool,
                       time_limit: float, memory_limit: int,
                       max_table_cells: int = DEFAULT_MAX_TABLE_CELLS) -> PageReading | Abandoned:
    """:func:`read_page` in one of ``workers`` (:func:`~pubfetch.extract.reader_workers.read_isolated`), killed after
    ``time_limit`` seconds, its address space capped at ``memory_limit`` bytes (0: no cap): the reading, or why the
    page was abandoned. Without ``workers`` the page is read here, unprotected."""
    return read_isolated(read_page, (html, url), rules, workers, time_limit=time_limit, memory_limit=memory_limit,
                         meta=meta, max_table_cells=max_table_cells)
