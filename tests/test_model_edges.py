"""A citation edge: its row in the CSV columns, and back."""

from __future__ import annotations

from pubfetch.ids import PublicationIds
from pubfetch.model.edges import EDGE_COLUMNS, EDGE_SOURCES, CitationEdge


def test_an_edge_is_its_row_and_back() -> None:
    edge = CitationEdge(PublicationIds("1", "PMC2", "10.1/a"), PublicationIds(doi="10.2/b"), "references")
    assert edge.row() == ("1", "PMC2", "10.1/A", "", "", "10.2/B", "references")
    assert len(edge.row()) == len(EDGE_COLUMNS) and CitationEdge.from_row(edge.row()) == edge
    assert edge.source in EDGE_SOURCES
