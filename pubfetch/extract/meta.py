"""Bibliographic ``<meta>`` tags of article pages: HighWire ``citation_*``, EPrints, bepress, Dublin Core, PRISM, Open
Graph, Twitter and generic tags (PubFetcher's HtmlMeta), schema.org JSON-LD (beyond PubFetcher, through
:mod:`pubfetch.extract.jsonld`), plus the raw tag list the LOCKSS-style metadata layer cooks.

:func:`parse_meta` gives one :class:`ArticleRecord` of what the tags say about the article; the tags themselves are
read by :mod:`pubfetch.extract.meta_scan` (raw, for the LOCKSS layer: :func:`~pubfetch.extract.meta_scan.meta_tags`).

How PubFetcher reads the tags (kept here):

* a name matches in ``name=`` or ``property=``, case-insensitively and trimmed, with ``.`` and ``:`` interchangeable
  between its parts (``DC.title``, ``dc:title``, ``og:title``, ``og.title``);
* formats are tried best first (citation, eprints, bepress, dc, og, twitter, meta; JSON-LD's ``jsonld.*`` values come
  after Dublin Core and before Open Graph, with the generic type "meta"), and within a format the FIRST tag
  in document order gives the title, ALL tags give keywords (split at ``,;|``) and the abstract (joined by blank lines),
  and the first valid ID is taken; a format whose tags are empty leaves the field to the next format;
* site exceptions: on nature.com the Dublin Core, Open Graph, Twitter and generic descriptions are teasers, not
  abstracts; on sciencemag.org the Dublin Core and Open Graph ones; on onlinelibrary.wiley.com the Open Graph one;
  biomedcentral.com puts subject areas, not keywords, in ``dc.subject``; CiteSeerX's generic keywords are junk;
  f1000research.com repeats keywords in single-keyword tags, so only tags holding ``|`` count; bioRxiv's
  ``citation_*_url`` links lead to pages that need JavaScript, and the "highwire2" scraping site's ``citation_pdf_url``
  is a landing page, so those links are dropped.

Part types: which type each field's value is worth depends on the format it came from; the record carries it in
``record.flags["types"]`` (field name -> part type name) and each :class:`Link` names its tag in ``source``
(:data:`LINK_TYPES` maps tags to link part types). :mod:`pubfetch.extract.meta_types` turns these into the
:class:`~pubfetch.model.part_type.PartType` values a resource passes to ``apply_record`` -- never better than the
page's own type, as in PubFetcher ("a meta tag read on a link page is no better than the link itself").
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from datetime import date
from urllib.parse import urljoin, urlsplit

from pubfetch import ids as idmod
from pubfetch.extract.errors import ParseError
from pubfetch.extract.jsonld import json_ld_tags
from pubfetch.extract.meta_scan import MetaTag, clean_value, decode_page, plain_text, scan_meta
from pubfetch.extract.pubmed import normalise_orcid
from pubfetch.model.parts import Author, CorrespAuthor
from pubfetch.model.record import ArticleRecord, Link

log = logging.getLogger(__name__)

__all__ = ["ABSTRACT_SOURCES", "ID_SOURCES", "KEYWORD_SOURCES", "LINK_SOURCES", "LINK_TYPES", "SITE_NAME_TAGS",
           "TITLE_SOURCES", "meta_date", "page_meta_tags", "parse_meta"]

# ------------------------------------------------------------------------------------------------ source tables

#: field -> formats best first, each with its part type name and the tag names it reads (canonical: lower case, "."
#: between parts). These are PubFetcher's HtmlMeta selectors.
ID_SOURCES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "pmid": (("citation", ("citation_pmid",)), ("eprints", ("eprints.pubmed_id",))),
    "pmcid": (("citation", ("citation_pmcid",)),),
    "doi": (
        ("citation", ("citation_doi",)),
        ("bepress", ("bepress_citation_doi",)),
        ("dc", ("dc.doi", "dc.identifier", "dc.identifier.doi")),
        ("meta", ("prism.doi", "jsonld.doi", "doi")),
    ),
}
TITLE_SOURCES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("citation", ("citation_title",)),
    ("eprints", ("eprints.title",)),
    ("bepress", ("bepress_citation_title",)),
    ("dc", ("dc.title",)),
    ("meta", ("jsonld.headline",)),
    ("og", ("og.title",)),
    ("twitter", ("twitter.title",)),
    ("meta", ("title",)),
)
KEYWORD_SOURCES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("citation", ("citation_keywords", "citation_keyword")),
    ("eprints", ("eprints.keywords",)),
    ("dc", ("dc.subject",)),
    ("meta", ("jsonld.keywords", "prism.keyword", "keywords")),
)
ABSTRACT_SOURCES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("citation", ("citation_abstract",)),
    ("eprints", ("eprints.abstract",)),
    ("dc", ("dc.description", "dc.description.abstract")),
    ("meta", ("jsonld.description",)),
    ("og", ("og.description",)),
    ("twitter", ("twitter.description",)),
    ("meta", ("meta.description", "description", "abstract")),
)
#: (part type name, "html" | "pdf", tag names), in PubFetcher's order of adding links.
LINK_SOURCES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("link_citation", "html", ("citation_fulltext_html_url", "citation_full_html_url")),
    ("pdf_citation", "pdf", ("citation_pdf_url",)),
    ("link_eprints", "html", ("eprints.document_url",)),
    ("pdf_bepress", "pdf", ("bepress_citation_pdf_url",)),
    ("link_meta", "html", ("fulltext_html",)),
    ("pdf_meta", "pdf", ("fulltext_pdf", "jsonld.pdf")),
)
#: Link.source (canonical tag name) -> part type name of the link.
LINK_TYPES: dict[str, str] = {name: type_ for type_, _, names in LINK_SOURCES for name in names}

# Bibliographic fields beyond PubFetcher (for the LOCKSS layer), best source first.
_JOURNAL = ("citation_journal_title", "bepress_citation_journal_title", "eprints.publication", "prism.publicationname",
            "jsonld.journal")
_DATE = ("citation_publication_date", "citation_date", "citation_online_date", "bepress_citation_publication_date",
         "bepress_citation_date", "eprints.date", "prism.publicationdate", "dc.date.issued", "dc.date",
         "article.published_time", "jsonld.datepublished")
_VOLUME = ("citation_volume", "bepress_citation_volume", "eprints.volume", "prism.volume")
_ISSUE = ("citation_issue", "bepress_citation_issue", "eprints.number", "prism.number")
_FIRST_PAGE = ("citation_firstpage", "bepress_citation_firstpage", "prism.startingpage")
_LAST_PAGE = ("citation_lastpage", "bepress_citation_lastpage", "prism.endingpage")
_ISSN = ("citation_issn", "bepress_citation_issn", "eprints.issn", "prism.issn", "dc.source.issn")
_EISSN = ("citation_eissn", "prism.eissn")
_PUBLISHER = ("citation_publisher", "bepress_citation_publisher", "eprints.publisher", "dc.publisher",
              "jsonld.publisher")
_LANGUAGE = ("citation_language", "dc.language")
#: Tags naming the journal, the publisher or the site (a page's heading or ``<title>`` equal to one is not a title)
SITE_NAME_TAGS = (*_JOURNAL, *_PUBLISHER, "og:site_name")
_ARTICLE_TYPE = ("citation_article_type",)

# Site exceptions (PubFetcher's patterns, matched against the page's final URL).
_BIOMEDCENTRAL = re.compile(r"^https?://[a-zA-Z0-9.-]*biomedcentral\.com/.+$")
_CITESEERX = re.compile(r"^https?://(www\.)?citeseerx\..+$")
_F1000 = re.compile(r"^https?://(www\.)?f1000research\.com/.+$")
_NATURE = re.compile(r"^https?://(www\.)?nature\.com/.+$")
_WILEY = re.compile(r"^https?://[a-zA-Z0-9.-]*onlinelibrary\.wiley\.com/.+$")
_SCIENCEMAG = re.compile(r"^https?://[a-zA-Z0-9.-]*sciencemag\.org/.+$")
_BIORXIV = re.compile(r"^https?://(www\.)?biorxiv\.org/.+$")

_SEPARATOR = re.compile(r"[,;|]")

# ----------------------------------------------------------------------------------------------------- helpers


class _Index:
    """Tags by canonical name, each list in document order (a tag with both name and property is under both)."""

    def __init__(self, tags: Iterable[MetaTag]) -> None:
        self.by_key: dict[str, list[tuple[int, str]]] = {}
        for position, tag in enumerate(tags):
            for key in tag.names():
                self.by_key.setdefault(key, []).append((position, tag.content))

    def all(self, names: Iterable[str]) -> list[str]:
        """Contents of every tag with one of the names, in document order (each tag once)."""
        found: dict[int, str] = {}
        for name in names:
            for position, content in self.by_key.get(name, ()):
                found[position] = content
        return [found[p] for p in sorted(found)]

    def first(self, names: Iterable[str]) -> str | None:
        """Content of the first tag in document order with one of the names (None when there is none)."""
        values = self.all(names)
        return values[0] if values else None

    def first_value(self, names: Iterable[str]) -> str:
        """The first non-empty content among the names, tried in the given order."""
        for name in names:
            for _, content in self.by_key.get(name, ()):
                if content:
                    return content
        return ""


def _skip_keywords(type_: str, url: str) -> bool:
    return (type_ == "dc" and bool(_BIOMEDCENTRAL.match(url))) or (type_ == "meta" and bool(_CITESEERX.match(url)))


def _skip_abstract(type_: str, url: str) -> bool:
    if _NATURE.match(url):
        return type_ in ("dc", "og", "twitter", "meta")
    if _SCIENCEMAG.match(url):
        return type_ in ("dc", "og")
    if _WILEY.match(url):
        return type_ == "og"
    return False


def _skip_link(type_: str, url: str, site: str | None) -> bool:
    if type_ in ("link_citation", "pdf_citation") and _BIORXIV.match(url):
        return True
    return type_ == "pdf_citation" and site == "highwire2"


def _valid_id(kind: str, value: str) -> str:
    value = value.strip()
    if kind == "pmid":
        return value if idmod.is_pmid(value) else ""
    if kind == "pmcid":
        return value if idmod.is_pmcid(value) else ""
    return idmod.doi_in_value(value)


_MONTH_NAMES = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_YMD = re.compile(r"^([0-9]{4})(?:[-/.]([0-9]{1,2})(?:[-/.]([0-9]{1,2}))?)?(?:[T ].*)?$")
_MDY = re.compile(r"^([A-Za-z]{3,})\.?\s+([0-9]{1,2}),?\s+([0-9]{4})$")
_DMY = re.compile(r"^([0-9]{1,2})\s+([A-Za-z]{3,})\.?,?\s+([0-9]{4})$")
_MY = re.compile(r"^([A-Za-z]{3,})\.?,?\s+([0-9]{4})$")


def _iso(year: int, month: int, day: int) -> str:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return ""


def meta_date(value: str) -> tuple[str, str]:
    """(``YYYY-MM-DD`` when the value names a whole day else "", most precise ISO prefix known) of a meta date.

    Accepts ``2018-02-13``, ``2020/09/10``, ``2018-02-13T10:00:00Z``, ``Apr 22, 2019``, ``22 April 2019``,
    ``2019-04``, ``2019``; other forms (``10/09/2020`` is ambiguous) give ("", "").
    """
    value = value.strip()
    if match := _YMD.match(value):
        year, month, day = match.group(1), match.group(2), match.group(3)
        if month is None:
            return "", year
        if not 1 <= int(month) <= 12:
            return "", year
        if day is None:
            return "", f"{year}-{int(month):02d}"
        full = _iso(int(year), int(month), int(day))
        return full, full or f"{year}-{int(month):02d}"
    for pattern, order in ((_MDY, "mdy"), (_DMY, "dmy")):
        if match := pattern.match(value):
            parts = dict(zip(order, match.groups(), strict=True))
            month_number = _MONTH_NAMES.get(parts["m"][:3].lower())
            if month_number is None:
                return "", ""
            full = _iso(int(parts["y"]), month_number, int(parts["d"]))
            return full, full or f"{parts['y']}-{month_number:02d}"
    if match := _MY.match(value):
        month_number = _MONTH_NAMES.get(match.group(1)[:3].lower())
        return ("", f"{match.group(2)}-{month_number:02d}") if month_number else ("", "")
    return "", ""


def _person(value: str) -> Author:
    """An author from a meta value ("Given Family", "Family, Given", a consortium's name)."""
    return Author.from_name(plain_text(value))


_AUTHOR = ("citation_author", "bepress_citation_author")
_INSTITUTION = ("citation_author_institution", "bepress_citation_author_institution")
#: Formats that list authors by name only, tried in this order when no HighWire/bepress authors are given.
_NAME_LISTS = (("eprints.creators_name",), ("dc.creator", "dc.creator.personalname"), ("dc.contributor",),
               ("jsonld.author",))


def _author_detail(author: Author, keys: tuple[str, ...], content: str) -> str | None:
    """Add an institution or ORCID tag to the author it follows; return the e-mail of an e-mail tag."""
    if any(k in keys for k in _INSTITUTION):
        institution = plain_text(content)
        if institution and institution not in author.affiliations:
            author.affiliations.append(institution)
    elif "citation_author_orcid" in keys:
        author.orcid = author.orcid or normalise_orcid(content)
    elif "citation_author_email" in keys:
        return content.removeprefix("mailto:")
    return None


def _highwire_authors(tags: list[MetaTag]) -> tuple[list[Author], dict[int, str]]:
    """HighWire/bepress authors in order, with the details listed right after each, and e-mails by author index."""
    authors: list[Author] = []
    emails: dict[int, str] = {}
    for tag in tags:
        keys = tag.names()
        if any(k in keys for k in _AUTHOR):
            if tag.content:
                authors.append(_person(tag.content))
        elif authors and tag.content:
            email = _author_detail(authors[-1], keys, tag.content)
            if email:
                emails.setdefault(len(authors) - 1, email)
    return authors, emails


def _authors(tags: list[MetaTag], index: _Index) -> tuple[list[Author], list[CorrespAuthor]]:
    """Authors with their ORCID, institutions and e-mail; without HighWire authors, the first name list found."""
    authors, emails = _highwire_authors(tags)
    if not authors:
        for name in index.all(("citation_authors",)):
            authors += [_person(n.strip()) for n in name.split(";") if n.strip()]
    for names in _NAME_LISTS:
        if authors:
            break
        authors = [_person(n) for n in index.all(names) if n]
    corresp = [CorrespAuthor(name=authors[i].full_name, orcid=authors[i].orcid, email=email)
               for i, email in sorted(emails.items())]
    return authors, corresp


# ------------------------------------------------------------------------------------------------------ parsing


def page_meta_tags(text: str) -> list[MetaTag]:
    """The tags :func:`parse_meta` and :func:`~pubfetch.extract.identity_claims.page_claims` read: the page's
    ``<meta>`` elements, then its JSON-LD work's fields as tags. A page read for both scans its text once and hands the
    list to each (the scan is a walk of the whole page's text)."""
    return scan_meta(text) + [MetaTag(name, "", clean_value(value)) for name, value in json_ld_tags(text)]


def parse_meta(html: str | bytes | bytearray | None, url: str, site: str | None = None,
               tags: list[MetaTag] | None = None) -> ArticleRecord:
    """What a page's meta tags (and its schema.org JSON-LD) say about its article.

    Args:
        url: the page's final URL: relative links are resolved against it and the site exceptions match it.
        site: the scraping-rule site that matched the page, if any ("highwire2" drops ``citation_pdf_url``).
        tags: :func:`page_meta_tags` of the page where the caller has them already; read here otherwise.

    A page without bibliographic tags gives an empty record. Raises :class:`ParseError` only when ``html`` is not a
    string or bytes at all.
    """
    if html is not None and not isinstance(html, (str, bytes, bytearray)):
        raise ParseError(f"meta tags need an HTML string or bytes, not {type(html).__name__}")
    url = url or ""
    if tags is None:
        tags = page_meta_tags(decode_page(html) if html is not None else "")
    index = _Index(tags)
    record = ArticleRecord()
    types: dict[str, str] = {}
    _read_ids(record, index, types)
    _read_title(record, index, types)
    _read_keywords(record, index, types, url)
    _read_abstract(record, index, types, url)
    _read_links(record, index, url, site)
    _read_bibliographic(record, index)
    record.authors, record.corresp_author = _authors(tags, index)
    record.flags["types"] = types
    record.flags["source"] = "meta"
    return record


def _read_ids(record: ArticleRecord, index: _Index, types: dict[str, str]) -> None:
    """The first valid PMID, PMCID and DOI, format by format."""
    for kind, sources in ID_SOURCES.items():
        for type_, names in sources:
            value = next((v for v in (_valid_id(kind, c) for c in index.all(names)) if v), "")
            if value:
                setattr(record, kind, value)
                types[kind] = type_
                break


def _read_title(record: ArticleRecord, index: _Index, types: dict[str, str]) -> None:
    for type_, names in TITLE_SOURCES:
        title = plain_text(index.first(names) or "")
        if title:
            record.title, types["title"] = title, type_
            return


def _read_keywords(record: ArticleRecord, index: _Index, types: dict[str, str], url: str) -> None:
    """All keywords of the best format that has some (tags split at ``,;|``), with the site exceptions."""
    for type_, names in KEYWORD_SOURCES:
        if _skip_keywords(type_, url):
            continue
        contents = index.all(names)
        if _F1000.match(url):
            contents = [c for c in contents if "|" in c]
        keywords = [k.strip() for c in contents for k in _SEPARATOR.split(plain_text(c))]
        keywords = list(dict.fromkeys(k for k in keywords if k))
        if keywords:
            record.keywords, types["keywords"] = keywords, type_
            return


def _read_abstract(record: ArticleRecord, index: _Index, types: dict[str, str], url: str) -> None:
    """Every abstract tag of the best format that has one, joined by blank lines, with the site exceptions."""
    for type_, names in ABSTRACT_SOURCES:
        if _skip_abstract(type_, url):
            continue
        abstract = "\n\n".join(t for t in (plain_text(c) for c in index.all(names)) if t)
        if abstract:
            record.abstract, types["abstract"] = abstract, type_
            return


def _read_links(record: ArticleRecord, index: _Index, url: str, site: str | None) -> None:
    """Full-text and PDF links in PubFetcher's order, absolute, each once."""
    seen: set[str] = set()
    for type_, kind, names in LINK_SOURCES:
        if _skip_link(type_, url, site):
            continue
        for name in names:
            for _, content in index.by_key.get(name, ()):
                link = _absolute(url, content)
                if link and link not in seen:
                    seen.add(link)
                    record.links.append(Link(link, kind, name))


def _read_bibliographic(record: ArticleRecord, index: _Index) -> None:
    """Journal, date, volume, issue, pages, ISSNs, publisher, article types and language (the LOCKSS fields)."""
    record.journal_title = plain_text(index.first_value(_JOURNAL))
    raw_date = index.first_value(_DATE)
    record.pub_date, partial = meta_date(raw_date) if raw_date else ("", "")
    record.volume = index.first_value(_VOLUME)
    record.issue = index.first_value(_ISSUE)
    first, last = index.first_value(_FIRST_PAGE), index.first_value(_LAST_PAGE)
    record.pages = f"{first}-{last}" if first and last and first != last else first or index.first_value(
        ("eprints.pagerange",))
    record.issn = index.first_value(_ISSN)
    record.eissn = index.first_value(_EISSN)
    if record.eissn == record.issn:
        record.eissn = ""
    record.publisher = plain_text(index.first_value(_PUBLISHER))
    record.pub_types = list(dict.fromkeys(t for t in index.all(_ARTICLE_TYPE) if t))
    if raw_date:
        record.flags.update(date=raw_date, date_partial=partial)
    language = index.first_value(_LANGUAGE)
    if language:
        record.flags["language"] = language


def _absolute(base: str, value: str) -> str:
    """PubFetcher's ``abs:content``: the value resolved against the page URL, kept only if it is a web or FTP URL."""
    value = value.strip()
    if not value:
        return ""
    try:
        link = urljoin(base, value) if base else value
        scheme = urlsplit(link).scheme.lower()
    except ValueError:
        return ""
    return link if scheme in ("http", "https", "ftp") else ""
