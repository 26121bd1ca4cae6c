"""What a page or PDF claims to be: the identifiers it carries and the titles it shows, for the identity check
(:func:`pubfetch.model.identity.decide`).

A page's claims are read from the same tags the meta parser reads (:func:`~pubfetch.extract.meta_scan.scan_meta` and
:func:`~pubfetch.extract.jsonld.json_ld_tags`), but every tag that names an identifier counts, not only the first
valid one: ``citation_doi``, ``dc.identifier``, ``prism.doi``, the JSON-LD work's identifier, ``citation_pmid``...;
its titles are the meta titles, the first ``<h1>`` and the ``<title>`` element (the pages that carry no meta tags
still have those).
A PDF's claims are the DOIs its metadata names under an identifier's key (info dictionary and XMP), its metadata titles
and first page (:class:`~pubfetch.extract.pdf.PdfContent`); the DOIs written in its Subject or on its first page are
weak claims, which confirm a DOI but never refute one.
"""

from __future__ import annotations

import html as htmlmod
import re
from collections.abc import Iterable

from pubfetch import ids as idmod
from pubfetch.extract.meta import ID_SOURCES, SITE_NAME_TAGS, TITLE_SOURCES, page_meta_tags
from pubfetch.extract.meta_scan import MetaTag, decode_page, plain_text
from pubfetch.extract.pdf import PdfContent
from pubfetch.model.identity import Claims
from pubfetch.model.record import ArticleRecord

__all__ = ["page_claims", "pdf_claims"]

_TITLE_ELEMENT = re.compile(r"<title\b[^<>]*>([^<]*)</title\s*>", re.IGNORECASE)
_H1_OPEN = re.compile(r"<h1\b[^<>]*>", re.IGNORECASE)
_H1_CLOSE = re.compile(r"</h1\s*>", re.IGNORECASE)
_TAG = re.compile(r"<[^<>]*>")
#: Characters of a heading read (a title is a few hundred; a heading never closed is not read to the page's end)
_MAX_HEADING = 2_000
#: Title tags of the meta parser, best first (HighWire, EPrints, bepress, Dublin Core, JSON-LD, Open Graph, Twitter)
_TITLE_TAGS = tuple(name for _, names in TITLE_SOURCES for name in names if name != "title")
_ID_TAGS = {kind: tuple(name for _, names in sources for name in names) for kind, sources in ID_SOURCES.items()}
#: Head of a page searched for ``<title>`` (it is in the head; a page of megabytes needs no full search)
_HEAD = 200_000


def _doi(value: str) -> str:
    """A DOI from a tag value (normalised); "" when it is none."""
    doi = idmod.doi_in_value(value)
    return idmod.normalise_doi(doi) if doi else ""


def page_claims(html: str | bytes, url: str, scraped: ArticleRecord | None = None,
                tags: list[MetaTag] | None = None) -> Claims:
    """The identifiers and titles a page's meta tags, JSON-LD work, first heading and ``<title>`` give (``url``: its
    final URL), and the IDs and title its scraping rule (or, on a page without one, the generic reader) read from it
    (``scraped``), which are claims of the page as much as its tags; the names its tags give the journal, publisher
    and site (a heading that is one of them is not the article's title). ``tags``: the page's
    :func:`~pubfetch.extract.meta.page_meta_tags` where the caller read them already."""
    text = decode_page(html)
    if tags is None:
        tags = page_meta_tags(text)
    by_name: dict[str, list[str]] = {}
    for tag in tags:
        for name in tag.names():
            by_name.setdefault(name, []).append(tag.content)

    def values(names: tuple[str, ...]) -> list[str]:
        return [v for name in names for v in by_name.get(name, ())]

    rule = scraped or ArticleRecord()
    dois = [_doi(v) for v in values(_ID_TAGS["doi"]) + [rule.doi]]
    pmids = [v.strip() for v in values(_ID_TAGS["pmid"]) + [rule.pmid] if idmod.is_pmid(v.strip())]
    pmcids = [v.strip().upper() for v in values(_ID_TAGS["pmcid"]) + [rule.pmcid] if idmod.is_pmcid(v.strip().upper())]
    titles = [rule.title] + [plain_text(v) for v in values(_TITLE_TAGS)]
    titles.append(_first_heading(text))
    if match := _TITLE_ELEMENT.search(text, 0, _HEAD):
        titles.append(" ".join(htmlmod.unescape(match.group(1)).split()))
    sites = [plain_text(v) for v in values(SITE_NAME_TAGS)]
    return Claims(url, _unique(d for d in dois if d), _unique(pmids), _unique(pmcids), _unique(t for t in titles if t),
                  site_names=_unique(t for t in sites if t))


def _first_heading(text: str) -> str:
    """The text of the page's first ``<h1>`` (where a page without meta tags shows its article's title)."""
    opening = _H1_OPEN.search(text)
    if opening is None:
        return ""
    closing = _H1_CLOSE.search(text, opening.end(), opening.end() + _MAX_HEADING)
    if closing is None:
        return ""
    return " ".join(htmlmod.unescape(_TAG.sub(" ", text[opening.end():closing.start()])).split())


def pdf_claims(content: PdfContent, url: str) -> Claims:
    """The DOIs a PDF's metadata names under an identifier's key, its metadata titles and its first page; the DOIs
    written in its Subject and on its first page (its own, or a data set's, a cited paper's) are weak claims."""
    weak = idmod.dois_in_text(content.subject) + idmod.dois_in_text(content.first_page)
    titles = [t for t in (content.title, content.xmp_title) if t]
    return Claims(url, tuple(content.dois), titles=_unique(titles), first_page=content.first_page,
                  weak_dois=_unique(weak))


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))
