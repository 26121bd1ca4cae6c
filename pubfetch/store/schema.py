"""The SQLite schema of a pubfetch database, its version, and the steps that upgrade older files.

Entries are kept as the JSON PubFetcher prints (without computed fields), so a file can be read with plain ``sqlite3``.
Every table has an explicit ``seq INTEGER PRIMARY KEY``: listings follow insertion order, and unlike an implicit rowid
an explicit one survives VACUUM.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

SCHEMA_VERSION = 2
CREATED_BY = "pubfetch"
META_TABLE = "meta"



def tables_ddl(seq: str, json: str) -> str:
    """The version-0 tables with the engine's types of the insertion-order key and of the JSON entries (PostgreSQL
    builds its tables from the same text, so the two engines cannot drift apart)."""
    return f"""
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE publications (
    seq        {seq},
    primary_id TEXT NOT NULL UNIQUE,
    pmid       TEXT NOT NULL DEFAULT '',
    pmcid      TEXT NOT NULL DEFAULT '',
    doi        TEXT NOT NULL DEFAULT '',
    pmid_url   TEXT NOT NULL DEFAULT '',
    pmcid_url  TEXT NOT NULL DEFAULT '',
    doi_url    TEXT NOT NULL DEFAULT '',
    json       {json} NOT NULL
);
CREATE TABLE publication_ids (
    seq        {seq},
    id         TEXT NOT NULL UNIQUE,
    primary_id TEXT NOT NULL
);
CREATE TABLE webpages (
    seq  {seq},
    url  TEXT NOT NULL UNIQUE,
    json {json} NOT NULL
);
CREATE TABLE docs (
    seq  {seq},
    url  TEXT NOT NULL UNIQUE,
    json {json} NOT NULL
);
"""


_TABLES_V0 = tables_ddl("INTEGER PRIMARY KEY", "TEXT")
# Version 0 is the first layout; version 1 only adds the index that makes "all IDs of this primary ID" fast.
INDEX_V1 = "CREATE INDEX IF NOT EXISTS publication_ids_primary ON publication_ids (primary_id);"




def create_v0(conn: sqlite3.Connection) -> None:
    """The version-0 layout; kept so tests (and the migration chain) can start from a real old file."""
    for stmt in _TABLES_V0.split(";"):
        if stmt.strip():
            conn.execute(stmt)
    conn.execute("INSERT INTO meta (key, value) VALUES ('schema_version', '0'), ('created_by', ?)", (CREATED_BY,))


# Version 2 adds the saved searches of update runs (query, source, the day of the last complete run).
def saved_searches_ddl(seq: str) -> str:
    return f"""CREATE TABLE IF NOT EXISTS saved_searches (
    seq       {seq},
    name      TEXT NOT NULL UNIQUE,
    source    TEXT NOT NULL,
    query     TEXT NOT NULL,
    preprints INTEGER NOT NULL DEFAULT 1,
    synonyms  INTEGER NOT NULL DEFAULT 0,
    last_run  TEXT NOT NULL DEFAULT ''
)"""


def _migrate_0_to_1(conn: sqlite3.Connection) -> None:
    conn.execute(INDEX_V1)


def _migrate_1_to_2(conn: sqlite3.Connection) -> None:
    conn.execute(saved_searches_ddl("INTEGER PRIMARY KEY"))


# MIGRATIONS[v] upgrades a file from version v to v + 1; each step runs in the caller's write transaction.
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {0: _migrate_0_to_1, 1: _migrate_1_to_2}


def create_current(conn: sqlite3.Connection, pubfetch_version: str) -> None:
    """A fresh database at the current version: the old layout plus every migration, so both paths agree."""
    create_v0(conn)
    migrate(conn, 0)
    conn.execute("INSERT INTO meta (key, value) VALUES ('created_with', ?)", (pubfetch_version,))


def migrate(conn: sqlite3.Connection, from_version: int) -> None:
    """Bring a file from ``from_version`` up to SCHEMA_VERSION, recording the new version in the same transaction."""
    for v in range(from_version, SCHEMA_VERSION):
        MIGRATIONS[v](conn)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))


def read_meta(conn: sqlite3.Connection) -> dict[str, str] | None:
    """The meta table as a dict, or None when the file has no such table (not a pubfetch database)."""
    has = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (META_TABLE,)).fetchone()
    if not has:
        return None
    try:
        return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
    except sqlite3.DatabaseError:
        return None
