"""The answers of the search services read for their IDs: a Europe PMC ``resultType=idlist`` page, an E-utilities
esearch answer, an esummary (version 1 DocSum) answer.

A search asks for thousands of hits and needs only their identifiers, so these readers take the IDs and the paging
fields (``hitCount``, ``nextCursorMark``; ``Count``, ``WebEnv``, ``QueryKey``) and nothing else. An identifier that
does not validate is left out of its hit (logged), and a hit with none left is counted apart, so that the number
retrieved can still be compared with the number the service announced.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from pubfetch.extract.errors import ParseError, ServiceError, load_json, load_xml
from pubfetch.extract.xmlsafe import local_name
from pubfetch.ids import InvalidId, PublicationIds, check_doi, check_pmcid, check_pmid

log = logging.getLogger(__name__)

__all__ = ["EsearchAnswer", "HitPage", "parse_esearch", "parse_esummary_ids", "parse_idlist_page"]


@dataclass
class HitPage:
    """One page of search hits: the publications found (PMID, PMCID and DOI of a hit together), how many hits the
    page held (those without a usable ID included), the service's total and where the next page starts."""

    ids: list[PublicationIds] = field(default_factory=list)
    hits: int = 0
    #: hits of the page without a valid PMID, PMCID or DOI (a preprint known only by its PPR id)
    without_ids: list[str] = field(default_factory=list)
    hit_count: int | None = None
    next_cursor: str = ""


def _checked(value: Any, check: Callable[[str], str]) -> str:
    text = str(value).strip() if isinstance(value, str | int) else ""
    if not text:
        return ""
    try:
        return check(text)
    except InvalidId as e:
        log.info("search hit: %s (left out of the hit)", e)
        return ""


def hit_ids(pmid: Any, pmcid: Any, doi: Any) -> PublicationIds:
    """The valid ones of a hit's three IDs, together (a PMCID given as a bare number gets its PMC prefix)."""
    if isinstance(pmcid, str | int) and str(pmcid).strip().isdigit():
        pmcid = f"PMC{str(pmcid).strip()}"
    return PublicationIds(_checked(pmid, check_pmid), _checked(pmcid, check_pmcid), _checked(doi, check_doi))


def parse_idlist_page(text: str | bytes) -> HitPage:
    """A Europe PMC ``format=json`` search page (any ``resultType``: only the IDs are read). Raises ParseError
    (ServiceError for the service's own error answer) when it is not a search page."""
    d = load_json(text, "Europe PMC search answer")
    if not isinstance(d, dict):
        raise ParseError(f"Europe PMC search answer is a JSON {type(d).__name__}, not an object")
    if d.get("errMsg") is not None or d.get("errCode") is not None:
        raise ServiceError(f"Europe PMC error: {d.get('errMsg') or d.get('errCode')}")
    hit_count = d.get("hitCount")
    if not isinstance(hit_count, int) or isinstance(hit_count, bool) or hit_count < 0:
        raise ParseError("not a Europe PMC search page: no hitCount")
    result_list = d.get("resultList") or {}
    results = result_list.get("result") if isinstance(result_list, dict) else None
    page = HitPage(hit_count=hit_count, next_cursor=str(d.get("nextCursorMark") or ""))
    for r in results if isinstance(results, list) else []:
        if not isinstance(r, dict):
            continue
        page.hits += 1
        ids = hit_ids(r.get("pmid"), r.get("pmcid"), r.get("doi"))
        if ids.is_empty():
            page.without_ids.append(f"{r.get('source', '')}:{r.get('id', '')}")
        else:
            page.ids.append(ids)
    return page


@dataclass
class EsearchAnswer:
    """An esearch answer: the hit count, the history server's keys and the PMIDs of this page."""

    count: int
    web_env: str = ""
    query_key: str = ""
    pmids: list[str] = field(default_factory=list)


def _root(text: str | bytes, what: str, tag: str) -> etree._Element:
    try:
        root = load_xml(text, what)
    except ValueError as e:
        raise ParseError(str(e)) from e
    if local_name(root) != tag:
        raise ParseError(f"{what} is a <{local_name(root)}> document, not <{tag}>")
    return root


def parse_esearch(text: str | bytes) -> EsearchAnswer:
    """An esearch ``eSearchResult``; its ERROR element (a malformed query, an expired history) is a ServiceError."""
    root = _root(text, "esearch answer", "eSearchResult")
    error = root.findtext("ERROR")
    if error:
        raise ServiceError(f"E-utilities error: {error.strip()}")
    count = (root.findtext("Count") or "").strip()
    if not count.isdigit():
        raise ParseError("esearch answer without a Count")
    pmids = [_checked(el.text, check_pmid) for el in root.iterfind("IdList/Id")]
    return EsearchAnswer(int(count), (root.findtext("WebEnv") or "").strip(), (root.findtext("QueryKey") or "").strip(),
                         [p for p in pmids if p])


def parse_esummary_ids(text: str | bytes) -> list[PublicationIds]:
    """The PMID, PMCID and DOI of every DocSum of an esummary answer (version 1: ``ArticleIds`` items ``pubmed``,
    ``pmc``, ``doi``, and the DocSum's own ``DOI`` item)."""
    root = _root(text, "esummary answer", "eSummaryResult")
    error = root.findtext("ERROR")
    if error:
        raise ServiceError(f"E-utilities error: {error.strip()}")
    out = []
    for doc in root.iterfind("DocSum"):
        found = {"pubmed": (doc.findtext("Id") or "").strip(), "pmc": "", "doi": ""}
        for item in doc.iterchildren("Item"):  # the DocSum's own items, and the ArticleIds list's: no deeper
            name = item.get("Name")
            listed = item.iterchildren("Item") if name == "ArticleIds" else (item,) if name == "DOI" else ()
            for value in listed:
                key = (value.get("Name") or "").lower()
                if key in found and not found[key] and value.text:
                    found[key] = value.text.strip()
        ids = hit_ids(found["pubmed"], found["pmc"], found["doi"])
        if not ids.is_empty():
            out.append(ids)
    return out
