"""Saved searches in both stores: kept under a name, replaced, listed in order, removed; older databases gain the
table when opened."""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

import pytest

from pubfetch.ids import PublicationIds
from pubfetch.store import copy_store, init_store, open_db, open_store
from pubfetch.store.saved import SavedSearch, SavedSearches
from pubfetch.store.schema import create_v0
from support.publications import fetched_publication


def _check_saved_searches(store: SavedSearches) -> None:
    assert store.saved_searches() == [] and store.saved_search("a") is None
    first = SavedSearch("a", "europepmc", 'TITLE:"x"', preprints=False)
    store.put_saved_search(first)
    store.put_saved_search(SavedSearch("b", "europepmc", "y", last_run=date(2026, 3, 1), synonyms=True))
    assert store.saved_search("a") == first
    moved = SavedSearch("a", "europepmc", 'TITLE:"x"', False, date(2026, 4, 2))
    store.put_saved_search(moved)
    assert [s.name for s in store.saved_searches()] == ["a", "b"] and store.saved_search("a") == moved
    assert store.remove_saved_search("a") and not store.remove_saved_search("a")
    assert store.saved_searches() == [SavedSearch("b", "europepmc", "y", True, date(2026, 3, 1), True)]


def test_sqlite_keeps_saved_searches(tmp_path: Path) -> None:
    with init_store(tmp_path / "p.db") as store:
        assert isinstance(store, SavedSearches)
        _check_saved_searches(store)


def test_postgres_keeps_saved_searches(pg_url: str) -> None:
    with init_store(pg_url) as store:
        assert isinstance(store, SavedSearches)
        _check_saved_searches(store)


def test_an_older_sqlite_file_gains_the_table_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        create_v0(conn)
    with open_db(path) as store:
        store.put_saved_search(SavedSearch("a", "pubmed", "q"))
    with open_db(path, readonly=True) as store:
        assert store.saved_search("a") == SavedSearch("a", "pubmed", "q")


def test_an_older_postgres_database_gains_the_table_when_opened(pg_url: str) -> None:
    import psycopg

    init_store(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TABLE saved_searches")
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    with open_store(pg_url) as store:
        assert isinstance(store, SavedSearches)
        store.put_saved_search(SavedSearch("a", "europepmc", "q"))
        assert store.saved_searches() == [SavedSearch("a", "europepmc", "q")]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("2",)


@pytest.mark.parametrize("ids, known", [
    (PublicationIds("5"), True),
    (PublicationIds("", "", "10.1/old"), True),
    (PublicationIds("9", "PMC9"), False),
    (PublicationIds("9", "", "10.1/OLD"), True),
])
def test_a_hit_is_known_when_any_of_its_ids_is_stored(tmp_path: Path, ids: PublicationIds, known: bool) -> None:
    with init_store(tmp_path / "p.db") as store:
        assert isinstance(store, SavedSearches)
        store.put_publication(fetched_publication("5", "10.1/OLD", "Old", fulltext=None))
        assert store.knows_any(ids) is known


def test_a_copy_of_a_database_keeps_its_saved_searches(tmp_path: Path, pg_url: str) -> None:
    saved = SavedSearch("monthly", "europepmc", "q", False, date(2026, 5, 1))
    with init_store(tmp_path / "a.db") as store:
        assert isinstance(store, SavedSearches)
        store.put_saved_search(saved)
    counts = copy_store(tmp_path / "a.db", pg_url)
    assert counts.rows["saved searches"] == 1 and str(counts).endswith(", 1 saved search")
    with open_store(pg_url) as copy:
        assert isinstance(copy, SavedSearches) and copy.saved_searches() == [saved]
