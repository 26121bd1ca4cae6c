"""Funding, corrections and licence of a Europe PMC search result (``resultType=core``), for the rich parts.

* ``funding``: ``grantsList/grant`` (``agency``, ``grantId``; Europe PMC gives no country).
* ``updates``: ``commentCorrectionList/commentCorrection``: ``type`` mapped to PubMed's RefType ("Retraction in" ->
  ``RetractionIn``), ``id`` as the PMID when its ``source`` is MED, the DOI from ``reference`` ("... doi: 10.x/y.").
* ``license``: ``license`` as written ("cc by").

The items arrive as the search parser's mappings (decoded JSON, or the same shape built from the XML answer).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from pubfetch import ids as idmod
from pubfetch.extract.pubmed_rich import valid_pmid
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import Grant, Update, update_type

__all__ = ["add_rich_parts"]


def _field(item: Any, key: str) -> str:
    """A scalar field of one list item as text, keys compared case-insensitively like the search parser does."""
    if not isinstance(item, Mapping):
        return ""
    value = item.get(key)
    if value is None:
        value = next((v for k, v in item.items() if isinstance(k, str) and k.lower() == key.lower()), None)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value.strip() if isinstance(value, str) else ""


def grants(items: list[Any]) -> list[Grant]:
    out = []
    for item in items:
        agency, grant_id = html.unescape(_field(item, "agency")), _field(item, "grantId")
        if agency or grant_id:
            out.append(Grant(agency, grant_id))
    return out


def updates(items: list[Any]) -> list[Update]:
    out = []
    for item in items:
        kind = update_type(_field(item, "type"))
        if not kind:
            continue
        pmid = valid_pmid(_field(item, "id")) if _field(item, "source").upper() in ("MED", "") else ""
        dois = idmod.extract_dois(_field(item, "reference"))
        out.append(Update(kind, pmid, dois[0] if dois else ""))
    return out


def add_rich_parts(record: ArticleRecord, grant_items: list[Any], correction_items: list[Any],
                   license_name: str) -> None:
    record.funding = grants(grant_items)
    record.updates = updates(correction_items)
    record.license = license_name
