"""A batch of publications in flight: each on its own thread, through the chain and its links, restarted when one of
its IDs changed under it; the batchable steps served by the run's :class:`~pubfetch.engine.service_batcher.Batcher`.

One publication waits for its publisher's page while another is at Unpaywall and a third at PubMed, so the hosts work
at the same time; one Europe PMC search still asks for hundreds of IDs, one efetch for an ID list. A publication that
the search shows to be one given earlier (same PMID, PMCID or DOI, in this batch or the one in flight beside it) stops
there and is fetched only as that one (:class:`~pubfetch.engine.claims.Claims`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from pubfetch.engine.chain import BATCHED, RIDERS, follow_links, grow
from pubfetch.engine.claims import Claims
from pubfetch.engine.resume import Resume
from pubfetch.engine.service_batcher import Batcher, Step
from pubfetch.model.publication import Publication
from pubfetch.resources import europepmc, identity
from pubfetch.resources.base import Context
from pubfetch.resources.pubstate import PubState

log = logging.getLogger(__name__)

#: Restarts after an ID changed, per publication (PubFetcher recurses without bound; a flip-flopping pair of
#: sources must not loop forever).
MAX_RESTARTS = 3

#: Called with each publication's state as soon as the publication is done.
OnComplete = Callable[[PubState], None]


class InFlight:
    """What the batches in flight together share: who holds which paper, the open batches of each step, and the
    batches' numbers.

    The batches may be one run's (``fetch_many`` overlaps two) or those of several callers running in one context at the
    same time (a worker's tasks of one job and equal settings, :mod:`pubfetch.distributed.sharedrun`): each batch is
    numbered by :meth:`begin` before it is read from the database and ended by :meth:`end`. A batch's claims are kept
    until every batch begun before it ended has ended too (those may have been read from the database before its papers
    were stored). Claims are taken within a batch's ``scope`` only (a queued job): a paper of another job is that job's
    to fetch and count.

    ``alone``: whether these are the context's only batches; if not, a batch that fails does not halt the context
    (stop its sending), which its other callers go on using."""

    def __init__(self, ctx: Context, alone: bool = True) -> None:
        self.alone = alone
        self.claims = Claims()
        batching = ctx.config.batching
        #: The steps as the batcher serves them, one function each for every batch in flight (the batcher gathers
        #: by step: the batches in flight share its requests).
        self.steps: dict[Step, Step] = {europepmc.fetch_search: self._search_and_claim}
        self.batcher = Batcher(ctx, batching.linger_ms / 1000, batching.hold_margin_ms / 1000,
                               ahead_batches=batching.carry_batches, order=[self.steps.get(s, s) for s in BATCHED],
                               riders={step: may_ride for step, (may_ride, _) in RIDERS.items()})
        self._lock = threading.Lock()
        self._begun = 0
        self._running: dict[int, str] = {}  # batch number -> scope
        self._ended: list[tuple[int, int]] = []  # batch number, the last batch begun when it ended

    def _search_and_claim(self, ctx: Context, batch: Sequence[PubState]) -> None:
        """The search, then the claims of each batch's publications in it, by the answers' order."""
        europepmc.fetch_search(ctx, batch)
        for flow in sorted({self.batcher.flow_of(state) for state in batch}):
            self.claims.claim([state for state in batch if self.batcher.flow_of(state) == flow], flow, self.scope(flow))

    def begin(self, scope: str = "") -> int:
        """A new batch's number (it is about to be read from the database); its papers are claimed within ``scope``."""
        with self._lock:
            self._begun += 1
            self._running[self._begun] = scope
            return self._begun

    def scope(self, number: int) -> str:
        with self._lock:
            return self._running.get(number, "")

    def end(self, number: int) -> None:
        """Batch ``number`` is done (its publications stored): its claims go once no batch that may have missed them
        in the database is still running."""
        with self._lock:
            self._running.pop(number, None)
            self._ended.append((number, self._begun))
            oldest = min(self._running, default=self._begun + 1)
            gone = [batch for batch, last in self._ended if last < oldest]
            self._ended = [(batch, last) for batch, last in self._ended if last >= oldest]
        for batch in gone:
            self.claims.forget(batch)


def fetch_publications(ctx: Context, pubs: Sequence[Publication], on_complete: OnComplete | None = None,
                       resumes: Sequence[Resume | None] | None = None, shared: InFlight | None = None,
                       batch: int = 0, on_release: Callable[[], None] | None = None) -> list[Publication]:
    """Fetch a batch of publications in place (the caller decides which ones may be fetched: can_fetch).

    ``on_complete`` is called (on a worker thread) with each publication's state as soon as it is done, so that it can
    be stored at once: an interrupted batch then loses only what was still in flight. Publications that gave up after
    too many ID changes are not passed to it. ``resumes`` (aligned with ``pubs``) start publications where an earlier
    fetch in this run stopped (:class:`~pubfetch.engine.resume.Resume`: the end-of-run retry). ``shared`` is what the
    batches in flight together share (``batch`` is this one's number); ``on_release`` is called once every publication
    still unfinished waits only for company in a batched request (:meth:`Batcher.start`), so that the next batch of the
    run may start and bring it. Returns, for each of ``pubs``, the publication
    holding its content: itself, or the publication it turned out to be (same PMID, PMCID or DOI), which alone was
    fetched."""
    shared = shared or InFlight(ctx)
    states = [resume.state_for(pub) if resume is not None else PubState(pub)
              for pub, resume in zip(pubs, resumes or [None] * len(pubs), strict=True)]
    same_as: dict[int, Publication] = {}
    if states:
        _flow(ctx, states, same_as, on_complete, shared, batch, on_release)
    return [same_as.get(id(pub), pub) for pub in pubs]


def _flow(ctx: Context, states: list[PubState], same_as: dict[int, Publication], on_complete: OnComplete | None,
          shared: InFlight, number: int, on_release: Callable[[], None] | None = None) -> None:
    """Each publication on its own thread. Which publication a paper given twice belongs to is decided on the
    search's answer, in the order the answers come (:class:`Claims`)."""
    batcher = shared.batcher

    def serve(step: Step, states: Sequence[PubState]) -> None:
        wants, service = BATCHED[step]
        _, answered = RIDERS.get(step, (None, None))
        for state in states:  # one: the publication of this thread
            if not wants(ctx, state):
                continue
            if answered is not None and answered(state):  # it rode with an earlier request: nothing to ask
                step(ctx, [state])
            else:
                batcher.serve(shared.steps.get(step, step), service, state)

    def one(state: PubState) -> None:
        on_request = getattr(ctx.client, "on_request", None)
        if on_request is not None:
            on_request(lambda sending, url: batcher.requesting(state, sending, url))
        rank = getattr(ctx.client, "rank_thread", None)
        if rank is not None:  # the older batch first at every host: it finishes while the next keeps them busy
            rank(number)
        try:
            complete = _fetch_one(ctx, state, serve)
            batcher.finished(state)
            if state.same_as is not None:
                same_as[id(state.pub)] = state.same_as
            elif complete and on_complete is not None:
                on_complete(state)
        finally:
            batcher.finished(state)
            if on_request is not None:
                on_request(None)

    batcher.start(states, number, on_release)
    pool = ThreadPoolExecutor(len(states), thread_name_prefix="pubfetch-pub")
    try:
        for future in [pool.submit(one, state) for state in states]:
            future.result()
    except BaseException:
        # interrupted: requests not yet sent are not sent (the publications still in flight end at once and are not
        # stored as complete), and the threads are waited for so that nothing is logged after the run's last word
        watch = getattr(ctx.client, "watch", None)
        if watch is not None and shared.alone:
            watch.stopped = True
        pool.shutdown(wait=True, cancel_futures=True)
        for state in states:
            batcher.finished(state)
        raise
    pool.shutdown(wait=True)


def _fetch_one(ctx: Context, state: PubState, serve: Callable[[Step, Sequence[PubState]], None]) -> bool:
    """One publication through the resources and its links, restarted when one of its IDs changed under it; whether
    it is complete (False: another publication of the batch holds its paper, or it gave up after too many restarts)."""
    for attempt in range(MAX_RESTARTS + 1):
        if attempt:
            log.info("resetting publication %s", state.pub.ids)
            state.restart()
        state.pub.state.fetch_exception = False
        for word in state.lasting:  # the end-of-run retry's: failures of the pass before, not asked again
            state.pub.state.failed(word)
        grow(ctx, [state], serve)
        if state.same_as is not None:
            return False
        if state.keep_going:
            follow_links(ctx, state, serve)
        if state.keep_going:
            identity.settle(ctx, state)
            return True
    log.warning("IDs of %s kept changing; giving up after %d restarts", state.pub.ids, MAX_RESTARTS)
    state.pub.state.fetch_exception = True
    return False
