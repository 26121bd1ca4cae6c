"""NCBI E-utilities efetch for PubMed and PMC, with ID lists; and the PubMed web page for what the XML lacks.

PubFetcher sends one efetch per publication. efetch takes comma-separated ID lists, so a batch costs one request per
``efetch_batch`` IDs; lists are POSTed (as Biopython does from 200 IDs on) so that no URL grows too long. ``tool``,
``email`` and ``api_key`` are sent as NCBI asks.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from typing import Final

from pubfetch import ids as idmod
from pubfetch.extract.blockpage import block_reason
from pubfetch.extract.jats import parse_jats
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.pubmed_html import parse_pubmed_html
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.parts import ListPart, MeshTerm
from pubfetch.model.record import ArticleRecord
from pubfetch.net.outcome import NO_ENTRY, EntryPolicy, FetchResult, OutcomeKind
from pubfetch.net.urls import RedactingFilter
from pubfetch.resources.base import Context, chunks, email_address
from pubfetch.resources.europepmc import FULLTEXT_PARTS, apply_jats
from pubfetch.resources.pubstate import AnsweredAhead, PubFlag, PubState, entry_policy, mark_unreadable

log = logging.getLogger(__name__)
log.addFilter(RedactingFilter())  # efetch URLs carry the api_key

PUBMED_XML_PARTS = (PartName.pmid, PartName.pmcid, PartName.doi, PartName.title, PartName.mesh, PartName.theAbstract)
#: Lists at least this long are POSTed.
POST_FROM = 50


def eutils_params(ctx: Context) -> dict[str, str]:
    """The parameters NCBI asks of every E-utilities request: ``tool``, ``email`` (warned about once when missing) and
    ``api_key``."""
    params: dict[str, str] = {}
    if ctx.config.run.ncbi_tool:
        params["tool"] = ctx.config.run.ncbi_tool
    given = ctx.config.run.ncbi_email.strip()
    if email_address(given):
        params["email"] = given
    elif given:
        ctx.warn_once("ncbi-email", f"'{given}' (--ncbi-email, PUBFETCH_NCBI_EMAIL or ncbi_email) is not an e-mail "
                      "address (NAME@DOMAIN): NCBI E-utilities are asked without one")
    else:
        ctx.warn_once("ncbi-email", "NCBI E-utilities are asked without an e-mail address: set PUBFETCH_NCBI_EMAIL, "
                      "--ncbi-email or ncbi_email")
    if ctx.config.run.ncbi_api_key:
        params["api_key"] = ctx.config.run.ncbi_api_key
    return params


def eutils_call(ctx: Context, tool: str, params: dict[str, str], *, long: bool = False,
                entry: EntryPolicy | None = None) -> FetchResult:
    """One E-utilities request (``tool``: ``efetch.fcgi``, ``esearch.fcgi`` ...) with NCBI's parameters; POSTed when
    ``long`` (a long ID list or query) or when an API key is sent. ``entry``: what a failure means for the entries
    asked for (``None``: a search, no entry)."""
    url = ctx.endpoints.eutils + tool
    params = {**params, **eutils_params(ctx)}
    headers = {"Accept": "application/xml"}
    # with an api_key, always POST: a key in a URL ends up in logs (ours, urllib3's, proxies') and server access logs
    if long or ctx.config.run.ncbi_api_key:
        return ctx.client.post(url, params, publication=True, headers=headers, entry=entry or NO_ENTRY)
    return ctx.client.get(url, params=params, publication=True, headers=headers, entry=entry or NO_ENTRY)


def efetch(ctx: Context, db: str, ids: Sequence[str], entry: EntryPolicy | None = None) -> FetchResult:
    """One efetch request for a list of IDs of a database (``entry`` as for :func:`eutils_call`)."""
    return eutils_call(ctx, "efetch.fcgi", {"db": db, "retmode": "xml", "id": ",".join(ids)},
                       long=len(ids) >= POST_FROM, entry=entry)


#: Publications riding with a request (each with the ID asked for it), and what keeps the answer for one.
Riders = tuple[Sequence[tuple[PubState, str]], Callable[[PubState, str, AnsweredAhead], None]]


def _keep_nothing(state: PubState, value: str, answered: AnsweredAhead) -> None:
    """No rider, nothing to keep."""


def _batched(ctx: Context, db: str, todo: Sequence[tuple[PubState, str]],
             parse: Callable[[bytes], list[ArticleRecord]], key: Callable[[ArticleRecord], str],
             apply: Callable[[PubState, ArticleRecord, str], None], asked: PubFlag,
             optional: frozenset[int] = frozenset(), riders: Riders | None = None) -> None:
    """Efetch ID lists and apply each record to its publication; a failure is the publication's fetch exception (and
    ``asked``, the flag set when it was asked, is asked again by the end-of-run retry), except for the publications in
    ``optional`` (by id() of their state), which only wanted a detail. ``riders``' IDs go with the last list (the
    caller leaves room for them): what the request answers for each (its record, the failure, its absence) is kept
    for when it comes to the step, which takes it as its own (the ID was asked once)."""
    lists = list(chunks(todo, ctx.config.batching.efetch_batch))
    for number, chunk in enumerate(lists, start=1):
        riding, keep = riders if riders is not None and number == len(lists) else ((), _keep_nothing)
        ids = list(dict.fromkeys([value for _, value in chunk] + [value for _, value in riding]))
        needed = [state for state, _ in chunk if id(state) not in optional]
        # a rider's failure is its own when it comes to the step: the policy says what it means for its entry too
        result = efetch(ctx, db, ids, entry_policy(ctx.args, needed + [state for state, _ in riding], service=True))
        if not result.ok:
            for state in needed:
                state.fail(result, asked)
            for state, value in riding:
                keep(state, value, AnsweredAhead(failure=result, url=result.url))
            continue
        try:
            records = parse(result.body)
        except ValueError as e:
            log.warning("unreadable efetch answer from %s: %s%s", result.url, e, mark_unreadable(ctx.args, needed))
            for state, value in riding:
                keep(state, value, AnsweredAhead(unreadable=True, url=result.url))
            continue
        by_id: dict[str, ArticleRecord] = {}
        for record in records:
            by_id.setdefault(key(record), record)
        url = result.url
        for state, value in chunk:
            found = by_id.get(value)
            if found is None:
                log.warning("no article found for %s in %s", value, url)
                continue
            apply(state, found, url)
        for state, value in riding:
            keep(state, value, AnsweredAhead(record=by_id.get(value), url=url))


def wants_pubmed_xml(ctx: Context, state: PubState) -> bool:
    """Whether :func:`fetch_pubmed_xml` asks for this publication."""
    if not state.pub.pmid.content:
        return False
    return ((not state.has(PubFlag.PUBMED_XML_PMID) and not ctx.is_final(state.pub, PUBMED_XML_PARTS))
            or _lacks_mesh_ids(ctx, state))


def wants_pmc_xml(ctx: Context, state: PubState) -> bool:
    """Whether :func:`fetch_pmc_xml` asks for this publication."""
    return bool(not state.has(PubFlag.PMC_XML_PMCID) and not ctx.is_final(state.pub, FULLTEXT_PARTS)
                and state.pub.pmcid.content)


def may_ride(ctx: Context, state: PubState) -> bool:
    """Whether a publication not at PubMed's efetch step yet may ride with another publication's request of it: it
    will ask for its PMID when it comes to the step, as far as can be told now (its parts may still become final on
    the way: then the record fetched for it goes unused, an ID more in a request that was going anyway)."""
    pmid = state.pub.pmid.content
    return bool(pmid) and pmid not in state.pubmed_ahead and wants_pubmed_xml(ctx, state)


def answered_ahead(state: PubState) -> bool:
    """Whether the publication's PubMed record came with another publication's request (:func:`may_ride`): its step
    then asks nothing of the service."""
    pmid = state.pub.pmid.content
    return bool(pmid) and pmid in state.pubmed_ahead


def fetch_pubmed_xml(ctx: Context, states: Sequence[PubState], riders: Sequence[PubState] = ()) -> None:
    """PubMed XML for publications with a PMID whose IDs, title, MeSH or abstract are not final; in the same ID
    lists, the publications whose MeSH terms came without unique IDs (Europe PMC's JSON has names only) get them,
    and only them: the part keeps its type and URL, and a failure is no fetch exception. A publication whose record
    came ahead (:func:`answered_ahead`) takes it without a request, as if asked now; ``riders`` (:func:`may_ride`)
    come in the same requests, what they answer for each (record or failure) kept for when it comes to this step."""
    todo = []
    mesh_only: set[int] = set()
    ahead: list[tuple[PubState, AnsweredAhead]] = []
    for state in states:
        pmid = state.pub.pmid.content
        if not pmid:
            continue
        if not state.has(PubFlag.PUBMED_XML_PMID) and not ctx.is_final(state.pub, PUBMED_XML_PARTS):
            state.set(PubFlag.PUBMED_XML_PMID, PubFlag.MESH_IDS)
        elif _lacks_mesh_ids(ctx, state):
            state.set(PubFlag.MESH_IDS)
            mesh_only.add(id(state))
        else:
            continue
        answered = state.pubmed_ahead.pop(pmid, None)
        if answered is not None:
            ahead.append((state, answered))
        else:
            todo.append((state, pmid))

    def apply(state: PubState, record: ArticleRecord, url: str) -> None:
        if id(state) not in mesh_only:
            state.set(PubFlag.PUBMED_XML)
            apply_record(state.pub, record, PartType.pubmed_xml, _pubmed_url(ctx, record.pmid), ctx.args,
                         parts=ctx.parts, force_corresp=True, rich=ctx.rich_parts)
        if ctx.wants(PartName.mesh):
            _fill_unique_ids(state.pub.mesh, record.mesh)

    def parse(body: bytes) -> list[ArticleRecord]:
        return parse_pubmed_xml(body, rich_parts=ctx.rich_parts)

    def keep(state: PubState, pmid: str, answered: AnsweredAhead) -> None:
        state.pubmed_ahead[pmid] = answered

    for state, answered in ahead:
        _take_ahead(ctx, state, answered, apply, optional=id(state) in mesh_only)
    room = ctx.config.batching.efetch_batch - len(todo)
    ride = [(state, state.pub.pmid.content) for state in riders if state.pub.pmid.content][:max(0, room)]
    _batched(ctx, "pubmed", todo, parse, lambda r: r.pmid, apply, PubFlag.PUBMED_XML_PMID, frozenset(mesh_only),
             (ride, keep) if todo else None)


def _take_ahead(ctx: Context, state: PubState, answered: AnsweredAhead,
                apply: Callable[[PubState, ArticleRecord, str], None], optional: bool) -> None:
    """What a request the publication rode with answered for it, taken as if asked now: its record applied, or the
    request's failure its own (not when it ``optional``-ly wanted a detail only), or the absence warned about."""
    if answered.record is not None:
        apply(state, answered.record, answered.url)
    elif optional:
        return
    elif answered.failure is not None:
        state.fail(answered.failure, PubFlag.PUBMED_XML_PMID)
    elif answered.unreadable:
        mark_unreadable(ctx.args, [state])
    else:
        log.warning("no article found for %s in %s", state.pub.pmid.content, answered.url)


def _lacks_mesh_ids(ctx: Context, state: PubState) -> bool:
    return (ctx.wants(PartName.mesh) and not state.has(PubFlag.MESH_IDS)
            and any(not term.unique_id for term in state.pub.mesh.items))


def _fill_unique_ids(part: ListPart, terms: Sequence[MeshTerm]) -> None:
    ids = {term.term.casefold(): term.unique_id for term in terms if term.unique_id}
    part.items = [term if term.unique_id or not isinstance(term, MeshTerm)
                  else dataclasses.replace(term, unique_id=ids.get(term.term.casefold(), ""))
                  for term in part.items]


def _pubmed_url(ctx: Context, pmid: str) -> str:
    """The URL recorded on parts: the one-ID efetch URL, as PubFetcher records it, whatever batch fetched it."""
    return f"{ctx.endpoints.eutils}efetch.fcgi?retmode=xml&db=pubmed&id={pmid}"


def fetch_pubmed_html(ctx: Context, states: Sequence[PubState]) -> None:
    """The PubMed page, only while title or abstract are not final (and the XML did not already give the rest)."""
    todo = []
    for state in states:
        if state.has(PubFlag.PUBMED_HTML_PMID) or not state.pub.pmid.content:
            continue
        if ctx.is_final(state.pub, (PartName.title, PartName.theAbstract)) and (
            ctx.is_final(state.pub, (PartName.pmid, PartName.pmcid, PartName.doi, PartName.mesh))
            or state.has(PubFlag.PUBMED_XML)
        ):
            continue
        state.set(PubFlag.PUBMED_HTML_PMID)
        todo.append(state)
    ctx.map(lambda state: _pubmed_html_one(ctx, state), todo)


#: Answers that say something lasting about the page (it is not there), as opposed to failures that may pass.
LASTING_ANSWERS: Final = frozenset({OutcomeKind.NOT_FOUND, OutcomeKind.HTTP_ERROR})


def _pubmed_html_one(ctx: Context, state: PubState) -> None:
    url = f"{ctx.endpoints.pubmed}{state.pub.pmid.content}/"
    # asked for IDs or MeSH only, a final entry is not marked failed (and retried on every later run) by a lookup its
    # finality did not need, and the same page answers the same next time
    final = state.pub.is_final(ctx.args)
    policy = entry_policy(ctx.args, [state], service=True,
                          answers=dict.fromkeys(LASTING_ANSWERS, "the entry is final without it") if final else None)
    result = ctx.client.get(url, publication=True, entry=policy)
    if not result.ok:
        state.fail(result, PubFlag.PUBMED_HTML_PMID)
        return
    reason = block_reason(result.text or "")
    if reason is not None:
        state.blocked(result.final_url, reason, ctx.args)
        return
    try:
        record = parse_pubmed_html(result.text or "")
    except ValueError as e:
        log.warning("unreadable PubMed page %s: %s%s", url, e, mark_unreadable(ctx.args, [state]))
        return
    if record is None or record.is_empty():
        log.warning("no article found in %s", result.final_url)
        return
    apply_record(state.pub, record, PartType.pubmed_html, result.final_url, ctx.args, parts=ctx.parts,
                 rich=ctx.rich_parts)


def fetch_pmc_xml(ctx: Context, states: Sequence[PubState]) -> None:
    """PMC XML (JATS) for publications with a PMCID whose IDs, title, keywords, abstract or full text are not final."""
    todo = []
    for state in states:
        if not wants_pmc_xml(ctx, state):
            continue
        state.set(PubFlag.PMC_XML_PMCID)
        todo.append((state, idmod.extract_pmcid_number(state.pub.pmcid.content)))

    def apply(state: PubState, record: ArticleRecord, url: str) -> None:
        single = f"{ctx.endpoints.eutils}efetch.fcgi?retmode=xml&db=pmc&id={idmod.extract_pmcid_number(record.pmcid)}"
        if apply_jats(ctx, state, b"", PartType.pmc_xml, single, record=record):
            state.set(PubFlag.PMC_XML)

    def parse(body: bytes) -> list[ArticleRecord]:
        return parse_jats(body, rich_parts=ctx.rich_parts, max_table_cells=ctx.config.run.max_table_cells)

    _batched(ctx, "pmc", todo, parse, lambda r: idmod.extract_pmcid_number(r.pmcid) if r.pmcid else "", apply,
             PubFlag.PMC_XML_PMCID)
