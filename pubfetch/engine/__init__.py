"""The run engine: how a stream of IDs becomes stored publications.

``assembly`` builds a run from its configuration (client, limiter, rules, renderer, PDF workers, store writer);
``overlap`` keeps two batches in flight and runs the end-of-run retry; ``batches`` loads, fetches, stores and reports
one batch; ``flow`` puts each publication of a batch on its own thread and restarts it when an ID changed;
``chain`` is PubFetcher's resource order for one publication; ``batcher`` gathers the publications that reach a
batchable service; ``claims`` keeps a paper given twice from being fetched twice; ``resume`` is where a failed
publication stopped; ``summary`` is how a run ended. The services themselves are in :mod:`pubfetch.resources`.
"""

__all__: list[str] = []
