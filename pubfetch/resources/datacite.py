"""DataCite: every DataCite DOI of a batch (datasets, software, theses, reports, preprints) in ``dois?ids=a,b``
requests: title, abstract, creators with ORCID and affiliations, publisher, date, funding, licence, the DOIs it
references and its other versions, where the earlier resources left them unfinished (relations always). The contact
address (``datacite_mailto``) goes with every request as ``mailto``, as DataCite's higher limit for identified
requests asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from pubfetch.extract.datacite import parse_datacite
from pubfetch.model.part_type import PartType
from pubfetch.model.record import ArticleRecord
from pubfetch.net.outcome import EntryPolicy, FetchResult
from pubfetch.resources.agency import DATACITE, agency_of
from pubfetch.resources.base import Context
from pubfetch.resources.doibatch import ask_in_batches, contact, merge, take
from pubfetch.resources.pubstate import PubFlag, PubState


def wants_datacite(ctx: Context, state: PubState) -> bool:
    """Whether :func:`fetch_datacite` asks for this publication: a DOI registered with DataCite, not asked yet."""
    doi = state.pub.doi.content
    return bool(ctx.config.run.ask_datacite and doi and not state.has(PubFlag.DATACITE_DOI)
                and agency_of(ctx, doi) == DATACITE)


def doi_url(ctx: Context, doi: str) -> str:
    """The URL recorded on parts: the one-DOI URL, whatever batch fetched it."""
    return f"{ctx.endpoints.datacite}dois/{doi.lower()}"


def _dois(ctx: Context, dois: list[str], entry: EntryPolicy) -> FetchResult:
    params = {"ids": ",".join(d.lower() for d in dois), "page[size]": str(len(dois))}
    address = contact(ctx, "datacite_mailto", "DataCite", "at its lower limit for anonymous requests")
    if address:
        params["mailto"] = address
    return ctx.client.get(ctx.endpoints.datacite + "dois", params=params, publication=True,
                          headers={"Accept": "application/vnd.api+json, application/json"}, entry=entry)


def fetch_datacite(ctx: Context, states: Sequence[PubState]) -> None:
    todo = take(ctx, states, wants_datacite, PubFlag.DATACITE_DOI)

    def apply(state: PubState, record: ArticleRecord, url: str) -> None:
        state.set(PubFlag.DATACITE)
        merge(ctx, state, record, PartType.datacite, doi_url(ctx, record.doi))

    ask_in_batches(ctx, todo, ctx.config.batching.datacite_batch, partial(_dois, ctx), parse_datacite,
                   PubFlag.DATACITE_DOI, apply, "DataCite")
