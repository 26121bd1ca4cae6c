"""Tests for pubfetch.metadata.extractors.cookmaps: the cook maps that turn raw keys of HTML meta tags and JATS into
metadata fields, and page ranges split into first and last page."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pubfetch.metadata import fields as mf
from pubfetch.metadata.article_metadata import ArticleMetadata
from pubfetch.metadata.extractors import (
    HIGHWIRE_COOK_MAP,
    JATS_COOK_MAP,
    HtmlMetaTagExtractor,
    JatsXmlExtractor,
    MetadataTarget,
)
from pubfetch.metadata.extractors.cookmaps import PDF_COOK_MAP, RECORD_COOK_MAP, cook, split_pages
from support.cached_urls import cu, meta

FIXTURES = Path(__file__).parent / "data" / "archival_units"
BATCH = FIXTURES / "jats_delivery" / "deliveries.example.com" / "2024" / "batch1"
ANY = MetadataTarget()


def test_highwire_cook_map() -> None:
    html = meta(
        '<meta name="citation_title" content="Waves">', '<meta name="DC.title" content="Not this">',
        '<meta name="citation_author" content="Ana Example">', '<meta name="citation_author" content="Bo Sample">',
        '<meta name="citation_journal_title" content="J Ex">', '<meta name="citation_doi" content="doi:10.5555/w.1">',
        '<meta name="DC.identifier" content="10274">', '<meta name="citation_issn" content="0740-2783">',
        '<meta name="citation_volume" content="6">', '<meta name="citation_firstpage" content="e4375">',
        '<meta name="citation_keywords" content="Open access; Open science; ">',
        '<meta name="citation_online_date" content="2018/02/13">',
        '<meta name="citation_fulltext_html_url" content="https://x/a">',
        '<meta name="citation_publisher" content="Ex Press">')
    (am,) = HtmlMetaTagExtractor().extract(ANY, cu(html))
    assert am.to_json()["cooked"] == {
        "access.url": "https://x/a", "article.title": "Waves", "author": ["Ana Example", "Bo Sample"],
        "date": "2018/02/13", "doi": "10.5555/w.1", "issn": "0740-2783", "keywords": ["Open access", "Open science"],
        "publication.title": "J Ex", "publisher": "Ex Press", "startpage": "e4375", "volume": "6",
    }
    assert HtmlMetaTagExtractor().cook_map is HIGHWIRE_COOK_MAP


def test_dublin_core_fallbacks_of_the_highwire_map() -> None:
    html = meta('<meta name="dc.identifier" content="doi:10.7554/eLife.44753">',
                '<meta name="dc.title" content="Parallel visual circuitry">',
                '<meta name="dc.date" content="2019-04-18">',
                '<meta name="dc.publisher" content="eLife">')
    (am,) = HtmlMetaTagExtractor().extract(ANY, cu(html))
    assert am.to_json()["cooked"] == {"article.title": "Parallel visual circuitry", "date": "2019-04-18",
                                      "doi": "10.7554/eLife.44753", "publisher": "eLife"}


# --- JATS, PubMed, XML ---------------------------------------------------------------------------------------------


def test_jats_cook_map_fields() -> None:
    (am,) = JatsXmlExtractor().extract(ANY, cu((BATCH / "a1.xml").read_bytes(), "application/xml"))
    assert am.to_json()["cooked"] == {
        "abstract": "We measured sediment transport in two estuaries.",
        "article.title": "Sediment transport in estuaries : A two-year field study",
        "author": ["Example, Ana M.", "Sample, Bo"],
        "date": "2024-03-05",
        "doi": "10.5555/joe.2024.101",
        "eissn": "1558-843X",
        "endpage": "118",
        "issn": "0740-2783",
        "issue": "3",
        "keywords": ["sediment", "estuary"],
        "publication.title": "Journal of Examples",
        "publisher": "Example Society Press",
        "startpage": "101",
        "volume": "12",
    }
    assert am.get_raw("front/article-meta/article-id[@pub-id-type='pmid']") == "39000001"
    assert am.get_raw("front/journal-meta/journal-title-group") == "Journal of Examples"
    assert JatsXmlExtractor().cook_map is JATS_COOK_MAP


def test_split_pages_gives_first_and_last_page() -> None:
    assert split_pages("123-130") == ("123", "130")
    assert split_pages(" 12 \u2013 15 ") == ("12", "15")  # an en dash, blanks around it
    assert split_pages("e4375") == ("e4375", "")
    for not_a_range in ("a-b-c", "", "1 2"):
        assert split_pages(not_a_range) == ("", "")


def test_cook_keeps_refused_values_visible_and_logs_them_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    am = ArticleMetadata()
    am.put_raw("issn", "not an issn")
    am.put_raw("doi", "10.5555/x.1")
    am.put_raw("pub_date", "2024-05-06")
    with caplog.at_level(logging.DEBUG, logger="pubfetch.metadata.extractors.cookmaps"):
        assert cook(am, RECORD_COOK_MAP, "https://x/a") is am
    assert (am.get(mf.FIELD_DOI), am.get(mf.FIELD_DATE)) == ("10.5555/x.1", "2024-05-06")
    assert am.get(mf.FIELD_ISSN) is None and am.get_invalid(mf.FIELD_ISSN).raw_value == "not an issn"
    [record] = caplog.records
    assert record.levelno == logging.DEBUG and record.getMessage().startswith("https://x/a: ")
    assert "(raw key issn)" in record.getMessage()


def test_pdf_cook_map_prefers_xmp_title_and_joins_both_keyword_sources() -> None:
    am = ArticleMetadata()
    am.put_raw("title", "Info dictionary title")
    am.put_raw("xmp.dc.title", "XMP title")
    am.put_raw("keywords", "tiny")
    am.put_raw("xmp.dc.subject", "test")
    cook(am, PDF_COOK_MAP, "a.pdf")
    assert am.get(mf.FIELD_ARTICLE_TITLE) == "XMP title"
    assert am.get_list(mf.FIELD_KEYWORDS) == ["tiny", "test"]
