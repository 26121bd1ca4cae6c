"""bioRxiv and medRxiv: a preprint of those servers (DOI prefix 10.1101) from ``details/{server}/{doi}/na/json``, one
request per preprint (the API takes no lists), and its JATS full text from the ``jatsxml`` URL of its latest version.

Asked for every such DOI (the ``published`` field links the preprint to its journal version); title, abstract, authors
and the full text are taken where the earlier resources left them unfinished. The server is the one Crossref or an
earlier source named as the journal, else bioRxiv and then medRxiv.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from urllib.parse import quote

from pubfetch.extract.biorxiv import SERVERS, parse_biorxiv
from pubfetch.extract.jats import parse_jats
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.record import ArticleRecord
from pubfetch.net.outcome import EntryPolicy, FetchResult
from pubfetch.resources.base import Context
from pubfetch.resources.doibatch import merge, take
from pubfetch.resources.pubstate import PubFlag, PubState, entry_policy, mark_unreadable

log = logging.getLogger(__name__)

PREFIX = "10.1101/"
_FULLTEXT = (PartName.fulltext,)


def wants_biorxiv(ctx: Context, state: PubState) -> bool:
    doi = state.pub.doi.content
    return bool(ctx.config.run.ask_biorxiv and doi.startswith(PREFIX) and not state.has(PubFlag.BIORXIV_DOI))


def details_url(ctx: Context, server: str, doi: str) -> str:
    return f"{ctx.endpoints.biorxiv}details/{server}/{quote(doi.lower(), safe='/')}/na/json"


def fetch_biorxiv(ctx: Context, states: Sequence[PubState]) -> None:
    todo = [state for state, _ in take(ctx, states, wants_biorxiv, PubFlag.BIORXIV_DOI)]
    ctx.map(lambda state: _one(ctx, state), todo)


def _servers(state: PubState) -> list[str]:
    named = state.pub.journal_title.strip().lower()
    return sorted(SERVERS, key=lambda server: server != named)


def _read(ctx: Context, url: str, parse: Callable[[bytes], list[ArticleRecord]], accept: str,
          what: str, entry: EntryPolicy, unreadable: Sequence[PubState] = ()) -> tuple[FetchResult,
                                                                                       list[ArticleRecord] | None]:
    """The answer of ``url`` and its records (``None`` when it failed or could not be read, which is logged);
    ``entry``: what a failure means for the publication's entry; ``unreadable``: the entries an answer that cannot be
    read marks for a later fetch (its line says so: :func:`mark_unreadable`)."""
    result = ctx.client.get(url, publication=True, headers={"Accept": accept}, entry=entry)
    if not result.ok:
        return result, None
    try:
        return result, parse(result.body)
    except ValueError as e:
        log.warning("unreadable %s at %s: %s%s", what, url, e, mark_unreadable(ctx.args, unreadable))
        return result, None


def _one(ctx: Context, state: PubState) -> None:
    doi = state.pub.doi.content
    for server in _servers(state):
        url = details_url(ctx, server, doi)
        result, records = _read(ctx, url, parse_biorxiv, "application/json", "bioRxiv/medRxiv answer",
                                entry_policy(ctx.args, [state], service=True), unreadable=[state])
        if records is None:
            if not result.ok:
                state.fail(result, PubFlag.BIORXIV_DOI)
            return
        if records:
            state.set(PubFlag.BIORXIV)
            merge(ctx, state, records[0], PartType.biorxiv, url)
            _fulltext(ctx, state, records[0])
            return


def _fulltext(ctx: Context, state: PubState, record: ArticleRecord) -> None:
    """The preprint's JATS full text, while the full text is not final."""
    url = str(record.flags.get("jatsxml", ""))
    if not url or ctx.is_final(state.pub, _FULLTEXT) or not ctx.wants(PartName.fulltext):
        return
    state.set(PubFlag.BIORXIV_JATS)
    result, articles = _read(ctx, url, parse_jats, "application/xml", "JATS full text",
                             entry_policy(ctx.args, [state]))
    if not result.ok:
        state.fail(result, PubFlag.BIORXIV_JATS)
    elif articles:
        apply_record(state.pub, articles[0], PartType.biorxiv, url, ctx.args, parts=ctx.parts, ids=False,
                     rich=ctx.rich_parts)
