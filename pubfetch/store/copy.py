"""Copy a whole database into a new one, between any two backends (``pubfetch -db-copy FROM TO``).

Rows are copied as they are, not put again through the ID-map rules: the copy has the same ID map (including IDs an
entry's JSON no longer carries), the same entries and the same listing order. Rows go in pages of a few hundred, each
page one transaction, so memory stays flat for a database of any size.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from pubfetch.model.edges import EDGE_COLUMNS
from pubfetch.store.base import StoreError
from pubfetch.store.edges import TABLE as EDGES_TABLE
from pubfetch.store.edges import edges_ddl
from pubfetch.store.saved import SAVED_COLUMNS
from pubfetch.store.sql import ID_COLUMNS, PAGE_TABLES, SqlStore, Tx
from pubfetch.textutil import counted

log = logging.getLogger(__name__)

PAGE_ROWS = 200


@dataclass
class CopyCounts:
    """Rows copied per table."""

    rows: dict[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        return ", ".join(counted(n, _singular(table), table) for table, n in self.rows.items())


def _singular(table: str) -> str:
    """"docs" -> "doc", "saved searches" -> "saved search"."""
    return table.removesuffix("es") if table.endswith("ches") else table.removesuffix("s")


def _copy_table(src: SqlStore, dst: SqlStore, table: str, columns: str, json_column: bool) -> int:
    """Copy one table page by page in ``seq`` order; the destination numbers rows anew, in the same order."""
    names = columns + (", json" if json_column else "")
    marks = ", ".join(["?"] * len(columns.split(", ")) + ([dst.JSON_MARK] if json_column else []))
    last, copied = -1, 0
    while True:
        rows = src._read(f"SELECT seq, {names} FROM {table} WHERE seq > ? ORDER BY seq LIMIT {PAGE_ROWS}", (last,))
        if not rows:
            return copied
        values = [tuple(r[1:-1]) + (dst._encode(src._decode(r[-1])),) if json_column else tuple(r[1:]) for r in rows]

        def insert(tx: Tx, values: list[tuple] = values) -> None:
            for v in values:
                tx.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", v)

        dst._transact(insert)
        copied += len(rows)
        last = rows[-1][0]


def _make_edges_table(dst: SqlStore) -> Callable[[Tx], None]:
    def make(tx: Tx) -> None:
        for statement in edges_ddl(dst.SEQ_DDL):
            tx.execute(statement)

    return make


def copy_database(src: SqlStore, dst: SqlStore) -> CopyCounts:
    """Copy every publication, ID mapping, webpage, doc, saved search and citation edge of ``src`` into the empty
    ``dst``."""
    counts = CopyCounts()
    counts.rows["publications"] = _copy_table(src, dst, "publications", f"primary_id, {ID_COLUMNS}", True)
    counts.rows["publication IDs"] = _copy_table(src, dst, "publication_ids", "id, primary_id", False)
    for kind in PAGE_TABLES:
        counts.rows[kind] = _copy_table(src, dst, kind, "url", True)
    try:
        counts.rows["saved searches"] = _copy_table(src, dst, "saved_searches", SAVED_COLUMNS, False)
    except StoreError:  # a source opened read-only before its upgrade has none
        log.info("%s keeps no saved searches (schema version 1): none copied", src.name)
    if src._read(src.TABLE_EXISTS, (EDGES_TABLE,)):  # a snowball's edges, when the source has any
        dst._transact(_make_edges_table(dst))
        counts.rows["citation edges"] = _copy_table(src, dst, EDGES_TABLE, ", ".join(EDGE_COLUMNS), False)
    log.info("copied %s from %s to %s", counts, src.name, dst.name)
    return counts
