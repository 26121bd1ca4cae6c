"""The records of a chunk that meet nothing in the database, written with a few statements for the whole chunk.

Loading a baseline into an empty database, nearly every record is new: none of its IDs is in the ID map, no version
of it is held. Merging such a record into nothing gives the same entry whatever the order, so instead of the put's
seven statements each (resolve three IDs, read the old IDs, write the map and the entry) the chunk's new records go
in a few multi-row inserts per table on SQLite, and in one COPY per table on PostgreSQL (a round trip per chunk, and
no statement parsed nor parameter bound per row). Records sharing an ID with the database or with an earlier record
of the chunk take the ordinary put after them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pubfetch.store.sql import ID_COLUMNS, SqlStore, Tx, lookup_key

__all__ = ["NewEntry", "existing_ids", "insert_new", "keys_of"]

#: IDs per look-up statement (SQLite's host parameters are limited)
_ROWS = 400
_PUBLICATION_COLUMNS = ("primary_id", *ID_COLUMNS.split(", "), "json")

NewEntry = tuple[tuple[str, str, str], tuple[str, str, str], bytes]
"""(lookup keys of PMID, PMCID, DOI; their provenance URLs; the entry's JSON encoded as UTF-8,
:meth:`~pubfetch.store.sql.SqlStore.encode_utf8`)"""


def keys_of(pmid: str, pmcid: str, doi: str) -> tuple[str, str, str]:
    return lookup_key(pmid) if pmid else "", lookup_key(pmcid) if pmcid else "", lookup_key(doi) if doi else ""


def existing_ids(tx: Tx, ids: Iterable[str]) -> set[str]:
    """Which of ``ids`` the ID map already holds."""
    wanted = list(dict.fromkeys(i for i in ids if i))
    found: set[str] = set()
    for start in range(0, len(wanted), _ROWS):
        chunk = wanted[start:start + _ROWS]
        marks = ", ".join("?" * len(chunk))
        found.update(r[0] for r in tx.execute(f"SELECT id FROM publication_ids WHERE id IN ({marks})",
                                              tuple(chunk)).fetchall())
    return found


def insert_new(store: SqlStore, tx: Tx, entries: Sequence[NewEntry]) -> None:
    """Write entries none of whose IDs is mapped yet, each under its first ID (as a put of a new entry does): rows
    many per statement, or streamed with COPY on PostgreSQL (:meth:`~pubfetch.store.sql.SqlStore.insert_rows`)."""
    rows: list[tuple[str | bytes, ...]] = []
    maps: list[tuple[str, str]] = []
    for keys, urls, doc in entries:
        primary = next(k for k in keys if k)
        rows.append((primary, *keys, *urls, doc))
        maps += [(key, primary) for key in keys if key]
    store.insert_rows(tx, "publications", _PUBLICATION_COLUMNS, rows, json_column="json")
    store.insert_rows(tx, "publication_ids", ("id", "primary_id"), maps)
