"""Cook maps: which raw keys of each file extractor become which metadata fields, and the cooking itself.

Provided: :data:`HIGHWIRE_COOK_MAP` (generic ``citation_*`` tags with Dublin Core fallbacks), :data:`JATS_COOK_MAP`,
:data:`RECORD_COOK_MAP` (PubMed records) and :data:`PDF_COOK_MAP`.
"""

from __future__ import annotations

import logging
import re

from pubfetch.metadata import fields as mf
from pubfetch.metadata.article_metadata import ArticleMetadata, CookMap

__all__ = ["HIGHWIRE_COOK_MAP", "JATS_COOK_MAP", "PDF_COOK_MAP", "RECORD_COOK_MAP", "cook", "split_pages"]

log = logging.getLogger(__name__)

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
"""Raw keys of :func:`record_raw` (a parsed PubMed or other :class:`~pubfetch.model.record.ArticleRecord`) to fields."""

PDF_COOK_MAP = CookMap((
    ("xmp.dc.title", mf.FIELD_ARTICLE_TITLE),
    ("title", mf.FIELD_ARTICLE_TITLE),
    ("doi", mf.FIELD_DOI),
    ("keywords", mf.FIELD_KEYWORDS),
    ("xmp.dc.subject", mf.FIELD_KEYWORDS),
))
"""PDF raw keys (info dictionary ``title``/``keywords``/``subject``, XMP ``xmp.dc.*``, and the first ``doi`` in the
subject or the first pages) to fields."""


def cook(am: ArticleMetadata, cook_map: CookMap, where: str) -> ArticleMetadata:
    """Cook ``am`` with ``cook_map``; errors (refused values, second values for single fields) are logged at debug
    level, and refused values stay visible in the record as invalid values."""
    for error in am.cook(cook_map):
        log.debug("%s: %s (raw key %s)", where, error, error.raw_key)
    return am
