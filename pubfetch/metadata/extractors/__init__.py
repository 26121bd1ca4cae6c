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

The rooms: :mod:`~pubfetch.metadata.extractors.target`, :mod:`~pubfetch.metadata.extractors.cookmaps`,
:mod:`~pubfetch.metadata.extractors.files` (the file extractors), :mod:`~pubfetch.metadata.extractors.xpath`,
:mod:`~pubfetch.metadata.extractors.factory` and :mod:`~pubfetch.metadata.extractors.article`.
"""

from pubfetch.metadata.extractors.article import BaseArticleMetadataExtractor
from pubfetch.metadata.extractors.cookmaps import (
    HIGHWIRE_COOK_MAP,
    JATS_COOK_MAP,
    PDF_COOK_MAP,
    RECORD_COOK_MAP,
    split_pages,
)
from pubfetch.metadata.extractors.factory import ExtractorFactory, default_factory, extractor_kinds, make_extractor
from pubfetch.metadata.extractors.files import (
    FileMetadataExtractor,
    HtmlMetaTagExtractor,
    JatsXmlExtractor,
    PdfMetadataExtractor,
    PubMedXmlExtractor,
    XmlAutoExtractor,
    normalise_issn,
    record_raw,
)
from pubfetch.metadata.extractors.target import MetadataTarget, Purpose
from pubfetch.metadata.extractors.xpath import XPathXmlExtractor

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
