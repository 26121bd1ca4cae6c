"""What a page or PDF claims to be: the identifiers it carries and the titles it shows, for the identity check
(:func:`pubfetch.model.identity.decide`).

A page's claims are read from the same tags the meta parser reads (:func:`~pubfetch.extract.meta_scan.scan_meta` and
:func:`~pubfetch.extract.jsonld.json_ld_tags`), but every tag that names an identifier counts, not only the first
valid one: ``citation_doi``, ``dc.identifier``, ``prism.doi``, the JSON-LD work's identifier, ``citation_pmid``...;
its titles are the meta titles, the first ``<h1>`` and the ``<title>`` element (the pages that carry no meta tags
still have those).
A PDF's claims are the DOIs its metadata names (info dictionary and XMP), else those on its first page, and its
metadata titles and first page (:class:`~pubfetch.extract.pdf.PdfContent`).
"""

from __future__ import annotations

import html as htmlmod
import re
from collections.abc import Iterable

from pubfetch import ids as idmod
from pubfetch.extract.jsonld import json_ld_tags
from pubfetch.extract.meta import ID_SOURCES, TITLE_SOURCES
from pubfetch.extract.meta_scan import MetaTag, clean_value, decode_page, plain_text, scan_meta
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
    """A DOI from a tag value: a bare DOI, ``doi:10...``, a resolver URL (normalised); "" when it is none."""
    value = value.strip()
    lowered = value.lower()
    for prefix in ("https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi:",
                   "info:doi/"):
        if lowered.startswith(prefix):
            value = value[len(prefix):].strip()
            break
    return idmod.normalise_doi(value) if idmod.is_doi(value) and " " not in value else ""


def page_claims(html: str | bytes, url: str, scraped: ArticleRecord | None = None) -> Claims:
    """The identifiers and titles a page's meta tags, JSON-LD work, first heading and ``<title>`` give (``url``: its
    final URL), and the IDs and title its scraping rule read from it (``scraped``), which are claims of the page as
    much as its tags."""
    text = decode_page(html)
    tags = scan_meta(text) + [MetaTag(name, "", clean_value(value)) for name, value in json_ld_tags(text)]
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
    return Claims(url, _unique(d for d in dois if d), _unique(pmids), _unique(pmcids), _unique(t for t in titles if t))


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
    """The DOIs a PDF's metadata names (else those of its first page), its metadata titles and its first page."""
    dois = content.dois or idmod.dois_in_text(content.first_page)
    titles = [t for t in (content.title, content.xmp_title) if t]
    return Claims(url, tuple(dois), titles=_unique(titles), first_page=content.first_page)


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))
