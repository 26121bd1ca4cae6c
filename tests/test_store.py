"""The SQLite database: opening rules, PubFetcher's ID-map semantics, pages, JSON storage, compact and migration."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest

from pubfetch.ids import PublicationIds
from pubfetch.model import Publication, Webpage
from pubfetch.store import SqliteStore, Store, StoreError, init_db, init_store, open_db, open_store, schema
from support.store_worker import make_pub


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "test.db"


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, db_path: Path) -> str:
    """The contract below holds for every backend: a SQLite file, and a database on the machine's PostgreSQL."""
    return str(db_path) if request.param == "sqlite" else request.getfixturevalue("pg_url")


@pytest.fixture
def store(target: str):
    s = init_store(target)
    yield s
    s.close()


@pytest.fixture
def sqlite_store(db_path: Path):
    s = init_db(db_path)
    yield s
    s.close()


def ids_map(s: Store) -> dict[str, str]:
    return dict(s.publications_map())


# --- creating and opening -------------------------------------------------------------------------------------------


def test_init_creates_pubfetch_file(db_path: Path) -> None:
    init_db(db_path).close()
    with sqlite3.connect(db_path) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert meta["created_by"] == "pubfetch"
    assert meta["schema_version"] == str(schema.SCHEMA_VERSION)
    assert mode == "wal"


def test_init_refuses_existing_file(db_path: Path) -> None:
    db_path.write_text("precious")
    with pytest.raises(StoreError) as e:
        init_db(db_path)
    assert str(e.value) == f"database file '{db_path}' already exists; remove it or use another name"
    assert db_path.read_text() == "precious"


def test_init_refuses_existing_database(db_path: Path) -> None:
    init_db(db_path).close()
    with pytest.raises(StoreError, match="already exists; remove it or use another name"):
        init_db(db_path)


def test_init_in_missing_directory(tmp_path: Path) -> None:
    target = tmp_path / "nowhere" / "x.db"
    with pytest.raises(StoreError) as e:
        init_db(target)
    assert str(e.value) == f"cannot create database file '{target}': directory '{target.parent}' does not exist"


@pytest.mark.skipif(not Path("/proc/self/mounts").is_file(), reason="needs Linux's /proc")
def test_init_on_a_virtual_file_system_says_so_not_that_the_directory_is_missing() -> None:
    with pytest.raises(StoreError) as e:
        init_db("/proc/pubs.db")
    assert str(e.value) == ("cannot create database file '/proc/pubs.db': directory '/proc' is on the virtual 'proc' "
                            "file system, which holds no ordinary files; choose another directory")
    assert not Path("/proc/pubs.db").exists()


def test_open_missing(db_path: Path) -> None:
    with pytest.raises(StoreError) as e:
        open_db(db_path)
    assert str(e.value) == f"database file '{db_path}' does not exist (create it with -db-init)"
    assert not db_path.exists()  # opening never creates a file


def test_open_not_sqlite(db_path: Path) -> None:
    db_path.write_bytes(os.urandom(4096))
    with pytest.raises(StoreError) as e:
        open_db(db_path)
    assert str(e.value) == (f"database file '{db_path}' is not an SQLite database (a PubFetcher MapDB file or some "
                            "other kind of file?); pubfetch databases are created with -db-init")


def test_open_empty_file(db_path: Path) -> None:
    db_path.touch()
    with pytest.raises(StoreError) as e:
        open_db(db_path)
    assert str(e.value) == (f"database file '{db_path}' is empty, not a pubfetch database "
                            "(remove it and create it with -db-init)")


def test_open_directory(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as e:
        open_db(tmp_path)
    assert str(e.value) == f"database file '{tmp_path}' is a directory, not a database file"


@pytest.mark.parametrize("ddl", ["CREATE TABLE users (name TEXT)", "CREATE TABLE meta (key TEXT, value TEXT)"])
def test_open_foreign_sqlite(db_path: Path, ddl: str) -> None:
    with sqlite3.connect(db_path) as conn:
        conn.execute(ddl)
    with pytest.raises(StoreError) as e:
        open_db(db_path)
    assert str(e.value) == (f"database file '{db_path}' is an SQLite database of another program, not a pubfetch "
                            "database (it has no pubfetch 'meta' table)")


def test_open_newer_schema(db_path: Path) -> None:
    init_db(db_path).close()
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError) as e:
        open_db(db_path)
    assert str(e.value) == (f"database file '{db_path}' has schema version 99, newer than this pubfetch supports "
                            f"({schema.SCHEMA_VERSION}); upgrade pubfetch to use it")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_open_unreadable(db_path: Path) -> None:
    init_db(db_path).close()
    db_path.chmod(0)
    try:
        with pytest.raises(StoreError) as e:
            open_db(db_path)
        assert str(e.value) == f"database file '{db_path}' is not readable (check its permissions)"
    finally:
        db_path.chmod(0o644)


def test_open_store_dispatch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    init_store("sqlite:///rel.db").close()
    assert (tmp_path / "rel.db").is_file()
    with open_store("rel.db") as s:
        assert isinstance(s, SqliteStore)
    absolute = tmp_path / "abs.db"
    init_db(absolute).close()
    with open_store(f"sqlite:///{absolute}") as s:  # sqlite:////abs/path
        assert s.path == str(absolute)
    with pytest.raises(StoreError, match="not of the form sqlite:///path"):
        open_store("sqlite://x.db")


def test_closed_store_refuses(target: str) -> None:
    s = init_store(target)
    s.close()
    with pytest.raises(StoreError, match="already closed"):
        s.publications_size()


def test_readonly(target: str) -> None:
    with init_store(target) as s:
        s.put_publication(make_pub(pmid="1", title="t"))
    with open_store(target, readonly=True) as ro:
        assert ro.get_publication("1") is not None
        with pytest.raises(StoreError, match="is open read-only"):
            ro.put_publication(make_pub(pmid="2"))
        with pytest.raises(StoreError, match="is open read-only"):
            ro.compact()


# --- publications: basics ---------------------------------------------------------------------------------------------


def test_put_get_by_each_id(store: Store) -> None:
    pub = make_pub(pmid="123", pmcid="PMC456", doi="10.1093/NAR/GKZ369", title="A title")
    assert store.put_publication(pub)
    for key in ("123", "PMC456", "10.1093/NAR/GKZ369", "10.1093/nar/gkz369", "https://doi.org/10.1093/nar/gkz369"):
        got = store.get_publication(key)
        assert got is not None and got.title.content == "A title", key
    assert store.get_publication(PublicationIds(doi="10.1093/nar/gkz369")).pmid.content == "123"
    assert store.get_publication(PublicationIds(pmid="999", doi="10.1093/nar/gkz369")) is not None  # falls back to DOI
    assert store.get_publication("999") is None
    assert store.get_publication(PublicationIds()) is None
    assert store.publications_size() == 1


def test_put_without_ids_is_refused(store: Store) -> None:
    assert not store.put_publication(make_pub(title="orphan"))
    assert store.publications_size() == 0


def test_round_trip_equal_json(store: Store) -> None:
    pub = make_pub(pmid="7", pmcid="PMC7", doi="10.1/X", title="Ünïcode title ✓", fulltext="text " * 1000)
    pub.oa = True
    pub.citations_count = 12
    store.put_publication(pub)
    got = store.get_publication("7")
    assert isinstance(got, Publication)
    assert got.to_json() == pub.to_json()
    assert got.to_json(computed=False) == pub.to_json(computed=False)


def test_json_readable_with_sqlite3(sqlite_store: SqliteStore, db_path: Path) -> None:
    store = sqlite_store
    pub = make_pub(pmid="42", doi="10.5/ABC", title="Inspect me", fulltext="ünïcode body")
    page = Webpage(start_url="https://example.org/", final_url="https://example.org/home", status_code=200,
                   title="Home", content="Welcome")
    store.put_publication(pub)
    store.put_webpage(page)
    store.put_doc(page)
    store.commit()

    def query(sql: str) -> str:
        cli = shutil.which("sqlite3")
        if cli:
            return subprocess.run([cli, str(db_path), sql], capture_output=True, text=True, check=True).stdout
        with sqlite3.connect(db_path) as conn:
            return conn.execute(sql).fetchone()[0]

    assert json.loads(query("SELECT json FROM publications WHERE primary_id = '42'")) == pub.to_json(computed=False)
    assert json.loads(query("SELECT json FROM webpages")) == page.to_json(computed=False)
    assert json.loads(query("SELECT json FROM docs")) == page.to_json(computed=False)
    assert query("SELECT primary_id FROM publication_ids WHERE id = '10.5/ABC'").strip() == "42"


def test_contains_needs_all_ids(store: Store) -> None:
    store.put_publication(make_pub(pmid="1", doi="10.1/A"))
    assert store.contains_publication(PublicationIds(pmid="1"))
    assert store.contains_publication(PublicationIds(doi="10.1/a"))
    assert store.contains_publication(PublicationIds(pmid="1", doi="10.1/A"))
    assert not store.contains_publication(PublicationIds(pmid="1", pmcid="PMC1"))  # PMCID new: fetch again
    assert not store.contains_publication(PublicationIds(pmid="1", doi="10.1/B"))
    assert not store.contains_publication(PublicationIds())
    assert store.contains_publication("1") and not store.contains_publication("2")


def test_remove(store: Store) -> None:
    store.put_publication(make_pub(pmid="1", pmcid="PMC1", doi="10.1/A"))
    store.put_publication(make_pub(pmid="2", doi="10.1/B"))
    store.put_publication(make_pub(pmid="3"))
    assert store.remove_publication("PMC1")
    assert ids_map(store) == {"2": "2", "10.1/B": "2", "3": "3"}
    assert not store.remove_publication("PMC1")
    assert store.remove_publication(PublicationIds(doi="10.1/b"))
    assert store.remove_publication(make_pub(pmid="3"))
    assert store.publications_size() == 0 and ids_map(store) == {}


def test_remove_by_ids_of_two_entries(store: Store) -> None:
    store.put_publication(make_pub(pmid="1"))
    store.put_publication(make_pub(doi="10.1/A"))
    assert store.remove_publication(PublicationIds(pmid="1", doi="10.1/A"))
    assert store.publications_size() == 0


# --- publications: PubFetcher's ID-map merging --------------------------------------------------------------------------


def test_doi_only_then_pmid_and_doi_keeps_old_primary(store: Store) -> None:
    store.put_publication(make_pub(doi="10.1/A", title="first"))
    store.put_publication(make_pub(pmid="1", doi="10.1/A", title="second"))
    # PubFetcher keeps the primary ID an entry got when first put
    assert store.publications_size() == 1
    assert ids_map(store) == {"10.1/A": "10.1/A", "1": "10.1/A"}
    assert dict(store.publications_map_reverse()) == {"10.1/A": PublicationIds(pmid="1", doi="10.1/A")}
    assert store.get_publication("1").title.content == "second"
    rev = dict(store.publications_map_reverse())["10.1/A"]
    assert rev.pmid_url == "https://www.ncbi.nlm.nih.gov/pubmed/?term=1" and rev.doi_url == "https://doi.org/10.1/A"


def test_doi_entry_superseded_by_pmid_entry(store: Store) -> None:
    store.put_publication(make_pub(doi="10.1/A", title="doi entry"))
    store.put_publication(make_pub(pmid="1", title="pmid entry"))
    assert store.publications_size() == 2
    store.put_publication(make_pub(pmid="1", doi="10.1/A", title="merged"))
    assert store.publications_size() == 1
    assert ids_map(store) == {"1": "1", "10.1/A": "1"}
    assert list(store.publication_ids()) == [PublicationIds(pmid="1", doi="10.1/A")]
    assert store.get_publication("10.1/A").title.content == "merged"


def test_pmcid_entry_superseded_by_pmid_entry(store: Store) -> None:
    store.put_publication(make_pub(pmcid="PMC5", doi="10.1/A"))
    store.put_publication(make_pub(pmid="1"))
    store.put_publication(make_pub(pmid="1", pmcid="PMC5"))
    assert ids_map(store) == {"1": "1", "PMC5": "1"}
    assert store.publications_size() == 1


def test_changed_pmid_replaces_entry(store: Store) -> None:
    store.put_publication(make_pub(pmid="1", doi="10.1/A", title="old paper"))
    store.put_publication(make_pub(pmid="2", doi="10.1/A", title="the DOI's real paper"))
    # the old entry's primary ID is contradicted: it was another paper, so it goes entirely
    assert ids_map(store) == {"2": "2", "10.1/A": "2"}
    assert store.get_publication("1") is None
    assert store.publications_size() == 1


def test_stale_id_removed(store: Store) -> None:
    store.put_publication(make_pub(pmid="1", pmcid="PMC1", doi="10.1/OLD"))
    store.put_publication(make_pub(pmid="1", pmcid="PMC1", doi="10.1/NEW"))
    assert ids_map(store) == {"1": "1", "PMC1": "1", "10.1/NEW": "1"}
    assert not store.contains_publication("10.1/OLD")
    assert dict(store.publications_map_reverse())["1"] == PublicationIds("1", "PMC1", "10.1/NEW")


def test_contradicted_doi_primary_replaced(store: Store) -> None:
    store.put_publication(make_pub(doi="10.1/X"))
    store.put_publication(make_pub(pmid="1", doi="10.1/X"))  # primary stays 10.1/X
    store.put_publication(make_pub(pmid="1", doi="10.1/Y"))  # the DOI primary is contradicted
    assert ids_map(store) == {"1": "1", "10.1/Y": "1"}
    assert store.publications_size() == 1


def test_partial_put_keeps_known_ids(store: Store) -> None:
    store.put_publication(make_pub(pmid="1", pmcid="PMC1", doi="10.1/A"))
    store.put_publication(make_pub(pmid="1", title="only pmid now"))
    assert store.contains_publication(PublicationIds("1", "PMC1", "10.1/A"))
    assert dict(store.publications_map_reverse())["1"] == PublicationIds("1", "PMC1", "10.1/A")
    assert store.get_publication("PMC1").title.content == "only pmid now"
    assert store.remove_publication("1")
    assert ids_map(store) == {}  # every ID pointing at the entry goes with it


def test_listing_order_is_insertion_order(store: Store) -> None:
    for pmid in ("30", "10", "20"):
        store.put_publication(make_pub(pmid=pmid))
    store.put_publication(make_pub(pmid="10", doi="10.1/Z"))  # an update keeps its place
    assert [i.pmid for i in store.publication_ids()] == ["30", "10", "20"]
    assert [k for k, _ in store.publications_map()] == ["30", "10", "20", "10.1/Z"]
    assert [k for k, _ in store.publications_map_reverse()] == ["30", "10", "20"]
    assert next(iter(store.publication_ids())).pmid_url == "https://www.ncbi.nlm.nih.gov/pubmed/?term=30"


# --- webpages and docs --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["webpages", "docs"])
def test_pages(store: Store, kind: str) -> None:
    pages = [Webpage(start_url=f"https://example.org/{n}", title=f"page {n}", content="c" * n, status_code=200)
             for n in (3, 1, 2)]
    for page in pages:
        assert store.put_page(kind, page)
    assert not store.put_page(kind, Webpage(title="no url"))
    assert store.pages_size(kind) == 3
    assert list(store.page_urls(kind)) == [p.start_url for p in pages]
    assert store.contains_page(kind, "https://example.org/1")
    assert not store.contains_page(kind, "https://example.org/9")
    got = store.get_page(kind, "https://example.org/2")
    assert got is not None and got.to_json() == pages[2].to_json()
    pages[0].title = "updated"
    store.put_page(kind, pages[0])
    assert store.get_page(kind, pages[0].start_url).title == "updated"
    assert next(iter(store.page_urls(kind))) == pages[0].start_url
    assert store.remove_page(kind, "https://example.org/1")
    assert not store.remove_page(kind, "https://example.org/1")
    assert store.get_page(kind, "https://example.org/1") is None
    assert store.pages_size(kind) == 2
    other = "docs" if kind == "webpages" else "webpages"
    assert store.pages_size(other) == 0


def test_page_wrappers_and_bad_kind(store: Store) -> None:
    page = Webpage(start_url="https://example.org/")
    store.put_webpage(page)
    store.put_doc(page)
    assert store.get_webpage(page.start_url) is not None and store.get_doc(page.start_url) is not None
    assert store.webpages_size() == 1 and store.docs_size() == 1
    assert list(store.webpage_urls()) == list(store.doc_urls()) == [page.start_url]
    assert store.contains_webpage(page.start_url) and store.contains_doc(page.start_url)
    assert store.remove_webpage(page.start_url) and store.remove_doc(page.start_url)
    with pytest.raises(ValueError, match="unknown page kind"):
        store.put_page("pubs; DROP TABLE docs", page)


# --- lifecycle ----------------------------------------------------------------------------------------------------------


def test_compact_gives_space_back(sqlite_store: SqliteStore, db_path: Path) -> None:
    store = sqlite_store
    for k in range(1, 21):
        store.put_publication(make_pub(pmid=str(k), fulltext="z" * 100_000))
    store.commit()
    for k in range(1, 20):
        store.remove_publication(str(k))
    store.commit()
    before = db_path.stat().st_size
    store.compact()
    assert db_path.stat().st_size < before / 5
    wal = Path(str(db_path) + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    assert store.get_publication("20").fulltext.size == 100_000
    assert store.integrity_check() == "ok"
    assert [i.pmid for i in store.publication_ids()] == ["20"]


def test_threads_share_one_store(store: Store) -> None:
    def work(base: int) -> None:
        for k in range(base, base + 40):
            store.put_publication(make_pub(pmid=str(k), doi=f"10.9/T{k}"))
            assert store.get_publication(str(k)) is not None

    threads = [threading.Thread(target=work, args=(1 + 1000 * t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.publications_size() == 320
    assert len(ids_map(store)) == 640


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


def test_reading_leaves_no_wal_or_shm_files_behind(tmp_path: Path) -> None:
    """A read-only open of a WAL database makes -wal and -shm files; closing it removes them again, so a command
    that only reads leaves the directory as it found it."""
    path = tmp_path / "pubs.db"
    with init_db(path) as store:
        store.put_publication(make_pub("1111"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pubs.db"]
    with open_store(path, readonly=True) as store:
        assert store.get_publication(PublicationIds(pmid="1111")) is not None
        assert (tmp_path / "pubs.db-shm").exists()  # what reading a WAL database makes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pubs.db"]


def test_a_reader_leaves_the_wal_of_a_writer_that_is_still_open(tmp_path: Path) -> None:
    path = tmp_path / "pubs.db"
    with init_db(path) as writer:
        writer.put_publication(make_pub("1111"))
        with open_store(path, readonly=True) as reader:
            assert reader.get_publication(PublicationIds(pmid="1111")) is not None
        assert (tmp_path / "pubs.db-wal").exists()  # the writer's, still in use
        writer.put_publication(make_pub("2222"))
