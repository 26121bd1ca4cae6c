"""The run engine: how a stream of IDs becomes stored publications.

``assembly`` builds a run from its configuration (client, limiter, rules, renderer, PDF workers, store writer);
``options`` is what one call asks of it; ``overlap`` keeps two batches in flight and runs the end-of-run retry;
``run_batch`` loads, fetches, stores and reports one batch of the run's IDs; ``flow`` puts each publication of a batch
on its own thread and restarts it when an ID changed; ``chain`` is PubFetcher's resource order for one publication;
``service_batcher`` gathers the publications that reach a batchable service into its requests; ``claims`` keeps a paper
given twice from being fetched twice; ``resume`` is where a failed publication stopped; ``summary`` is how a run ended.
The services themselves are in :mod:`pubfetch.resources`.
"""

import typing as _typing

from pubfetch.lazy import lazy_names as _lazy_names

_LAZY = {
    "FetchRun": "pubfetch.engine.assembly",
    "FetchOptions": "pubfetch.engine.options",
    "BatchSummary": "pubfetch.engine.summary",
    "FetchError": "pubfetch.engine.summary",
    "fetch_publications": "pubfetch.engine.flow",
    "InFlight": "pubfetch.engine.flow",
    "Resume": "pubfetch.engine.resume",
    "RetryEntry": "pubfetch.engine.resume",
}

__all__ = [*_LAZY]  # noqa: PLE0604 - the lazy table is the one list of public names

if _typing.TYPE_CHECKING:  # pragma: no cover - what type checkers read instead (``as``: re-exported)
    from pubfetch.engine.assembly import FetchRun as FetchRun
    from pubfetch.engine.flow import InFlight as InFlight
    from pubfetch.engine.flow import fetch_publications as fetch_publications
    from pubfetch.engine.options import FetchOptions as FetchOptions
    from pubfetch.engine.resume import Resume as Resume
    from pubfetch.engine.resume import RetryEntry as RetryEntry
    from pubfetch.engine.summary import BatchSummary as BatchSummary
    from pubfetch.engine.summary import FetchError as FetchError


def __getattr__(name: str) -> object:
    return _lazy(name)


_lazy = _lazy_names(__name__, _LAZY)
