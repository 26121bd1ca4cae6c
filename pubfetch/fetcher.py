"""The library's front door: fetch publications (one, or a stream of many), webpages and docs, with or without a
database.

PubFetcher's getPublication consults the database, fetches when can_fetch allows, and stores. The same here, but
``fetch_many`` does it for a stream of IDs in batches: IDs are read lazily, each batch is walked through the resource
chain together, written to the database (one transaction per entry) and yielded; memory stays flat for any number of
IDs and a killed run re-run with the same arguments skips what is already complete.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

from pubfetch import ids as idmod
from pubfetch.chain import Claims, fetch_publications, identity_keys
from pubfetch.config import FetchConfig, FetchOptions
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.resources.base import Context, PubRun
from pubfetch.resources.europepmc import update_citations
from pubfetch.resources.resume import Resume
from pubfetch.store import Store, open_or_init_store
from pubfetch.store.spill import SpillList
from pubfetch.store.writer import StoreWriter

if TYPE_CHECKING:
    from pubfetch.net.counts import RequestCounts

log = logging.getLogger(__name__)

IdsLike = str | idmod.PublicationIds
DbLike = str | os.PathLike[str] | Store | None
Progress = Callable[[int, Publication], None]
T = TypeVar("T", idmod.PublicationIds, Publication)


@dataclass
class BatchSummary:
    """How a run ended: counts of entries by outcome (what the CLI's summary line and exit status report).

    ``failed`` entries got nothing usable or ended with a transient failure (fetchException); ``partial`` ones are
    neither final nor failed. ``retry_limited`` entries are incomplete and used up their retries: a re-run skips them
    until ``eligible_at`` (epoch ms), or at once with the cooldown options of ``eligible_options`` set to 0.
    """

    total: int = 0
    fetched: int = 0
    skipped: int = 0
    final: int = 0
    not_final: int = 0
    fetch_exception: int = 0
    empty: int = 0
    failed: int = 0
    retry_limited: int = 0
    eligible_at: int = 0
    eligible_options: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        #: requests, failures and 429s per host of the client that fetched (set by fetch_many; for the run report).
        #: Not a field: the counts are plain numbers that dataclasses.asdict turns into JSON for the distributed
        #: workers, and these live counters are neither copyable nor JSON.
        self.requests: RequestCounts | None = None

    @property
    def partial(self) -> int:
        return self.not_final - self.failed

    def count(self, pub: Publication, args: FetcherArgs, fetched: bool) -> None:
        self.total += 1
        if fetched:
            self.fetched += 1
        else:
            self.skipped += 1
        if pub.is_final(args):
            self.final += 1
        else:
            self.not_final += 1
            if pub.state.fetch_exception or pub.is_empty():
                self.failed += 1
            if not pub.state.can_fetch(pub, args):
                self._retry_limited(pub.state.eligible_again(pub, args))
        if pub.state.fetch_exception:
            self.fetch_exception += 1
        if pub.is_empty():
            self.empty += 1

    def _retry_limited(self, eligible: tuple[int, str] | None) -> None:
        self.retry_limited += 1
        if eligible is not None:
            at, option = eligible
            self.eligible_at = min(self.eligible_at, at) if self.eligible_at else at
            self.eligible_options.add(option)

    def line(self) -> str:
        """The line that closes a fetching run: ``37 publications: 30 fetched, 7 skipped; 24 final, 13 partial, 0
        failed``, and when some reached the retry limit, when they become eligible again."""
        text = (f"{self.total} publications: {self.fetched} fetched, {self.skipped} skipped; {self.final} final, "
                f"{self.partial} partial, {self.failed} failed")
        if self.retry_limited:
            text += f"; {self.retry_limited} reached the retry limit"
            if self.eligible_at:
                when = datetime.fromtimestamp(self.eligible_at / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")
                options = " ".join(f"{o} 0" for o in sorted(self.eligible_options))
                text += f"; eligible again after {when} or with {options}"
        return text


class FetchError(Exception):
    """Nothing could be fetched for a publication, and the failures are worth another try later (fetchException).
    The message names the kinds of failure seen (not found, refused, timed out, blocked, transient) and what to do;
    ``publication`` is what there is: its IDs and its fetch state, as stored; ``failures`` counts each kind."""

    def __init__(self, publication: Publication) -> None:
        ids = ", ".join(p.content for p in (publication.pmid, publication.pmcid, publication.doi) if p.content)
        self.failures = dict(publication.state.failures)
        seen = sorted(self.failures.items(), key=lambda kv: (-kv[1], kv[0]))
        what = ", ".join(f"{word} ({count})" for word, count in seen) or "stopped before an answer"
        super().__init__(f"nothing could be fetched for {ids}: the requests failed: {what}; {_advice(self.failures)}")
        self.publication = publication


def _advice(failures: dict[str, int]) -> str:
    """What to do about the failures of a :class:`FetchError`, for the kinds that were seen."""
    advice = []
    if "transient" in failures or not failures:
        advice.append("the network or the services may be down or busy: fetching again later may work")
    if "timed out" in failures:
        advice.append("a longer timeout may help (--timeout, in milliseconds; FetcherArgs(timeout=...) in the library)")
    if "not found" in failures or "refused" in failures:
        advice.append("the services do not know this ID or refused it: check it")
    if "blocked" in failures:
        advice.append("an address or URL was refused by the guard (see the log)")
    return "; ".join(advice)


def failed_transiently(pub: Publication) -> bool:
    """Whether a fetch gave nothing but a transient failure (what :class:`FetchError` reports)."""
    return pub.state.fetch_exception and pub.is_empty()


def to_ids(value: IdsLike) -> idmod.PublicationIds:
    """A PMID, PMCID, DOI (or a link to one) or PublicationIds, as PublicationIds; InvalidId (a ValueError) says why
    a string is none of them."""
    if isinstance(value, idmod.PublicationIds):
        return value
    return idmod.classify(str(value))


def init_publication(ids: idmod.PublicationIds, args: FetcherArgs) -> Publication:
    """A new publication holding the given IDs as ``external`` parts (PubFetcher's initPublication)."""
    pub = Publication()
    pub.set_pmid(ids.pmid, PartType.external, ids.pmid_url, args)
    pub.set_pmcid(ids.pmcid, PartType.external, ids.pmcid_url, args)
    pub.set_doi(ids.doi, PartType.external, ids.doi_url, args)
    if pub.id_count() < 1:
        raise ValueError(f"no valid ID in {ids}")
    return pub


def _config(config: FetchConfig | None, args: FetcherArgs | None, parts: Iterable[PartName | str] | None,
            options: FetchOptions, caller: str) -> FetchConfig:
    """The run's configuration: ``config`` (default: from the config file and environment), then the call's
    ``args``, ``parts`` and keyword options."""
    cfg = (config or FetchConfig.from_env()).with_options(options, caller)
    return cfg.with_options({"args": args, "parts": None if parts is None else frozenset(
        p if isinstance(p, PartName) else PartName.parse(p) for p in parts)}, caller)


def _open(stack: ExitStack, db: DbLike) -> Store | None:
    if db is None or isinstance(db, Store):
        return db
    store = open_or_init_store(db)
    stack.callback(store.close)
    return store


def fetch_many(
    ids: Iterable[IdsLike],
    db: DbLike = None,
    parts: Iterable[PartName | str] | None = None,
    args: FetcherArgs | None = None,
    *,
    config: FetchConfig | None = None,
    context: Context | None = None,
    progress: Progress | None = None,
    summary: BatchSummary | None = None,
    retry_exceptions: bool = True,
    use_stored: bool = True,
    errors: str = "skip",
    deferred: list[dict[str, Any]] | None = None,
    **options: Unpack[FetchOptions],
) -> Iterator[Publication]:
    """Fetch publications for a stream of IDs, yielding each when its batch is done (in input order within a batch;
    two batches are fetched at a time, see :func:`_overlapped`).

    Args:
        ids: PMIDs, PMCIDs, DOIs (or their URLs), or PublicationIds; read lazily.
        db: a database path/URL or open Store: entries are read from it, fetched only when can_fetch allows, and
            written back after each batch. Without a database every publication is fetched.
        parts: fetch only these parts (PubFetcher's --fetch-part).
        args: PubFetcher's fetching parameters.
        config: everything else (endpoints, credentials, threads, batch size); default from the environment.
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
        options: FetchConfig fields to override (``threads=4``, ``batch_size=1``, ``rate_limits=False``, ...).

    Without ``context``, requests wait for the services' rate limits shared with every other pubfetch process
    (:meth:`FetchConfig.with_shared_rate_limits`) unless ``rate_limits=False``.
    """
    if errors not in ("skip", "raise"):
        raise ValueError(f"errors must be 'skip' or 'raise', not {errors!r}")
    cfg = _config(config, args, parts, options, "fetch_many")
    with ExitStack() as stack:
        store, writer, ctx = _session(stack, cfg, db, context, summary)
        tally = _Tally(ctx.args, summary, progress, retry_exceptions)
        stack.callback(tally.retry.close)
        batches = _loaded_batches(iter(ids), cfg.batch_size, store if use_stored else None, ctx.args, errors)
        yield from _overlapped(ctx, writer, batches, tally, errors, in_flight=2 if cfg.batch_size > 1 else 1,
                               own_context=context is None)
        if deferred is not None:
            for entries in tally.retry.chunks(cfg.batch_size):
                deferred.extend(entries)
            return
        yield from _retried(ctx, writer, tally, tally.retry.chunks(cfg.batch_size), len(tally.retry), errors)


def fetch_retries(entries: Iterable[dict[str, Any]], db: DbLike = None, parts: Iterable[PartName | str] | None = None,
                  args: FetcherArgs | None = None, *, config: FetchConfig | None = None,
                  summary: BatchSummary | None = None, errors: str = "skip") -> Iterator[Publication]:
    """The end-of-run retry of publications that :func:`fetch_many` deferred (``deferred=``), in the order given,
    each asked only what failed; yields them as they are done."""
    cfg = _config(config, args, parts, {}, "fetch_retries")
    entries = list(entries)
    with ExitStack() as stack:
        _, writer, ctx = _session(stack, cfg, db, None, summary)
        tally = _Tally(ctx.args, summary, None, retry_exceptions=False)
        chunks = (entries[i:i + cfg.batch_size] for i in range(0, len(entries), cfg.batch_size))
        yield from _retried(ctx, writer, tally, chunks, len(entries), errors)


def _session(stack: ExitStack, cfg: FetchConfig, db: DbLike, context: Context | None,
             summary: BatchSummary | None) -> tuple[Store | None, StoreWriter | None, Context]:
    """The store, its writer and the context of a fetch run, closed with ``stack``."""
    store = _open(stack, db)
    writer = stack.enter_context(StoreWriter(store)) if store is not None else None
    ctx = context or stack.enter_context(Context(cfg.with_shared_rate_limits() if cfg.rate_limits else cfg))
    watch = getattr(ctx.client, "watch", None)
    if watch is not None:  # this run stops when the network is down: before the first answer, one try per host
        stack.enter_context(watch.watching())
    if summary is not None and summary.requests is None:
        summary.requests = ctx.client.counts
    return store, writer, ctx


def _retried(ctx: Context, writer: StoreWriter | None, tally: _Tally, chunks: Iterable[list[dict[str, Any]]],
             count: int, errors: str) -> Iterator[Publication]:
    """The end-of-run retry: each publication of ``chunks`` (``"pub"``, ``"resume"``) asked again only what failed."""
    if not count:
        return
    log.info("retrying %d publications that ended with a fetch exception: only what failed", count)
    tally.retry_exceptions = False
    for entries in chunks:
        pubs, resumes = _waiting(entries, ctx.client.config.retry_after_cap_s)
        yield from _checked(_fetch_batch(ctx, writer, pubs, tally, tally.next_batch(), resumes=resumes), errors)


def _loaded_batches(ids: Iterator[IdsLike], size: int, store: Store | None, args: FetcherArgs,
                    errors: str) -> Iterator[list[Publication]]:
    """The input a batch at a time, each read from the database when it is taken (so after the batches before the
    one in flight have been stored)."""
    while batch := list(islice(ids, size)):
        yield [_load(store, ids, args) for ids in _valid_ids(batch, errors)]


def _overlapped(ctx: Context, store: StoreWriter | None, batches: Iterator[list[Publication]], tally: _Tally,
                errors: str, *, in_flight: int, own_context: bool) -> Iterator[Publication]:
    """Fetch the batches ``in_flight`` at a time, yielding each batch's publications (in input order) when it is done.

    A batch's last publications keep a few hosts busy while the others wait: its closed-access half still at
    Unpaywall while Europe PMC has nothing left to do, its last annotations and efetch requests, storing and loading
    between batches. Measured on 400 PMIDs, 2.3 s of every 13 s batch went so. With the next batch already under
    way, every host has work until the end of the run. A paper named twice in two batches in flight is fetched once
    (:class:`~pubfetch.chain.Claims`). A bad line in the input stops the run after the batches before it are done.
    When the reading stops early otherwise (an interrupt, an error, the caller leaving the loop), the requests not yet
    sent are not sent and the batches in flight are waited for, so nothing runs on after this returns; their
    publications that were complete are stored."""
    claims = Claims()
    window: deque[tuple[int, Future[list[Publication]]]] = deque()
    bad_input: Exception | None = None
    with ThreadPoolExecutor(in_flight, thread_name_prefix="pubfetch-batch") as pool:
        try:
            while bad_input is None:
                try:
                    batch = next(batches)
                except StopIteration:
                    break
                except Exception as e:  # a bad line (--strict, errors="raise"): what is in flight is finished first
                    bad_input = e
                    break
                mark = tally.next_batch()
                window.append((mark.number, pool.submit(_fetch_batch, ctx, store, batch, tally, mark, claims)))
                while len(window) >= in_flight:
                    yield from _checked(_done(window, claims), errors)
            while window:
                yield from _checked(_done(window, claims), errors)
        finally:
            if window:
                interrupted = isinstance(sys.exc_info()[1], KeyboardInterrupt)
                _stop(ctx, [future for _, future in window], own_context, interrupted)
    if bad_input is not None:
        raise bad_input


def _done(window: deque[tuple[int, Future[list[Publication]]]], claims: Claims) -> list[Publication]:
    number, future = window[0]
    pubs = future.result()
    window.popleft()
    # the batch before this one is forgotten now, not when it was done: the batch after it was read from the database
    # while it was in flight (so did not find its papers there) and is done only now
    claims.forget(number - 1)
    return pubs


def _stop(ctx: Context, futures: list[Future[list[Publication]]], own_context: bool, interrupted: bool) -> None:
    """Stop sending and wait for the batches still in flight (their errors are the stop's consequence, not news);
    after an interrupt, the exchanges in flight are cut rather than waited for."""
    watch = getattr(ctx.client, "watch", None)
    was_stopped = watch.stopped if watch is not None else False
    if watch is not None:
        watch.stopped = True
    cut = getattr(ctx.client, "cut_in_flight", None)
    if interrupted and cut is not None:
        cut()
    for future in futures:
        future.cancel()
    wait(futures)
    if watch is not None and not own_context:
        watch.stopped = was_stopped  # the caller's context goes on serving


class _Tally:
    """Counts and reports publications as they complete (on worker threads): the summary, the progress callback, the
    end-of-run retry list, and the IDs reported in the current batch (the same paper given again under another ID in
    the batch is not reported twice). Only the batch's IDs are remembered, so memory stays flat for any stream; the
    same paper further apart is found complete in the database, not fetched again, and reported as skipped. The retry
    list waits on disk (:class:`~pubfetch.store.spill.SpillList`), so it does not grow memory either, whatever fails."""

    def __init__(self, args: FetcherArgs, summary: BatchSummary | None, progress: Progress | None,
                 retry_exceptions: bool) -> None:
        self.args = args
        self.summary = summary
        self.progress = progress
        self.retry_exceptions = retry_exceptions
        self.retry = SpillList()
        self.batches = 0
        self.done = 0
        self._lock = threading.Lock()

    def next_batch(self) -> BatchMark:
        self.batches += 1
        return BatchMark(self.batches)

    def complete(self, pub: Publication, fetched: bool, batch: BatchMark, run: PubRun | None = None,
                 position: int = 0) -> bool:
        """Whether ``pub`` is reported now; False when it waits for the end-of-run retry (with the ``run`` it was
        fetched by and its ``position`` in its ``batch``, which order the retry) or was already reported."""
        with self._lock:
            if fetched and run is not None and pub.state.fetch_exception and self.retry_exceptions:
                resume = Resume.of(run)
                if resume.worth_retrying:
                    self.retry.append((batch.number, position),
                                      {"pub": pub.to_json(computed=False), "resume": resume.to_json()})
                    return False
            if not batch.reported.add(pub):
                return False
            self.done += 1
            if self.summary is not None:
                self.summary.count(pub, self.args, fetched)
            if self.progress is not None:
                self.progress(self.done, pub)
            return True


def _checked(pubs: list[Publication], errors: str) -> Iterator[Publication]:
    for pub in pubs:
        if errors == "raise" and failed_transiently(pub):
            raise FetchError(pub)
        yield pub


class Identities:
    """Publications already reported, by PMID, PMCID and DOI: the same paper given again under another ID (a later
    line of the file) is found complete in the database and must not be reported twice."""

    def __init__(self) -> None:
        self._keys: set[int] = set()

    def add(self, pub: Publication) -> bool:
        """Whether ``pub`` is new (then remembered): none of its IDs was seen."""
        keys = [hash(k) for k in identity_keys(pub)]
        if any(k in self._keys for k in keys):
            return False
        self._keys.update(keys)
        return True


@dataclass
class BatchMark:
    """A batch of the run: its number (the end-of-run retry asks in input order) and the papers it reported (the same
    paper given again under another ID in the batch is reported once)."""

    number: int
    reported: Identities = field(default_factory=Identities)


def _valid_ids(batch: list[IdsLike], errors: str) -> Iterator[idmod.PublicationIds]:
    """The IDs of a batch; blank lines and ``#`` comments (as read from an ID file) are passed over."""
    for value in batch:
        if isinstance(value, str) and (not value.strip() or value.lstrip().startswith("#")):
            continue
        try:
            yield to_ids(value)
        except idmod.InvalidId as e:
            if errors == "raise":
                raise
            log.warning("skipping %r: %s", str(value), e)


def _load(store: Store | None, ids: idmod.PublicationIds, args: FetcherArgs) -> Publication:
    pub = store.get_publication(ids) if store is not None else None
    return pub if pub is not None else init_publication(ids, args)


def _waiting(entries: list[dict], cap_s: float) -> tuple[list[Publication], list[Resume | None]]:
    """Publications of the retry list with where they stopped, once the latest Retry-After among them (at most
    ``cap_s`` from now) has passed."""
    pubs = [Publication.from_json(entry["pub"]) for entry in entries]
    resumes: list[Resume | None] = [Resume.from_json(entry["resume"]) for entry in entries]
    wait = min(max(resume.not_before for resume in resumes if resume is not None) - time.time(), cap_s)
    if wait > 0:
        log.info("waiting %.1f s for the services' Retry-After before retrying", wait)
        time.sleep(wait)
    return pubs, resumes


def _fetch_batch(ctx: Context, store: StoreWriter | None, batch: list[Publication], tally: _Tally, mark: BatchMark,
                 claims: Claims | None = None, resumes: list[Resume | None] | None = None) -> list[Publication]:
    """Fetch the publications can_fetch allows (starting where ``resumes`` say, for the end-of-run retry); store and
    report each one as soon as it is complete (so that an interrupt loses only what is in flight); return the
    reported ones in input order."""
    args = ctx.args
    reported: set[int] = set()
    to_fetch: list[Publication] = []
    starts: list[Resume | None] = []
    for pub, resume in zip(batch, resumes or [None] * len(batch), strict=True):
        if pub.state.can_fetch(pub, args):
            pub.state.update_counters(pub, args)
            to_fetch.append(pub)
            starts.append(resume)
        elif tally.complete(pub, False, mark):
            reported.add(id(pub))
    if not to_fetch:
        return [pub for pub in batch if id(pub) in reported]
    watch = getattr(ctx.client, "watch", None)
    lock = threading.Lock()
    completed: set[int] = set()
    # publications complete in any order; the retry asks (and reports) them in input order
    order = {id(pub): index for index, pub in enumerate(batch)}

    def done(run: PubRun) -> None:
        pub = run.pub
        if watch is not None and watch.halted:
            return  # network down or run stopping: its last requests were not sent, it stays as it was stored
        with lock:
            completed.add(id(pub))
            if store is not None:  # committed when it returns; the write-ahead log is folded back once a batch
                store.put_publication(pub)
        if pub.retracted:
            warn_retracted(pub)
        if tally.complete(pub, True, mark, run, order.get(id(pub), 0)):
            with lock:
                reported.add(id(pub))

    holders = fetch_publications(ctx, to_fetch, done, starts, claims, mark.number)
    if watch is not None and watch.down:
        raise watch.error()
    for pub, holder in zip(to_fetch, holders, strict=True):
        if holder is pub and id(pub) not in completed:  # gave up after its IDs kept changing
            done(PubRun(pub))
    if store is not None:
        store.commit()
    return [pub for pub in batch if id(pub) in reported]


def warn_retracted(pub: Publication) -> None:
    """One line for a retracted paper as it is fetched: a data set built from the output should not cite it
    unknowingly (the entry keeps its content, with ``retracted: true``)."""
    notices = pub.retraction_notices()
    ids = ", ".join(i for i in (pub.pmid.content, pub.pmcid.content, pub.doi.content) if i)
    log.warning("%s is a retracted publication%s", ids, f" (retraction notice {', '.join(notices)})" if notices else "")


def fetch(
    id_or_ids: IdsLike,
    db: DbLike = None,
    parts: Iterable[PartName | str] | None = None,
    args: FetcherArgs | None = None,
    *,
    config: FetchConfig | None = None,
    **options: Unpack[FetchOptions],
) -> Publication:
    """One publication, from the database when it holds a complete enough entry: ``fetch("10.1093/nar/gkz369")``.

    Raises :class:`~pubfetch.ids.InvalidId` for an ID that is none of PMID, PMCID, DOI, and :class:`FetchError` (with
    the publication attached) when nothing could be fetched because of transient failures. A partial result is
    returned: ``pub.status()`` and ``pub.problems()`` say what is missing.
    """
    pubs = list(fetch_many([id_or_ids], db=db, config=_config(config, args, parts, options, "fetch"), errors="raise"))
    return pubs[0]


# --- writing publications: this module is the only one that does (webfetch writes pages) ---------------------------


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
