"""pubfetch: fetch publication content from Europe PMC, PubMed, PMC, publisher pages and Unpaywall.

A Python reimplementation of the Java PubFetcher that walks batches of publications through the resources::

    import pubfetch
    pub = pubfetch.fetch("10.1093/nar/gkz369")
    for pub in pubfetch.fetch_many(open("pmids.txt").read().split(), db="pubs.db"):
        print(pub.title.content)

The names below are imported on first use, so ``import pubfetch`` stays cheap for tools that only need the IDs.
"""

from __future__ import annotations

import typing as _typing
import warnings as _warnings

from pubfetch._version import __version__
from pubfetch.lazy import lazy_names as _lazy_names

#: The modules that hand fetched pages to BeautifulSoup, whose warnings about a page (one that is only a URL, XML
#: served as HTML) say nothing to a user. They are quieted by one filter, set here before pubfetch can warn: a filter
#: changed later (around each page) would make Python forget every warning it has shown, and a PubfetchWarning would
#: be shown again after each page instead of once per process.
_PAGE_PARSERS = r"pubfetch\.extract\.(clean|webpage_read)\Z"
_warnings.filterwarnings("ignore", category=UserWarning, module=_PAGE_PARSERS)

_LAZY = {
    "fetch": "pubfetch.fetcher",
    "fetch_many": "pubfetch.fetcher",
    "BatchSummary": "pubfetch.fetcher",
    "FetchError": "pubfetch.fetcher",
    "PubfetchWarning": "pubfetch.resources.base",
    "fetch_webpage": "pubfetch.webfetch",
    "fetch_doc": "pubfetch.webfetch",
    "FetchConfig": "pubfetch.config",
    "FetcherArgs": "pubfetch.fetcher_args",
    "Publication": "pubfetch.model.publication",
    "Webpage": "pubfetch.model.webpage",
    "PublicationIds": "pubfetch.ids",
    "open_store": "pubfetch.store",
    "init_store": "pubfetch.store",
    "to_dataframe": "pubfetch.tables",
    "to_csl": "pubfetch.output.citations",
    "report": "pubfetch.output.report",
    "search": "pubfetch.searching",
}

__all__ = ["__version__", *_LAZY]  # noqa: PLE0604 - the lazy table is the one list of public names

if _typing.TYPE_CHECKING:  # pragma: no cover - what type checkers read instead (``as``: re-exported)
    from pubfetch.config import FetchConfig as FetchConfig
    from pubfetch.fetcher import BatchSummary as BatchSummary
    from pubfetch.fetcher import FetchError as FetchError
    from pubfetch.fetcher import fetch as fetch
    from pubfetch.fetcher import fetch_many as fetch_many
    from pubfetch.fetcher_args import FetcherArgs as FetcherArgs
    from pubfetch.ids import PublicationIds as PublicationIds
    from pubfetch.model.publication import Publication as Publication
    from pubfetch.model.webpage import Webpage as Webpage
    from pubfetch.output.citations import to_csl as to_csl
    from pubfetch.output.report import report as report
    from pubfetch.resources.base import PubfetchWarning as PubfetchWarning
    from pubfetch.searching import search as search
    from pubfetch.store import init_store as init_store
    from pubfetch.store import open_store as open_store
    from pubfetch.tables import to_dataframe as to_dataframe
    from pubfetch.webfetch import fetch_doc as fetch_doc
    from pubfetch.webfetch import fetch_webpage as fetch_webpage


def __getattr__(name: str) -> object:
    return _lazy(name)


_lazy = _lazy_names(__name__, _LAZY)
