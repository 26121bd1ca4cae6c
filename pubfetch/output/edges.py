"""``--format edges``: a snowball's citation edges as CSV, one row per edge and source, with the columns of
:data:`~pubfetch.model.edges.EDGE_COLUMNS` (a network tool or a data frame reads it as it is)."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import TextIO

from pubfetch.model.edges import EDGE_COLUMNS, CitationEdge

__all__ = ["write_edges"]


def write_edges(out: TextIO, edges: Iterable[CitationEdge]) -> int:
    """Write the header and one row per edge; returns the rows written."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EDGE_COLUMNS)
    rows = 0
    for edge in edges:
        writer.writerow(edge.row())
        rows += 1
    return rows
