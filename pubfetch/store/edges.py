"""The citation edges of a database (``citation_edges``: citing -> cited IDs with their source), kept by a snowball
and read back by ``-out --format edges``.

The table is made the first time edges are put, not by a schema migration: a database made before snowballing
existed opens and works as it did (it simply holds no edges), and a pubfetch that predates the table still opens a
database that has one. An edge is one paper citing another as one source says; its two ends are matched by any
shared ID form, so the same citation learnt first by PMID and later with the DOI too is one row, which keeps every
ID form either time gave.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from pubfetch.ids import PublicationIds
from pubfetch.model.edges import EDGE_COLUMNS, CitationEdge

__all__ = ["TABLE", "edges_ddl", "put_edges", "read_edges"]

TABLE = "citation_edges"


class Tx(Protocol):
    """A write transaction of either engine, in the ``?`` placeholder style (:class:`pubfetch.store.sql.Tx`)."""

    def execute(self, sql: str, params: tuple = ()) -> Any: ...


def edges_ddl(seq: str) -> list[str]:
    """The statements making the table and its lookup indexes when missing, with the engine's insertion-order key."""
    columns = ",\n".join(f"    {name} TEXT NOT NULL DEFAULT ''" for name in EDGE_COLUMNS)
    return [f"CREATE TABLE IF NOT EXISTS {TABLE} (\n    seq {seq},\n{columns}\n)",
            f"CREATE INDEX IF NOT EXISTS {TABLE}_cited ON {TABLE} (cited_pmid, cited_doi)",
            f"CREATE INDEX IF NOT EXISTS {TABLE}_citing ON {TABLE} (citing_pmid, citing_doi)"]


def _same_paper(prefix: str, ids: PublicationIds) -> tuple[str, tuple[str, ...]]:
    """A condition true for a row whose ``prefix`` end shares an ID form with ``ids``."""
    terms, params = [], []
    for name, value in zip(("pmid", "pmcid", "doi"), ids.ids, strict=True):
        if value:
            terms.append(f"{prefix}_{name} = ?")
            params.append(value)
    return "(" + " OR ".join(terms) + ")", tuple(params)


def _matching(edge: CitationEdge) -> tuple[str, tuple[str, ...]]:
    citing, citing_params = _same_paper("citing", edge.citing)
    cited, cited_params = _same_paper("cited", edge.cited)
    return f"source = ? AND {citing} AND {cited}", (edge.source, *citing_params, *cited_params)


def _merged(a: PublicationIds, b: PublicationIds) -> PublicationIds:
    return PublicationIds(a.pmid or b.pmid, a.pmcid or b.pmcid, a.doi or b.doi)


def put_edges(tx: Tx, edges: Iterable[CitationEdge], seq: str) -> int:
    """Store ``edges`` in one transaction; returns how many were not stored before (an edge already there, by any ID
    form of its ends, is completed with the forms it lacked)."""
    for statement in edges_ddl(seq):
        tx.execute(statement)
    added = 0
    for edge in edges:
        if edge.citing.is_empty() or edge.cited.is_empty():
            continue
        merged, seqs = edge, list[int]()
        while True:  # a row matched by a form another row added is the same edge too: match until nothing new
            where, params = _matching(merged)
            rows = tx.execute(f"SELECT seq, {', '.join(EDGE_COLUMNS)} FROM {TABLE} WHERE {where} ORDER BY seq",
                              params).fetchall()
            for row in rows:
                old = CitationEdge.from_row(tuple(row)[1:])
                merged = CitationEdge(_merged(merged.citing, old.citing), _merged(merged.cited, old.cited),
                                      edge.source)
            if len(rows) == len(seqs):
                break
            seqs = [row[0] for row in rows]
        columns = ", ".join(EDGE_COLUMNS)
        if not seqs:
            added += 1
            marks = ", ".join("?" for _ in EDGE_COLUMNS)
            tx.execute(f"INSERT INTO {TABLE} ({columns}) VALUES ({marks})", merged.row())
            continue
        # the edge keeps the place it was first stored in; rows it showed to be the same edge go
        assignments = ", ".join(f"{name} = ?" for name in EDGE_COLUMNS)
        tx.execute(f"UPDATE {TABLE} SET {assignments} WHERE seq = ?", (*merged.row(), seqs[0]))
        for same in seqs[1:]:
            tx.execute(f"DELETE FROM {TABLE} WHERE seq = ?", (same,))
    return added


def read_edges(rows: list[tuple]) -> Iterator[CitationEdge]:
    """The stored rows (columns of :data:`~pubfetch.model.edges.EDGE_COLUMNS`, in insertion order) as edges."""
    for row in rows:
        yield CitationEdge.from_row(tuple(str(v) for v in row))
