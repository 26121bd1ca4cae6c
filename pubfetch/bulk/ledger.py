"""What a database remembers of its bulk imports: the files done, and for each PMID the file and version it holds.

Two tables beside the entries, created on first import (``CREATE TABLE IF NOT EXISTS``: a database made before
them, or never given a bulk file, works as it did and gains them when it is):

- ``bulk_files``: one row per file whose every record is committed, written in the transaction of its last records,
  so a killed import leaves a file either recorded and whole or unrecorded (and imported again from its start);
- ``pubmed_versions``: per PMID the ``Version`` and the rank of the file it came from, and whether that file deleted
  it. A record replaces the one held only when it is a newer version, or the same version from a later file, so
  files applied out of order, twice, or an old baseline after its updates never take a record back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from pubfetch.store.sql import SqlStore, Tx

__all__ = ["FileRecord", "Held", "ensure_tables", "file_rank", "held_versions", "imported_files", "insert_versions",
           "newest_rank", "record_file", "set_versions"]

_DDL = (
    "CREATE TABLE IF NOT EXISTS bulk_files (name TEXT PRIMARY KEY, kind TEXT NOT NULL, file_rank BIGINT NOT NULL, "
    "md5 TEXT NOT NULL, records BIGINT NOT NULL, deleted BIGINT NOT NULL, imported_at TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS pubmed_versions (pmid TEXT PRIMARY KEY, version INTEGER NOT NULL, "
    "file_rank BIGINT NOT NULL, deleted INTEGER NOT NULL)",
)
#: NLM's names: ``pubmed25n0001.xml.gz`` (baseline) to ``pubmed25n1400.xml.gz`` (the year's last update)
_NLM_NAME = re.compile(r"^pubmed(\d{2})n(\d{4,6})\.xml(?:\.gz)?$")
#: ranks of files named otherwise start above every NLM rank (year 99, file 999999)
_OTHER_RANKS = 100_000_000


@dataclass(frozen=True)
class FileRecord:
    name: str
    kind: str
    rank: int
    md5: str
    records: int
    deleted: int


@dataclass(frozen=True)
class Held:
    """What a database holds of one PMID: the version, the rank of its file, whether that file deleted it."""

    version: int
    rank: int
    deleted: bool

    def taken_over_by(self, version: int, rank: int) -> bool:
        """Whether a citation of ``version`` from a file of ``rank`` replaces this."""
        if self.deleted:
            return rank > self.rank
        return version > self.version or (version == self.version and rank > self.rank)


def ensure_tables(store: SqlStore) -> None:
    def create(tx: Tx) -> None:
        for statement in _DDL:
            tx.execute(statement)

    store.transact(create)


def file_rank(name: str, fallback: int) -> int:
    """The order of a file among PubMed's: year and number of an NLM name, else ``fallback`` (the order given)."""
    match = _NLM_NAME.match(name)
    if match is None:
        return fallback
    return int(match.group(1)) * 1_000_000 + int(match.group(2))


def newest_rank(store: SqlStore) -> int:
    """The first rank free for files not named as NLM names them: after every file already imported."""
    rows = store.transact(lambda tx: tx.execute("SELECT MAX(file_rank) FROM bulk_files").fetchone())
    return max(_OTHER_RANKS, int(rows[0] or 0)) + 1


def imported_files(store: SqlStore) -> dict[str, FileRecord]:
    rows = store.transact(lambda tx: tx.execute(
        "SELECT name, kind, file_rank, md5, records, deleted FROM bulk_files").fetchall())
    return {row[0]: FileRecord(row[0], row[1], int(row[2]), row[3], int(row[4]), int(row[5])) for row in rows}


def record_file(tx: Tx, record: FileRecord) -> None:
    tx.execute("INSERT INTO bulk_files (name, kind, file_rank, md5, records, deleted, imported_at) "
               "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING",
               (record.name, record.kind, record.rank, record.md5, record.records, record.deleted,
                datetime.now(UTC).isoformat(timespec="seconds")))


#: PMIDs per look-up statement (SQLite's host parameters are limited)
_QUERY = 500


def held_versions(tx: Tx, pmids: Iterable[str]) -> dict[str, Held]:
    wanted = list(dict.fromkeys(pmids))
    held: dict[str, Held] = {}
    for start in range(0, len(wanted), _QUERY):
        chunk = wanted[start:start + _QUERY]
        marks = ", ".join("?" * len(chunk))
        for pmid, version, rank, deleted in tx.execute(
                f"SELECT pmid, version, file_rank, deleted FROM pubmed_versions WHERE pmid IN ({marks})",
                tuple(chunk)).fetchall():
            held[pmid] = Held(int(version), int(rank), bool(deleted))
    return held


_VERSION_COLUMNS = ("pmid", "version", "file_rank", "deleted")


def insert_versions(store: SqlStore, tx: Tx, rows: list[tuple[str, int, int, int]]) -> None:
    """Insert (pmid, version, rank, deleted) rows of PMIDs no row of which is held (COPY on PostgreSQL)."""
    store.insert_rows(tx, "pubmed_versions", _VERSION_COLUMNS, rows)


def set_versions(tx: Tx, rows: list[tuple[str, int, int, int]]) -> None:
    """Upsert (pmid, version, rank, deleted) rows, many per statement; of a PMID given twice, the later row (one
    statement may not touch a row twice on PostgreSQL)."""
    rows = list({row[0]: row for row in rows}.values())
    for start in range(0, len(rows), _QUERY):
        chunk = rows[start:start + _QUERY]
        marks = ", ".join(["(?, ?, ?, ?)"] * len(chunk))
        tx.execute(f"INSERT INTO pubmed_versions (pmid, version, file_rank, deleted) VALUES {marks} "
                   "ON CONFLICT (pmid) DO UPDATE SET version = excluded.version, file_rank = excluded.file_rank, "
                   "deleted = excluded.deleted", tuple(v for row in chunk for v in row))
