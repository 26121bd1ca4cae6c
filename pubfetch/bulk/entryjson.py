"""The stored JSON of a PubMed record merged into no entry, written straight from the record.

Loading a baseline into an empty database, nearly every record is merged into nothing: an empty
:class:`~pubfetch.model.publication.Publication`, whose setters each find an empty part (type ``na``, which any offer
beats), and which is then serialised. What that gives depends on the record alone, so :func:`pubmed_entry` writes the
same dict (the same keys in the same order, the same values, the clock read once per part set and in the merge's
order) without the Publication, its 21 parts and their setters, which were two thirds of the store's cost per new
record (docs/benchmarks.md, "Bulk imports"). A record the merge would log a warning about (an invalid ID, a DOI with a
space, a date or a citation count it cannot read) gets None, and goes through the merge itself.

Whatever changes what :func:`~pubfetch.model.merge.apply_record` or ``Publication.to_json`` make of a record must
change this too: tests/test_bulk_entryjson.py compares the two on the corpus's records and on unusual ones.
"""

from __future__ import annotations

import functools
from typing import Any

from pubfetch.ids import is_doi, is_pmcid, is_pmid, normalise_doi
from pubfetch.model.part_type import PartType
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import dedup_grants
from pubfetch.model.timefmt import Clock, date_human, date_to_ms, instant_human, now_ms

__all__ = ["pubmed_entry"]

_TYPE = PartType.pubmed_xml.value
_NEVER = instant_human(0)
_NO_TIME = instant_human(-1)
_NO_DATE = date_human(-1)
#: the publication dates of a file's records are a few thousand days: each read once
_date_ms = functools.lru_cache(maxsize=4096)(date_to_ms)


def _distinct(items: list) -> list:
    """``list(dict.fromkeys(items))``, without the dict for none or one (most records' updates and relations)."""
    return list(dict.fromkeys(items)) if len(items) > 1 else items


def _id(value: str, valid: Any) -> str | None:
    """An ID as ``Publication._set_id`` takes it into an empty part: "" when there is none, None when it is invalid
    (the merge warns: left to it)."""
    if not value or not value.strip():
        return ""
    value = value.strip()
    return value if valid(value) else None


def _s(value: str) -> str:
    """A set-once text field or a string part's offer as the merge takes it: stripped ("" for none)."""
    return value.strip() if value else ""


def _string(content: str, url: str, clock: Clock) -> dict[str, Any]:
    """A string part offered ``content`` (already stripped) when empty: taken when there is any."""
    if content:
        return {"content": content, "type": _TYPE, "url": url, "timestamp": clock()}
    return {"content": "", "type": "na", "url": "", "timestamp": 0}


def _no_list() -> dict[str, Any]:
    """An empty list part, plain or rich, as stored."""
    return {"list": [], "type": "na", "url": "", "timestamp": 0}


def _list(items: list, url: str, clock: Clock) -> dict[str, Any]:
    """One of the ten list parts offered ``items`` when empty: taken when there are any (``ListPart.items_json``)."""
    if items:
        return {"list": [i if isinstance(i, str) else i.to_json() for i in items], "type": _TYPE, "url": url,
                "timestamp": clock()}
    return _no_list()


def _rich(items: list, url: str, clock: Clock) -> dict[str, Any]:
    """A rich list part offered ``items`` when empty: taken when there are any (``RichList.to_json``)."""
    if items:
        return {"list": [i.to_json() for i in items], "type": _TYPE, "url": url, "timestamp": clock()}
    return _no_list()


def _checked(record: ArticleRecord) -> tuple[str, str, str, int, int | None] | None:
    """The record's PMID, PMCID, DOI, publication date and citation count as the merge takes them; None when it would
    warn about one (an invalid ID, a DOI with a space, a date or count it cannot read)."""
    pmid = _id(record.pmid, is_pmid)
    pmcid = _id(record.pmcid, is_pmcid)
    doi: str | None = ""
    if record.doi:
        norm = normalise_doi(record.doi.strip())
        doi = None if " " in norm else _id(norm, is_doi)
    if pmid is None or pmcid is None or doi is None:
        return None
    pub_date = _date_ms(record.pub_date) if record.pub_date else -1
    if pub_date is None:
        return None
    count = record.citations_count
    if count is not None:
        try:
            count = int(str(count).strip())
        except (TypeError, ValueError):
            return None
        if count < 0:
            return None
    return pmid, pmcid, doi, pub_date, count


def _head(record: ArticleRecord, pub_date: int, count: int | None, counted: int) -> dict[str, Any]:
    """The entry's fetch state, facts, people and bibliographic fields, in ``Publication.to_json``'s order."""
    verdict = record.retraction
    flags = {} if verdict is None else {verdict.source.value: verdict.retracted}
    return {
        "fetchTime": 0,
        "fetchTimeHuman": _NEVER,
        "retryCounter": 0,
        "fetchException": False,
        "oa": bool(record.oa),
        "preprint": bool(record.preprint),
        "journalTitle": _s(record.journal_title),
        "pubDate": pub_date,
        "pubDateHuman": date_human(pub_date) if pub_date != -1 else _NO_DATE,
        "citationsCount": -1 if count is None else count,
        "citationsTimestamp": counted,
        "citationsTimestampHuman": instant_human(counted) if counted != -1 else _NO_TIME,
        "correspAuthor": [a.to_json() for a in record.corresp_author if not a.is_empty()],
        "visitedSites": [],
        "authors": [a.to_json() for a in record.authors],
        "volume": _s(record.volume),
        "issue": _s(record.issue),
        "pages": _s(record.pages),
        "issn": _s(record.issn),
        "eissn": _s(record.eissn),
        "publisher": _s(record.publisher),
        "pubTypes": list(dict.fromkeys(t.strip() for t in record.pub_types if t and t.strip())),
        "retracted": any(flags.values()),
        "retractionFlags": flags,
        "rejectedSites": [],
        "unverifiedSites": [],
    }


def pubmed_entry(record: ArticleRecord, url: str, clock: Clock = now_ms) -> dict[str, Any] | None:
    """``Publication.to_json(computed=False)`` of an empty publication after ``apply_record(pub, record,
    PartType.pubmed_xml, url, args, force_corresp=True)`` (whatever ``args``: an empty part is never final); None
    when the merge would warn about the record."""
    checked = _checked(record)
    if checked is None:
        return None
    pmid, pmcid, doi, pub_date, count = checked
    url = url.strip()
    # the parts in the merge's order, each reading the clock when set
    parts = (
        _string(pmid, url, clock), _string(pmcid, url, clock), _string(doi, url, clock),
        _string(_s(record.title), url, clock),
        _list(list(dict.fromkeys(k for k in (k.strip() for k in record.keywords if k is not None) if k)), url, clock),
        _list([t for t in record.mesh if t is not None and t.term], url, clock),
        _list([t for t in record.efo if t is not None and t.term], url, clock),
        _list([t for t in record.go if t is not None and t.term], url, clock),
        _string(_s(record.abstract), url, clock),
        _string(_s(record.fulltext), url, clock),
    )
    d = _head(record, pub_date, count, clock() if count is not None else -1)
    # the rich parts, in RichName's order (mined terms are never in a PubMed record's merge)
    d["funding"] = _rich(dedup_grants(record.funding) if record.funding else [], url, clock)
    d["links"] = _rich(record.text_links, url, clock)
    d["minedTerms"] = _no_list()
    d["updates"] = _rich(_distinct(record.updates), url, clock)
    d["references"] = _rich(record.references, url, clock)
    d["sections"] = _rich(record.sections, url, clock)
    d["license"] = _string(record.license.strip() if isinstance(record.license, str) else "", url, clock)
    d["relations"] = _rich(_distinct(record.relations), url, clock)
    d["tables"] = _rich(record.tables, url, clock)
    d["figures"] = _rich(record.figures, url, clock)
    d["supplements"] = _rich(record.supplements, url, clock)
    d["statements"] = _rich(record.statements, url, clock)
    (d["pmid"], d["pmcid"], d["doi"], d["title"], d["keywords"], d["mesh"], d["efo"], d["go"], d["abstract"],
     d["fulltext"]) = parts
    return d
