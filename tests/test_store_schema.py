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
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(
            schema.SCHEMA_VERSION)
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


def test_a_fresh_database_is_at_the_current_version_and_says_who_made_it() -> None:
    conn = sqlite3.connect(":memory:")
    schema.create_current(conn, "9.9.9")
    assert schema.read_meta(conn) == {"schema_version": str(schema.SCHEMA_VERSION), "created_by": "pubfetch",
                                      "created_with": "9.9.9"}
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"meta", "publications", "publication_ids", "webpages", "docs", "saved_searches"}


def test_migrating_records_the_new_version_and_adds_the_index() -> None:
    conn = sqlite3.connect(":memory:")
    schema.create_v0(conn)
    assert schema.read_meta(conn)["schema_version"] == "0"
    schema.migrate(conn, 0)
    assert schema.read_meta(conn)["schema_version"] == str(schema.SCHEMA_VERSION)
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'publication_ids_primary'").fetchone() == (1,)


def test_read_meta_is_none_for_a_file_of_another_program() -> None:
    conn = sqlite3.connect(":memory:")
    assert schema.read_meta(conn) is None
    conn.execute("CREATE TABLE users (name TEXT)")
    assert schema.read_meta(conn) is None


def test_the_tables_take_the_engines_types_and_list_in_insertion_order() -> None:
    ddl = schema.tables_ddl("BIGSERIAL PRIMARY KEY", "JSONB")
    assert ddl.count("seq        BIGSERIAL PRIMARY KEY") == 2 and ddl.count("json       JSONB NOT NULL") == 1
    assert ddl.count("json JSONB NOT NULL") == 2 and "{" not in ddl
    conn = sqlite3.connect(":memory:")
    schema.create_v0(conn)
    for url in ("https://b/", "https://a/", "https://c/"):
        conn.execute("INSERT INTO webpages (url, json) VALUES (?, '{}')", (url,))
    conn.commit()
    conn.execute("VACUUM")  # an explicit seq survives it, unlike an implicit rowid
    assert [r[0] for r in conn.execute("SELECT url FROM webpages ORDER BY seq")] == ["https://b/", "https://a/",
                                                                                     "https://c/"]
