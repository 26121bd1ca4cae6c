"""What the run report shows, gathered before any rendering: the one value the tally
(:mod:`pubfetch.output.report`) produces and the page (:mod:`pubfetch.output.report_html`) and its plots
(:mod:`pubfetch.output.report_plots`) read, so that neither side imports the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.rich import RichName
from pubfetch.net.counts import HostCounts

if TYPE_CHECKING:
    from pubfetch.fetcher import BatchSummary

__all__ = ["NotFinal", "PartCoverage", "PublisherRow", "Rejected", "ReportData"]


@dataclass(frozen=True)
class PartCoverage:
    """How many publications have one part final, usable but not final (partial), or missing (empty or unusable),
    and the part types (sources) of the non-empty ones."""

    part: PartName | RichName
    final: int
    partial: int
    missing: int
    types: Mapping[PartType, int]


@dataclass(frozen=True)
class PublisherRow:
    """Full-text success at one publisher host: of the publications whose pages on it were read, how many got a
    final full text from it, how many from another source, and how many none."""

    host: str
    publications: int
    fulltext_here: int
    fulltext_elsewhere: int
    no_fulltext: int

    @property
    def success(self) -> float:
        return self.fulltext_here / self.publications if self.publications else 0.0


@dataclass(frozen=True)
class NotFinal:
    """A publication that is not final: its IDs, title and the deciding parts that are not final."""

    ids: str
    title: str
    missing: tuple[PartName, ...]
    fetch_exception: bool


@dataclass(frozen=True)
class Rejected:
    """A page or PDF not merged into a publication because it is another paper's: the publication's IDs, the URL,
    what it claimed and why it was rejected (``id``, ``title``, ``preprint``)."""

    ids: str
    url: str
    claimed: str
    reason: str


@dataclass
class ReportData:
    """Everything the page shows, gathered before any rendering."""

    source: str
    generated: datetime
    publications: int
    final: int
    parts: list[PartCoverage]
    publishers: list[PublisherRow]
    not_final: list[NotFinal]
    not_final_total: int
    #: per host; ``None`` when the report is not about a run (no request was counted)
    requests: dict[str, HostCounts] | None = None
    summary: BatchSummary | None = None
    title: str = "pubfetch report"
    #: the first rejected sites (pages and PDFs of another paper) and how many there are in all
    rejected: list[Rejected] = field(default_factory=list)
    rejected_total: int = 0
