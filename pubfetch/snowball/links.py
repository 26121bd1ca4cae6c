"""The links a snowball follows from a fetched paper: the papers citing it (Europe PMC's citations endpoint, one
request per paper and page; E-utilities ELink ``pubmed_pubmed_citedin``, many PMIDs a request) and the papers it
cites (its reference list, already fetched as the ``references`` part: no request).

Every request goes through the run's client, so through the shared rate limits, retries and answer memory of every
other request. A paper whose citers could not all be read (a failed request, an unreadable page) keeps those it got
and is named in a warning: a snowball is incomplete there, and says so.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urlencode

from pubfetch.extract.citation_links import CITEDIN_LINK, parse_elink_citedin, parse_europepmc_citations
from pubfetch.ids import PublicationIds
from pubfetch.model.publication import Publication
from pubfetch.resources.base import Context, chunks
from pubfetch.resources.ncbi import eutils_params

log = logging.getLogger(__name__)

__all__ = ["CITATIONS_PAGE_SIZE", "Links", "citing_europepmc", "citing_pubmed", "referenced"]

#: citing papers per page of Europe PMC's citations endpoint (the service's largest page)
CITATIONS_PAGE_SIZE = 1000


@dataclass
class Links:
    """What one paper's links gave: the papers found, how many listed ones had no ID to follow, and whether a request
    failed (the list is then short)."""

    found: list[PublicationIds] = field(default_factory=list)
    unfollowable: int = 0
    failed: bool = False


def citing_europepmc(ctx: Context, ids: PublicationIds) -> Links:
    """The papers Europe PMC lists as citing the paper of ``ids`` (asked by PMID, else by PMCID; a paper with only a
    DOI cannot be asked), page after page of :data:`CITATIONS_PAGE_SIZE` until the announced count is read."""
    links = Links()
    if ids.pmid:
        source, ext = "MED", ids.pmid
    elif ids.pmcid:
        source, ext = "PMC", ids.pmcid
    else:
        return links
    url = f"{ctx.endpoints.europepmc}{source}/{ext}/citations"
    seen: set[PublicationIds] = set()
    listed, page = 0, 1
    while True:
        result = ctx.client.get(url, params={"page": str(page), "pageSize": str(CITATIONS_PAGE_SIZE),
                                             "format": "json"}, headers={"Accept": "application/json"})
        if not result.ok:
            log.warning("Europe PMC's citations of %s %s: page %d failed (%s); the snowball keeps the %d citing papers "
                        "read", source, ext, page, result.brief(), len(links.found))
            links.failed = True
            return links
        try:
            answer = parse_europepmc_citations(result.text or "")
        except ValueError as e:
            log.warning("Europe PMC's citations of %s %s: page %d is unreadable (%s); the snowball keeps the %d citing "
                        "papers read", source, ext, page, e, len(links.found))
            links.failed = True
            return links
        new = [c for c in answer.citing if c not in seen]
        seen.update(new)
        links.found.extend(new)
        links.unfollowable += answer.unfollowable
        listed += answer.listed
        if not answer.listed or listed >= (answer.hit_count or 0) or not (new or answer.unfollowable):
            return links
        page += 1


def citing_pubmed(ctx: Context, pmids: Sequence[str]) -> tuple[dict[str, list[str]], list[str]]:
    """The PMIDs citing each of ``pmids`` by ELink ``pubmed_pubmed_citedin``, ``elink_batch`` PMIDs a request (POSTed,
    one ``id`` parameter per PMID, so that each answers in a link set of its own); and the PMIDs whose request
    failed."""
    cited_by: dict[str, list[str]] = {}
    failed: list[str] = []
    url = ctx.endpoints.eutils + "elink.fcgi"
    for batch in chunks(list(pmids), ctx.config.batching.elink_batch):
        form = [("dbfrom", "pubmed"), ("db", "pubmed"), ("linkname", CITEDIN_LINK), ("retmode", "xml"),
                *(("id", pmid) for pmid in batch), *eutils_params(ctx).items()]
        result = ctx.client.post(url, urlencode(form), headers={
            "Accept": "application/xml", "Content-Type": "application/x-www-form-urlencoded"})
        try:
            if not result.ok:
                raise ValueError(result.brief())
            cited_by.update(parse_elink_citedin(result.text or ""))
        except ValueError as e:
            log.warning("E-utilities ELink (%s) for %d PMIDs from %s failed: %s; their PubMed citers are not followed",
                        CITEDIN_LINK, len(batch), batch[0], e)
            failed.extend(batch)
    return cited_by, failed


def referenced(pub: Publication) -> Links:
    """The papers ``pub``'s reference list names by PMID, PMCID or DOI (a reference given only as text is counted as
    not followable)."""
    links = Links()
    seen: set[PublicationIds] = set()
    for ref in pub.references.items:
        ids = PublicationIds(getattr(ref, "pmid", ""), getattr(ref, "pmcid", ""), getattr(ref, "doi", ""))
        if ids.is_empty():
            links.unfollowable += 1
        elif ids not in seen:
            seen.add(ids)
            links.found.append(ids)
    return links
