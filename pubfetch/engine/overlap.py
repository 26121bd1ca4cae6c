"""The batches of a run in flight two at a time (more while their last publications wait for company), then the
end-of-run retry of what failed transiently."""

from __future__ import annotations

import logging
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

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


@dataclass
class _Begun:
    """A batch of the run begun: its number, its fetch, and whether it was released (its unfinished publications wait
    only for company)."""

    number: int
    future: Future[list[Publication]]
    released: threading.Event

    @property
    def running(self) -> bool:
        return not self.released.is_set() and not self.future.done()


def overlapped(walk: Walk, batches: Iterator[list[Publication]]) -> Iterator[Publication]:
    """Fetch the batches two at a time (one at a time when they hold one publication each), yielding each batch's
    publications (in input order) when it is done.

    A batch's last publications keep a few hosts busy while the others wait: its closed-access half still at
    Unpaywall while Europe PMC has nothing left to do, its last annotations and efetch requests, storing and loading
    between batches. With the next batch already under way, every host has work until the end of the run. A paper
    named twice in two batches in flight is fetched once (:class:`~pubfetch.engine.claims.Claims`). A bad line in
    the input stops the run after the batches before it are done.
    A batch whose unfinished publications all wait for company in batched requests (their second passes, gathered
    while another service bounds the run: :mod:`pubfetch.engine.service_batcher`) no longer counts as in flight: the
    next batch starts and its publications join those requests. Nor does a batch that is done but waits to be
    reported after an older one. Such a batch is reported when its last publication is done (and the batches before
    it are); at most the walk's :attr:`~pubfetch.engine.run_batch.Walk.carry` batches are begun and not yet reported
    (their publications are in memory), and when that many are, the requests holding the oldest one's go at once.
    When the reading stops early otherwise (an interrupt, an error, the caller leaving the loop), the requests not yet
    sent are not sent and the batches in flight are waited for, so nothing runs on after this returns; their
    publications that were complete are stored.
    With the walk's ``shared`` (the batches of other callers running in the same context at the same time), this run's
    batches gather with theirs too; unless it is the context's only run (:attr:`InFlight.alone`), a stop other
    than an interrupt then waits for its batches without halting the context, whose other callers go on."""
    ctx, errors, in_flight = walk.ctx, walk.options.errors, walk.in_flight
    carry = max(walk.carry, in_flight)
    shared = walk.shared or InFlight(ctx)
    window: deque[_Begun] = deque()
    changed = threading.Event()  # a batch was released or done
    reader = _Reader(walk, batches, shared, changed)
    with ThreadPoolExecutor(carry, thread_name_prefix="pubfetch-batch") as pool:
        try:
            while True:
                changed.clear()
                promised = reader.promised()
                # the next batch starts before a done one is handed out, so that the hosts have its work while the
                # caller handles the publications
                if reader.more and sum(begun.running for begun in window) < in_flight and len(window) < carry:
                    reader.begin(pool, window)
                    reader.keep(promised)  # the batch begun is announced in its own name now
                    continue
                reader.keep(promised)  # no batch follows the releases: the batches held for them go
                if window and window[0].future.done():
                    yield from checked(_done(window, shared), errors)
                elif not window:
                    break
                else:
                    if reader.more and len(window) >= carry > in_flight:  # memory's bound: the oldest's company comes
                        shared.batcher.urge(window[0].number)
                    changed.wait()
        finally:
            reader.stop()
            if window:
                interrupted = isinstance(sys.exc_info()[1], KeyboardInterrupt)
                futures = [begun.future for begun in window]
                _stop(ctx, futures, walk.own_context, interrupted, halt=shared.alone or interrupted)
                for begun in window:
                    shared.end(begun.number)
    if reader.bad_input is not None:
        raise reader.bad_input


class _Reader:
    """The batches of the run read and started one by one; while more may come, the batcher counts on them: the
    input's rest (``streaming``), a batch being read and started (``coming`` under its number, until its publications
    are in the batcher), and the batch a release lets begin (``coming`` from the release until the loop has begun it
    or found that it cannot), so that a batch held for company never goes in the moment between two batches."""

    def __init__(self, walk: Walk, batches: Iterator[list[Publication]], shared: InFlight,
                 changed: threading.Event) -> None:
        self.walk, self.batches, self.shared, self.changed = walk, batches, shared, changed
        self.more = True
        self.bad_input: Exception | None = None
        self._lock = threading.Lock()  # ``more`` and the releases' announcements, which other threads add to
        self._promises: list[tuple[str, int]] = []
        shared.batcher.streaming(True)

    def stop(self) -> None:
        with self._lock:
            if not self.more:
                return
            self.more = False
            promised = list(self._promises)
        self.keep(promised)
        self.shared.batcher.streaming(False)

    def released(self, number: int) -> None:
        """Batch ``number`` was released (on the batcher's thread, under its lock): the batch it lets begin is
        announced until the loop has taken the release up (:meth:`promised`, :meth:`keep`)."""
        with self._lock:
            if not self.more:
                return
            key = ("after", number)
            self._promises.append(key)
            self.shared.batcher.coming(key)
        self.changed.set()

    def promised(self) -> list[tuple[str, int]]:
        """The releases announced so far, for the loop's next decision to take up."""
        with self._lock:
            return list(self._promises)

    def keep(self, promised: list[tuple[str, int]]) -> None:
        """The announcements of ``promised`` withdrawn: the batch they promised has begun, or none will."""
        with self._lock:
            self._promises = [key for key in self._promises if key not in promised]
        for key in promised:
            self.shared.batcher.arrived(key)

    def begin(self, pool: ThreadPoolExecutor, window: deque[_Begun]) -> None:
        """The next batch started into ``window``; at the end of the input, or at a bad line (``--strict``,
        ``errors="raise"``: what is in flight is finished first, then it is raised), no more."""
        try:
            begun = _begin(self.walk, self.batches, self.shared, pool, self.changed, self.released)
        except Exception as e:
            self.bad_input = e
            begun = None
        if begun is None:
            self.stop()
        else:
            window.append(begun)


def _begin(walk: Walk, batches: Iterator[list[Publication]], shared: InFlight, pool: ThreadPoolExecutor,
           changed: threading.Event, on_release: Callable[[int], None]) -> _Begun | None:
    """The next batch read and started (None: the input is over); ``changed`` is set when it is done, and
    ``on_release`` called with its number when it is released (under the batcher's lock). It is announced to the
    batcher from before it is read until its publications have started (or its fetch ended without them)."""
    number = shared.begin(walk.scope)  # before it is read: batches ending meanwhile keep their claims for it
    batcher = shared.batcher
    batcher.coming(number)
    was_released = threading.Event()

    def released() -> None:
        was_released.set()
        on_release(number)

    started = False
    try:
        batch = next(batches, None)
        if batch is None:
            return None
        mark = walk.tally.next_batch(number)

        def fetch() -> list[Publication]:
            try:
                return fetch_batch(walk, batch, mark, shared, released=released)
            finally:
                batcher.arrived(number)  # nothing of it was left to fetch, or it failed before its publications started

        future = pool.submit(fetch)
        started = True
    finally:
        if not started:  # the input is over, or reading or starting the batch failed: it does not come
            batcher.arrived(number)
            shared.end(number)
    future.add_done_callback(lambda _: changed.set())
    return _Begun(number, future, was_released)


def _done(window: deque[_Begun], shared: InFlight) -> list[Publication]:
    begun = window[0]
    pubs = begun.future.result()
    window.popleft()
    shared.end(begun.number)
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
