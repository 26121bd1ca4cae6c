"""What the identity check leaves on an entry: the pages and PDFs rejected as another paper's, and those merged
unverified (they carried nothing to check them by) until a later source's title confirms or drops them.

A rejected site is not a failure (no fetchException): it says which URL claimed to be which paper, so that a curator
can see why a page was not used and the URL is not asked again for the publication; a preprint rejected for a
published DOI is a relation candidate (the paper's preprint).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pubfetch.model.identity import Claims, Reason
from pubfetch.model.part_type import PartType
from pubfetch.model.parts import link_identity
from pubfetch.model.timefmt import instant_human

__all__ = ["RejectedSite", "UnverifiedSite"]


@dataclass(frozen=True)
class RejectedSite:
    """A page or PDF not merged because it is another paper's: where it was, what it claimed, why.

    ``pmid``, ``pmcid``, ``doi`` and ``title`` are what the page claimed (its first of each); ``start_url`` the URL
    asked, when redirects led elsewhere."""

    url: str
    type: PartType
    reason: Reason
    from_url: str = ""
    start_url: str = ""
    pmid: str = ""
    pmcid: str = ""
    doi: str = ""
    title: str = ""
    timestamp: int = 0

    @classmethod
    def of(cls, claims: Claims, reason: Reason, type_: PartType, from_url: str, start_url: str,
           timestamp: int) -> RejectedSite:
        return cls(claims.url, type_, reason, from_url, start_url if start_url != claims.url else "",
                   claims.pmids[0] if claims.pmids else "", claims.pmcids[0] if claims.pmcids else "",
                   claims.dois[0] if claims.dois else "", claims.title, timestamp)

    def names(self, url: str) -> bool:
        """Whether ``url`` is this site's (asked or reached; scheme and fragment aside)."""
        key = link_identity(url)
        return key == link_identity(self.url) or bool(self.start_url) and key == link_identity(self.start_url)

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "startUrl": self.start_url, "type": self.type.value, "from": self.from_url,
                "reason": self.reason.value, "pmid": self.pmid, "pmcid": self.pmcid, "doi": self.doi,
                "title": self.title, "timestamp": self.timestamp, "timestampHuman": instant_human(self.timestamp)}

    @classmethod
    def from_json(cls, d: dict) -> RejectedSite:
        return cls(d.get("url", "") or "", PartType(d.get("type", "na")), Reason(d.get("reason", "id")),
                   d.get("from", "") or "", d.get("startUrl", "") or "", d.get("pmid", "") or "",
                   d.get("pmcid", "") or "", d.get("doi", "") or "", d.get("title", "") or "",
                   int(d.get("timestamp", 0)))


@dataclass(frozen=True)
class UnverifiedSite:
    """A page or PDF merged without a check (no identifier, and no title known yet): the titles it showed (best
    first), which the first title of another source confirms or refutes."""

    url: str
    type: PartType
    titles: tuple[str, ...] = ()
    from_url: str = ""
    timestamp: int = 0

    @property
    def title(self) -> str:
        return self.titles[0] if self.titles else ""

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "type": self.type.value, "from": self.from_url, "titles": list(self.titles),
                "timestamp": self.timestamp, "timestampHuman": instant_human(self.timestamp)}

    @classmethod
    def from_json(cls, d: dict) -> UnverifiedSite:
        return cls(d.get("url", "") or "", PartType(d.get("type", "na")),
                   tuple(str(t) for t in d.get("titles", []) or [] if t), d.get("from", "") or "",
                   int(d.get("timestamp", 0)))
