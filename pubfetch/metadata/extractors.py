"""Metadata extractors: from one file to raw + cooked metadata records, and from one article to its final records.

Two levels, as in LOCKSS (spec lockss.md sections 3 and 4):

* A **file metadata extractor** reads one cached URL of a given media type and returns 0..n
  :class:`~pubfetch.metadata.article_metadata.ArticleMetadata` records: it stores what the file says under raw keys
  and cooks them with its cook map. The extractors share the fetcher's parsers, so a page reads the same whether it
  is fetched or archived: :class:`HtmlMetaTagExtractor` (``pubfetch.extract.meta.meta_tags``; raw keys are the
  lower-cased ``name`` of every ``<meta>``), :class:`JatsXmlExtractor` (``pubfetch.extract.jats``; LOCKSS-style raw
  keys and :data:`JATS_COOK_MAP`), :class:`PubMedXmlExtractor` (``pubfetch.extract.pubmed.parse_pubmed_xml``),
  :class:`PdfMetadataExtractor` (``pubfetch.extract.pdf.extract_pdf``: info dictionary, XMP and a DOI found in the
  first pages; LOCKSS has no generic PDF extractor), :class:`XmlAutoExtractor` (JATS or PubMed by root element) and
  :class:`XPathXmlExtractor` (LOCKSS' XML DOM extractor: XPath -> value type, raw keys the XPaths lower-cased). An
  XML document that does not parse gives one empty record.
* An :class:`ExtractorFactory` chooses the file extractor by content type (exact media type, then ``type/*``, then
  ``*``, LOCKSS' default metadata type); :func:`default_factory` is the one used without a plugin.
* :class:`BaseArticleMetadataExtractor` runs the file extractor on the CU of one role of an
  :class:`~pubfetch.metadata.article_files.ArticleFiles` (default: the full text), then completes every record with
  title-database defaults (``add_tdb_defaults``) and checks its access URL (``check_access_url``). When the role is
  missing, no extractor fits, or reading fails with an I/O error, it emits one empty record for the article, so the
  article is still listed with title-database data.

:class:`MetadataTarget` says what the records are for (``Any``, ``DOI``, ``OpenURL``, ``Article``), optionally a
format (a MIME type overriding the article iterator's) and a time (epoch ms) files must have changed after.

Cook maps provided: :data:`HIGHWIRE_COOK_MAP` (generic ``citation_*`` tags with Dublin Core fallbacks),
:data:`JATS_COOK_MAP`, :data:`RECORD_COOK_MAP` (PubMed records) and :data:`PDF_COOK_MAP`. Cooking errors (values a
validator refused, second values for single fields) are logged at debug level; refused values stay visible in the
record as invalid values.
"""

from __future__ import annotations

import enum
import logging
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from lxml import etree

from pubfetch import ids as idmod
from pubfetch.extract import jats as jatsmod
from pubfetch.extract.errors import load_xml
from pubfetch.extract.meta import meta_tags
from pubfetch.extract.pdf import DEFAULT_TIME_LIMIT, extract_pdf
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.xmlsafe import local_name
from pubfetch.metadata import fields as mf
from pubfetch.metadata.archival_unit import ArchivalUnit
from pubfetch.metadata.article_files import ArticleFiles
from pubfetch.metadata.article_metadata import ArticleMetadata, CookMap, CookMapLike
from pubfetch.metadata.sources import CachedUrl
from pubfetch.model.record import ArticleRecord

__all__ = [
    "HIGHWIRE_COOK_MAP",
    "JATS_COOK_MAP",
    "PDF_COOK_MAP",
    "RECORD_COOK_MAP",
    "BaseArticleMetadataExtractor",
    "ExtractorFactory",
    "FileMetadataExtractor",
    "HtmlMetaTagExtractor",
    "JatsXmlExtractor",
    "MetadataTarget",
    "PdfMetadataExtractor",
    "PubMedXmlExtractor",
    "Purpose",
    "XPathXmlExtractor",
    "XmlAutoExtractor",
    "default_factory",
    "extractor_kinds",
    "make_extractor",
    "normalise_issn",
    "record_raw",
    "split_pages",
]

log = logging.getLogger(__name__)


# --- targets -------------------------------------------------------------------------------------------------------


class Purpose(enum.Enum):
    """What metadata is extracted for; the values are LOCKSS' purpose names."""

    ANY = "Any"
    DOI = "DOI"
    OPENURL = "OpenURL"
    ARTICLE = "Article"


@dataclass(frozen=True)
class MetadataTarget:
    """What the records are for (LOCKSS' MetadataTarget). ``purpose`` is one of the :class:`Purpose` names, which
    become the enum member, or any other string, kept as given (LOCKSS takes any purpose string; only ``Article``
    changes what iterators do). ``format`` (a MIME type) overrides the article iterator's MIME type;
    ``include_files_changed_after`` (epoch ms, 0 = all) limits iteration to files fetched after it. An ``Article``
    target only counts articles, so iterators skip filling secondary roles."""

    purpose: Purpose | str = Purpose.ANY
    format: str | None = None
    include_files_changed_after: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.purpose, Purpose | str) or not self.purpose:
            raise ValueError(f"a metadata target purpose is a non-empty string, not {self.purpose!r}")
        known = {p.value: p for p in Purpose}
        object.__setattr__(self, "purpose", known.get(str(getattr(self.purpose, "value", self.purpose)),
                                                      self.purpose))
        if self.include_files_changed_after < 0:
            raise ValueError("include_files_changed_after must be >= 0 (epoch milliseconds)")

    def is_article(self) -> bool:
        return self.purpose is Purpose.ARTICLE

    @property
    def purpose_name(self) -> str:
        """The purpose as LOCKSS writes it (``Article``, or the custom string)."""
        return self.purpose.value if isinstance(self.purpose, Purpose) else self.purpose

    @classmethod
    def any(cls) -> MetadataTarget:
        return cls(Purpose.ANY)

    @classmethod
    def doi(cls) -> MetadataTarget:
        return cls(Purpose.DOI)

    @classmethod
    def open_url(cls) -> MetadataTarget:
        return cls(Purpose.OPENURL)

    @classmethod
    def article(cls) -> MetadataTarget:
        return cls(Purpose.ARTICLE)


# --- cook maps -----------------------------------------------------------------------------------------------------

_PAGE_RANGE = re.compile(r"\s*([^\s\-\u2013]+)\s*(?:[-\u2013]\s*([^\s\-\u2013]+))?\s*")


def split_pages(pages: str) -> tuple[str, str]:
    """``"123-130"`` -> ``("123", "130")``, ``"e4375"`` -> ``("e4375", "")``; ``("", "")`` for anything else."""
    match = _PAGE_RANGE.fullmatch(pages or "")
    return (match.group(1), match.group(2) or "") if match else ("", "")


HIGHWIRE_COOK_MAP = CookMap((
    ("citation_doi", mf.FIELD_DOI),
    ("citation_title", mf.FIELD_ARTICLE_TITLE),
    ("citation_author", mf.FIELD_AUTHOR),
    ("citation_authors", mf.FIELD_AUTHOR.with_splitter(mf.split_at(";"))),
    ("citation_journal_title", mf.FIELD_PUBLICATION_TITLE),
    ("citation_publisher", mf.FIELD_PUBLISHER),
    ("citation_issn", mf.FIELD_ISSN),
    ("citation_eissn", mf.FIELD_EISSN),
    ("citation_isbn", mf.FIELD_ISBN),
    ("citation_volume", mf.FIELD_VOLUME),
    ("citation_issue", mf.FIELD_ISSUE),
    ("citation_firstpage", mf.FIELD_START_PAGE),
    ("citation_lastpage", mf.FIELD_END_PAGE),
    ("citation_publication_date", mf.FIELD_DATE),
    ("citation_date", mf.FIELD_DATE),
    ("citation_online_date", mf.FIELD_DATE),
    ("citation_keywords", mf.FIELD_KEYWORDS.with_splitter(mf.split_at(";"))),
    ("citation_abstract", mf.FIELD_ABSTRACT),
    ("citation_language", mf.FIELD_LANGUAGE),
    ("citation_public_url", mf.FIELD_ACCESS_URL),
    ("citation_fulltext_html_url", mf.FIELD_ACCESS_URL),
    ("dc.identifier", mf.FIELD_DOI),
    ("dc.title", mf.FIELD_ARTICLE_TITLE),
    ("dc.publisher", mf.FIELD_PUBLISHER),
    ("dc.date", mf.FIELD_DATE),
    ("dc.language", mf.FIELD_LANGUAGE),
))
"""Generic HighWire-style ``citation_*`` meta tags, then Dublin Core fallbacks for the Single fields (the first
declared raw key wins). ``citation_keywords`` are split at ``;`` (several in one tag, as PeerJ writes them)."""

JATS_JOURNAL_TITLE = "front/journal-meta/journal-title-group"
JATS_ARTICLE_TITLE = "front/article-meta/title-group"
JATS_DOI = "front/article-meta/article-id[@pub-id-type='doi']"
JATS_PMID = "front/article-meta/article-id[@pub-id-type='pmid']"
JATS_PMCID = "front/article-meta/article-id[@pub-id-type='pmcid']"
JATS_ISSN = "front/journal-meta/issn[@pub-type='ppub']"
JATS_EISSN = "front/journal-meta/issn[@pub-type='epub']"
JATS_VOLUME = "front/article-meta/volume"
JATS_ISSUE = "front/article-meta/issue"
JATS_FPAGE = "front/article-meta/fpage"
JATS_LPAGE = "front/article-meta/lpage"
JATS_CONTRIB = "front/article-meta/contrib-group/contrib"
JATS_DATE = "front/article-meta/pub-date"
JATS_KEYWORDS = "front/article-meta/kwd-group/kwd"
JATS_ABSTRACT = "front/article-meta/abstract"
JATS_PUBLISHER = "front/journal-meta/publisher/publisher-name"

JATS_COOK_MAP = CookMap((
    (JATS_JOURNAL_TITLE, mf.FIELD_PUBLICATION_TITLE),
    (JATS_ARTICLE_TITLE, mf.FIELD_ARTICLE_TITLE),
    (JATS_DOI, mf.FIELD_DOI),
    (JATS_ISSN, mf.FIELD_ISSN),
    (JATS_EISSN, mf.FIELD_EISSN),
    (JATS_VOLUME, mf.FIELD_VOLUME),
    (JATS_ISSUE, mf.FIELD_ISSUE),
    (JATS_FPAGE, mf.FIELD_START_PAGE),
    (JATS_LPAGE, mf.FIELD_END_PAGE),
    (JATS_CONTRIB, mf.FIELD_AUTHOR),
    (JATS_DATE, mf.FIELD_DATE),
    (JATS_KEYWORDS, mf.FIELD_KEYWORDS),
    (JATS_ABSTRACT, mf.FIELD_ABSTRACT),
    (JATS_PUBLISHER, mf.FIELD_PUBLISHER),
))
"""JATS raw keys (XPath-like, relative to ``<article>``) to fields, as LOCKSS' JATS schema helper cooks them."""

RECORD_COOK_MAP = CookMap((
    ("doi", mf.FIELD_DOI),
    ("title", mf.FIELD_ARTICLE_TITLE),
    ("author", mf.FIELD_AUTHOR),
    ("journal_title", mf.FIELD_PUBLICATION_TITLE),
    ("pub_date", mf.FIELD_DATE),
    ("volume", mf.FIELD_VOLUME),
    ("issue", mf.FIELD_ISSUE),
    ("first_page", mf.FIELD_START_PAGE),
    ("last_page", mf.FIELD_END_PAGE),
    ("issn", mf.FIELD_ISSN),
    ("eissn", mf.FIELD_EISSN),
    ("keywords", mf.FIELD_KEYWORDS),
    ("abstract", mf.FIELD_ABSTRACT),
    ("publisher", mf.FIELD_PUBLISHER),
))
"""Raw keys of :func:`record_raw` (a parsed PubMed or other :class:`ArticleRecord`) to fields."""

PDF_COOK_MAP = CookMap((
    ("xmp.dc.title", mf.FIELD_ARTICLE_TITLE),
    ("title", mf.FIELD_ARTICLE_TITLE),
    ("doi", mf.FIELD_DOI),
    ("keywords", mf.FIELD_KEYWORDS),
    ("xmp.dc.subject", mf.FIELD_KEYWORDS),
))
"""PDF raw keys (info dictionary ``title``/``keywords``/``subject``, XMP ``xmp.dc.*``, and the first ``doi`` in the
subject or the first pages) to fields."""


def _cook(am: ArticleMetadata, cook_map: CookMap, where: str) -> ArticleMetadata:
    for error in am.cook(cook_map):
        log.debug("%s: %s (raw key %s)", where, error, error.raw_key)
    return am


# --- file metadata extractors --------------------------------------------------------------------------------------


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
        return [_cook(am, self.cook_map, cu.url)]


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
            records.append(_cook(am, self.cook_map, where))
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
        return [_cook(record_raw(ArticleMetadata(), rec), self.cook_map, cu.url) for rec in records]


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


XPATH_VALUE_TYPES = ("text", "node", "number", "boolean")


def _number_text(value: float) -> str | None:
    if math.isnan(value):
        return None
    return str(int(value)) if math.isfinite(value) and value.is_integer() else str(value)


def _text_content(el: etree._Element) -> str:
    """DOM ``getTextContent``: the element's text nodes joined as they are (no blanks added between mixed-content
    pieces, none trimmed), what LOCKSS' XmlDomMetadataExtractor stores."""
    return "".join(el.itertext())


class XPathXmlExtractor(FileMetadataExtractor):
    """LOCKSS' XML DOM extractor: ``xpaths`` maps XPath expressions (evaluated on the document root) to a value type;
    every value is stored under the XPath lower-cased. ``text``: the text content of each selected node (its text
    nodes joined as they are, blanks kept, as in LOCKSS) or the string an expression gives; ``node``: each selected
    element serialised as XML; ``number`` and ``boolean``: the value of the expression (``3``, ``2.5``, ``true``;
    nothing for a number that is not one). ``namespaces`` maps prefixes used in the expressions to URIs. One record
    per document; a document that does not parse gives one empty record."""

    kind = "xpath"

    def __init__(self, cook_map: CookMapLike | None = None, *, xpaths: Mapping[str, str] | None = None,
                 namespaces: Mapping[str, str] | None = None) -> None:
        super().__init__(cook_map)
        if not xpaths:
            raise ValueError("the xpath extractor needs xpaths: a mapping XPath -> value type")
        self.namespaces = dict(namespaces or {})
        self.xpaths: dict[str, tuple[str, etree.XPath]] = {}
        for path, value_type in xpaths.items():
            if value_type not in XPATH_VALUE_TYPES:
                raise ValueError(f"XPath {path!r}: value type must be one of {', '.join(XPATH_VALUE_TYPES)}, "
                                 f"not {value_type!r}")
            try:
                compiled = etree.XPath(path, namespaces=self.namespaces)
            except etree.XPathSyntaxError as e:
                raise ValueError(f"invalid XPath {path!r}: {e}") from None
            self.xpaths[path] = (value_type, compiled)

    def extract(self, target: MetadataTarget, cu: CachedUrl) -> list[ArticleMetadata]:
        data = cu.content()
        am = ArticleMetadata()
        try:
            root = load_xml(data, f"XML document {cu.url}")
        except ValueError as e:
            log.warning("%s: %s; emitting an empty record", cu.url, e)
            return [am]
        for path, (value_type, compiled) in self.xpaths.items():
            try:
                result = compiled(root)
            except etree.XPathEvalError as e:
                log.warning("%s: XPath %r failed: %s", cu.url, path, e)
                continue
            for value in self._values(value_type, result):
                am.put_raw(path.lower(), value)
        return [_cook(am, self.cook_map, cu.url)]

    @staticmethod
    def _values(value_type: str, result: Any) -> list[str]:
        if value_type == "boolean":
            return ["true" if bool(result) else "false"]
        if value_type == "number":
            if isinstance(result, list):
                first = result[0] if result else ""
                text = _text_content(first) if isinstance(first, etree._Element) else str(first)
                try:
                    result = float(text)
                except ValueError:
                    return []
            number = _number_text(float(result))
            return [number] if number is not None else []
        items = result if isinstance(result, list) else [result]
        values = []
        for item in items:
            if isinstance(item, etree._Element):
                text = etree.tostring(item, encoding="unicode", with_tail=False) if value_type == "node" \
                    else _text_content(item)
            else:
                text = str(item)
            if text:
                values.append(text)
        return values


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
        return [_cook(am, self.cook_map, cu.url)]


_KINDS: dict[str, type[FileMetadataExtractor]] = {
    cls.kind: cls for cls in (HtmlMetaTagExtractor, JatsXmlExtractor, PubMedXmlExtractor, PdfMetadataExtractor,
                              XmlAutoExtractor, XPathXmlExtractor)
}


def extractor_kinds() -> list[str]:
    """The extractor names plugins may use."""
    return sorted(_KINDS)


def make_extractor(kind: str, cook_map: CookMapLike | None = None, **options: Any) -> FileMetadataExtractor:
    """An extractor by name (``html_meta``, ``jats``, ``pubmed``, ``pdf``, ``xml``, ``xpath``); ``options`` go to its
    constructor (``max_pages``, ``time_limit`` for ``pdf``; ``xpaths``, ``namespaces`` for ``xpath``)."""
    cls = _KINDS.get(kind)
    if cls is None:
        raise ValueError(f"unknown metadata extractor {kind!r}; known: {', '.join(extractor_kinds())}")
    try:
        return cls(cook_map, **options)
    except TypeError as e:
        raise ValueError(f"bad options for metadata extractor {kind!r}: {e}") from None


# --- factory -------------------------------------------------------------------------------------------------------


class ExtractorFactory:
    """Chooses a file metadata extractor by content type: the exact media type, then ``type/*``, then ``*``."""

    def __init__(self, extractors: Mapping[str, FileMetadataExtractor] | None = None) -> None:
        self._by_type: dict[str, FileMetadataExtractor] = {}
        for mime, extractor in (extractors or {}).items():
            self.register(mime, extractor)

    def register(self, mime_type: str, extractor: FileMetadataExtractor) -> None:
        if not isinstance(extractor, FileMetadataExtractor):
            raise TypeError(f"{mime_type}: {extractor!r} is not a FileMetadataExtractor")
        key = mime_type.strip().lower()
        if key != "*" and ("/" not in key or key.startswith("/") or key.endswith("/")):
            raise ValueError(f"not a MIME type (type/subtype, type/* or *): {mime_type!r}")
        self._by_type[key] = extractor

    def for_content_type(self, content_type: str | None) -> FileMetadataExtractor | None:
        mime = (content_type or "").split(";", 1)[0].strip().lower()
        if mime in self._by_type:
            return self._by_type[mime]
        if "/" in mime and mime.split("/", 1)[0] + "/*" in self._by_type:
            return self._by_type[mime.split("/", 1)[0] + "/*"]
        return self._by_type.get("*")

    def for_cu(self, cu: CachedUrl) -> FileMetadataExtractor | None:
        return self.for_content_type(cu.content_type)

    def mime_types(self) -> list[str]:
        return list(self._by_type)


def default_factory() -> ExtractorFactory:
    """HTML meta tags (HighWire cook map), JATS or PubMed XML, and PDF: what is used without a plugin."""
    html = HtmlMetaTagExtractor()
    xml = XmlAutoExtractor()
    return ExtractorFactory({"text/html": html, "application/xhtml+xml": html, "application/xml": xml,
                             "text/xml": xml, "application/jats+xml": xml, "application/pdf": PdfMetadataExtractor()})


# --- article metadata extractor ------------------------------------------------------------------------------------


class BaseArticleMetadataExtractor:
    """LOCKSS' BaseArticleMetadataExtractor (see the module docstring). ``role`` None means the full-text CU;
    ``prefer_tdb_publisher`` makes a known title-database publisher (and provider) replace extracted ones."""

    def __init__(self, role: str | None = None, *, factory: ExtractorFactory | None = None,
                 add_tdb_defaults: bool = True, check_access_url: bool = True,
                 prefer_tdb_publisher: bool = False) -> None:
        self.role = role
        self.factory = factory if factory is not None else default_factory()
        self.add_tdb_defaults = add_tdb_defaults
        self.check_access_url = check_access_url
        self.prefer_tdb_publisher = prefer_tdb_publisher

    def cu_to_extract(self, af: ArticleFiles) -> CachedUrl | None:
        return af.get_role_cu(self.role) if self.role is not None else af.full_text_cu

    def extract(self, target: MetadataTarget | None, af: ArticleFiles, au: ArchivalUnit) -> list[ArticleMetadata]:
        """The finished records of one article (usually one)."""
        target = target or MetadataTarget()
        cu = self.cu_to_extract(af)
        if cu is not None:
            extractor = self.factory.for_cu(cu)
            if extractor is not None:
                try:
                    records = extractor.extract(target, cu)
                except OSError as e:
                    log.warning("%s: cannot extract metadata (%s); emitting title-database data only", cu.url, e)
                else:
                    return [self.finish(af, cu, am, au) for am in records]
        else:
            cu = af.full_text_cu
            log.debug("article %s has no %s CU; using the full text", af.full_text_url, self.role)
        if cu is None:
            return []
        return [self.finish(af, cu, ArticleMetadata(), au)]

    def finish(self, af: ArticleFiles, cu: CachedUrl, am: ArticleMetadata, au: ArchivalUnit) -> ArticleMetadata:
        """What happens to every emitted record: title-database defaults, then the access URL check."""
        if self.add_tdb_defaults:
            self.add_tdb_defaults_to(af, cu, am, au)
        if self.check_access_url:
            self.check_access_url_of(af, cu, am, au)
        return am

    def add_tdb_defaults_to(self, af: ArticleFiles, cu: CachedUrl, am: ArticleMetadata, au: ArchivalUnit) -> None:
        """Fill what extraction did not give (valid values are never replaced, invalid ones are)."""
        tdb_au = au.tdb_au
        if tdb_au is None:
            am.put_if_better(mf.FIELD_PROVIDER, am.get(mf.FIELD_PUBLISHER))
        else:
            if not tdb_au.is_unknown_publisher and self.prefer_tdb_publisher:
                am.replace(mf.FIELD_PUBLISHER, tdb_au.publisher_name)
                am.replace(mf.FIELD_PROVIDER, tdb_au.provider_name)
            else:
                am.put_if_better(mf.FIELD_PUBLISHER, tdb_au.publisher_name)
                am.put_if_better(mf.FIELD_PROVIDER, tdb_au.provider_name)
            if not au.bulk_content:
                defaults: Iterable[tuple[mf.MetadataField, Callable[[], str | None]]] = (
                    (mf.FIELD_ISBN, lambda: tdb_au.print_isbn), (mf.FIELD_EISBN, lambda: tdb_au.eisbn),
                    (mf.FIELD_ISSN, lambda: tdb_au.print_issn), (mf.FIELD_EISSN, lambda: tdb_au.eissn),
                    (mf.FIELD_DATE, lambda: tdb_au.start_year), (mf.FIELD_VOLUME, lambda: tdb_au.start_volume),
                    (mf.FIELD_ISSUE, lambda: tdb_au.start_issue),
                    (mf.FIELD_PUBLICATION_TITLE, lambda: tdb_au.publication_title),
                    (mf.FIELD_PROPRIETARY_IDENTIFIER, lambda: tdb_au.proprietary_id),
                    (mf.FIELD_PUBLICATION_TYPE, lambda: tdb_au.publication_type),
                    (mf.FIELD_SERIES_TITLE, lambda: tdb_au.series_title),
                    (mf.FIELD_PROPRIETARY_SERIES_IDENTIFIER, lambda: tdb_au.proprietary_series_id),
                )
                for field, value in defaults:
                    am.put_if_better(field, value())
        am.put_if_better(mf.FIELD_ACCESS_URL, af.full_text_url)

    def check_access_url_of(self, af: ArticleFiles, cu: CachedUrl, am: ArticleMetadata, au: ArchivalUnit) -> None:
        """Make ``access.url`` a URL of this AU: set it to the full-text URL (else the CU's) when missing, and
        replace it when the AU holds no content at it."""
        access = am.get(mf.FIELD_ACCESS_URL)
        fallback = af.full_text_url or cu.url
        if access is None:
            am.put(mf.FIELD_ACCESS_URL, fallback)
        elif not au.has_content(access):
            log.debug("access.url %s is not in the AU; using %s", access, fallback)
            am.replace(mf.FIELD_ACCESS_URL, fallback)
