"""One page of Europe PMC's references endpoint (``{source}/{id}/references?format=json``) as references.

Each ``referenceList/reference`` becomes a :class:`~pubfetch.model.rich.Reference`: ``id`` is the cited paper's PMID
when its ``source`` is MED (its PMCID when PMC), ``doi`` when given, ``title``, and a citation text built from
``authorString``, ``title``, ``journalAbbreviation``, ``pubYear``, ``volume``, ``issue`` and ``pageInfo``. Entries
are put in ``citedOrder`` when the service gives it. ``hitCount`` says how many references the paper has, which is
how the resource knows whether to ask for the next page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pubfetch.extract.errors import ParseError, load_json
from pubfetch.extract.pubmed_rich import valid_doi, valid_pmcid, valid_pmid
from pubfetch.model.rich import Reference

__all__ = ["ReferencePage", "parse_references_json"]


@dataclass
class ReferencePage:
    """The references of one page and the total the service announces (``None`` when it does not say)."""

    references: list[Reference] = field(default_factory=list)
    hit_count: int | None = None


def _s(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value.strip() if isinstance(value, str) else ""


def _order(item: Mapping[str, Any]) -> int:
    value = item.get("citedOrder")
    return value if isinstance(value, int) and not isinstance(value, bool) else 1 << 30


def _text(item: Mapping[str, Any]) -> str:
    where = " ".join(p for p in (_s(item.get("journalAbbreviation")), _s(item.get("pubYear"))) if p)
    volume = _s(item.get("volume")) + (f"({_s(item.get('issue'))})" if _s(item.get("issue")) else "")
    where += (";" + volume if volume else "") + (":" + _s(item.get("pageInfo")) if _s(item.get("pageInfo")) else "")
    parts = (_s(item.get("authorString")), _s(item.get("title")), where)
    return " ".join(p if p.endswith(".") else p + "." for p in parts if p)


def _reference(item: Mapping[str, Any]) -> Reference:
    source = _s(item.get("source")).upper()
    cited = _s(item.get("id"))
    return Reference(pmid=valid_pmid(cited) if source == "MED" else "",
                     pmcid=valid_pmcid(cited) if source == "PMC" else "",
                     doi=valid_doi(_s(item.get("doi"))), title=_s(item.get("title")), text=_text(item))


def parse_references_json(data: str | bytes) -> ReferencePage:
    """Raises ParseError (a ValueError) for an answer that is not a references page."""
    d = load_json(data, "Europe PMC references answer")
    if not isinstance(d, dict):
        raise ParseError(f"Europe PMC references answer is a JSON {type(d).__name__}, not an object")
    if "referenceList" not in d and "hitCount" not in d:
        raise ParseError("not a Europe PMC references answer: no referenceList or hitCount")
    listed = d.get("referenceList")
    items = listed.get("reference") if isinstance(listed, dict) else None
    items = [i for i in (items if isinstance(items, list) else [items] if items else []) if isinstance(i, dict)]
    hit_count = d.get("hitCount")
    return ReferencePage([_reference(i) for i in sorted(items, key=_order)],
                         hit_count if isinstance(hit_count, int) and not isinstance(hit_count, bool) else None)
