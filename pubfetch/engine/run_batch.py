"""One batch of a run: its IDs read and loaded from the database, the publications can_fetch allows fetched, each
stored and reported as soon as it is complete; the tally of what completed, and the end-of-run retry list; the walk
(context, store, writer, tally) every batch of one fetch shares."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice

from pubfetch import ids as idmod
from pubfetch.engine.claims import identity_keys
from pubfetch.engine.flow import InFlight, fetch_publications
from pubfetch.engine.options import Errors, FetchOptions
from pubfetch.engine.published import PublishedVersions
from pubfetch.engine.resume import Resume, RetryEntry
from pubfetch.engine.summary import BatchSummary, FetchError, failed_transiently
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.asked_parts import asked_parts
from pubfetch.model.caps import Fitting, fit_entry
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.resources.base import Context
from pubfetch.resources.pubstate import PubState
from pubfetch.store import Store
from pubfetch.store.spill import SpillList
from pubfetch.store.writer import StoreWriter

log = logging.getLogger(__name__)

IdsLike = str | idmod.PublicationIds
Progress = Callable[[int, Publication], None]


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


def loaded_batches(ids: Iterator[IdsLike], size: int, store: Store | None, args: FetcherArgs,
                    errors: Errors) -> Iterator[list[Publication]]:
    """The input a batch at a time, each read from the database when it is taken (so after the batches before the
    one in flight have been stored)."""
    while batch := list(islice(ids, size)):
        yield [load(store, ids, args) for ids in valid_ids(batch, errors)]


class Tally:
    """Counts and reports publications as they complete (on worker threads): the summary, the progress callback, the
    end-of-run retry list, and the IDs reported in the current batch (the same paper given again under another ID in
    the batch is not reported twice). Only the batch's IDs are remembered, so memory stays flat for any stream; the
    same paper further apart is found complete in the database, not fetched again, and reported as skipped. The retry
    list waits on disk (:class:`~pubfetch.store.spill.SpillList`), so it does not grow memory either, whatever fails."""

    def __init__(self, args: FetcherArgs, summary: BatchSummary | None, progress: Progress | None,
                 retry_exceptions: bool, follow_published: bool = False) -> None:
        self.args = args
        #: the journal versions of the run's preprints, fetched after the input (``--follow-published``)
        self.published = PublishedVersions() if follow_published else None
        self.summary = summary
        self.progress = progress
        self.retry_exceptions = retry_exceptions
        self.retry = SpillList()
        self.batches = 0
        self.done = 0
        self._lock = threading.Lock()

    def next_batch(self, number: int | None = None) -> BatchMark:
        """The next batch's mark, numbered ``number`` when the batches in flight number them (they may be shared
        with other callers: :class:`~pubfetch.engine.flow.InFlight`)."""
        self.batches += 1
        return BatchMark(self.batches if number is None else number)

    def complete(self, pub: Publication, fetched: bool, batch: BatchMark, state: PubState | None = None,
                 position: int = 0) -> bool:
        """Whether ``pub`` is reported now; False when it waits for the end-of-run retry (with the ``state`` it was
        fetched with and its ``position`` in its ``batch``, which order the retry) or was already reported."""
        with self._lock:
            if fetched and state is not None and pub.state.fetch_exception and self.retry_exceptions:
                resume = Resume.of(state)
                if resume.worth_retrying:
                    # the rejections of this pass are counted when the retry reports it
                    self.retry.append((batch.number, position),
                                      {"pub": pub.to_json(computed=False), "resume": resume.to_json(),
                                       "rejections": pub.new_rejections})
                    return False
            if not batch.reported.add(pub):
                return False
            if self.published is not None:
                self.published.note(pub)
            self.done += 1
            if self.summary is not None:
                self.summary.count(pub, self.args, fetched)
            if self.progress is not None:
                self.progress(self.done, pub)
            return True


def checked(pubs: list[Publication], errors: Errors) -> Iterator[Publication]:
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


def valid_ids(batch: list[IdsLike], errors: Errors) -> Iterator[idmod.PublicationIds]:
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


def load(store: Store | None, ids: idmod.PublicationIds, args: FetcherArgs) -> Publication:
    pub = store.get_publication(ids) if store is not None else None
    return pub if pub is not None else init_publication(ids, args)


def waiting(entries: list[RetryEntry], cap_s: float) -> tuple[list[Publication], list[Resume | None]]:
    """Publications of the retry list with where they stopped, once the latest Retry-After among them (at most
    ``cap_s`` from now) has passed."""
    pubs = [Publication.from_json(entry["pub"]) for entry in entries]
    for pub, entry in zip(pubs, entries, strict=True):
        pub.new_rejections = entry.get("rejections", 0)
    resumes: list[Resume | None] = [Resume.from_json(entry["resume"]) for entry in entries]
    wait = min(max(resume.not_before for resume in resumes if resume is not None) - time.time(), cap_s)
    if wait > 0:
        log.info("waiting %.1f s for the services' Retry-After before retrying", wait)
        time.sleep(wait)
    return pubs, resumes


def _ids_text(pub: Publication) -> str:
    return ", ".join(i for i in (pub.pmid.content, pub.pmcid.content, pub.doi.content) if i)


def warn_retracted(pub: Publication) -> None:
    """One line for a retracted paper as it is fetched: a data set built from the output should not cite it
    unknowingly (the entry keeps its content, with ``retracted: true``)."""
    notices = pub.retraction_notices()
    ids = _ids_text(pub)
    log.warning("%s is a retracted publication%s", ids, f" (retraction notice {', '.join(notices)})" if notices else "")


def warn_caps(fitting: Fitting, what: str, max_entry_bytes: int) -> None:
    """One line for each cap a fetched entry (``what``: its IDs or URL) was over."""
    if fitting.references is not None:
        log.warning("%s: %d references; kept the first %d (the max_references setting: raise it to keep more)",
                    what, fitting.references.had, fitting.references.kept)
    if fitting.links is not None:
        log.warning("%s: %d links found in the text; kept the first %d (the max_text_links setting: raise it to keep "
                    "more)", what, fitting.links.had, fitting.links.kept)
    if fitting.still_over:
        log.warning("%s: not stored: its entry is over max_entry_bytes (%d bytes) with every optional part trimmed; "
                    "raise max_entry_bytes to store it", what, max_entry_bytes)
    elif fitting.trimmed:
        log.warning("%s: entry of %d bytes trimmed to max_entry_bytes (%d): %s (raise max_entry_bytes to keep more)",
                    what, fitting.size_before, max_entry_bytes, ", ".join(str(cut) for cut in fitting.trimmed))


def fit_to_caps(ctx: Context, pub: Publication) -> bool:
    """Cut a fetched publication to the caps (:mod:`pubfetch.model.caps`), saying so; whether it may be stored (not
    when its untrimmable fields alone are over ``max_entry_bytes``)."""
    settings = ctx.config.run
    fitting = fit_entry(pub, settings.max_references, settings.max_entry_bytes, settings.max_text_links)
    warn_caps(fitting, _ids_text(pub), settings.max_entry_bytes)
    return not fitting.still_over


@dataclass(frozen=True)
class Walk:
    """One fetch's walk through its batches: the run's context, the store the entries are read from (None: every
    publication is fetched afresh) and the writer they are written through, the tally, the batch size, and the call's
    options. ``own_context``: the run built the context (a caller's goes on serving after a stop); ``shared``: the
    batches in flight of other callers in this context to gather with (claims within ``scope``)."""

    ctx: Context
    reader: Store | None
    writer: StoreWriter | None
    tally: Tally
    size: int
    options: FetchOptions
    own_context: bool
    shared: InFlight | None = None
    scope: str = ""

    @property
    def in_flight(self) -> int:
        return 2 if self.size > 1 else 1

    @property
    def carry(self) -> int:
        """The most batches begun and not yet reported: those in flight, and those waiting only for the batched
        requests their last publications are held in (``carry_batches`` more; batches of one: none)."""
        return self.in_flight + (self.ctx.config.batching.carry_batches if self.size > 1 else 0)


def fetch_batch(walk: Walk, batch: list[Publication], mark: BatchMark, shared: InFlight | None = None,
                resumes: list[Resume | None] | None = None,
                released: Callable[[], None] | None = None) -> list[Publication]:
    """Fetch the publications can_fetch allows (starting where ``resumes`` say, for the end-of-run retry) in the walk's
    context; store each one through its writer and report it to its tally as soon as it is complete (so that an
    interrupt loses only what is in flight); return the reported ones in input order. ``mark`` is this batch's (from
    the tally), ``shared`` the batches in flight together (default: this one alone); ``released`` is called once the
    publications still unfinished wait only for company (:func:`~pubfetch.engine.flow.fetch_publications`)."""
    ctx, writer, tally = walk.ctx, walk.writer, walk.tally
    args = ctx.args
    reported: set[int] = set()
    to_fetch: list[Publication] = []
    starts: list[Resume | None] = []
    for pub, resume in zip(batch, resumes or [None] * len(batch), strict=True):
        judged = asked_parts(pub, ctx.parts)  # a --fetch-part run is judged by the parts it asks for
        if pub.state.can_fetch(judged, args):
            pub.state.update_counters(judged, args)
            to_fetch.append(pub)
            starts.append(resume)
        elif tally.complete(pub, resumes is not None, mark):  # the end-of-run retry's were fetched by this run
            reported.add(id(pub))
    if not to_fetch:
        return [pub for pub in batch if id(pub) in reported]
    watch = getattr(ctx.client, "watch", None)
    lock = threading.Lock()
    completed: set[int] = set()
    # publications complete in any order; the retry asks (and reports) them in input order
    order = {id(pub): index for index, pub in enumerate(batch)}

    def done(state: PubState) -> None:
        pub = state.pub
        if watch is not None and watch.halted:
            return  # network down or run stopping: its last requests were not sent, it stays as it was stored
        if tally.published is not None:
            tally.published.link(pub)
        storable = fit_to_caps(ctx, pub)
        with lock:
            completed.add(id(pub))
            # committed when it returns; the write-ahead log is folded back once a batch
            if writer is not None and storable:
                writer.put_publication(pub)
        if tally.complete(pub, True, mark, state, order.get(id(pub), 0)):
            with lock:
                reported.add(id(pub))
            if pub.retracted:  # as it is reported: once, after the end-of-run retry of a paper that waits for it
                warn_retracted(pub)

    holders = fetch_publications(ctx, to_fetch, done, starts, shared, mark.number, released)
    if watch is not None and watch.down:
        raise watch.error()
    for pub, holder in zip(to_fetch, holders, strict=True):
        if holder is pub and id(pub) not in completed:  # gave up after its IDs kept changing
            done(PubState(pub))
    if writer is not None:
        writer.commit()
    return [pub for pub in batch if id(pub) in reported]
