"""Publisher pages and PDFs: the DOI page, the pages links lead to, and what their rules and meta tags say.

This is PubFetcher's fetchSite/fetchPdf: resolve a DOI without following the redirect, fetch the target (with
JavaScript when a rule asks for it, and again with JavaScript after a TLS failure), follow Elsevier's linkinghub to
ScienceDirect, apply the journal's scraping rule or else take the page title and its cleaned body, read the meta tags,
queue the links found, and remember the page as visited. A body that turns out to be a PDF is read as one.

A page is read (parsed, its rule or the generic reader applied) in one of the run's page workers under the page time
and memory limits (:mod:`pubfetch.extract.page_read`); what it says is merged here, in the run's process.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import quote, urlsplit

from pubfetch.extract.meta_types import link_part_type, meta_part_types
from pubfetch.extract.page_read import PageReading, read_page_isolated
from pubfetch.extract.pdf import extract_pdf
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.parts import VisitedSite
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import RichName
from pubfetch.net.outcome import EntryPolicy, FetchResult, OutcomeKind
from pubfetch.resources import identity
from pubfetch.resources.base import Context
from pubfetch.resources.links import QueuedLink
from pubfetch.resources.pubstate import ABANDONED_WORDS, PubFlag, PubState, entry_policy

log = logging.getLogger(__name__)

SITE_PARTS = (PartName.pmid, PartName.pmcid, PartName.doi, PartName.title, PartName.keywords, PartName.theAbstract,
              PartName.fulltext)
#: What the generic reader gives: content read without a rule, of the part type "webpage".
READER_PARTS = (PartName.title, PartName.theAbstract, PartName.fulltext)
#: ... and the sections of the body it found
READER_TYPES: dict[PartName | RichName, PartType] = {**dict.fromkeys(READER_PARTS, PartType.webpage),
                                                     RichName.sections: PartType.webpage,
                                                     RichName.links: PartType.webpage}
SITE_PARTS_NO_KEYWORDS = tuple(p for p in SITE_PARTS if p is not PartName.keywords)
ELSEVIER_REDIRECT = re.compile(r"^https?://linkinghub\.elsevier\.com/retrieve/pii/(.+)$")
SCIENCEDIRECT_LINK = "https://www.sciencedirect.com/science/article/pii/"
SCIENCEDIRECT = re.compile(r"^https?://(www\.)?sciencedirect\.com/.+$")
BIORXIV = re.compile(r"^https?://(www\.)?biorxiv\.org/.+$")

def fetch_doi(ctx: Context, state: PubState) -> None:
    """The publisher's page of the DOI (PubFetcher's fetchDoi)."""
    if state.has(PubFlag.DOI) or ctx.is_final(state.pub, SITE_PARTS) or not state.pub.doi.content:
        return
    state.set(PubFlag.DOI)
    doi = state.pub.doi.content
    resolver = ctx.endpoints.doi + quote(doi, safe="/:;()<>@[]!$&'*+,=~")
    resolved = ctx.client.resolve_redirect(resolver, entry=entry_policy(ctx.args, [state], publication=False,
                                                                          service=True))
    if not resolved.location:
        if not resolved.ok or resolved.status is None:
            state.fail(resolved, PubFlag.DOI)
        # a failed request was warned about by the client; the run's last line says why nothing more was sent
        news = resolved.ok and not (ctx.halted or resolved.not_sent)
        (log.warning if news else log.info)("DOI %s did not redirect (%s)", doi,
                                            resolved.kind.name if not resolved.ok else resolved.status)
        return
    fetch_site(ctx, state, resolved.location, PartType.doi, "https://doi.org/" + doi, meta=True, keywords=True)


def fetch_site(ctx: Context, state: PubState, url: str, type_: PartType, from_url: str, *, meta: bool,
               keywords: bool) -> None:
    """Fetch a page for a publication and merge what it says."""
    pub = state.pub
    if (ctx.is_final(pub, SITE_PARTS if keywords else SITE_PARTS_NO_KEYWORDS) or identity.asked_before(state, url)
            or url in state.abandoned):
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
    result = get_page(ctx, state, url, type_, from_url, javascript)
    if result is not None and ELSEVIER_REDIRECT.match(result.final_url):
        pii = ELSEVIER_REDIRECT.match(result.final_url).group(1)  # type: ignore[union-attr]
        if identity.asked_before(state, SCIENCEDIRECT_LINK + pii):
            return
        result = get_page(ctx, state, SCIENCEDIRECT_LINK + pii, type_, from_url, False)
    if result is None:
        return
    # the URL asked (a linkinghub one for Elsevier) is recorded with a rejection, so that it is not asked again
    _merge_page(ctx, state, result, type_, from_url, url, meta=meta, keywords=keywords)


def _merge_page(ctx: Context, state: PubState, result: FetchResult, type_: PartType, from_url: str, start_url: str, *,
                meta: bool, keywords: bool) -> None:
    """What a fetched page (asked at ``start_url``) says, read in a page worker (:func:`read_fetched_page`), merged
    into the publication (:func:`merge_reading`); a page abandoned by its worker gives nothing and counts as a failed
    request."""
    reading = read_fetched_page(ctx, state, result, meta=meta)
    if reading is None:
        return
    merge_reading(ctx, state, reading, type_, from_url, start_url, keywords=keywords)


def read_fetched_page(ctx: Context, state: PubState, result: FetchResult, *, meta: bool) -> PageReading | None:
    """The page read under the run's page time and memory limits, or ``None`` when it was abandoned: one warning,
    and the publication's entry is marked for a later fetch as after any failed request (the page is not asked again
    in this run: it would be read as slowly). A reader that raised is pubfetch's bug, not the page's: it is warned
    about as one and does not make the entry retryable."""
    limits = ctx.config.run
    reading = read_page_isolated(result.text or "", result.final_url, ctx.rules, ctx.page_workers, meta=meta,
                                 time_limit=limits.page_time_limit, memory_limit=limits.page_memory_limit,
                                 max_table_cells=limits.max_table_cells)
    if isinstance(reading, PageReading):
        return reading
    state.abandoned.update((result.url, result.final_url))
    word = ABANDONED_WORDS.get(reading.kind)
    marked = word is not None
    if word is not None:
        state.mark_lasting(word)
    if not ctx.halted:
        log.warning("page %s abandoned: %s; nothing taken from it, %s", result.final_url, reading,
                    state.pub.state.retry_words(ctx.args) if marked else reading.what_next)
    return None


def merge_reading(ctx: Context, state: PubState, reading: PageReading, type_: PartType, from_url: str, start_url: str,
                  *, keywords: bool) -> None:
    """Merge what a page (asked at ``start_url``) says: nothing from a block page or from another paper's; else its
    rule's fields (what they miss, and a page without a rule, read by the generic reader), its meta tags and the links
    it gives; then the page is remembered as visited."""
    pub = state.pub
    final_url = reading.url
    if reading.block is not None:
        state.blocked(final_url, reading.block, ctx.args)
        return
    # whose page is it: nothing of it is merged unless it is the paper asked for, or nothing tells yet
    if reading.claims is not None and not identity.accept_claims(ctx, state, reading.claims, type_, from_url,
                                                                 start_url):
        return
    hold = identity.unverified(state, final_url)
    if reading.rule_site is not None:
        record, filled = reading.record, reading.fill
        for name, items in ((RichName.sections, reading.sections), (RichName.tables, reading.tables),
                            (RichName.figures, reading.figures), (RichName.statements, reading.statements)):
            if items and ctx.rich_parts:
                pub.set_rich(name, items, type_, final_url)
        types: dict[PartName | RichName, PartType] = {name: type_ for name in (*SITE_PARTS, RichName.links)}
        if not keywords:
            types.pop(PartName.keywords)
        apply_record(pub, record, types, final_url, ctx.args, parts=ctx.parts, hold=hold, rich=ctx.rich_parts)
        for link in record.links:
            state.links.add(link.url, type_.to_pdf() if link.kind == "pdf" else type_, final_url, pub, ctx.args)
        if filled.title or filled.abstract or filled.fulltext:
            apply_record(pub, filled, READER_TYPES, final_url, ctx.args,
                         parts=ctx.parts, ids=False, hold=hold, rich=ctx.rich_parts)
    else:
        # no rule and no platform fingerprint: an expected event, which the generic reader is there for
        log.info("no scraping rules for %s: read by the generic reader", final_url)
        apply_record(pub, reading.record, READER_TYPES, final_url, ctx.args,
                     parts=ctx.parts, ids=False, hold=hold, rich=ctx.rich_parts)
    if reading.meta is not None:
        apply_meta(ctx, state, reading.meta, type_, final_url, keywords, hold=hold)
    if reading.licence and ctx.rich_parts:
        tag_type = PartType.dc if reading.licence_where == "dc" else PartType.meta
        pub.set_rich(RichName.license, reading.licence, PartType.worse(tag_type, type_), final_url)
    pub.add_visited_site(VisitedSite(final_url, type_, from_url, pub.clock()))


def _javascript(ctx: Context, url: str) -> bool:
    try:
        return bool(ctx.rules.javascript(url))
    except Exception as e:  # noqa: BLE001 - a broken rule must not stop the fetch
        log.warning("javascript rule lookup failed for %s: %s", url, e)
        return False


def get_page(ctx: Context, state: PubState, url: str, type_: PartType, from_url: str,
             javascript: bool) -> FetchResult | None:
    """An HTML page for a publication, or ``None`` (failure recorded, or the body was a PDF and was read as one)."""
    entry = entry_policy(ctx.args, [state])
    result = _fetch(ctx, url, javascript, entry)
    if result.kind is OutcomeKind.SSL and not javascript:
        log.info("TLS failure for %s, trying with JavaScript", url)
        retry = _fetch(ctx, url, True, entry)
        if retry.ok:
            result = retry
    if result.ok and result.is_pdf:
        apply_pdf(ctx, state, result, type_.to_pdf(), from_url)
        return None
    if not result.ok:
        if result.is_pdf and result.kind is OutcomeKind.UNSUPPORTED_TYPE:
            return None
        state.fail(result, QueuedLink(url, type_, from_url))
        return None
    return result


def _fetch(ctx: Context, url: str, javascript: bool, entry: EntryPolicy) -> FetchResult:
    renderer = ctx.renderer if javascript else None
    if renderer is not None:
        rule = ctx.rules.journal_rule(url)
        wait_until = getattr(rule, "wait_until", None) if rule is not None else None
        result = renderer.render(url, wait_until=wait_until, publication=True, entry=entry)
        if result.ok or result.kind not in (OutcomeKind.OTHER, OutcomeKind.UNSUPPORTED_TYPE):
            return result
        # no browser, or a PDF/download the browser would only display: fetch it plainly
        log.info("JavaScript fetch of %s gave %s; fetching without", url, result.kind.name)
    return ctx.client.get(url, publication=True, untrusted=True, entry=entry)


def apply_meta(ctx: Context, state: PubState, record: ArticleRecord, type_: PartType, url: str, keywords: bool, *,
               hold: bool = False) -> None:
    """Merge meta tags: each field's type is the worse of its tag family's type and the page's type (``hold``: an
    unverified page's, see :func:`~pubfetch.model.merge.apply_record`)."""
    apply_record(state.pub, record, meta_part_types(record, type_, keywords), url, ctx.args, parts=ctx.parts,
                 hold=hold, rich=ctx.rich_parts)
    for link in record.links:
        state.links.add(link.url, link_part_type(link, type_), url, state.pub, ctx.args)


def fetch_pdf(ctx: Context, state: PubState, url: str, type_: PartType, from_url: str) -> None:
    """A PDF link (PubFetcher's fetchPdf): skipped once the full text is final."""
    if state.pub.fulltext.is_final(ctx.args) or identity.asked_before(state, url):
        return
    result = ctx.client.get(url, publication=True, untrusted=True, entry=entry_policy(ctx.args, [state]))
    if not result.ok:
        state.fail(result, QueuedLink(url, type_, from_url))
        return
    if not result.is_pdf:
        log.warning("not a PDF: %s (%s)", result.final_url, result.content_type)
        return
    apply_pdf(ctx, state, result, type_, from_url)


def apply_pdf(ctx: Context, state: PubState, result: FetchResult, type_: PartType, from_url: str) -> None:
    """Merge a PDF: text as full text, info/XMP title, keywords and subject/description as abstract."""
    pub = state.pub
    if pub.fulltext.is_final(ctx.args):
        return
    with ctx.cpu_slots:
        content = extract_pdf(result.body, workers=ctx.pdf_workers)
    if content.error:
        log.warning("PDF %s: %s", result.final_url, content.error)
    if not identity.accept_pdf(ctx, state, content, result.final_url, type_, from_url, result.url):
        return
    record = ArticleRecord(
        title=content.title or content.xmp_title,
        keywords=content.keywords or content.xmp_subjects,
        abstract=content.subject or content.xmp_description,
        fulltext=content.text,
    )
    apply_record(pub, record, type_, result.final_url, ctx.args, parts=ctx.parts, ids=False,
                 hold=identity.unverified(state, result.final_url), rich=ctx.rich_parts)
    if content.text or content.title:
        pub.add_visited_site(VisitedSite(result.final_url, type_, from_url, pub.clock()))
