"""Publisher pages and PDFs: the DOI page, the pages links lead to, and what their rules and meta tags say.

This is PubFetcher's fetchSite/fetchPdf: resolve a DOI without following the redirect, fetch the target (with
JavaScript when a rule asks for it, and again with JavaScript after a TLS failure), follow Elsevier's linkinghub to
ScienceDirect, apply the journal's scraping rule or else take the page title and its cleaned body, read the meta tags,
queue the links found, and remember the page as visited. A body that turns out to be a PDF is read as one.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import quote, urlsplit

from bs4 import BeautifulSoup

from pubfetch.extract.article import GenericArticle, cleaned_page, read_article
from pubfetch.extract.article_abstract import keeps_description
from pubfetch.extract.article_title import SITE_DECORATED, main_heading, meta_title
from pubfetch.extract.blockpage import block_reason
from pubfetch.extract.clean import parse_html
from pubfetch.extract.meta import parse_meta
from pubfetch.extract.meta_types import link_part_type, meta_part_types
from pubfetch.extract.page_license import page_license
from pubfetch.extract.page_sections import page_sections, ranked_sections
from pubfetch.extract.pdf import extract_pdf
from pubfetch.extract.scrape import scrape_journal
from pubfetch.extract.title_choice import complete_title, shown_spacing
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.parts import VisitedSite
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import RichName, Section
from pubfetch.net.outcome import FetchResult, OutcomeKind
from pubfetch.resources import identity
from pubfetch.resources.base import Context
from pubfetch.resources.links import QueuedLink
from pubfetch.resources.pubrun import PubRun, RunFlag
from pubfetch.rules import JournalRule
from pubfetch.rules.page_index import PageIndex

log = logging.getLogger(__name__)

SITE_PARTS = (PartName.pmid, PartName.pmcid, PartName.doi, PartName.title, PartName.keywords, PartName.theAbstract,
              PartName.fulltext)
#: What the generic reader gives: content read without a rule, of the part type "webpage".
READER_PARTS = (PartName.title, PartName.theAbstract, PartName.fulltext)
#: ... and the sections of the body it found
READER_TYPES: dict[PartName | RichName, PartType] = {**dict.fromkeys(READER_PARTS, PartType.webpage),
                                                     RichName.sections: PartType.webpage}
SITE_PARTS_NO_KEYWORDS = tuple(p for p in SITE_PARTS if p is not PartName.keywords)
ELSEVIER_REDIRECT = re.compile(r"^https?://linkinghub\.elsevier\.com/retrieve/pii/(.+)$")
SCIENCEDIRECT_LINK = "https://www.sciencedirect.com/science/article/pii/"
SCIENCEDIRECT = re.compile(r"^https?://(www\.)?sciencedirect\.com/.+$")
BIORXIV = re.compile(r"^https?://(www\.)?biorxiv\.org/.+$")

def fetch_doi(ctx: Context, run: PubRun) -> None:
    """The publisher's page of the DOI (PubFetcher's fetchDoi)."""
    if run.has(RunFlag.DOI) or ctx.is_final(run.pub, SITE_PARTS) or not run.pub.doi.content:
        return
    run.set(RunFlag.DOI)
    doi = run.pub.doi.content
    resolver = ctx.endpoints.doi + quote(doi, safe="/:;()<>@[]!$&'*+,=~")
    resolved = ctx.client.resolve_redirect(resolver)
    if not resolved.location:
        if not resolved.ok or resolved.status is None:
            run.fail_service(resolved, RunFlag.DOI)
        # a failed request was warned about by the client; the run's last line says why nothing more was sent
        news = resolved.ok and not (ctx.halted or resolved.not_sent)
        (log.warning if news else log.info)("DOI %s did not redirect (%s)", doi,
                                            resolved.kind.name if not resolved.ok else resolved.status)
        return
    fetch_site(ctx, run, resolved.location, PartType.doi, "https://doi.org/" + doi, meta=True, keywords=True)


def fetch_site(ctx: Context, run: PubRun, url: str, type_: PartType, from_url: str, *, meta: bool,
               keywords: bool) -> None:
    """Fetch a page for a publication and merge what it says."""
    pub = run.pub
    if ctx.is_final(pub, SITE_PARTS if keywords else SITE_PARTS_NO_KEYWORDS) or identity.asked_before(run, url):
        return
    if pub.fulltext.is_final(ctx.args) or not ctx.wants(PartName.fulltext):
        host = (urlsplit(url).hostname or "").lower()
        if any((urlsplit(site.url).hostname or "").lower() == host for site in pub.visited_sites):
            return
    javascript = _javascript(ctx, url)
    if BIORXIV.match(url) and any(
        ctx.wants(name) and not pub.part(name).is_final(ctx.args)
        for name in (PartName.doi, PartName.title, PartName.theAbstract)
    ):
        javascript = True
    result = get_page(ctx, run, url, type_, from_url, javascript)
    if result is not None and ELSEVIER_REDIRECT.match(result.final_url):
        pii = ELSEVIER_REDIRECT.match(result.final_url).group(1)  # type: ignore[union-attr]
        result = get_page(ctx, run, SCIENCEDIRECT_LINK + pii, type_, from_url, False)
    if result is None:
        return
    _merge_page(ctx, run, result, type_, from_url, meta=meta, keywords=keywords)


def _merge_page(ctx: Context, run: PubRun, result: FetchResult, type_: PartType, from_url: str, *, meta: bool,
                keywords: bool) -> None:
    """What a fetched page says: nothing from a block page; else its rule's fields (what they miss, and a page without
    a rule, read by the generic reader), its meta tags (a title without footnote marks or the site's part, a description
    that truncates or says less than the page's abstract left out), and the links it gives; then the page is
    remembered as visited."""
    pub = run.pub
    html = result.text or ""
    final_url = result.final_url
    soup = parse_html(html)
    index = PageIndex(soup)  # one walk over the page for the block markers and the platforms' fingerprints
    if (reason := block_reason(soup, index)) is not None:
        run.blocked(final_url, reason)
        return
    licence, where = page_license(soup) if meta else ("", "")  # read before a rule's scraping edits the tree
    rule = _page_rule(ctx, final_url, soup, index)
    meta_record = parse_meta(html, final_url, site=rule.site if rule is not None else None) if meta else None
    heading, bibliographic = _titles(soup, final_url, meta_record)  # before a rule's scraping or the reader edits it
    record = scrape_journal(soup, final_url, rule) if rule is not None else None
    if record is not None:
        record.title = complete_title(record.title, bibliographic, heading, site_names=_site_names(meta_record))
    # whose page is it: nothing of it is merged unless it is the paper asked for, or nothing tells yet
    if not identity.accept_page(ctx, run, html, final_url, type_, from_url, result.url, record):
        return
    if rule is not None and record is not None:
        body = rule.selector("fulltext")
        # a fresh index: the scraping took hidden elements out of the tree the first one describes
        if body is not None and (sections := page_sections(body.select(soup, PageIndex(soup)))):
            pub.set_rich(RichName.sections, sections, type_, final_url)
        filled = _reader_fill(record, html, soup, final_url, meta_record)
        types = {name: type_ for name in SITE_PARTS}
        if not keywords:
            types.pop(PartName.keywords)
        apply_record(pub, record, types, final_url, ctx.args, parts=ctx.parts)
        for link in record.links:
            run.links.add(link.url, type_.to_pdf() if link.kind == "pdf" else type_, final_url, pub, ctx.args)
        if filled.title or filled.abstract or filled.fulltext:
            apply_record(pub, filled, READER_TYPES, final_url, ctx.args,
                         parts=ctx.parts, ids=False)
        shown_abstract = record.abstract or filled.abstract
    else:
        log.warning("no scraping rules for %s", final_url)
        record = _read_without_rule(html, soup, final_url, meta_record)
        apply_record(pub, record, READER_TYPES, final_url, ctx.args,
                     parts=ctx.parts, ids=False)
        shown_abstract = record.abstract
    if meta_record is not None:
        if meta_record.abstract and not keeps_description(meta_record.abstract, shown_abstract, soup.body):
            log.debug("%s: the meta description truncates or says less than the page's abstract, or is cut, a teaser "
                      "or about another page", final_url)
            meta_record.abstract = ""
        apply_meta(ctx, run, meta_record, type_, final_url, keywords)
    if licence:
        tag_type = PartType.dc if where == "dc" else PartType.meta
        pub.set_rich(RichName.license, licence, PartType.worse(tag_type, type_), final_url)
    pub.add_visited_site(VisitedSite(final_url, type_, from_url, pub.clock()))


def _titles(soup: BeautifulSoup, url: str, meta_record: ArticleRecord | None) -> tuple[str, str]:
    """The meta tags' title made the article's (without footnote marks or the site's part, spaced as the visible
    heading where only whitespace differs), and what a rule's title is compared with: the visible heading and the
    bibliographic meta title (extract/title_choice.py)."""
    if meta_record is None or not meta_record.title:
        return "", ""
    types = meta_record.flags.get("types")
    source = str(types.get("title", "")) if isinstance(types, dict) else ""
    meta_record.title = meta_title(meta_record.title, source, soup, url, _site_names(meta_record))
    heading = main_heading(soup, meta_record.title)
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


def _page_rule(ctx: Context, url: str, soup: BeautifulSoup, index: PageIndex) -> JournalRule | None:
    """The rule of the page's host, else of the platform the page shows (its ``recognise`` fingerprint)."""
    rule = ctx.rules.journal_rule(url)
    if rule is not None:
        return rule
    platform = ctx.rules.recognise(soup, index)
    if platform is not None:
        log.info("%s: no rule for the host, the page shows the platform '%s'", url, platform.site)
    return platform


def _javascript(ctx: Context, url: str) -> bool:
    try:
        return bool(ctx.rules.javascript(url))
    except Exception as e:  # noqa: BLE001 - a broken rule must not stop the fetch
        log.warning("javascript rule lookup failed for %s: %s", url, e)
        return False


def get_page(ctx: Context, run: PubRun, url: str, type_: PartType, from_url: str,
             javascript: bool) -> FetchResult | None:
    """An HTML page for a publication, or ``None`` (failure recorded, or the body was a PDF and was read as one)."""
    result = _fetch(ctx, url, javascript)
    if result.kind is OutcomeKind.SSL and not javascript:
        log.info("TLS failure for %s, trying with JavaScript", url)
        retry = _fetch(ctx, url, True)
        if retry.ok:
            result = retry
    if result.ok and result.is_pdf:
        apply_pdf(ctx, run, result, type_.to_pdf(), from_url)
        return None
    if not result.ok:
        if result.is_pdf and result.kind is OutcomeKind.UNSUPPORTED_TYPE:
            return None
        run.fail(result, QueuedLink(url, type_, from_url))
        return None
    return result


def _fetch(ctx: Context, url: str, javascript: bool) -> FetchResult:
    renderer = ctx.renderer if javascript else None
    if renderer is not None:
        rule = ctx.rules.journal_rule(url)
        wait_until = getattr(rule, "wait_until", None) if rule is not None else None
        result = renderer.render(url, wait_until=wait_until, publication=True)
        if result.ok or result.kind not in (OutcomeKind.OTHER, OutcomeKind.UNSUPPORTED_TYPE):
            return result
        # no browser, or a PDF/download the browser would only display: fetch it plainly
        log.info("JavaScript fetch of %s gave %s; fetching without", url, result.kind.name)
    return ctx.client.get(url, publication=True, untrusted=True)


def apply_meta(ctx: Context, run: PubRun, record: ArticleRecord, type_: PartType, url: str, keywords: bool) -> None:
    """Merge meta tags: each field's type is the worse of its tag family's type and the page's type."""
    apply_record(run.pub, record, meta_part_types(record, type_, keywords), url, ctx.args, parts=ctx.parts)
    for link in record.links:
        run.links.add(link.url, link_part_type(link, type_), url, run.pub, ctx.args)


def fetch_pdf(ctx: Context, run: PubRun, url: str, type_: PartType, from_url: str) -> None:
    """A PDF link (PubFetcher's fetchPdf): skipped once the full text is final."""
    if run.pub.fulltext.is_final(ctx.args) or identity.asked_before(run, url):
        return
    result = ctx.client.get(url, publication=True, untrusted=True)
    if not result.ok:
        run.fail(result, QueuedLink(url, type_, from_url))
        return
    if not result.is_pdf:
        log.warning("not a PDF: %s (%s)", result.final_url, result.content_type)
        return
    apply_pdf(ctx, run, result, type_, from_url)


def apply_pdf(ctx: Context, run: PubRun, result: FetchResult, type_: PartType, from_url: str) -> None:
    """Merge a PDF: text as full text, info/XMP title, keywords and subject/description as abstract."""
    pub = run.pub
    if pub.fulltext.is_final(ctx.args):
        return
    with ctx.cpu_slots:
        content = extract_pdf(result.body, workers=ctx.pdf_workers)
    if content.error:
        log.warning("PDF %s: %s", result.final_url, content.error)
    if not identity.accept_pdf(ctx, run, content, result.final_url, type_, from_url, result.url):
        return
    record = ArticleRecord(
        title=content.title or content.xmp_title,
        keywords=content.keywords or content.xmp_subjects,
        abstract=content.subject or content.xmp_description,
        fulltext=content.text,
    )
    apply_record(pub, record, type_, result.final_url, ctx.args, parts=ctx.parts, ids=False)
    if content.text or content.title:
        pub.add_visited_site(VisitedSite(result.final_url, type_, from_url, pub.clock()))
