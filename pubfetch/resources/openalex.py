"""OpenAlex: every DOI of a batch in ``works?filter=doi:a|b`` requests (up to ``openalex_batch`` DOIs, 100 at most).

Asked for every DOI: its retraction flag (``is_retracted``) and, for a paper outside PubMed, its citation count; its
PMID and PMCID when the DOI was all the publication had (the chain then goes round the PubMed resources with them);
content (title, the abstract rebuilt from its inverted index, authors, funding, licence) where the earlier resources
left it unfinished; its best open-access PDF as a link to follow. OpenAlex asks for an API key since February 2026:
without one (``openalex_api_key``) it is skipped, and the run says once how to set it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial

from pubfetch.extract.openalex import parse_openalex
from pubfetch.model.part_type import PartType
from pubfetch.model.record import ArticleRecord
from pubfetch.net.outcome import EntryPolicy, FetchResult
from pubfetch.net.urls import RedactingFilter
from pubfetch.resources.base import Context
from pubfetch.resources.doibatch import ask_in_batches, merge, take
from pubfetch.resources.pubstate import PubFlag, PubState

log = logging.getLogger(__name__)
log.addFilter(RedactingFilter())  # request URLs carry the api_key

#: characters that would split OpenAlex's filter (values are separated by "|", filters by ","): such a DOI is asked
#: by itself
_SEPARATORS = ("|", ",")


def wants_openalex(ctx: Context, state: PubState) -> bool:
    """Whether :func:`fetch_openalex` asks for this publication: a DOI not asked yet, and an API key to ask with."""
    if not (ctx.config.run.ask_openalex and state.pub.doi.content and not state.has(PubFlag.OPENALEX_DOI)):
        return False
    if not ctx.config.run.openalex_api_key.strip():
        ctx.warn_once("openalex-key", "OpenAlex is skipped: it asks for an API key since February 2026; set "
                      "PUBFETCH_OPENALEX_API_KEY or --openalex-api-key (free at openalex.org), or --no-openalex")
        return False
    return True


def work_url(ctx: Context, doi: str) -> str:
    """The URL recorded on parts: the one-DOI work URL (without the key), whatever batch fetched it."""
    return f"{ctx.endpoints.openalex}works/https://doi.org/{doi.lower()}"


def _works(ctx: Context, dois: list[str], entry: EntryPolicy) -> FetchResult:
    key = {"api_key": ctx.config.run.openalex_api_key.strip()}
    if len(dois) == 1 and any(s in dois[0] for s in _SEPARATORS):
        return ctx.client.get(work_url(ctx, dois[0]), params=key, publication=True,
                              headers={"Accept": "application/json"}, entry=entry)
    params = {"filter": "doi:" + "|".join(d.lower() for d in dois), "per-page": str(len(dois)), **key}
    return ctx.client.get(ctx.endpoints.openalex + "works", params=params, publication=True,
                          headers={"Accept": "application/json"}, entry=entry)


def fetch_openalex(ctx: Context, states: Sequence[PubState]) -> None:
    todo = take(ctx, states, wants_openalex, PubFlag.OPENALEX_DOI)

    def apply(state: PubState, record: ArticleRecord, url: str) -> None:
        state.set(PubFlag.OPENALEX)
        part_url = work_url(ctx, record.doi)
        merge(ctx, state, record, PartType.openalex, part_url)
        for link in record.links:
            state.links.add(link.url, PartType.pdf_oadoi if link.kind == "pdf" else PartType.link_oadoi, part_url,
                            state.pub, ctx.args)

    size = ctx.config.batching.openalex_batch
    for single, group_size in ((False, size), (True, 1)):
        group = [(state, doi) for state, doi in todo if any(s in doi for s in _SEPARATORS) is single]
        ask_in_batches(ctx, group, group_size, partial(_works, ctx), parse_openalex,
                       PubFlag.OPENALEX_DOI, apply, "OpenAlex")
