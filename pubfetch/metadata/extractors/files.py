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
from pubfetch.extract.meta import meta_tags
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


def _jats_articles(root: etree._Element) -> list[etree._Element]:
    if local_name(root) == "article":
        return [root]
    found = []
    for el in root.iter():
        if el is root or not isinstance(el.tag, str) or local_name(el) != "article":
            continue
        parent = el.getparent()
        while parent is not None and local_name(parent) != "article":
            parent = parent.getparent()
        if parent is None:
            found.append(el)
    return found


def _plain(article: etree._Element) -> None:
    """Drop the default namespace some JATS copies carry (OAI-PMH, JATS 1.3), so one set of paths serves all."""
    for el in article.iter():
        if isinstance(el.tag, str) and etree.QName(el).namespace:
            el.tag = etree.QName(el).localname


def _texts(article: etree._Element, path: str) -> list[str]:
    return [text for text in (jatsmod.element_text(el) for el in article.xpath(path)) if text]


def _first(article: etree._Element, path: str) -> str:
    texts = _texts(article, path)
    return texts[0] if texts else ""


_JATS_PRIMARY_DATES = ("epub", "ppub", "epub-ppub", "pub", "epreprint")


def _jats_date(article: etree._Element) -> str:
    """The first electronic or print publication date (else collection, else any) as ``YYYY`` or ``YYYY-MM-DD``
    (``YYYY-MM`` when only the month is given)."""
    def rank(el: etree._Element) -> int:
        kind = (el.get("pub-type") or el.get("date-type") or "").strip()
        return 0 if kind in _JATS_PRIMARY_DATES else 1 if kind == "collection" else 2

    for el in sorted(article.xpath("front/article-meta/pub-date"), key=rank):
        year = _first(el, "year")
        if not re.fullmatch(r"\d{4}", year):
            continue
        month, day = _first(el, "month"), _first(el, "day")
        if not month.isdigit():
            return year
        if not day.isdigit():
            return f"{year}-{int(month):02d}"
        return f"{year}-{int(month):02d}-{int(day):02d}"
    return ""


def _title_with_subtitle(group: etree._Element, title_path: str, subtitle_path: str) -> str:
    """``title: subtitle`` (or whichever exists), as LOCKSS' JATS helper joins article and journal titles."""
    title, subtitle = _first(group, title_path), _first(group, subtitle_path)
    return f"{title}: {subtitle}" if title and subtitle else title or subtitle


def _jats_titles(am: ArticleMetadata, article: etree._Element) -> None:
    title_group = article.xpath("front/article-meta/title-group")
    if title_group:
        full_title = _title_with_subtitle(title_group[0], "article-title", "subtitle")
        if full_title:
            am.put_raw(JATS_ARTICLE_TITLE, full_title)
    journal_group = article.xpath("front/journal-meta/journal-title-group")
    journal = _title_with_subtitle(journal_group[0], "journal-title", "journal-subtitle") if journal_group else ""
    journal = journal or _first(article, "front/journal-meta/journal-title")
    if journal:
        am.put_raw(JATS_JOURNAL_TITLE, journal)


_JATS_SIMPLE_VALUES = (
    (JATS_DOI, "front/article-meta/article-id[@pub-id-type='doi']"),
    (JATS_PMID, "front/article-meta/article-id[@pub-id-type='pmid']"),
    (JATS_PMCID, "front/article-meta/article-id[@pub-id-type='pmcid' or @pub-id-type='pmc']"),
    (JATS_VOLUME, "front/article-meta/volume"), (JATS_ISSUE, "front/article-meta/issue"),
    (JATS_FPAGE, "front/article-meta/fpage"), (JATS_LPAGE, "front/article-meta/lpage"),
    (JATS_PUBLISHER, "front/journal-meta/publisher/publisher-name"),
)


def _jats_identifiers(am: ArticleMetadata, article: etree._Element) -> None:
    for key, path in _JATS_SIMPLE_VALUES:
        value = _first(article, path)
        if value:
            am.put_raw(key, value)
    for el in article.xpath("front/journal-meta/issn"):
        kind = (el.get("pub-type") or el.get("publication-format") or "").strip()
        value = normalise_issn(jatsmod.element_text(el))
        if value:
            am.put_raw(JATS_EISSN if kind in ("epub", "electronic") else JATS_ISSN, value)


def _jats_author(contrib: etree._Element) -> str:
    name = next(iter(contrib.xpath("name")), None)
    if name is None:
        return _first(contrib, "string-name") or _first(contrib, "collab")
    surname, given = _first(name, "surname"), _first(name, "given-names")
    return f"{surname}, {given}" if surname and given else surname or given


def _jats_authors(am: ArticleMetadata, article: etree._Element) -> None:
    for contrib in article.xpath("front/article-meta/contrib-group/contrib"):
        if (contrib.get("contrib-type") or "author").strip() != "author":
            continue
        author = _jats_author(contrib)
        if author:
            am.put_raw(JATS_CONTRIB, author)


def _jats_content(am: ArticleMetadata, article: etree._Element) -> None:
    """Date, keywords and abstract."""
    date = _jats_date(article)
    if date:
        am.put_raw(JATS_DATE, date)
    for keyword in dict.fromkeys(_texts(article, "front/article-meta/kwd-group/kwd")):
        am.put_raw(JATS_KEYWORDS, keyword)
    abstract = jatsmod.article_record(article).abstract
    if abstract:
        am.put_raw(JATS_ABSTRACT, abstract)


def _jats_raw(am: ArticleMetadata, article: etree._Element) -> None:
    _jats_titles(am, article)
    _jats_identifiers(am, article)
    _jats_authors(am, article)
    _jats_content(am, article)


class JatsXmlExtractor(FileMetadataExtractor):
    """One record per ``<article>`` of a JATS document (a lone article or an article set); raw keys are the
    ``JATS_*`` paths, cooked by :data:`JATS_COOK_MAP`. XML that does not parse gives one empty record."""

    kind = "jats"
    default_cook_map = JATS_COOK_MAP

    def extract(self, target: MetadataTarget, cu: CachedUrl) -> list[ArticleMetadata]:
        data = cu.content()
        try:
            root = load_xml(data, f"JATS document {cu.url}")
        except ValueError as e:
            log.warning("%s: %s; emitting an empty record", cu.url, e)
            return [ArticleMetadata()]
        return self.from_root(root, cu.url)

    def from_root(self, root: etree._Element, where: str) -> list[ArticleMetadata]:
        records = []
        for article in _jats_articles(root):
            _plain(article)
            am = ArticleMetadata()
            _jats_raw(am, article)
            records.append(cook(am, self.cook_map, where))
        if not records:
            log.warning("%s: no <article> in <%s>", where, local_name(root))
        return records


def _author_text(family: str, given: str, name: str) -> str:
    if family and given:
        return f"{family}, {given}"
    return family or name or given


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
        text = _author_text(author.family, author.given, author.name)
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
