"""The answers that say which papers cite a paper: a page of Europe PMC's citations endpoint
(``{source}/{id}/citations?page=&pageSize=&format=json``) and E-utilities ELink's ``pubmed_pubmed_citedin`` links.

Europe PMC lists each citing paper by ``id`` and ``source``: MED ids are PMIDs, PMC ids PMCIDs; a citing paper of
another source (a preprint, an Agricola record) has no ID pubfetch fetches by and is counted apart rather than
guessed at. ELink answers one ``LinkSet`` per ``id`` parameter; a link set naming several input PMIDs (the answer to
one comma-separated ``id``) merges their citers, so it cannot say who cites whom and is refused.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from pubfetch.extract.errors import ParseError, load_json, load_xml
from pubfetch.extract.pubmed_rich import valid_doi, valid_pmcid, valid_pmid
from pubfetch.extract.xmlsafe import local_name, text_of
from pubfetch.ids import PublicationIds

__all__ = ["CITEDIN_LINK", "CitationPage", "parse_elink_citedin", "parse_europepmc_citations"]

#: ELink's link name for the PubMed papers citing a PubMed paper.
CITEDIN_LINK = "pubmed_pubmed_citedin"


@dataclass
class CitationPage:
    """The citing papers of one page, how many the service announces in all (``None``: it does not say), and how many
    listed ones had no PMID, PMCID or DOI to follow."""

    citing: list[PublicationIds] = field(default_factory=list)
    hit_count: int | None = None
    listed: int = 0
    unfollowable: int = 0


def _s(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value.strip() if isinstance(value, str) else ""


def _citing(item: Mapping[str, Any]) -> PublicationIds:
    source, ext = _s(item.get("source")).upper(), _s(item.get("id"))
    return PublicationIds(pmid=valid_pmid(ext) if source == "MED" else "",
                          pmcid=valid_pmcid(ext) if source == "PMC" else "",
                          doi=valid_doi(_s(item.get("doi"))))


def parse_europepmc_citations(data: str | bytes) -> CitationPage:
    """Raises ParseError (a ValueError) for an answer that is not a citations page."""
    d = load_json(data, "Europe PMC citations answer")
    if not isinstance(d, dict) or ("citationList" not in d and "hitCount" not in d):
        raise ParseError("not a Europe PMC citations answer: no citationList or hitCount")
    listed = d.get("citationList")
    items = listed.get("citation") if isinstance(listed, dict) else None
    items = [i for i in (items if isinstance(items, list) else [items] if items else []) if isinstance(i, dict)]
    page = CitationPage(listed=len(items))
    for item in items:
        ids = _citing(item)
        if ids.is_empty():
            page.unfollowable += 1
        else:
            page.citing.append(ids)
    hits = d.get("hitCount")
    page.hit_count = hits if isinstance(hits, int) and not isinstance(hits, bool) else None
    return page


def parse_elink_citedin(data: str | bytes) -> dict[str, list[str]]:
    """The PMIDs citing each PMID asked (every asked PMID that ELink answered for is a key, with ``[]`` when nothing
    cites it). Raises ParseError for an answer that is not ELink's, an ELink error, or a link set of several PMIDs."""
    root = load_xml(data, "ELink answer")
    if local_name(root) != "eLinkResult":
        raise ParseError(f"not an ELink answer: its root is <{local_name(root)}>")
    error = next((text_of(e) for e in root if local_name(e) == "ERROR"), "")
    if error:
        raise ParseError(f"ELink answered an error: {error}")
    cited_by: dict[str, list[str]] = {}
    for link_set in _children(root, "LinkSet"):
        asked = [text_of(i) for c in _children(link_set, "IdList") for i in _children(c, "Id")]
        links = _citedin_ids(link_set)
        if len(asked) != 1:
            if links:
                raise ParseError(f"an ELink link set merges the citers of {len(asked)} PMIDs ({', '.join(asked[:3])}"
                                 "...): ask with one id parameter per PMID")
            continue
        cited_by[asked[0]] = [pmid for pmid in links if valid_pmid(pmid)]
    return cited_by


def _children(parent: etree._Element, name: str) -> Iterator[etree._Element]:
    """The children of ``parent`` named ``name``, whatever their namespace."""
    return (child for child in parent if local_name(child) == name)


def _citedin_ids(link_set: etree._Element) -> list[str]:
    """The IDs of a link set's ``pubmed_pubmed_citedin`` links, in order."""
    return [text_of(i) for db in _children(link_set, "LinkSetDb")
            if any(text_of(n) == CITEDIN_LINK for n in _children(db, "LinkName"))
            for link in _children(db, "Link") for i in _children(link, "Id")]
