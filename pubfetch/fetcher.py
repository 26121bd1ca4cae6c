"""The library's front door: fetch publications (one, or a stream of many), and put or remove them in a database.

PubFetcher's getPublication consults the database, fetches when can_fetch allows, and stores. The same here, but
``fetch_many`` does it for a stream of IDs in batches: IDs are read lazily, each batch is walked through the resource
chain together, written to the database (one transaction per entry) and yielded; memory stays flat for any number of
IDs and a killed run re-run with the same arguments skips what is already complete. The engine that does it is
:mod:`pubfetch.engine`; a run is assembled by :class:`~pubfetch.engine.assembly.FetchRun`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from pubfetch import ids as idmod
from pubfetch.config import FetchConfig
from pubfetch.engine.assembly import DbLike, FetchRun
from pubfetch.engine.options import Errors, FetchOptions, call_config, checked_errors
from pubfetch.engine.resume import RetryEntry
from pubfetch.engine.run_batch import IdsLike, Progress, init_publication, to_ids, warn_retracted
from pubfetch.engine.summary import BatchSummary, FetchError, failed_transiently
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.edges import CitationEdge
from pubfetch.model.part_type import PartName
from pubfetch.model.publication import Publication
from pubfetch.net.config import RateLimiter
from pubfetch.resources.base import Context
from pubfetch.resources.europepmc import update_citations
from pubfetch.snowball import DEFAULT_MAX_HITS, SnowballPlan, snowball_fetch
from pubfetch.store import Store

__all__ = ["BatchSummary", "DbLike", "Errors", "FetchError", "FetchOptions", "IdsLike", "Progress", "call_config",
           "failed_transiently", "fetch", "fetch_many", "fetch_retries", "init_publication", "put_publications",
           "remove_publications", "to_ids", "update_citations_count", "warn_retracted"]

T = TypeVar("T", idmod.PublicationIds, Publication)


def fetch_many(
    ids: Iterable[IdsLike],
    db: DbLike = None,
    parts: Iterable[PartName | str] | None = None,
    args: FetcherArgs | None = None,
    *,
    queue: str | None = None,
    config: FetchConfig | None = None,
    context: Context | None = None,
    progress: Progress | None = None,
    summary: BatchSummary | None = None,
    retry_exceptions: bool = True,
    use_stored: bool = True,
    errors: Errors = "skip",
    deferred: list[RetryEntry] | None = None,
    rate_limiter: RateLimiter | None = None,
    citations: bool = False,
    expand_references: bool = False,
    depth: int = 1,
    max_hits: int = DEFAULT_MAX_HITS,
    edges: list[CitationEdge] | None = None,
    **options: object,
) -> Iterator[Publication]:
    """Fetch publications for a stream of IDs, yielding each when its batch is done (in input order within a batch;
    two batches are fetched at a time).

    Args:
        ids: PMIDs, PMCIDs, DOIs (or their URLs), or PublicationIds; read lazily.
        db: a database path/URL or open Store: entries are read from it, fetched only when can_fetch allows, and
            written back as they complete. Without a database every publication is fetched.
        parts: fetch only these parts (PubFetcher's --fetch-part).
        args: PubFetcher's fetching parameters.
        queue: a Celery broker URL (``redis://host:6379/0``): the IDs are fetched by ``pubfetch worker`` processes
            into ``db`` (see below).
        config: everything else (endpoints, credentials, threads, batch size); default from the environment.
        context: run with this context's machinery (its client, rules, renderer) instead of a run built for the call;
            the call's parts are asked for (``parts``, else the configuration's).
        progress: called with (number done, publication) after each one.
        summary: filled in as publications complete.
        retry_exceptions: fetch entries that ended with fetchException once more at the end (PubFetcher's final retry).
        use_stored: read entries from ``db`` (off: every publication is fetched afresh and written to ``db``, as
            PubFetcher's -fetch-put does).
        errors: "skip" (the default, as the command line does): an invalid ID is skipped with a warning, and a
            publication that got nothing because of transient failures is yielded as it is (``pub.problems()`` says
            so); "raise": an invalid ID raises :class:`~pubfetch.ids.InvalidId`, such a publication
            :class:`FetchError` (after it was stored).
        deferred: a list that receives the publications of the end-of-run retry (JSON: ``"pub"``, ``"resume"``) instead
            of their being retried and reported here (they are stored as they ended); :func:`fetch_retries` retries
            them later, with those of other calls: a queued job retries its batches' failures together, once, as one
            process does at the end of its run.
        rate_limiter: the shared rate limiter to wait on (a worker keeps one for all its batches), instead of one
            opened for the call.
        citations: snowball along citations: also fetch the papers citing each publication (Europe PMC's citations
            endpoint and E-utilities ELink), then those citing them, to ``depth``.
        expand_references: snowball along references: also fetch the papers each publication's reference list
            names (its ``references`` part), to ``depth``.
        depth: how many steps of links a snowball follows (1: the papers linked to the given ones).
        max_hits: a snowball refuses, with :class:`~pubfetch.snowball.SnowballTooLarge` (a ValueError) and before
            fetching it, a depth that would bring the run to more publications than this.
        edges: a list that receives the snowball's citation edges (which paper cites which, with the source that
            says so); with ``db`` they are stored there too (``-out --format edges`` reads them back).
        options: settings of the configuration by name (``threads=4``, ``batch_size=1``, ``rate_limits=False``,
            ``busy_retries=0``; docs/configuration.md lists them).

    A bad ``errors``, a setting that does not exist and ``deferred`` with a snowball are refused with a ValueError
    when the call is made, before any ID is read.

    With ``citations`` or ``expand_references`` the IDs are read at once (a snowball starts from all of them) and
    each paper is yielded once, whatever form of its ID it was met by; the run's ``summary`` counts what was
    identified, by source and depth, and the duplicates removed.

    Without ``context``, requests wait for the services' rate limits shared with every other pubfetch process
    (:func:`~pubfetch.engine.assembly.shared_rate_limiter`) unless ``rate_limits=False``.

    With ``queue`` the publications are yielded from ``db`` (a database URL or path the workers reach), in input
    order, once every batch is done. ``parts``, the fetching thresholds of ``args`` (cooldowns, retry limit, minimum
    lengths, timeout, quick), ``progress``, ``summary``, ``errors``, ``batch_size`` (IDs per task, default
    :data:`~pubfetch.distributed.submit.BATCH_SIZE`) and the run settings of ``config`` and the keyword options
    (:data:`~pubfetch.config.JOB_SETTINGS`: batch sizes of the batched services, links, linger) work as they do here.
    Refused with a ValueError: the settings that belong to each worker (endpoints, credentials and contact e-mails,
    threads, connections, rate limits, the address guard, the browser: :data:`~pubfetch.config.WORKER_SETTINGS`; in
    ``args`` the User-Agent, e-mails and rule files), as keyword options, in ``args`` or in ``config`` (there when
    they differ from both their defaults and this process's own configuration, which the workers would not use),
    ``context`` and ``rate_limiter`` (live objects of this process), ``use_stored=False``, ``retry_exceptions=False``
    and ``deferred`` (workers always use the stored entries and retry failures at the job's end), a snowball, and a
    ``db`` that is an open Store rather than a URL or path the workers reach. Celery is the ``cluster`` extra.
    """
    call = FetchOptions(progress=progress, summary=summary, retry_exceptions=retry_exceptions,
                        use_stored=use_stored, errors=errors, deferred=deferred, edges=edges)
    plan = SnowballPlan(citations, expand_references, depth, max_hits)
    if queue is not None:
        from pubfetch.distributed.submit import QueuedCall, fetch_through_queue

        return fetch_through_queue(ids, db, queue, QueuedCall(config, args, parts, options, call, context=context,
                                                              rate_limiter=rate_limiter, snowball=plan.follows))
    if plan.follows and deferred is not None:
        raise ValueError("a snowball retries its own failures at the end of each depth: deferred= cannot be given "
                         "with citations= or expand_references=")
    cfg = call_config(config, args, parts, options, "fetch_many")
    if plan.expand_references and not cfg.run.rich_parts:
        raise ValueError("expand_references follows the reference lists, a rich part, which rich_parts=False leaves "
                         "out: give only one of them")
    return _fetched(cfg, ids, db, call, plan, context=context, rate_limiter=rate_limiter)


def _fetched(cfg: FetchConfig, ids: Iterable[IdsLike], db: DbLike, call: FetchOptions, plan: SnowballPlan, *,
             context: Context | None, rate_limiter: RateLimiter | None) -> Iterator[Publication]:
    """The publications of one :func:`fetch_many` call in this process, in a run built when the first is asked for
    and closed when they end or the stream is dropped."""
    with FetchRun(cfg, context=context, rate_limiter=rate_limiter) as run:
        if plan.follows:
            yield from snowball_fetch(run, ids, db, plan, call)
        else:
            yield from run.fetch(ids, db, call)


def fetch_retries(entries: Iterable[RetryEntry], db: DbLike = None, parts: Iterable[PartName | str] | None = None,
                  args: FetcherArgs | None = None, *, config: FetchConfig | None = None,
                  summary: BatchSummary | None = None, errors: Errors = "skip",
                  rate_limiter: RateLimiter | None = None) -> Iterator[Publication]:
    """The end-of-run retry of publications that :func:`fetch_many` deferred (``deferred=``), in the order given,
    each asked only what failed; yields them as they are done."""
    cfg = call_config(config, args, parts, {}, "fetch_retries")
    with FetchRun(cfg, rate_limiter=rate_limiter) as run:
        yield from run.fetch_retries(entries, db, summary=summary, errors=checked_errors(errors))


def fetch(
    id_or_ids: IdsLike,
    db: DbLike = None,
    parts: Iterable[PartName | str] | None = None,
    args: FetcherArgs | None = None,
    *,
    config: FetchConfig | None = None,
    **options: object,
) -> Publication:
    """One publication, from the database when it holds a complete enough entry: ``fetch("10.1093/nar/gkz369")``.

    Raises :class:`~pubfetch.ids.InvalidId` for an ID that is none of PMID, PMCID, DOI, and :class:`FetchError` (with
    the publication attached) when nothing could be fetched because of transient failures. A partial result is
    returned: ``pub.status()`` and ``pub.problems()`` say what is missing.
    """
    cfg = call_config(config, args, parts, options, "fetch")
    pubs = list(fetch_many([id_or_ids], db=db, config=cfg, errors="raise"))
    return pubs[0]


# --- writing publications as they are ------------------------------------------------------------------------------


def put_publications(store: Store, pubs: Iterable[Publication]) -> int:
    """Put publications into a database as they are (PubFetcher's -put); return how many could not be put."""
    failed = sum(1 for pub in pubs if not store.put_publication(pub))
    store.commit()
    return failed


def remove_publications(store: Store, ids: Iterable[T]) -> list[T]:
    """Remove publications from a database (PubFetcher's -remove, -remove-ids); return the IDs that were not there."""
    missing = [i for i in ids if not store.remove_publication(i)]
    store.commit()
    return missing


def update_citations_count(pubs: Sequence[Publication], store: Store | None, *, context: Context) -> int:
    """Refresh the citation counts of publications from Europe PMC and put them all into ``store`` when given
    (PubFetcher's -update-citations-count); return how many counts changed."""
    updated = update_citations(context, pubs)
    if store is not None:
        put_publications(store, pubs)
    return updated
