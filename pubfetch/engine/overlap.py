"""The batches of a run in flight two at a time, then the end-of-run retry of what failed transiently."""

from __future__ import annotations

import logging
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait

from pubfetch.engine.flow import InFlight
from pubfetch.engine.resume import RetryEntry
from pubfetch.engine.run_batch import IdsLike, Tally, checked, fetch_batch, loaded_batches, waiting
from pubfetch.model.publication import Publication
from pubfetch.resources.base import Context
from pubfetch.store import Store
from pubfetch.store.writer import StoreWriter

log = logging.getLogger(__name__)


def run_batches(ctx: Context, writer: StoreWriter | None, ids: Iterator[IdsLike], store: Store | None,
                tally: Tally, errors: str, size: int, *, own_context: bool,
                deferred: list[RetryEntry] | None = None, shared: InFlight | None = None,
                scope: str = "") -> Iterator[Publication]:
    """The publications of ``ids`` in batches of ``size`` (read from ``store`` when given, fetched as can_fetch
    allows, written through ``writer``), then those of the end-of-run retry, or, with ``deferred``, the publications
    to retry put there (JSON: ``"pub"``, ``"resume"``) for a later :func:`retried` (a queued job's last batch).
    ``shared``: the batches in flight of other callers in this context to gather with (claims within ``scope``)."""
    batches = loaded_batches(ids, size, store, ctx.args, errors)
    yield from overlapped(ctx, writer, batches, tally, errors, in_flight=2 if size > 1 else 1,
                          own_context=own_context, shared=shared, scope=scope)
    published = tally.published.take() if tally.published is not None else []
    if published:  # --follow-published: the journal versions of the input's preprints
        log.info("fetching the journal versions of %d preprint%s", len(published), "" if len(published) == 1 else "s")
        yield from overlapped(ctx, writer, loaded_batches(iter(published), size, store, ctx.args, errors), tally,
                              errors, in_flight=2 if size > 1 else 1, own_context=own_context, shared=shared,
                              scope=scope)
    if deferred is not None:
        for entries in tally.retry.chunks(size):
            deferred.extend(entries)
        return
    yield from retried(ctx, writer, tally, tally.retry.chunks(size), len(tally.retry), errors)


def retried(ctx: Context, writer: StoreWriter | None, tally: Tally, chunks: Iterable[list[RetryEntry]],
            count: int, errors: str) -> Iterator[Publication]:
    """The end-of-run retry: each publication of ``chunks`` (``"pub"``, ``"resume"``) asked again only what failed."""
    if not count:
        return
    log.info("retrying %d publication%s that ended with a fetch exception: only what failed", count,
             "" if count == 1 else "s")
    tally.retry_exceptions = False
    for entries in chunks:
        pubs, resumes = waiting(entries, ctx.client.config.retry_after_cap_s)
        yield from checked(fetch_batch(ctx, writer, pubs, tally, tally.next_batch(), resumes=resumes), errors)


def overlapped(ctx: Context, store: StoreWriter | None, batches: Iterator[list[Publication]], tally: Tally,
                errors: str, *, in_flight: int, own_context: bool, shared: InFlight | None = None,
                scope: str = "") -> Iterator[Publication]:
    """Fetch the batches ``in_flight`` at a time, yielding each batch's publications (in input order) when it is done.

    A batch's last publications keep a few hosts busy while the others wait: its closed-access half still at
    Unpaywall while Europe PMC has nothing left to do, its last annotations and efetch requests, storing and loading
    between batches. With the next batch already under way, every host has work until the end of the run. A paper
    named twice in two batches in flight is fetched once (:class:`~pubfetch.engine.claims.Claims`). A bad line in
    the input stops the run after the batches before it are done.
    When the reading stops early otherwise (an interrupt, an error, the caller leaving the loop), the requests not yet
    sent are not sent and the batches in flight are waited for, so nothing runs on after this returns; their
    publications that were complete are stored.
    With ``shared`` (the batches of other callers running in the same context at the same time), this run's
    batches gather with theirs too; unless it is the context's only run (:attr:`InFlight.alone`), a stop other
    than an interrupt then waits for its batches without halting the context, whose other callers go on."""
    shared = shared or InFlight(ctx)
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
                    window.append((number, pool.submit(fetch_batch, ctx, store, batch, tally, mark, shared)))
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
                _stop(ctx, [future for _, future in window], own_context, interrupted, halt=shared.alone or interrupted)
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
