"""Tests for pubfetch.metadata.extractors.factory: choosing a file extractor by content type, and extractors made
by kind name."""

from __future__ import annotations

import pytest

from pubfetch.metadata.extractors import (
    ExtractorFactory,
    HtmlMetaTagExtractor,
    JatsXmlExtractor,
    PdfMetadataExtractor,
    XmlAutoExtractor,
    default_factory,
    extractor_kinds,
    make_extractor,
)
from support.cached_urls import cu

# --- factory -------------------------------------------------------------------------------------------------------


def test_factory_chooses_by_content_type() -> None:
    html, pdf, anything = HtmlMetaTagExtractor(), PdfMetadataExtractor(), JatsXmlExtractor()
    factory = ExtractorFactory({"text/html": html, "application/*": pdf})
    assert factory.for_content_type("Text/HTML; charset=utf-8") is html
    assert factory.for_content_type("application/pdf") is pdf
    assert factory.for_content_type("image/png") is None
    assert factory.for_content_type(None) is None
    factory.register("*", anything)
    assert factory.for_content_type("image/png") is anything
    assert factory.for_cu(cu("", "text/html")) is html
    assert factory.mime_types() == ["text/html", "application/*", "*"]
    with pytest.raises(ValueError, match="not a MIME type"):
        factory.register("html", html)
    with pytest.raises(TypeError, match="not a FileMetadataExtractor"):
        factory.register("text/html", object())  # type: ignore[arg-type]


def test_default_factory_and_extractor_kinds() -> None:
    factory = default_factory()
    assert isinstance(factory.for_content_type("text/html"), HtmlMetaTagExtractor)
    assert isinstance(factory.for_content_type("application/xml"), XmlAutoExtractor)
    assert isinstance(factory.for_content_type("application/pdf"), PdfMetadataExtractor)
    assert extractor_kinds() == ["html_meta", "jats", "pdf", "pubmed", "xml", "xpath"]
    assert make_extractor("pdf", None, max_pages=3).max_pages == 3
    with pytest.raises(ValueError, match="unknown metadata extractor 'rdf'"):
        make_extractor("rdf")
    with pytest.raises(ValueError, match="bad options for metadata extractor 'html_meta'"):
        make_extractor("html_meta", None, max_pages=3)
