"""The resource chain over a batch of publications: PubFetcher's order, skip rules and restarts, batched.

PubFetcher walks one publication through every resource. Here each step of its fetchAll takes every publication of
the batch that the step can still help and serves them together (one Europe PMC search for hundreds of IDs, one efetch
per ID list). Each publication keeps its own flags, so it goes through exactly the decisions it would have gone
through alone, and a batch of one *is* PubFetcher's fetch. After the resources, each publication follows its own
links (concurrently across publications); a publication whose ID set grew goes round the resources again, and one
whose ID changed is reset (keeping its IDs) and fetched again from the start.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.resources import europepmc, mined, ncbi, site, unpaywall
from pubfetch.resources.base import Context, PubRun

log = logging.getLogger(__name__)

LINK_STOP_PARTS = (PartName.title, PartName.keywords, PartName.theAbstract, PartName.fulltext)
ID_PARTS = (PartName.pmid, PartName.pmcid, PartName.doi)
#: Restarts after an ID changed, per publication (PubFetcher recurses without bound; a flip-flopping pair of
#: sources must not loop forever).
MAX_RESTARTS = 3


def fetch_all(ctx: Context, runs: Sequence[PubRun]) -> None:
    """PubFetcher's fetchAll over a batch: every resource once, in its order and multiplicity."""
    if not runs:
        return
    for run in runs:
        run.start_ids = run.pub.ids
    for _ in range(3):  # PMID, then PMCID, then DOI queries
        europepmc.fetch_search(ctx, runs)
    runs = _distinct(runs)
    europepmc.fetch_fulltext_xml(ctx, runs)
    for _ in range(2):
        mined.fetch_mined(ctx, runs, PartName.efo)
    for _ in range(2):
        mined.fetch_mined(ctx, runs, PartName.go)
    ncbi.fetch_pubmed_xml(ctx, runs)
    ncbi.fetch_pubmed_html(ctx, runs)
    ncbi.fetch_pmc_xml(ctx, runs)
    ctx.map(lambda run: site.fetch_doi(ctx, run), list(runs))
    unpaywall.fetch_unpaywall(ctx, runs)
    for run in runs:
        run.goon = not _id_changed(run)


def _distinct(runs: Sequence[PubRun]) -> list[PubRun]:
    """The runs of different publications: one whose PMID, PMCID or DOI (as the search completed them) is that of an
    earlier run of the batch is the same paper given twice (by PMID on one line, by DOI on another): it stops here and
    is fetched only as the earlier one."""
    owner: dict[str, PubRun] = {}
    distinct = []
    for run in runs:
        keys = identity_keys(run.pub)
        first = next((owner[k] for k in keys if k in owner), None)
        if first is not None and first is not run:
            log.info("%s is the same publication as %s", run.pub.ids, first.pub.ids)
            run.same_as = first.pub
            run.goon = False
            continue
        for key in keys:
            owner[key] = run
        distinct.append(run)
    return distinct


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


def _grow(ctx: Context, runs: Sequence[PubRun]) -> None:
    """Go round the resources while the publications' ID sets grow (only those whose set grew)."""
    while True:
        todo = [run for run in runs if run.goon and run.pub.id_count() > run.id_count]
        if not todo:
            return
        for run in todo:
            run.id_count = run.pub.id_count()
        fetch_all(ctx, todo)


def _follow_links(ctx: Context, run: PubRun) -> None:
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
        _grow(ctx, [run])


def fetch_publications(ctx: Context, pubs: Sequence[Publication],
                       on_complete: Callable[[Publication], None] | None = None) -> list[Publication]:
    """Fetch a batch of publications in place (the caller decides which ones may be fetched: can_fetch).

    ``on_complete`` is called (on a worker thread) with each publication as soon as it is done, so that it can be
    stored at once: an interrupted batch then loses only what was still in flight. Publications that gave up after
    too many ID changes are not passed to it. Returns, for each of ``pubs``, the publication holding its content:
    itself, or the earlier publication of the batch it turned out to be (same PMID, PMCID or DOI), which alone was
    fetched."""
    same_as: dict[int, Publication] = {}
    _fetch_until_stable(ctx, list(pubs), same_as, on_complete)
    return [same_as.get(id(pub), pub) for pub in pubs]


def _fetch_until_stable(ctx: Context, pending: list[Publication], same_as: dict[int, Publication],
                        on_complete: Callable[[Publication], None] | None) -> None:
    def links_then_done(run: PubRun) -> None:
        _follow_links(ctx, run)
        if run.goon and on_complete is not None:
            on_complete(run.pub)

    for attempt in range(MAX_RESTARTS + 1):
        runs = []
        for pub in pending:
            pub.state.fetch_exception = False
            if attempt:
                log.info("resetting publication %s", pub.ids)
                pub.reset()
            runs.append(PubRun(pub))
        _grow(ctx, runs)
        ctx.map(links_then_done, [run for run in runs if run.goon])
        same_as.update((id(run.pub), run.same_as) for run in runs if run.same_as is not None)
        pending = [run.pub for run in runs if not run.goon and run.same_as is None]
        if not pending:
            return
    for pub in pending:
        log.warning("IDs of %s kept changing; giving up after %d restarts", pub.ids, MAX_RESTARTS)
        pub.state.fetch_exception = True
