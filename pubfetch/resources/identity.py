"""The identity check of a fetch: asked before a page's or PDF's parts are merged into a publication, it takes the
verdict of :func:`pubfetch.model.identity.decide` and records it on the entry.

* same paper: merged as before;
* another paper's (another identifier, another title, a preprint page for a published DOI): nothing of it is merged
  (no parts, no meta tags, no links queued from it); it is recorded in the entry's ``rejectedSites`` (one info line,
  counted in the run summary), is not a failure, and its URL is not asked again for the publication;
* unverified (no identifier, no title known yet): its parts are merged (each keeps its URL, so they can be dropped
  again) and it is kept in ``unverifiedSites`` with the title it showed until a title from another source confirms it
  or drops what it gave (:func:`settle`); its IDs and set-once fields (journal, date, authors ...) are held back until
  it is confirmed.
"""

from __future__ import annotations

import logging

from pubfetch.extract.identity_claims import page_claims, pdf_claims
from pubfetch.extract.pdf import PdfContent
from pubfetch.model.identity import Claims, Decision, Verdict, decide
from pubfetch.model.identity_sites import RejectedSite, UnverifiedSite
from pubfetch.model.merge import apply_held
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.model.record import ArticleRecord
from pubfetch.resources.base import Context
from pubfetch.resources.pubstate import PubState

__all__ = ["accept_claims", "accept_page", "accept_pdf", "asked_before", "settle", "unverified"]

log = logging.getLogger(__name__)


def asked_before(state: PubState, url: str) -> bool:
    """Whether ``url`` was rejected as another paper's for this publication (it is then not asked again)."""
    site = state.pub.rejected(url)
    if site is not None:
        log.debug("%s: not asked again, it is another paper's (%s)", url, site.reason.value)
    return site is not None


def unverified(state: PubState, url: str) -> bool:
    """Whether the page or PDF at ``url`` was merged unverified (what it gives is then merged with ``hold``)."""
    return any(site.url == url for site in state.pub.unverified_sites)


def accept_page(ctx: Context, state: PubState, html: str, url: str, type_: PartType, from_url: str,
                start_url: str = "", scraped: ArticleRecord | None = None) -> bool:
    """Whether a fetched page (``url``: where it came from; ``start_url``: the URL asked; ``scraped``: what its
    scraping rule read, whose IDs it claims too) may be merged."""
    return accept_claims(ctx, state, page_claims(html, url, scraped), type_, from_url, start_url)


def accept_pdf(ctx: Context, state: PubState, content: PdfContent, url: str, type_: PartType, from_url: str,
               start_url: str = "") -> bool:
    """Whether an extracted PDF may be merged (one that gave nothing is not judged: nothing of it is merged)."""
    if not (content.text or content.title or content.xmp_title):
        return True
    return accept_claims(ctx, state, pdf_claims(content, url), type_, from_url, start_url)


def accept_claims(ctx: Context, state: PubState, claims: Claims, type_: PartType, from_url: str,
                  start_url: str = "") -> bool:
    """Whether a page or PDF that claims ``claims`` may be merged (claims are pure values: they may be gathered where
    the page is read, and judged where it is merged)."""
    pub = state.pub
    settle(ctx, state)
    titles = pub.trusted_titles()
    decision = decide(claims, pub.pmid.content, pub.pmcid.content, pub.doi.content, titles[0] if titles else "",
                      ctx.config.run.title_similarity)
    if decision.verdict is Verdict.SAME:
        return True
    if decision.verdict is Verdict.UNVERIFIED:
        log.info("%s: merged unverified for %s (%s)", claims.url, _named(pub), decision.detail)
        # only its article titles settle it: a placeholder or the journal's name refutes nothing
        pub.add_unverified_site(UnverifiedSite(claims.url, type_, claims.article_titles, from_url, pub.clock()))
        return True
    _reject(state, decision, type_, from_url, start_url)
    return False


def _reject(state: PubState, decision: Decision, type_: PartType, from_url: str, start_url: str) -> None:
    pub = state.pub
    assert decision.reason is not None
    site = RejectedSite.of(decision.claims, decision.reason, type_, from_url, start_url, pub.clock())
    log.info("%s: not merged into %s, it is another paper's: %s", site.url, _named(pub), decision.detail)
    pub.reject_site(site)


def settle(ctx: Context, state: PubState) -> None:
    """Confirm or drop the publication's unverified sites by the titles other sources gave (at each check and when
    the publication's fetch ends)."""
    pub = state.pub
    if not pub.unverified_sites:
        return
    confirmed, rejected = pub.settle_unverified(ctx.config.run.title_similarity, ctx.args)
    for site in confirmed:
        apply_held(pub, site.url, ctx.args)
        log.info("%s: confirmed for %s by another source's title", site.url, _named(pub))
    for gone in rejected:
        log.info("%s: its parts were dropped from %s, its title %r is not the paper's", gone.url, _named(pub),
                 gone.title)


def _named(pub: Publication) -> str:
    """The publication's IDs for a log line (``10.1/x`` or ``123, 10.1/x``)."""
    return ", ".join(p.content for p in (pub.pmid, pub.pmcid, pub.doi) if p.content) or "a publication without IDs"
