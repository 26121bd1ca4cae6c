"""The batches of a run in flight two at a time, then the end-of-run retry of what failed transiently."""

from __future__ import annotations

import logging
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait

from pubfetch.engine.flow import InFlight
from pubfetch.engine.resume import RetryEntry
from pubfetch.engine.run_batch import IdsLike, Walk, checked, fetch_batch, loaded_batches, waiting
from pubfetch.model.publication import Publication
from pubfetch.resources.base import Context

log = logging.getLogger(__name__)


def run_batches(walk: Walk, ids: Iterator[IdsLike]) -> Iterator[Publication]:
    """The publications of ``ids`` in batches (read from the walk's store when given, fetched as can_fetch allows,
    written through its writer), then those of the end-of-run retry, or, with the options' ``deferred``, the
    publications to retry put there (JSON: ``"pub"``, ``"resume"``) for a later :func:`retried` (a queued job's last
    batch)."""
    ctx, tally, errors = walk.ctx, walk.tally, walk.options.errors
    yield from overlapped(walk, loaded_batches(ids, walk.size, walk.reader, ctx.args, errors))
    published = tally.published.take() if tally.published is not None else []
    if published:  # --follow-published: the journal versions of the input's preprints
        log.info("fetching the journal versions of %d preprint%s", len(published), "" if len(published) == 1 else "s")
        yield from overlapped(walk, loaded_batches(iter(published), walk.size, walk.reader, ctx.args, errors))
    deferred = walk.options.deferred
    if deferred is not None:
        for entries in tally.retry.chunks(walk.size):
            deferred.extend(entries)
        return
    yield from retried(walk, tally.retry.chunks(walk.size), len(tally.retry))


def retried(walk: Walk, chunks: Iterable[list[RetryEntry]], count: int) -> Iterator[Publication]:
    """The end-of-run retry: each publication of ``chunks`` (``"pub"``, ``"resume"``) asked again only what failed."""
    if not count:
        return
    log.info("retrying %d publication%s that ended with a fetch exception: only what failed", count,
             "" if count == 1 else "s")
    walk.tally.retry_exceptions = False
    for entries in chunks:
        pubs, resumes = waiting(entries, walk.ctx.client.config.retry_after_cap_s)
        reported = fetch_batch(walk, pubs, walk.tally.next_batch(), resumes=resumes)
        yield from checked(reported, walk.options.errors)


def overlapped(walk: Walk, batches: Iterator[list[Publication]]) -> Iterator[Publication]:
    """Fetch the batches two at a time (one at a time when they hold one publication each), yielding each batch's
    publications (in input order) when it is done.

    A batch's last publications keep a few hosts busy while the others wait: its closed-access half still at
    Unpaywall while Europe PMC has nothing left to do, its last annotations and efetch requests, storing and loading
    between batches. With the next batch already under way, every host has work until the end of the run. A paper
    named twice in two batches in flight is fetched once (:class:`~pubfetch.engine.claims.Claims`). A bad line in
    the input stops the run after the batches before it are done.
    When the reading stops early otherwise (an interrupt, an error, the caller leaving the loop), the requests not yet
    sent are not sent and the batches in flight are waited for, so nothing runs on after this returns; their
    publications that were complete are stored.
    With the walk's ``shared`` (the batches of other callers running in the same context at the same time), this run's
    batches gather with theirs too; unless it is the context's only run (:attr:`InFlight.alone`), a stop other
    than an interrupt then waits for its batches without halting the context, whose other callers go on."""
    ctx, tally, errors, scope, in_flight = walk.ctx, walk.tally, walk.options.errors, walk.scope, walk.in_flight
    shared = walk.shared or InFlight(ctx)
    window: deque[tuple[int, Future[list[Publication]]]] = deque()
    bad_input: Exception | None = None
    with ThreadPoolExecutor(in_flight, thread_name_prefix="pubfetch-batch") as pool:
        try:
            while bad_input is None:
                number = shared.begin(scope)  # before it is read: batches ending meanwhile keep their claims for it
                try:
                    batch = next(batches)
                except StopIteration:
                    shared.end(number)
                    break
                except Exception as e:  # a bad line (--strict, errors="raise"): what is in flight is finished first
                    shared.end(number)
                    bad_input = e
                    break
                except BaseException:
                    shared.end(number)
                    raise
                mark = tally.next_batch(number)
                try:
                    window.append((number, pool.submit(fetch_batch, walk, batch, mark, shared)))
                except BaseException:
                    shared.end(number)
                    raise
                while len(window) >= in_flight:
                    yield from checked(_done(window, shared), errors)
            while window:
                yield from checked(_done(window, shared), errors)
        finally:
            if window:
                interrupted = isinstance(sys.exc_info()[1], KeyboardInterrupt)
                futures = [future for _, future in window]
                _stop(ctx, futures, walk.own_context, interrupted, halt=shared.alone or interrupted)
                for number, _ in window:
                    shared.end(number)
    if bad_input is not None:
        raise bad_input


def _done(window: deque[tuple[int, Future[list[Publication]]]], shared: InFlight) -> list[Publication]:
    number, future = window[0]
    pubs = future.result()
    window.popleft()
    shared.end(number)
    return pubs


def _stop(ctx: Context, futures: list[Future[list[Publication]]], own_context: bool, interrupted: bool,
          halt: bool = True) -> None:
    """Stop sending (``halt``) and wait for the batches still in flight (their errors are the stop's consequence, not
    news); after an interrupt, the exchanges and the page render in flight are cut rather than waited for
    (:meth:`~pubfetch.resources.base.Context.interrupt`)."""
    if interrupted:  # nothing more sent, waited for or rendered; what is in flight is cut
        resume = ctx.interrupt()
    else:
        watch = getattr(ctx.client, "watch", None) if halt else None
        was_stopped = watch.stopped if watch is not None else False
        if watch is not None:
            watch.stopped = True

        def resume() -> None:
            if watch is not None:
                watch.stopped = was_stopped

    for future in futures:
        future.cancel()
    wait(futures)
    if not own_context:
        resume()  # the caller's context goes on serving
