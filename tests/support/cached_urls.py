"""Cached URLs and HTML pages for the metadata extractor tests: a file as an archival unit would hand it over."""

from __future__ import annotations

from pubfetch.metadata.sources import CachedUrl


def cu(body: bytes | str, content_type: str = "text/html", url: str = "https://x/a") -> CachedUrl:
    """A cached URL serving ``body`` (text is UTF-8 encoded) with ``content_type``."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    return CachedUrl(url, content_type, lambda: data)


def meta(*tags: str) -> str:
    """An HTML page whose head holds ``tags``."""
    return "<html><head>" + "".join(tags) + "</head><body></body></html>"
