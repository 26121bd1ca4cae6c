"""Pure parsers: bytes or text of one response in, :class:`~pubfetch.model.record.ArticleRecord` (or terms, links,
text) out; no network, no database, no merging into publications (:mod:`pubfetch.model.merge` does that).

One module per format (europepmc, jats, pubmed, pubmed_html, annotations, unpaywall, meta, scrape, clean, pdf). The
names below are imported on first use, so that a caller pays only for the parsers it uses.
"""

import typing as _typing

from pubfetch.lazy import lazy_names as _lazy_names

_LAZY = {
    "ParseError": "pubfetch.extract.errors",
    "ServiceError": "pubfetch.extract.errors",
    "parse_search": "pubfetch.extract.europepmc",
    "SearchPage": "pubfetch.extract.europepmc",
    "parse_annotations": "pubfetch.extract.annotations",
    "parse_jats": "pubfetch.extract.jats",
    "read_jats": "pubfetch.extract.jats",
    "JatsArticle": "pubfetch.extract.jats",
    "parse_pubmed_xml": "pubfetch.extract.pubmed",
    "parse_pubmed_html": "pubfetch.extract.pubmed_html",
    "parse_unpaywall": "pubfetch.extract.unpaywall",
    "parse_meta": "pubfetch.extract.meta",
    "meta_tags": "pubfetch.extract.meta",
    "scrape_journal": "pubfetch.extract.scrape",
    "scrape_webpage": "pubfetch.extract.scrape",
    "WebpageContent": "pubfetch.extract.scrape",
    "clean_html": "pubfetch.extract.clean",
    "extract_pdf": "pubfetch.extract.pdf",
    "PdfContent": "pubfetch.extract.pdf",
}

__all__ = [*_LAZY]  # noqa: PLE0604 - the lazy table is the one list of public names

if _typing.TYPE_CHECKING:  # pragma: no cover - what type checkers read instead (``as``: re-exported)
    from pubfetch.extract.annotations import parse_annotations as parse_annotations
    from pubfetch.extract.clean import clean_html as clean_html
    from pubfetch.extract.errors import ParseError as ParseError
    from pubfetch.extract.errors import ServiceError as ServiceError
    from pubfetch.extract.europepmc import SearchPage as SearchPage
    from pubfetch.extract.europepmc import parse_search as parse_search
    from pubfetch.extract.jats import JatsArticle as JatsArticle
    from pubfetch.extract.jats import parse_jats as parse_jats
    from pubfetch.extract.jats import read_jats as read_jats
    from pubfetch.extract.meta import meta_tags as meta_tags
    from pubfetch.extract.meta import parse_meta as parse_meta
    from pubfetch.extract.pdf import PdfContent as PdfContent
    from pubfetch.extract.pdf import extract_pdf as extract_pdf
    from pubfetch.extract.pubmed import parse_pubmed_xml as parse_pubmed_xml
    from pubfetch.extract.pubmed_html import parse_pubmed_html as parse_pubmed_html
    from pubfetch.extract.scrape import WebpageContent as WebpageContent
    from pubfetch.extract.scrape import scrape_journal as scrape_journal
    from pubfetch.extract.scrape import scrape_webpage as scrape_webpage
    from pubfetch.extract.unpaywall import parse_unpaywall as parse_unpaywall


def __getattr__(name: str) -> object:
    return _lazy(name)


_lazy = _lazy_names(__name__, _LAZY)
