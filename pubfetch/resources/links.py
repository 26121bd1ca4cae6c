"""The queue of links a publication's pages pointed to, best part type first (PubFetcher's Links).

Links come from scraping rules, meta tags, Unpaywall and Europe PMC; after the resources, the chain visits them in
order of their part type while they can still improve something. Links into Europe PMC and PMC are not visited (those
services are asked through their APIs) but the PMCID or PMID in their URL is taken.
"""

from __future__ import annotations

import logging
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from pubfetch import ids as idmod
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.parts import link_identity
from pubfetch.model.publication import Publication

log = logging.getLogger(__name__)

_PMCID = r"PMC[1-9][0-9]{0,14}"
_PMID = r"[1-9][0-9]{0,14}"
#: host -> (PMCID pattern, PMID pattern) over the upper-cased URL.
_ID_HOSTS = {
    "europepmc.org": (re.compile(rf"EUROPEPMC\.ORG/ARTICLES/({_PMCID})"),
                      re.compile(rf"EUROPEPMC\.ORG/ABSTRACT/MED/({_PMID})")),
    "ncbi.nlm.nih.gov": (re.compile(rf"NCBI\.NLM\.NIH\.GOV/PMC/ARTICLES/({_PMCID})"),
                         re.compile(rf"NCBI\.NLM\.NIH\.GOV/PMC/ARTICLES/PMID/({_PMID})")),
    "www.ncbi.nlm.nih.gov": (re.compile(rf"NCBI\.NLM\.NIH\.GOV/PMC/ARTICLES/({_PMCID})"),
                             re.compile(rf"NCBI\.NLM\.NIH\.GOV/PMC/ARTICLES/PMID/({_PMID})")),
    "pubmedcentralcanada.ca": (re.compile(rf"PUBMEDCENTRALCANADA\.CA/PMCC/ARTICLES/({_PMCID})"),
                               re.compile(rf"PUBMEDCENTRALCANADA\.CA/PMCC/ARTICLES/PMID/({_PMID})")),
}


@dataclass(frozen=True)
class QueuedLink:
    """A link to visit; equal when the URLs name the same page (:func:`link_identity`, PubFetcher's Link)."""

    url: str
    type: PartType
    from_url: str

    def __eq__(self, other: object) -> bool:
        return isinstance(other, QueuedLink) and link_identity(self.url) == link_identity(other.url)

    def __hash__(self) -> int:
        return hash(link_identity(self.url))


class Links:
    """Links sorted by part type (stable among equals), each page tried at most once: URLs are told apart by
    :func:`link_identity` (host, path and query, as PubFetcher's Link), so the queue and the tried set are keyed by it.

    Kept as one FIFO bucket per rank plus the live entry of every queued URL, so that adding is O(1) whatever the
    number of links (a page with 10,000 ``citation_pdf_url`` tags took 38 s with a sorted list scanned per link). A URL
    re-queued with a better type leaves a stale entry in its old bucket, skipped when popped or listed.
    """

    def __init__(self) -> None:
        self._buckets: dict[int, deque[QueuedLink]] = {}
        self._queued: dict[str, QueuedLink] = {}
        self._tried: set[str] = set()

    def __len__(self) -> int:
        return len(self._queued)

    def __iter__(self) -> Iterator[QueuedLink]:
        return iter([link for rank in sorted(self._buckets) for link in self._buckets[rank] if self._live(link)])

    def _live(self, link: QueuedLink) -> bool:
        return self._queued.get(link_identity(link.url)) is link

    def pop(self) -> QueuedLink | None:
        """The best link not tried yet (marked tried), or ``None``."""
        for rank in sorted(self._buckets):
            bucket = self._buckets[rank]
            while bucket:
                link = bucket.popleft()
                if not self._live(link):
                    continue
                key = link_identity(link.url)
                del self._queued[key]
                if key not in self._tried:
                    self._tried.add(key)
                    return link
        return None

    def again(self, link: QueuedLink) -> None:
        """Queue a link that was tried but failed in a way worth one more try (the end-of-run retry)."""
        key = link_identity(link.url)
        self._tried.discard(key)
        self._queued[key] = link
        self._buckets.setdefault(_rank(link.type), deque()).append(link)

    def to_json(self) -> dict[str, list]:
        """The queue and the tried pages, for a publication waiting on disk for the end-of-run retry."""
        return {"queued": [[link.url, link.type.value, link.from_url] for link in self],
                "tried": sorted(self._tried)}

    @classmethod
    def from_json(cls, doc: dict[str, list]) -> Links:
        links = cls()
        links._tried.update(doc.get("tried", []))
        for url, type_, from_url in doc.get("queued", []):
            link = QueuedLink(url, PartType(type_), from_url)
            links._queued[link_identity(url)] = link
            links._buckets.setdefault(_rank(link.type), deque()).append(link)
        return links

    def add_tried(self, url: str) -> None:
        """Mark a URL as visited (the page a resource itself fetched), so that no link leads back to it."""
        self._tried.add(link_identity(url))

    def add(self, url: str, type_: PartType, from_url: str, pub: Publication | None, args: FetcherArgs,
            pmc_pdf: bool = False) -> bool:
        """Queue a link unless it is useless; return whether it was queued.

        DOI links are dropped (the DOI resource handles DOIs). Europe PMC / PMC links give their IDs to the
        publication and are dropped, unless they are PDFs and ``pmc_pdf`` says PDFs of those sites are wanted.
        A URL already queued keeps the better of the two types.
        """
        url = (url or "").strip()
        try:
            split = urlsplit(url)
        except ValueError:
            log.warning("can't add malformed link %s found in %s of type %s", url, from_url, type_.value)
            return False
        if split.scheme.lower() not in ("http", "https", "ftp") or not split.hostname:
            log.warning("can't add malformed link %s found in %s of type %s", url, from_url, type_.value)
            return False
        if idmod.is_doi(url):
            return False
        host = split.hostname.lower()
        patterns = _ID_HOSTS.get(host)
        if patterns is not None:
            if pub is not None:
                _extract_ids(patterns, url, pub, type_, from_url, args)
            if not type_.is_pdf or not pmc_pdf:
                return False
        key = link_identity(url)
        if key in self._tried:
            return False
        existing = self._queued.get(key)
        if existing is not None and not type_.is_better_than(existing.type):
            return False
        link = QueuedLink(url, type_, from_url)
        self._queued[key] = link
        self._buckets.setdefault(_rank(type_), deque()).append(link)
        log.info("add link %s found in %s of type %s", url, from_url, type_.value)
        return True


def _rank(type_: PartType) -> int:
    """Position of a type in the queue: final types are equivalent to one another (one rank), the others by order."""
    return -1 if type_.is_final else type_.order


def _extract_ids(patterns: tuple[re.Pattern[str], re.Pattern[str]], url: str, pub: Publication, type_: PartType,
                 from_url: str, args: FetcherArgs) -> None:
    upper = url.upper()
    pmcid_re, pmid_re = patterns
    if pub.pmcid.type is not PartType.external and type_.is_better_than(pub.pmcid.type):
        m = pmcid_re.search(upper)
        if m and pub.set_pmcid(m.group(1), type_, from_url, args):
            log.info("extracted PMCID %s from %s found in %s", m.group(1), url, from_url)
    if pub.pmid.type is not PartType.external and type_.is_better_than(pub.pmid.type):
        m = pmid_re.search(upper)
        if m and pub.set_pmid(m.group(1), type_, from_url, args):
            log.info("extracted PMID %s from %s found in %s", m.group(1), url, from_url)
