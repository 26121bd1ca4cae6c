"""Europe PMC: the search API for a whole batch at once, and fullTextXML per open-access PMCID.

PubFetcher asks ``ext_id:<PMID> src:med`` for one publication; here one request ORs the IDs of a whole batch
(``(EXT_ID:1 OR EXT_ID:2) AND SRC:MED``, ``PMCID:PMC1 OR ...``, ``DOI:"10.x/y" OR ...``), pages through the answer
with cursorMark, and hands each publication the records that a one-ID query would have returned, so the merge is the
same as fetching them one at a time. A query too long for a URL is POSTed to searchPOST.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from typing import Final
from urllib.parse import urlencode

from pubfetch import ids as idmod
from pubfetch.extract.europepmc import parse_search_json, pick_result
from pubfetch.extract.jats import parse_jats
from pubfetch.extract.jats_structure import absolute_media, media_base
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import RichName
from pubfetch.net.outcome import EntryPolicy, FetchResult, OutcomeKind
from pubfetch.resources.base import Context, chunks
from pubfetch.resources.pubstate import PubFlag, PubState, entry_policy, mark_unreadable
from pubfetch.textutil import counted

log = logging.getLogger(__name__)

ALL_PARTS = (PartName.pmid, PartName.pmcid, PartName.doi, PartName.title, PartName.keywords, PartName.mesh,
             PartName.efo, PartName.go, PartName.theAbstract, PartName.fulltext)
FULLTEXT_PARTS = (PartName.pmid, PartName.pmcid, PartName.doi, PartName.title, PartName.keywords,
                  PartName.theAbstract, PartName.fulltext)
#: Longest query sent in a GET URL; longer ones are POSTed to searchPOST (URLs beyond ~2 kB get refused by proxies).
MAX_GET_QUERY = 1500
PAGE_SIZE = 1000
#: Pages read per query at most: a batch of IDs matches a few records per ID (a 200-ID query fits one page), so a
#: service announcing hitCount 10^12 with a fresh nextCursorMark on every page is cut off here instead of being paged
#: for ever with the records piling up in memory.
MAX_PAGES = 5
_SEARCH_TYPES: dict[PartName | RichName, PartType] = {
    name: PartType.europepmc for name in (PartName.pmid, PartName.pmcid, PartName.doi, PartName.title,
                                          PartName.keywords, PartName.mesh, PartName.theAbstract,
                                          RichName.funding, RichName.links, RichName.updates, RichName.license)}


#: A search for publications that depend on it: a configured service's failure, PubFetcher's way
SERVICE: Final = EntryPolicy(service=True)

#: What fullTextXML's 404 means for a PMCID the search did not say has one: Europe PMC has no full text of it
NO_FULLTEXT = "Europe PMC has no full text of this PMCID"

#: the flag a search by each kind of ID sets for a publication
_KIND_FLAGS = {"pmid": PubFlag.EPMC_PMID, "pmcid": PubFlag.EPMC_PMCID, "doi": PubFlag.EPMC_DOI}


def _query_kind(state: PubState) -> tuple[str, str] | None:
    """Which ID the next search for this publication uses (PMID, then PMCID, then DOI), marking it used."""
    pub = state.pub
    if pub.pmid.content and not state.has(PubFlag.EPMC_PMID):
        state.set(PubFlag.EPMC_PMID)
        return "pmid", pub.pmid.content
    if pub.pmcid.content and not state.has(PubFlag.EPMC_PMCID):
        state.set(PubFlag.EPMC_PMCID)
        return "pmcid", pub.pmcid.content
    if pub.doi.content and not state.has(PubFlag.EPMC_DOI):
        state.set(PubFlag.EPMC_DOI)
        return "doi", pub.doi.content
    return None


#: The kinds of ID a search asks by, in PubFetcher's order.
_KINDS = ("pmid", "pmcid", "doi")


def build_query(kind: str, values: Sequence[str]) -> str:
    """One query asking for every ID of a kind."""
    if kind == "pmid":
        return "(" + " OR ".join(f"EXT_ID:{v}" for v in values) + ") AND SRC:MED"
    if kind == "pmcid":
        return " OR ".join(f"PMCID:{v}" for v in values)
    return " OR ".join('DOI:"' + v.replace('"', '\\"') + '"' for v in values)


def _matches(kind: str, value: str, record: ArticleRecord) -> bool:
    if kind == "pmid":
        return record.pmid == value and str(record.flags.get("source", "MED")).upper() == "MED"
    if kind == "pmcid":
        return record.pmcid.upper() == value.upper()
    return bool(record.doi) and idmod.normalise_doi(record.doi).lower() == value.lower()


def search(ctx: Context, query: str, entry: EntryPolicy = SERVICE) -> tuple[list[ArticleRecord], FetchResult | None]:
    """All records of a query (every page), and the failed result if any (``entry``: what a failure means for the
    publications asked for)."""
    base = ctx.endpoints.europepmc
    params = {"query": query, "resultType": "core", "format": "json", "pageSize": str(PAGE_SIZE),
              "cursorMark": "*", "synonym": "FALSE"}
    if ctx.args.europepmc_email:
        params["email"] = ctx.args.europepmc_email
    records: list[ArticleRecord] = []
    for _ in range(MAX_PAGES):
        if len(query) > MAX_GET_QUERY:
            result = ctx.client.post(base + "searchPOST", dict(params), publication=True,
                                     headers={"Accept": "application/json"}, entry=entry)
        else:
            result = ctx.client.get(base + "search", params=params, publication=True,
                                    headers={"Accept": "application/json"}, entry=entry)
        if not result.ok:
            return records, result
        try:
            page = parse_search_json(result.text or "")
        except ValueError as e:
            log.warning("unreadable Europe PMC answer for %s: %s", result.url, e)
            result.fetch_exception = entry.marks  # a glitch of the service, as an answer lost on the way
            return records, result
        records.extend(page.records)
        cursor = page.next_cursor_mark
        if not page.records or not cursor or cursor == params["cursorMark"] or len(records) >= (page.hit_count or 0):
            return records, None
        params = {**params, "cursorMark": cursor}
    log.warning("Europe PMC answer for %s still not complete after %d pages (%d records of a claimed %s); stopped",
                query[:200], MAX_PAGES, len(records), page.hit_count)
    return records, None


def _search_pass(ctx: Context, states: Sequence[PubState],
                 on_failure: Callable[[str, list[tuple[PubState, str]], FetchResult], None], *, marks: bool = True,
                 ) -> Iterator[tuple[PubState, str, str, ArticleRecord | None]]:
    """One pass of batched searches: for each publication, the ID kind used, the ID, and the record a one-ID query would
    have given (``None`` when there was none); publications whose request failed go to ``on_failure`` instead.
    Publications asking by different kinds of ID (second passes: some by PMCID, some by DOI) share a request, one query
    ORing each kind's. ``marks``: a failure marks their entries for a later fetch (False: a lookup they do not depend
    on)."""
    members: list[tuple[PubState, str, str]] = []
    for state in states:
        query = _query_kind(state)
        if query is not None:
            members.append((state, *query))
    members.sort(key=lambda member: _KINDS.index(member[1]))  # each kind's IDs together, as a one-kind batch has them
    for chunk in chunks(members, ctx.config.batching.europepmc_batch):
        by_kind: dict[str, list[tuple[PubState, str]]] = defaultdict(list)
        for state, kind, value in chunk:
            by_kind[kind].append((state, value))
        policy = entry_policy(ctx.args, [state for state, _, _ in chunk], service=True, marks=marks)
        records, failed = search(ctx, _joined_query(by_kind), policy)
        for kind, of_kind in by_kind.items():
            if failed is not None:
                on_failure(kind, of_kind, failed)
                continue
            for state, value in of_kind:
                pub = state.pub
                record = pick_result([r for r in records if _matches(kind, value, r)], pub.pmid.content,
                                     pub.pmcid.content, pub.doi.content)
                yield state, kind, value, record


def _joined_query(by_kind: dict[str, list[tuple[PubState, str]]]) -> str:
    """One query for every ID of a chunk: a kind's own query when there is one kind (as a one-kind batch always had),
    else each kind's in parentheses, ORed."""
    queries = [build_query(kind, list(dict.fromkeys(value for _, value in of_kind)))
               for kind, of_kind in by_kind.items()]
    return queries[0] if len(queries) == 1 else " OR ".join(f"({query})" for query in queries)


def wants_search(ctx: Context, state: PubState) -> bool:
    """Whether the next search pass asks for this publication (what :func:`fetch_search` selects, unmarked)."""
    pub = state.pub
    if state.has(PubFlag.EUROPEPMC) or ctx.is_final(pub, ALL_PARTS, oa=True):
        return False
    return any(value and not state.has(flag) for value, flag in ((pub.pmid.content, PubFlag.EPMC_PMID),
                                                                (pub.pmcid.content, PubFlag.EPMC_PMCID),
                                                                (pub.doi.content, PubFlag.EPMC_DOI)))


def fetch_search(ctx: Context, states: Sequence[PubState]) -> None:
    """One pass of PubFetcher's fetchEuropepmc over a batch (the chain makes three: PMID, PMCID, DOI)."""
    todo = [state for state in states if wants_search(ctx, state)]

    def failed(kind: str, chunk: list[tuple[PubState, str]], result: FetchResult) -> None:
        for state, _ in chunk:
            state.fail(result, _KIND_FLAGS[kind])

    for state, kind, value, record in _search_pass(ctx, todo, failed):
        if record is None:
            log.info("no Europe PMC result for %s %s", kind, value)
            continue
        _apply_search_record(ctx, state, record, single_query_url(ctx, kind, value))


def single_query_url(ctx: Context, kind: str, value: str) -> str:
    """The URL recorded on the parts: the one-ID query that gives this record, whatever batch fetched it, so that
    a batch and one-at-a-time fetching store the same publication and the URL reproduces the record."""
    return ctx.endpoints.europepmc + "search?" + urlencode(
        {"query": build_query(kind, [value]), "resultType": "core", "format": "json"})


def _apply_search_record(ctx: Context, state: PubState, record: ArticleRecord, url: str) -> None:
    state.set(PubFlag.EUROPEPMC)
    pub = state.pub
    apply_record(pub, record, _SEARCH_TYPES, url, ctx.args, parts=ctx.parts, rich=ctx.rich_parts)
    flags = record.flags
    if record.oa:
        state.set(PubFlag.EPMC_HAS_FULLTEXT_XML)
    if flags.get("inEPMC"):
        state.set(PubFlag.EPMC_HAS_FULLTEXT_HTML)
    if flags.get("hasPDF"):
        state.set(PubFlag.EPMC_HAS_PDF)
    if flags.get("hasTextMinedTerms"):
        state.set(PubFlag.EPMC_HAS_MINED)
    if flags.get("hasReferences"):
        state.set(PubFlag.EPMC_HAS_REFERENCES)


def fetch_fulltext_xml(ctx: Context, states: Sequence[PubState]) -> None:
    """fullTextXML per PMCID, one request each, on the worker threads.

    PubFetcher asks only when the search result said the article has XML full text. When the search gave no answer at
    all (it failed, or found no record: an article not indexed yet), a known PMCID is asked anyway, since the endpoint
    may still have the full text; whenever the search did answer, its word decides (PubFetcher's rule).
    """
    todo = []
    for state in states:
        if state.has(PubFlag.EPMC_FULLTEXT_PMCID) or not _may_have_fulltext_xml(state):
            continue
        if ctx.is_final(state.pub, FULLTEXT_PARTS) or not state.pub.pmcid.content:
            continue
        state.set(PubFlag.EPMC_FULLTEXT_PMCID)
        todo.append(state)
    ctx.map(lambda state: _fulltext_one(ctx, state), todo)


def _may_have_fulltext_xml(state: PubState) -> bool:
    """The search said so (open access), or no search gave a record to say otherwise."""
    return state.has(PubFlag.EPMC_HAS_FULLTEXT_XML) or not state.has(PubFlag.EUROPEPMC)


def _fulltext_one(ctx: Context, state: PubState) -> None:
    url = f"{ctx.endpoints.europepmc}{state.pub.pmcid.content}/fullTextXML"
    announced = state.has(PubFlag.EPMC_HAS_FULLTEXT_XML)
    # asked without the search's word that there is one, a 404 says there is no full text: an answer, not a failure
    policy = entry_policy(ctx.args, [state], service=True,
                          answers={} if announced else {OutcomeKind.NOT_FOUND: NO_FULLTEXT})
    result = ctx.client.get(url, publication=True, headers={"Accept": "application/xml"}, entry=policy)
    if not result.ok:
        state.fail(result, PubFlag.EPMC_FULLTEXT_PMCID)
        return
    if apply_jats(ctx, state, result.body, PartType.europepmc_xml, result.final_url):
        state.set(PubFlag.EPMC_FULLTEXT_XML)


def apply_jats(ctx: Context, state: PubState, body: bytes, type_: PartType, url: str,
               record: ArticleRecord | None = None) -> bool:
    """Merge a JATS article (from fullTextXML or PMC efetch) into a publication; False when there was none, which
    is a glitch of the service that answered with something that is not an article: the entry is marked for a later
    fetch, and the line says so (:func:`mark_unreadable`). Its figures and supplementary files are given the URLs the
    service serves them at."""
    if record is None:
        try:
            records = parse_jats(body, rich_parts=ctx.rich_parts, max_table_cells=ctx.config.run.max_table_cells)
        except ValueError as e:
            log.warning("unreadable JATS from %s: %s%s", url, e, mark_unreadable(ctx.args, [state]))
            return False
        if not records:
            log.warning("no article found in %s%s", url, mark_unreadable(ctx.args, [state]))
            return False
        record = records[0]
    absolute_media(record, media_base("pmc" if type_ is PartType.pmc_xml else "europepmc", record.pmcid))
    apply_record(state.pub, record, type_, url, ctx.args, parts=ctx.parts, force_corresp=True, rich=ctx.rich_parts)
    return True


def update_citations(ctx: Context, pubs: Sequence[Publication]) -> int:
    """Refresh the citation counts of publications from Europe PMC (PubFetcher's -update-citations-count), batched
    like the search: PMID, then PMCID, then DOI queries, each publication answered once. Returns how many changed."""
    states = [PubState(pub) for pub in pubs if pub.id_count() > 0]
    updated = 0

    def failed(_kind: str, chunk: list[tuple[PubState, str]], result: FetchResult) -> None:
        log.warning("citation counts of %s not updated: %s", counted(len(chunk), "publication"), result.message)

    for _ in range(3):
        todo = [state for state in states if not state.has(PubFlag.EUROPEPMC)]
        for state, _kind, _value, record in _search_pass(ctx, todo, failed, marks=False):
            if record is not None and record.citations_count is not None:
                state.set(PubFlag.EUROPEPMC)
                if state.pub.set_citations_count(record.citations_count):
                    updated += 1
    return updated
