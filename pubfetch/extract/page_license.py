"""The licence a publisher page states in its head: ``<meta name="dc.rights">`` (also ``dcterms.rights``,
``dcterms.license``, ``dc.rights.license``, any case), else ``<link rel="license" href>``, the Creative Commons
marker many publishers use. It feeds the ``license`` part, below anything a structured source says."""

from __future__ import annotations

from bs4 import BeautifulSoup

from pubfetch.rules.page_index import PageIndex, find_named

__all__ = ["LICENSE_META", "page_license"]

#: the meta names that state a page's licence
LICENSE_META = frozenset(("dc.rights", "dcterms.rights", "dcterms.license", "dc.rights.license", "dc.license"))


def page_license(soup: BeautifulSoup, index: PageIndex | None = None) -> tuple[str, str]:
    """(licence, where) of a parsed page: ``where`` is "dc" for a Dublin Core meta tag, "link" for a ``rel=license``
    link; ("", "") when the page names none. ``index``: the page's, which finds the tags without a walk."""
    for meta in find_named(soup, ("meta",), index):
        name = str(meta.get("name") or meta.get("property") or "").strip().lower()
        content = " ".join(str(meta.get("content") or "").split())
        if name in LICENSE_META and content:
            return content, "dc"
    for link in find_named(soup, ("link",), index):
        rel: object = link.get("rel") or []
        rels = rel if isinstance(rel, list) else str(rel).split()
        href = str(link.get("href") or "").strip()
        if href and any(str(r).lower() == "license" for r in rels):
            return href, "link"
    return "", ""
