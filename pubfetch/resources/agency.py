"""A DOI's registration agency (Crossref, DataCite, mEDRA, JaLC ...), which decides whether Crossref or DataCite is
asked for it: doi.org's RA lookup (``https://doi.org/ra/{prefix},{prefix}``, answering
``[{"DOI": "10.1101", "RA": "Crossref"}]``), asked once per DOI prefix (every DOI of a prefix is registered by the same
agency) and kept for the run and, when the run has a database, in it
(:class:`~pubfetch.resources.base.AgencyCache`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pubfetch.extract.errors import ParseError, load_json
from pubfetch.extract.scholarly import json_list, json_object, text
from pubfetch.resources.base import Context, chunks
from pubfetch.resources.pubstate import PubFlag, PubState

log = logging.getLogger(__name__)

CROSSREF = "crossref"
DATACITE = "datacite"
#: prefixes per lookup request (each a few characters: the URL stays short)
PREFIXES_PER_REQUEST = 50


def prefix_of(doi: str) -> str:
    return doi.strip().split("/", 1)[0].lower()


def agency_of(ctx: Context, doi: str) -> str | None:
    """The agency of a DOI's prefix (lower case: ``crossref``, ``datacite`` ...) once looked up; ``None`` when it is
    not known (the lookup failed or was not made)."""
    return ctx.doi_agencies.get(prefix_of(doi)) if doi else None


def wants_agency(ctx: Context, state: PubState) -> bool:
    return bool(state.pub.doi.content and not state.has(PubFlag.DOI_AGENCY) and (
        ctx.config.run.ask_crossref or ctx.config.run.ask_datacite))


def fetch_agencies(ctx: Context, states: Sequence[PubState]) -> None:
    """Look up the agencies of the publications' DOI prefixes not known yet: from the database, else from doi.org."""
    prefixes = []
    for state in states:
        if wants_agency(ctx, state):
            state.set(PubFlag.DOI_AGENCY)
            prefixes.append(prefix_of(state.pub.doi.content))
    missing = [p for p in dict.fromkeys(prefixes) if p not in ctx.doi_agencies]
    mine, theirs = ctx.agency_lookups.claim(missing)
    try:
        _look_up(ctx, [p for p in mine if p not in ctx.doi_agencies])  # found by another since: not asked again
    finally:
        ctx.agency_lookups.release(mine)
    for answer in theirs:  # another batch of the run is asking for these prefixes now
        answer.wait()


def _look_up(ctx: Context, prefixes: list[str]) -> None:
    """The agencies of ``prefixes``: from the database, else from doi.org; kept in both."""
    cache = ctx.agency_cache
    if cache is not None and prefixes:
        ctx.doi_agencies.update(cache.get_agencies(prefixes))
        prefixes = [p for p in prefixes if p not in ctx.doi_agencies]
    found: dict[str, str] = {}
    for chunk in chunks(prefixes, PREFIXES_PER_REQUEST):
        url = ctx.endpoints.doi + "ra/" + ",".join(chunk)
        result = ctx.client.get(url, headers={"Accept": "application/json"})
        if not result.ok:
            log.warning("DOI registration agencies of %s not known (%s): Crossref is asked for their DOIs",
                        ", ".join(chunk), result.message or result.kind.name)
            continue
        try:
            found.update(read_agencies(result.body))
        except ParseError as e:
            log.warning("unreadable answer of %s: %s", url, e)
    ctx.doi_agencies.update(found)
    if cache is not None and found:
        cache.put_agencies(found)


def read_agencies(body: bytes) -> dict[str, str]:
    """Prefix -> agency of an RA answer (entries without ``RA``, such as "DOI does not exist", are left out)."""
    doc = load_json(body, "DOI registration agency answer")
    if not isinstance(doc, list):
        raise ParseError("not a registration agency answer: not a list")
    return {prefix_of(text(entry.get("DOI"))): text(entry.get("RA")).lower()
            for entry in map(json_object, json_list(doc)) if text(entry.get("DOI")) and text(entry.get("RA"))}
