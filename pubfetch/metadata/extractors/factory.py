"""Choosing a file metadata extractor: by name (for plugins) and by content type (LOCKSS' extractor factories).

Content types are matched as the exact media type, then ``type/*``, then ``*`` (LOCKSS' default metadata type);
:func:`default_factory` is the one used without a plugin.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pubfetch.metadata.article_metadata import CookMapLike
from pubfetch.metadata.extractors.files import (
    FileMetadataExtractor,
    HtmlMetaTagExtractor,
    JatsXmlExtractor,
    PdfMetadataExtractor,
    PubMedXmlExtractor,
    XmlAutoExtractor,
)
from pubfetch.metadata.extractors.xpath import XPathXmlExtractor
from pubfetch.metadata.sources import CachedUrl

__all__ = ["ExtractorFactory", "default_factory", "extractor_kinds", "make_extractor"]


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
