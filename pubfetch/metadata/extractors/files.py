"""File metadata extractors: one cached URL of a given media type in, 0..n raw + cooked records out.

They share the fetcher's parsers, so a page reads the same whether it is fetched or archived. An XML document that
does not parse gives one empty record, so that the article is still listed with title-database data.
"""

from __future__ import annotations

import logging
import re
from abc import ABC, abstractmethod
from typing import ClassVar

from lxml import etree

from pubfetch import ids as idmod
from pubfetch.extract import jats as jatsmod
from pubfetch.extract.errors import load_xml
from pubfetch.extract.meta_scan import meta_tags
from pubfetch.extract.pdf import DEFAULT_TIME_LIMIT, extract_pdf
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.xmlsafe import local_name
from pubfetch.metadata.article_metadata import ArticleMetadata, CookMap, CookMapLike
from pubfetch.metadata.extractors.cookmaps import (
    HIGHWIRE_COOK_MAP,
    JATS_ABSTRACT,
    JATS_ARTICLE_TITLE,
    JATS_CONTRIB,
    JATS_COOK_MAP,
    JATS_DATE,
    JATS_DOI,
    JATS_EISSN,
    JATS_FPAGE,
    JATS_ISSN,
    JATS_ISSUE,
    JATS_JOURNAL_TITLE,
    JATS_KEYWORDS,
    JATS_LPAGE,
    JATS_PMCID,
    JATS_PMID,
    JATS_PUBLISHER,
    JATS_VOLUME,
    PDF_COOK_MAP,
    RECORD_COOK_MAP,
    cook,
    split_pages,
)
from pubfetch.metadata.extractors.target import MetadataTarget
from pubfetch.metadata.sources import CachedUrl
from pubfetch.model.record import ArticleRecord

__all__ = [
    "FileMetadataExtractor",
    "HtmlMetaTagExtractor",
    "JatsXmlExtractor",
    "PdfMetadataExtractor",
    "PubMedXmlExtractor",
    "XmlAutoExtractor",
    "normalise_issn",
    "record_raw",
]

log = logging.getLogger(__name__)


class FileMetadataExtractor(ABC):
    """Reads one cached URL into 0..n records (raw keys stored, then cooked with ``cook_map``)."""

    kind: ClassVar[str] = ""
    default_cook_map: ClassVar[CookMap] = CookMap()

    def __init__(self, cook_map: CookMapLike | None = None) -> None:
        self.cook_map = self.default_cook_map if cook_map is None else CookMap(cook_map)

    @abstractmethod
    def extract(self, target: MetadataTarget, cu: CachedUrl) -> list[ArticleMetadata]:
        """The records in ``cu``; raises :class:`~pubfetch.metadata.sources.SourceError` (an ``OSError``) when the
        content cannot be read."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(cook_map={len(self.cook_map)} keys)"


def _decoded_html(cu: CachedUrl) -> str | bytes:
    data = cu.content()
    charset = cu.charset
    if charset:
        try:
            return data.decode(charset)
        except (LookupError, UnicodeDecodeError):
            log.debug("%s: declared charset %s does not decode it; detecting", cu.url, charset)
    return data


class HtmlMetaTagExtractor(FileMetadataExtractor):
    """Every ``<meta name=.. content=..>`` as a raw value under its lower-cased name (values cleaned the LOCKSS way:
    tags stripped, entities decoded, whitespace collapsed but leading and trailing blanks kept, as LOCKSS'
    SimpleHtmlMetaTagMetadataExtractor keeps them; the fetcher's own parser trims); always one record."""

    kind = "html_meta"
    default_cook_map = HIGHWIRE_COOK_MAP

    def extract(self, target: MetadataTarget, cu: CachedUrl) -> list[ArticleMetadata]:
        am = ArticleMetadata()
        for name, value in meta_tags(_decoded_html(cu), trim=False):
            am.put_raw(name, value)
        return [cook(am, self.cook_map, cu.url)]


def normalise_issn(value: str) -> str:
    """``12345678`` / ``1234 5678`` / ``1234-567x`` -> ``1234-5678`` / ``1234-567X``; other text unchanged (the
    field's validator then decides)."""
    compact = re.sub(r"[\s\-\u2010-\u2015]", "", value).upper()
    if re.fullmatch(r"\d{7}[\dX]", compact):
        return f"{compact[:4]}-{compact[4:]}"
    return value.strip()


def _join(title: str, subtitle: str, separator: str) -> str:
    return f"{title}{separator}{subtitle}" if title and subtitle else title or subtitle


def _jats_raw(am: ArticleMetadata, article: jatsmod.JatsArticle) -> ArticleMetadata:
    """The ``JATS_*`` raw keys of one article, from the fetcher's JATS reader, so that a file reads the same whether
    fetched or archived: the same title (joined as PubFetcher does), journal title, date, keywords, authors and
    abstract; identifiers as written (LOCKSS does not clean them)."""
    rec = article.record
    values = (
        (JATS_ARTICLE_TITLE, _join(article.title, article.subtitle, " : ")),
        (JATS_JOURNAL_TITLE, article.journal_title), (JATS_DOI, article.doi), (JATS_PMID, article.pmid),
        (JATS_PMCID, article.pmcid), (JATS_VOLUME, rec.volume), (JATS_ISSUE, rec.issue),
        (JATS_FPAGE, split_pages(rec.pages)[0]), (JATS_LPAGE, split_pages(rec.pages)[1]),
        (JATS_PUBLISHER, rec.publisher), (JATS_ISSN, normalise_issn(rec.issn)), (JATS_EISSN, normalise_issn(rec.eissn)),
        (JATS_DATE, article.date), (JATS_ABSTRACT, rec.abstract),
    )
    for key, value in values:
        if value:
            am.put_raw(key, value)
    for author in rec.authors:
        text = author.sort_name
        if text:
            am.put_raw(JATS_CONTRIB, text)
    for keyword in rec.keywords:
        am.put_raw(JATS_KEYWORDS, keyword)
    return am


class JatsXmlExtractor(FileMetadataExtractor):
    """One record per ``<article>`` of a JATS document (a lone article or an article set), read by the fetcher's
    JATS reader (:func:`pubfetch.extract.jats.read_jats`); raw keys are the ``JATS_*`` paths, cooked by
    :data:`JATS_COOK_MAP`. XML that does not parse, or is not JATS, gives one empty record."""

    kind = "jats"
    default_cook_map = JATS_COOK_MAP

    def extract(self, target: MetadataTarget, cu: CachedUrl) -> list[ArticleMetadata]:
        try:
            root = load_xml(cu.content(), f"JATS document {cu.url}")
        except ValueError as e:
            log.warning("%s: %s; emitting an empty record", cu.url, e)
            return [ArticleMetadata()]
        return self.from_root(root, cu.url)

    def from_root(self, root: etree._Element, where: str) -> list[ArticleMetadata]:
        try:
            articles = jatsmod.read_jats_root(root)
        except ValueError as e:
            log.warning("%s: %s; emitting an empty record", where, e)
            return [ArticleMetadata()]
        return [cook(_jats_raw(ArticleMetadata(), article), self.cook_map, where) for article in articles]


def record_raw(am: ArticleMetadata, rec: ArticleRecord) -> ArticleMetadata:
    """Store a parsed :class:`ArticleRecord` under raw keys named after its fields (``doi``, ``title``, ``author``
    as ``Family, Given``, ``journal_title``, ``pub_date``, ``pages``, ...) plus ``first_page`` and ``last_page``
    split from ``pages``; empty fields are left out."""
    for key in ("pmid", "pmcid", "doi", "title", "abstract", "journal_title", "pub_date", "volume", "issue", "pages",
                "issn", "eissn", "publisher"):
        value = getattr(rec, key)
        if value:
            am.put_raw(key, value)
    first, last = split_pages(rec.pages)
    if first:
        am.put_raw("first_page", first)
    if last:
        am.put_raw("last_page", last)
    for keyword in rec.keywords:
        am.put_raw("keywords", keyword)
    for term in rec.mesh:
        am.put_raw("mesh", term.term)
    for author in rec.authors:
        text = author.sort_name
        if text:
            am.put_raw("author", text)
    for pub_type in rec.pub_types:
        am.put_raw("pub_types", pub_type)
    return am


class PubMedXmlExtractor(FileMetadataExtractor):
    """One record per article of a PubMed efetch ``PubmedArticleSet`` (raw keys of :func:`record_raw`). A document
    that does not parse, or is an efetch error answer, gives one empty record."""

    kind = "pubmed"
    default_cook_map = RECORD_COOK_MAP

    def extract(self, target: MetadataTarget, cu: CachedUrl) -> list[ArticleMetadata]:
        data = cu.content()
        try:
            records = parse_pubmed_xml(data)
        except ValueError as e:
            log.warning("%s: %s; emitting an empty record", cu.url, e)
            return [ArticleMetadata()]
        return [cook(record_raw(ArticleMetadata(), rec), self.cook_map, cu.url) for rec in records]


class XmlAutoExtractor(FileMetadataExtractor):
    """PubMed or JATS by the root element (``PubmedArticleSet``/``PubmedArticle`` -> PubMed, else JATS), each with
    its own default cook map unless one is given."""

    kind = "xml"

    def __init__(self, cook_map: CookMapLike | None = None) -> None:
        super().__init__(cook_map)
        self._jats = JatsXmlExtractor(cook_map)
        self._pubmed = PubMedXmlExtractor(cook_map)

    def extract(self, target: MetadataTarget, cu: CachedUrl) -> list[ArticleMetadata]:
        data = cu.content()
        try:
            root = load_xml(data, f"XML document {cu.url}")
        except ValueError as e:
            log.warning("%s: %s; emitting an empty record", cu.url, e)
            return [ArticleMetadata()]
        if local_name(root) in ("PubmedArticleSet", "PubmedArticle", "PubmedBookArticle"):
            return self._pubmed.extract(target, cu)
        return self._jats.from_root(root, cu.url)


def _first_doi(text: str) -> str | None:
    """The first DOI in free text, as written there (``pubfetch.ids`` finds it but upper-cases it)."""
    dois = idmod.extract_dois(text) if text else []
    if not dois:
        return None
    found = re.search(re.escape(dois[0]), text, re.IGNORECASE)
    return found.group(0) if found else dois[0]


class PdfMetadataExtractor(FileMetadataExtractor):
    """The PDF's info dictionary (``title``, ``keywords``, ``subject``), XMP Dublin Core (``xmp.dc.title``,
    ``xmp.dc.subject``, ``xmp.dc.description``) and the first DOI in the subject, the XMP description or the text of
    the first ``max_pages`` pages (``doi``). Extraction runs in a worker process killed after ``time_limit`` seconds;
    a file that is not a readable PDF gives one empty record."""

    kind = "pdf"
    default_cook_map = PDF_COOK_MAP

    def __init__(self, cook_map: CookMapLike | None = None, *, max_pages: int = 2,
                 time_limit: float = DEFAULT_TIME_LIMIT) -> None:
        super().__init__(cook_map)
        if max_pages < 1:
            raise ValueError("max_pages must be at least 1")
        self.max_pages = max_pages
        self.time_limit = time_limit

    def extract(self, target: MetadataTarget, cu: CachedUrl) -> list[ArticleMetadata]:
        content = extract_pdf(cu.content(), max_pages=self.max_pages, time_limit=self.time_limit)
        am = ArticleMetadata()
        if content.error_kind is not None:
            log.warning("%s: PDF not fully read (%s: %s)", cu.url, content.error_kind, content.error)
        for key, value in (("title", content.title), ("subject", content.subject),
                           ("xmp.dc.title", content.xmp_title), ("xmp.dc.description", content.xmp_description)):
            if value:
                am.put_raw(key, value)
        for keyword in content.keywords:
            am.put_raw("keywords", keyword)
        for subject in content.xmp_subjects:
            am.put_raw("xmp.dc.subject", subject)
        for text in (content.subject, content.xmp_description, content.text):
            doi = _first_doi(text)
            if doi:
                am.put_raw("doi", doi)
                break
        return [cook(am, self.cook_map, cu.url)]
