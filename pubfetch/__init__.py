"""pubfetch: fetch publication content from Europe PMC, PubMed, PMC, publisher pages and Unpaywall.

A Python reimplementation of the Java PubFetcher that walks batches of publications through the resources::

    import pubfetch
    pub = pubfetch.fetch("10.1093/nar/gkz369")
    for pub in pubfetch.fetch_many(open("pmids.txt").read().split(), db="pubs.db"):
        print(pub.title.content)

The names below are imported on first use, so ``import pubfetch`` stays cheap for tools that only need the IDs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pubfetch._version import __version__
from pubfetch.lazy import lazy_names

_LAZY = {
    "fetch": "pubfetch.fetcher",
    "fetch_many": "pubfetch.distributed",  # the fetcher's, or through a Celery queue with queue=
    "BatchSummary": "pubfetch.fetcher",
    "FetchError": "pubfetch.fetcher",
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
    "report": "pubfetch.output.report",
}

__all__ = [  # noqa: RUF022 - grouped as in _LAZY
    "__version__",
    "fetch",
    "fetch_many",
    "BatchSummary",
    "FetchError",
    "fetch_webpage",
    "fetch_doc",
    "FetchConfig",
    "FetcherArgs",
    "Publication",
    "Webpage",
    "PublicationIds",
    "open_store",
    "init_store",
    "to_dataframe",
    "report",
]

if TYPE_CHECKING:  # pragma: no cover
    from pubfetch.config import FetchConfig
    from pubfetch.distributed import fetch_many
    from pubfetch.fetcher import BatchSummary, FetchError, fetch
    from pubfetch.fetcher_args import FetcherArgs
    from pubfetch.ids import PublicationIds
    from pubfetch.model.publication import Publication
    from pubfetch.model.webpage import Webpage
    from pubfetch.output.report import report
    from pubfetch.store import init_store, open_store
    from pubfetch.tables import to_dataframe
    from pubfetch.webfetch import fetch_doc, fetch_webpage


def __getattr__(name: str) -> Any:
    return _lazy(name)


_lazy = lazy_names(__name__, _LAZY)
