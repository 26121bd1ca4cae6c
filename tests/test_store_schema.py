"""Tests for pubfetch.store.schema: the tables of a pubfetch database and the migration of an older SQLite file to
the current schema."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from pubfetch.store import StoreError, init_db, open_db, schema
from support.store_worker import make_pub


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "test.db"


# --- migration ----------------------------------------------------------------------------------------------------------


def _make_v0_file(path: Path) -> None:
    """A version-0 file written by hand, as an old pubfetch left it (no index on publication_ids.primary_id)."""
    pub = make_pub(pmid="5", doi="10.1/OLD", title="from v0")
    with sqlite3.connect(path) as conn:
        conn.executescript("""
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            INSERT INTO meta VALUES ('schema_version', '0'), ('created_by', 'pubfetch');
            CREATE TABLE publications (seq INTEGER PRIMARY KEY, primary_id TEXT NOT NULL UNIQUE,
                pmid TEXT NOT NULL DEFAULT '', pmcid TEXT NOT NULL DEFAULT '', doi TEXT NOT NULL DEFAULT '',
                pmid_url TEXT NOT NULL DEFAULT '', pmcid_url TEXT NOT NULL DEFAULT '', doi_url TEXT NOT NULL DEFAULT '',
                json TEXT NOT NULL);
            CREATE TABLE publication_ids (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, primary_id TEXT NOT NULL);
            CREATE TABLE webpages (seq INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, json TEXT NOT NULL);
            CREATE TABLE docs (seq INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, json TEXT NOT NULL);
            INSERT INTO publication_ids (id, primary_id) VALUES ('5', '5'), ('10.1/OLD', '5');
        """)
        conn.execute("INSERT INTO publications (primary_id, pmid, doi, json) VALUES ('5', '5', '10.1/OLD', ?)",
                     (json.dumps(pub.to_json(computed=False)),))


def _indexes(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")}


def test_migration_v0_to_v1(db_path: Path) -> None:
    _make_v0_file(db_path)
    assert "publication_ids_primary" not in _indexes(db_path)
    with pytest.raises(StoreError) as e:
        open_db(db_path, readonly=True)
    assert str(e.value) == (f"database file '{db_path}' has old schema version 0 (current is {schema.SCHEMA_VERSION}); "
                            "open it once without read-only to upgrade it")
    with open_db(db_path) as s:
        assert s.get_publication("10.1/OLD").title.content == "from v0"
        s.put_publication(make_pub(pmid="6"))
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "1"
    assert "publication_ids_primary" in _indexes(db_path)
    with open_db(db_path, readonly=True) as s:  # an upgraded file opens read-only too
        assert s.publications_size() == 2


def test_fresh_and_migrated_schemas_match(tmp_path: Path) -> None:
    fresh, old = tmp_path / "fresh.db", tmp_path / "old.db"
    init_db(fresh).close()
    with sqlite3.connect(old) as conn:
        schema.create_v0(conn)
    open_db(old).close()

    def ddl(path: Path) -> list[str]:
        with sqlite3.connect(path) as conn:
            return sorted(r[0] for r in conn.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"))

    assert ddl(fresh) == ddl(old)
