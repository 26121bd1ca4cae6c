"""The resource chain: PubFetcher's order and multiplicity of the resources, ID growth, and the links loop, for one
publication (its thread is in :mod:`pubfetch.engine.flow`).

PubFetcher walks one publication through every resource. Here every publication of a batch walks them in its own
thread; the steps whose service takes many IDs per request (:data:`BATCHED`) are served through a function the flow
gives (:data:`Serve`: the batcher gathers the publications that reach the step), so each publication goes through
exactly the decisions it would have gone through alone. After the resources it follows its links; a publication whose
ID set grew goes round the resources again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from pubfetch.engine.service_batcher import BatchedService, Step
from pubfetch.model.part_type import PartName, PartType
from pubfetch.resources import (
    agency,
    biorxiv,
    crossref,
    datacite,
    europepmc,
    mined,
    ncbi,
    openalex,
    references,
    site,
    unpaywall,
)
from pubfetch.resources.base import Context
from pubfetch.resources.pubstate import PubState

log = logging.getLogger(__name__)

LINK_STOP_PARTS = (PartName.title, PartName.keywords, PartName.theAbstract, PartName.fulltext)
ID_PARTS = (PartName.pmid, PartName.pmcid, PartName.doi)

#: How a batchable step is served to the states of publications (the flow's batcher).
Serve = Callable[[Step, Sequence[PubState]], None]


def _efo(ctx: Context, states: Sequence[PubState]) -> None:
    mined.fetch_mined(ctx, states, PartName.efo)


def _go(ctx: Context, states: Sequence[PubState]) -> None:
    mined.fetch_mined(ctx, states, PartName.go)


_SEARCH = BatchedService(lambda ctx: ctx.endpoints.europepmc + "search",
                         lambda ctx: ctx.config.batching.europepmc_batch)
_ANNOTATIONS = BatchedService(lambda ctx: ctx.endpoints.europepmc_annotations + "annotationsByArticleIds",
                              lambda ctx: ctx.config.batching.annotations_batch)
_EFETCH = BatchedService(lambda ctx: ctx.endpoints.eutils + "efetch.fcgi", lambda ctx: ctx.config.batching.efetch_batch)
_AGENCY = BatchedService(lambda ctx: ctx.endpoints.doi + "ra/", lambda ctx: agency.PREFIXES_PER_REQUEST)
_CROSSREF = BatchedService(lambda ctx: ctx.endpoints.crossref + "works",
                           lambda ctx: ctx.config.batching.crossref_batch)
_DATACITE = BatchedService(lambda ctx: ctx.endpoints.datacite + "dois",
                           lambda ctx: ctx.config.batching.datacite_batch)
_OPENALEX = BatchedService(lambda ctx: ctx.endpoints.openalex + "works",
                           lambda ctx: ctx.config.batching.openalex_batch)

#: The batchable steps, in chain order: whether a step will ask for a publication (one that will not does not wait
#: for the step's batch), and the service its requests go to.
BATCHED: dict[Step, tuple[Callable[[Context, PubState], bool], BatchedService]] = {
    europepmc.fetch_search: (europepmc.wants_search, _SEARCH),
    _efo: (lambda ctx, state: mined.wants_mined(ctx, state, PartName.efo), _ANNOTATIONS),
    _go: (lambda ctx, state: mined.wants_mined(ctx, state, PartName.go), _ANNOTATIONS),
    ncbi.fetch_pubmed_xml: (ncbi.wants_pubmed_xml, _EFETCH),
    ncbi.fetch_pmc_xml: (ncbi.wants_pmc_xml, _EFETCH),
    agency.fetch_agencies: (agency.wants_agency, _AGENCY),
    crossref.fetch_crossref: (crossref.wants_crossref, _CROSSREF),
    datacite.fetch_datacite: (datacite.wants_datacite, _DATACITE),
    openalex.fetch_openalex: (openalex.wants_openalex, _OPENALEX),
}


#: The batchable steps whose requests also take publications that will come to them later, in the room a batch
#: leaves: each with its test of such a publication, and of one whose answer came so (its step asks nothing then).
#: PubMed's record of an open-access publication is asked after its full text, seconds after the closed-access
#: publications of its batch of the run; riding with theirs, the two make one request (docs/throughput.md).
RIDERS: dict[Step, tuple[Callable[[Context, PubState], bool], Callable[[PubState], bool]]] = {
    ncbi.fetch_pubmed_xml: (ncbi.may_ride, ncbi.answered_ahead),
}


def fetch_all(ctx: Context, states: Sequence[PubState], serve: Serve) -> None:
    """PubFetcher's fetchAll: every resource once, in its order and multiplicity."""
    if not states:
        return
    for state in states:
        state.start_ids = state.pub.ids
    for _ in range(3):  # PMID, then PMCID, then DOI queries
        serve(europepmc.fetch_search, states)
    states = [state for state in states if state.same_as is None]  # the search found it the same paper as another
    europepmc.fetch_fulltext_xml(ctx, states)
    for _ in range(2):
        serve(_efo, states)
    for _ in range(2):
        serve(_go, states)
    serve(ncbi.fetch_pubmed_xml, states)
    ncbi.fetch_pubmed_html(ctx, states)
    serve(ncbi.fetch_pmc_xml, states)
    # the scholarly APIs: after PubMed and JATS, whose parts are final, before the pages (docs/fetching.md)
    serve(agency.fetch_agencies, states)
    serve(crossref.fetch_crossref, states)
    serve(datacite.fetch_datacite, states)
    serve(openalex.fetch_openalex, states)
    biorxiv.fetch_biorxiv(ctx, states)
    ctx.map(lambda state: site.fetch_doi(ctx, state), list(states))
    unpaywall.fetch_unpaywall(ctx, states)
    references.fetch_references(ctx, states)  # only with --references (references=True)
    for state in states:
        state.keep_going = not id_changed(state)


def id_changed(state: PubState) -> bool:
    before = state.start_ids
    now = state.pub.ids
    if before is None:
        return False
    for old, new, name in ((before.pmid, now.pmid, "PMID"), (before.pmcid, now.pmcid, "PMCID"),
                           (before.doi, now.doi, "DOI")):
        if old and new and old != new:
            log.warning("%s changed from %s to %s", name, old, new)
            return True
    return False


def grow(ctx: Context, states: Sequence[PubState], serve: Serve) -> None:
    """Go round the resources while the publications' ID sets grow (only those whose set grew)."""
    while True:
        todo = [state for state in states if state.keep_going and state.pub.id_count() > state.id_count]
        if not todo:
            return
        for state in todo:
            state.id_count = state.pub.id_count()
        fetch_all(ctx, todo, serve)


def follow_links(ctx: Context, state: PubState, serve: Serve) -> None:
    """PubFetcher's links loop for one publication."""
    pub = state.pub
    for _ in range(ctx.config.run.max_links):
        if not state.keep_going:
            return
        if ctx.is_final(pub, LINK_STOP_PARTS) and (ctx.is_final(pub, ID_PARTS) or not ctx.id_only()):
            return
        link = state.links.pop()
        if link is None:
            return
        if not link.type.is_better_than(pub.lowest_type()):
            return
        if not link.type.is_pdf:
            site.fetch_site(ctx, state, link.url, link.type, link.from_url, meta=True,
                            keywords=link.type is not PartType.link_oadoi)
        elif site.SCIENCEDIRECT.match(link.url):
            site.fetch_site(ctx, state, link.url, link.type, link.from_url, meta=True, keywords=True)
        else:
            site.fetch_pdf(ctx, state, link.url, link.type, link.from_url)
        grow(ctx, [state], serve)
