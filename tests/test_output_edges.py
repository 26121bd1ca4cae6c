"""``--format edges``: the citation edges as CSV, read back with csv as they were written."""

from __future__ import annotations

import csv
import io

from pubfetch.ids import PublicationIds
from pubfetch.model.edges import EDGE_COLUMNS, CitationEdge
from pubfetch.output.edges import write_edges


def test_edges_are_csv_with_a_header_and_one_row_each() -> None:
    edges = [CitationEdge(PublicationIds("1", "PMC2", "10.1/a,b"), PublicationIds("3"), "europepmc_citations"),
             CitationEdge(PublicationIds(doi='10.1/"q"'), PublicationIds(pmcid="PMC4"), "references")]
    out = io.StringIO()
    assert write_edges(out, edges) == 2
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [tuple(r[c] for c in EDGE_COLUMNS) for r in rows] == [e.row() for e in edges]
    assert out.getvalue().splitlines()[0] == ",".join(EDGE_COLUMNS)


def test_no_edges_is_the_header_alone() -> None:
    out = io.StringIO()
    assert write_edges(out, []) == 0 and out.getvalue() == ",".join(EDGE_COLUMNS) + "\n"
