"""The resource chain: PubFetcher's order, skip rules and restarts, for each publication of a batch on its own.

PubFetcher walks one publication through every resource. Here every publication of a batch walks them in its own
thread, at its own pace, so that the hosts work at the same time: one publication waits for its publisher's page while
another is at Unpaywall. The steps whose service takes many IDs per request (Europe PMC search, the annotations API,
efetch for PubMed and PMC) gather the publications that reach them and serve them together
(:class:`~pubfetch.resources.batcher.Flow`): one Europe PMC search for hundreds of IDs, one efetch per ID list. Each
publication keeps its own flags, so it goes through exactly the decisions it would have gone through alone, and a batch
of one *is* PubFetcher's fetch. After the resources, each publication follows its own links; a publication whose ID
set grew goes round the resources again, and one whose ID changed is reset (keeping its IDs) and fetched again from
the start. A publication that the search shows to be one given earlier in the batch (same PMID, PMCID or DOI) stops
there and is fetched only as that one.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.resources import europepmc, mined, ncbi, references, site, unpaywall
from pubfetch.resources.base import Context, PubRun
from pubfetch.resources.batcher import Flow, Step
from pubfetch.resources.resume import Resume

log = logging.getLogger(__name__)

LINK_STOP_PARTS = (PartName.title, PartName.keywords, PartName.theAbstract, PartName.fulltext)
ID_PARTS = (PartName.pmid, PartName.pmcid, PartName.doi)
#: Restarts after an ID changed, per publication (PubFetcher recurses without bound; a flip-flopping pair of
#: sources must not loop forever).
MAX_RESTARTS = 3

#: Called with each publication's run as soon as the publication is done.
OnComplete = Callable[[PubRun], None]
#: How a batchable step is served to runs: at once (the runs given are all there is) or through a :class:`Flow`.
Serve = Callable[[Step, Sequence[PubRun]], None]


def _efo(ctx: Context, runs: Sequence[PubRun]) -> None:
    mined.fetch_mined(ctx, runs, PartName.efo)


def _go(ctx: Context, runs: Sequence[PubRun]) -> None:
    mined.fetch_mined(ctx, runs, PartName.go)


#: Whether a batchable step will ask for a publication (one that will not does not wait for the step's batch); in
#: chain order.
_WANTS: dict[Step, Callable[[Context, PubRun], bool]] = {
    europepmc.fetch_search: europepmc.wants_search,
    _efo: lambda ctx, run: mined.wants_mined(ctx, run, PartName.efo),
    _go: lambda ctx, run: mined.wants_mined(ctx, run, PartName.go),
    ncbi.fetch_pubmed_xml: ncbi.wants_pubmed_xml,
    ncbi.fetch_pmc_xml: ncbi.wants_pmc_xml,
}


def at_once(ctx: Context) -> Serve:
    """Serve a step to exactly the runs given (a batch of one, or the whole-batch chain)."""
    return lambda step, runs: step(ctx, runs)


def fetch_all(ctx: Context, runs: Sequence[PubRun], serve: Serve | None = None) -> None:
    """PubFetcher's fetchAll: every resource once, in its order and multiplicity."""
    if not runs:
        return
    serve = serve or at_once(ctx)
    for run in runs:
        run.start_ids = run.pub.ids
    for _ in range(3):  # PMID, then PMCID, then DOI queries
        serve(europepmc.fetch_search, runs)
    runs = _distinct(runs)
    europepmc.fetch_fulltext_xml(ctx, runs)
    for _ in range(2):
        serve(_efo, runs)
    for _ in range(2):
        serve(_go, runs)
    serve(ncbi.fetch_pubmed_xml, runs)
    ncbi.fetch_pubmed_html(ctx, runs)
    serve(ncbi.fetch_pmc_xml, runs)
    ctx.map(lambda run: site.fetch_doi(ctx, run), list(runs))
    unpaywall.fetch_unpaywall(ctx, runs)
    references.fetch_references(ctx, runs)  # only with --references (references=True)
    for run in runs:
        run.goon = not _id_changed(run)


def _distinct(runs: Sequence[PubRun]) -> list[PubRun]:
    """The runs of different publications: one whose PMID, PMCID or DOI (as the search completed them) is that of an
    earlier run of the batch is the same paper given twice (by PMID on one line, by DOI on another): it stops here and
    is fetched only as the earlier one."""
    Claims().claim(runs, 0)
    return [run for run in runs if run.same_as is None]


def identity_keys(pub: Publication) -> list[str]:
    """The keys under which a publication is known: its PMID, PMCID and DOI (DOIs are case-insensitive)."""
    return [f"{name}:{value.lower()}" for name, value in (("pmid", pub.pmid.content), ("pmcid", pub.pmcid.content),
                                                          ("doi", pub.doi.content)) if value]


def _id_changed(run: PubRun) -> bool:
    before = run.start_ids
    now = run.pub.ids
    if before is None:
        return False
    for old, new, name in ((before.pmid, now.pmid, "PMID"), (before.pmcid, now.pmcid, "PMCID"),
                           (before.doi, now.doi, "DOI")):
        if old and new and old != new:
            log.warning("%s changed from %s to %s", name, old, new)
            return True
    return False


def _grow(ctx: Context, runs: Sequence[PubRun], serve: Serve | None = None) -> None:
    """Go round the resources while the publications' ID sets grow (only those whose set grew)."""
    while True:
        todo = [run for run in runs if run.goon and run.pub.id_count() > run.id_count]
        if not todo:
            return
        for run in todo:
            run.id_count = run.pub.id_count()
        fetch_all(ctx, todo, serve)


def _follow_links(ctx: Context, run: PubRun, serve: Serve | None = None) -> None:
    """PubFetcher's links loop for one publication."""
    pub = run.pub
    for _ in range(ctx.config.max_links):
        if not run.goon:
            return
        if ctx.is_final(pub, LINK_STOP_PARTS) and (ctx.is_final(pub, ID_PARTS) or not ctx.id_only()):
            return
        link = run.links.pop()
        if link is None:
            return
        if not link.type.is_better_than(pub.lowest_type()):
            return
        if not link.type.is_pdf:
            site.fetch_site(ctx, run, link.url, link.type, link.from_url, meta=True,
                            keywords=link.type is not PartType.link_oadoi)
        elif site.SCIENCEDIRECT.match(link.url):
            site.fetch_site(ctx, run, link.url, link.type, link.from_url, meta=True, keywords=True)
        else:
            site.fetch_pdf(ctx, run, link.url, link.type, link.from_url)
        _grow(ctx, [run], serve)


class Claims:
    """Which run holds a paper, by PMID, PMCID and DOI, across the batches in flight together (fetch_many overlaps
    a batch with the next one): a paper given twice, in one batch or in two neighbouring ones, is fetched once.
    A batch's claims are kept until every batch read from the database while it was in flight is done (the caller
    says when: :meth:`forget`), so this holds the claims of a few batches, never the run's."""

    def __init__(self) -> None:
        self._owners: dict[str, tuple[PubRun, int]] = {}
        self._lock = threading.Lock()

    def claim(self, runs: Sequence[PubRun], batch: int) -> None:
        """Mark each of ``runs`` (of batch number ``batch``) whose paper an earlier-claimed run holds as the same
        publication (it stops: its thread sees ``same_as``); claim the others' IDs."""
        with self._lock:
            for run in runs:
                keys = identity_keys(run.pub)
                first = next((self._owners[k][0] for k in keys if k in self._owners), None)
                if first is not None and first is not run:
                    log.info("%s is the same publication as %s", run.pub.ids, first.pub.ids)
                    run.same_as = first.pub
                    run.goon = False
                    continue
                for key in keys:
                    self._owners.setdefault(key, (run, batch))

    def forget(self, batch: int) -> None:
        """Batch number ``batch`` and every batch that may not have found its papers in the database are done: a
        later line naming them finds them there."""
        with self._lock:
            self._owners = {key: owner for key, owner in self._owners.items() if owner[1] != batch}


def fetch_publications(ctx: Context, pubs: Sequence[Publication], on_complete: OnComplete | None = None,
                       resumes: Sequence[Resume | None] | None = None, claims: Claims | None = None,
                       batch: int = 0) -> list[Publication]:
    """Fetch a batch of publications in place (the caller decides which ones may be fetched: can_fetch).

    ``on_complete`` is called (on a worker thread) with each publication's run as soon as it is done, so that it can
    be stored at once: an interrupted batch then loses only what was still in flight. Publications that gave up after
    too many ID changes are not passed to it. ``resumes`` (aligned with ``pubs``) start publications where an earlier
    fetch in this run stopped (:class:`~pubfetch.resources.resume.Resume`: the end-of-run retry). ``claims`` (shared
    with the batches fetched at the same time; ``batch`` is this one's number) say which run holds a paper given more
    than once. Returns, for each of ``pubs``, the publication holding its content: itself, or the publication it turned
    out to be (same PMID, PMCID or DOI), which alone was fetched."""
    same_as: dict[int, Publication] = {}
    runs = [resume.run_for(pub) if resume is not None else PubRun(pub)
            for pub, resume in zip(pubs, resumes or [None] * len(pubs), strict=True)]
    if len(runs) <= 1 and claims is None:
        _fetch_until_stable(ctx, runs, same_as, on_complete)
    else:
        _flow(ctx, runs, same_as, on_complete, claims or Claims(), batch)
    return [same_as.get(id(pub), pub) for pub in pubs]


def _flow(ctx: Context, runs: list[PubRun], same_as: dict[int, Publication], on_complete: OnComplete | None,
          claims: Claims, batch_number: int) -> None:
    """Each publication on its own thread; the batchable steps through one :class:`Flow`. Which publication a paper
    given twice belongs to is decided on the search's answer, in the order the answers come (:class:`Claims`)."""
    cfg = ctx.config
    flow = Flow(ctx, runs, max(cfg.europepmc_batch, cfg.efetch_batch, cfg.annotations_batch), cfg.linger_ms / 1000,
                {step: index for index, step in enumerate(_WANTS)})

    def search_and_claim(ctx: Context, batch: Sequence[PubRun]) -> None:
        europepmc.fetch_search(ctx, batch)
        claims.claim(batch, batch_number)

    steps: dict[Step, Step] = {europepmc.fetch_search: search_and_claim}

    def serve(step: Step, runs: Sequence[PubRun]) -> None:
        for run in runs:  # one: the publication of this thread
            if _WANTS[step](ctx, run):
                flow.serve(steps.get(step, step), run)

    def one(run: PubRun) -> None:
        try:
            _fetch_one(ctx, run, serve, on_complete)
            if run.same_as is not None:
                same_as[id(run.pub)] = run.same_as
        finally:
            flow.finished()

    pool = ThreadPoolExecutor(len(runs), thread_name_prefix="pubfetch-pub")
    try:
        for future in [pool.submit(one, run) for run in runs]:
            future.result()
    except BaseException:
        # interrupted: requests not yet sent are not sent (the publications still in flight end at once and are not
        # stored as complete), and the threads are waited for so that nothing is logged after the run's last word
        watch = getattr(ctx.client, "watch", None)
        if watch is not None:
            watch.stopped = True
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _fetch_one(ctx: Context, run: PubRun, serve: Serve, on_complete: OnComplete | None) -> None:
    """One publication through the resources and its links, restarted when one of its IDs changed under it."""
    for attempt in range(MAX_RESTARTS + 1):
        if attempt:
            log.info("resetting publication %s", run.pub.ids)
            run.restart()
        run.pub.state.fetch_exception = False
        _grow(ctx, [run], serve)
        if run.same_as is not None:
            return
        if run.goon:
            _follow_links(ctx, run, serve)
        if run.goon:
            if on_complete is not None:
                on_complete(run)
            return
    log.warning("IDs of %s kept changing; giving up after %d restarts", run.pub.ids, MAX_RESTARTS)
    run.pub.state.fetch_exception = True


def _fetch_until_stable(ctx: Context, runs: list[PubRun], same_as: dict[int, Publication],
                        on_complete: OnComplete | None) -> None:
    def links_then_done(run: PubRun) -> None:
        _follow_links(ctx, run)
        if run.goon and on_complete is not None:
            on_complete(run)

    pending = runs
    for attempt in range(MAX_RESTARTS + 1):
        runs = []
        for run in pending:
            run.pub.state.fetch_exception = False
            if attempt:
                log.info("resetting publication %s", run.pub.ids)
                run.restart()
            runs.append(run)
        _grow(ctx, runs)
        ctx.map(links_then_done, [run for run in runs if run.goon])
        same_as.update((id(run.pub), run.same_as) for run in runs if run.same_as is not None)
        pending = [run for run in runs if not run.goon and run.same_as is None]
        if not pending:
            return
    for run in pending:
        log.warning("IDs of %s kept changing; giving up after %d restarts", run.pub.ids, MAX_RESTARTS)
        run.pub.state.fetch_exception = True
