"""Crossref: every Crossref DOI of a batch in ``works?filter=doi:a,doi:b`` requests, and the notices that update
them in ``works?filter=updates:a,updates:b`` requests.

Its works give what the earlier resources did not finish (title, JATS abstract, authors with ORCID and affiliations,
the bibliographic fields, funding, licence, the reference list with DOIs) and, for every DOI, the corrections and
retractions (``updated-by``), the preprint and published versions (``relation``). A retraction recorded only on the
notice (its ``update-to``) is found by the second request, so the paper is marked retracted whichever work records it.
With a contact address (``crossref_mailto``) Crossref's polite pool is asked; without one its public pool, at its lower
rate (docs/configuration.md).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from functools import partial
from urllib.parse import quote

from pubfetch.extract.crossref import parse_crossref, seen_from_work
from pubfetch.model.part_type import PartType
from pubfetch.model.record import ArticleRecord
from pubfetch.model.retraction import RETRACTED_BY, RetractionSource, RetractionVerdict
from pubfetch.model.rich import RichName, Update
from pubfetch.net.outcome import EntryPolicy, FetchResult
from pubfetch.resources.agency import CROSSREF, agency_of
from pubfetch.resources.base import Context, chunks
from pubfetch.resources.doibatch import ask_in_batches, contact, doi_key, merge, take
from pubfetch.resources.pubstate import PubFlag, PubState, entry_policy

log = logging.getLogger(__name__)

#: notices asked per request at most (a paper has a few; more are asked in later pages of the same filter)
NOTICE_ROWS = 1000


def wants_crossref(ctx: Context, state: PubState) -> bool:
    """Whether :func:`fetch_crossref` asks for this publication: a DOI not asked yet, registered with Crossref (or
    with an agency that could not be looked up)."""
    doi = state.pub.doi.content
    return bool(ctx.config.run.ask_crossref and doi and not state.has(PubFlag.CROSSREF_DOI)
                and agency_of(ctx, doi) in (CROSSREF, None))


def work_url(ctx: Context, doi: str) -> str:
    """The URL recorded on parts: the one-DOI work URL, whatever batch fetched it."""
    return ctx.endpoints.crossref + "works/" + quote(doi.lower(), safe="/")


def _get(ctx: Context, path: str, params: dict[str, str], entry: EntryPolicy) -> FetchResult:
    address = contact(ctx, "crossref_mailto", "Crossref", "in its public pool at its lower rate")
    if address:
        params = {**params, "mailto": address}
    return ctx.client.get(ctx.endpoints.crossref + path, params=params or None, publication=True,
                          headers={"Accept": "application/json"}, entry=entry)


def _works(ctx: Context, dois: list[str], entry: EntryPolicy) -> FetchResult:
    if len(dois) == 1 and "," in dois[0]:  # a comma would split the filter: the work is asked by itself
        return _get(ctx, "works/" + quote(dois[0], safe="/"), {}, entry)
    return _get(ctx, "works", {"filter": ",".join("doi:" + d for d in dois), "rows": str(len(dois))}, entry)


def fetch_crossref(ctx: Context, states: Sequence[PubState]) -> None:
    """The works of the publications' Crossref DOIs, then the notices that update them; Crossref's retraction verdict
    of each paper once both are known (a notice of type retraction named by either work)."""
    todo = take(ctx, states, wants_crossref, PubFlag.CROSSREF_DOI)
    if not todo:
        return
    said: dict[int, bool] = {}  # what each paper's own work says, by id() of its state

    def apply(state: PubState, record: ArticleRecord, url: str) -> None:
        state.set(PubFlag.CROSSREF)
        said[id(state)] = record.retraction is not None and record.retraction.retracted
        merge(ctx, state, dataclasses.replace(record, retraction=None), PartType.crossref, work_url(ctx, record.doi))

    plain = [(state, doi) for state, doi in todo if "," not in doi]
    ask_in_batches(ctx, plain, ctx.config.batching.crossref_batch, partial(_works, ctx), parse_crossref,
                   PubFlag.CROSSREF_DOI, apply, "Crossref")
    ask_in_batches(ctx, [t for t in todo if "," in t[1]], 1, partial(_works, ctx), parse_crossref,
                   PubFlag.CROSSREF_DOI, apply, "Crossref")
    noticed = _notices(ctx, plain)
    for state, _ in todo:
        own, notice = said.get(id(state)), noticed.get(id(state))
        if own or notice or (own is not None and notice is not None):  # no verdict from what was not answered
            state.pub.set_retraction(RetractionVerdict(RetractionSource.crossref, bool(own or notice)))


def _notices(ctx: Context, todo: Sequence[tuple[PubState, str]]) -> dict[int, bool]:
    """The notices (corrections, retractions ...) whose ``update-to`` names the DOIs: each becomes an update of its
    paper seen from the paper (``RetractionIn``). Returns, for each state (by id()) whose notices were answered,
    whether one is a retraction."""
    noticed: dict[int, bool] = {}
    for chunk in chunks(todo, ctx.config.batching.crossref_batch):
        dois = list(dict.fromkeys(doi for _, doi in chunk))
        policy = entry_policy(ctx.args, [state for state, _ in chunk], service=True)
        result = _get(ctx, "works", {"filter": ",".join("updates:" + d for d in dois), "rows": str(NOTICE_ROWS)},
                      policy)
        if not result.ok:
            for state, _ in chunk:
                state.fail(result, PubFlag.CROSSREF_DOI)
            continue
        try:
            notices = parse_crossref(result.body)
        except ValueError as e:
            log.warning("unreadable Crossref answer from %s: %s", result.url, e)
            continue
        updates: dict[str, list[Update]] = {}
        for notice in notices:
            for update in notice.updates:
                kind = seen_from_work(update.type)
                if kind and notice.doi:
                    updates.setdefault(doi_key(update.doi), []).append(Update(kind, doi=notice.doi))
        for state, doi in chunk:
            found = updates.get(doi_key(doi), [])
            if ctx.rich_parts:
                state.pub.join_rich(RichName.updates, found, PartType.crossref, work_url(ctx, doi))
            noticed[id(state)] = any(u.type in RETRACTED_BY for u in found)
    return noticed
