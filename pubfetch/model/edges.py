"""A citation edge: which paper cites which, and who said so.

A snowball (``--citations``, ``--expand-references``) finds papers through the links between them; the links are
kept as edges so that a review can show the citation network it was built from. Each end carries every ID form of
its paper known when the edge was stored (a paper found as a PMID and fetched has its PMCID and DOI too), so an edge
can be matched to the papers of a database by any of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from pubfetch.ids import PublicationIds

__all__ = ["EDGE_COLUMNS", "EDGE_SOURCES", "CitationEdge"]

#: The CSV columns of ``-out --format edges``, in order.
EDGE_COLUMNS: Final = ("citing_pmid", "citing_pmcid", "citing_doi", "cited_pmid", "cited_pmcid", "cited_doi", "source")

#: Where an edge comes from: Europe PMC's citations endpoint, E-utilities ELink ``pubmed_pubmed_citedin``, or the
#: citing paper's own reference list (its ``references`` part).
EDGE_SOURCES: Final = ("europepmc_citations", "pubmed_citedin", "references")


@dataclass(frozen=True)
class CitationEdge:
    """``citing`` cites ``cited``, as ``source`` says (one of :data:`EDGE_SOURCES`)."""

    citing: PublicationIds
    cited: PublicationIds
    source: str

    def row(self) -> tuple[str, ...]:
        """The edge as the values of :data:`EDGE_COLUMNS`."""
        return (*self.citing.ids, *self.cited.ids, self.source)

    @classmethod
    def from_row(cls, row: tuple[str, ...] | list[str]) -> CitationEdge:
        """An edge from the values of :data:`EDGE_COLUMNS` (a stored row)."""
        return cls(PublicationIds(row[0], row[1], row[2]), PublicationIds(row[3], row[4], row[5]), row[6])
