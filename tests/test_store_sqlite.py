"""Tests for pubfetch.store.sqlite: the SQLite database file: the rules of creating and opening it (each refusal
saying what to do), its JSON readable with sqlite3, compacting, and the WAL files a reader leaves."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from pubfetch.ids import PublicationIds
from pubfetch.model import Webpage
from pubfetch.store import SqliteStore, StoreError, init_db, open_db, open_store, schema
from pubfetch.store.sqlite import creation_problem, why_not_created
from support.store_worker import make_pub


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "test.db"


@pytest.fixture
def sqlite_store(db_path: Path):
    s = init_db(db_path)
    yield s
    s.close()


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


def test_a_second_fetch_run_on_the_file_waits_for_the_first(tmp_path: Path) -> None:
    path = tmp_path / "pubs.db"
    init_db(path).close()
    first, second = open_db(path), open_db(path)
    waiting, second_running = threading.Event(), threading.Event()

    def second_run() -> None:
        with second.fetch_run(on_wait=waiting.set):
            second_running.set()

    try:
        with first.fetch_run(on_wait=lambda: pytest.fail("the first run has nobody to wait for")):
            runner = threading.Thread(target=second_run)
            runner.start()
            assert waiting.wait(60)  # told the user it waits, and waits
            assert not second_running.is_set()
        runner.join(60)
        assert second_running.is_set()
    finally:
        first.close()
        second.close()


def _another_process_reads_and_closes(path: Path) -> None:
    """A connection of another process opens the database and closes it: when it finds no other process holding
    the file, SQLite checkpoints it and deletes the -wal and -shm files."""
    code = (f"import sqlite3; c = sqlite3.connect({str(path)!r}); "
            "c.execute('SELECT count(*) FROM sqlite_master').fetchall(); c.close()")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize("what", ["a fetch run", "a second store"])
def test_the_file_opened_beside_sqlite_leaves_its_locks_held(tmp_path: Path, what: str) -> None:
    """A run's lock and a store's header check open the database file beside SQLite's connections; closing that
    descriptor would release every POSIX lock of the process on the file, SQLite's included, and another process
    closing its connection would then delete the -wal and -shm this one still uses (two workers of a cluster on one
    file: "file is not a database", "disk I/O error" on the next put). They stay held, the -wal in use stays."""
    path = tmp_path / "pubs.db"
    store = init_db(path)
    try:
        store.put_publication(make_pub("1111"))
        assert (tmp_path / "pubs.db-wal").exists()
        if what == "a fetch run":
            with store.fetch_run():
                pass
        else:
            open_db(path).close()
        _another_process_reads_and_closes(path)
        assert (tmp_path / "pubs.db-wal").exists()
        store.put_publication(make_pub("2222"))
        assert store.publications_size() == 2
    finally:
        store.close()


def test_creation_problems_are_told_before_trying(tmp_path: Path) -> None:
    assert creation_problem(str(tmp_path / "new.db")) is None
    assert creation_problem(str(tmp_path / "missing" / "new.db")) == f"directory '{tmp_path / 'missing'}' does not exist"
    error = OSError(28, "No space left on device")
    assert why_not_created(str(tmp_path / "new.db"), error) == f"No space left on device in directory '{tmp_path}'"


# --- a bulk import's transactions -----------------------------------------------------------------------------------


def _wal_bytes_before_commit(path: Path, tuned: bool) -> int:
    """The size of the write-ahead log just before the commit of one transaction of 2,000 entries of 8 KB (a bulk
    import's chunk)."""
    store = init_db(path)
    try:
        if tuned:
            store.tune_for_bulk()
        columns = ("primary_id", "pmid", "pmcid", "doi", "pmid_url", "pmcid_url", "doi_url", "json")
        rows = [(str(n), str(n), "", "", "", "", "", b'{"text":"' + str(n).encode() * 1000 + b'"}')
                for n in range(10_000_000, 10_002_000)]

        def work(tx):
            store.insert_rows(tx, "publications", columns, rows, json_column="json")
            return os.path.getsize(f"{path}-wal")

        return store.transact(work)
    finally:
        store.close()


def test_a_bulk_chunk_stays_in_the_page_cache_until_its_commit(tmp_path: Path) -> None:
    # SQLite's default cache spills the chunk's pages into the log before the commit (written there, then again)
    assert _wal_bytes_before_commit(tmp_path / "default.db", tuned=False) > 4_000_000
    assert _wal_bytes_before_commit(tmp_path / "tuned.db", tuned=True) < 1_000_000
    with open_store(tmp_path / "tuned.db", readonly=True) as store:
        assert sum(1 for _ in store.publication_ids()) == 2000


def test_the_descriptors_kept_beside_sqlite_close_with_the_last_store_of_the_file(tmp_path: Path) -> None:
    """The descriptors kept open while a store of the file is open are closed when the last one closes, and a file
    checked with no store open leaves none behind."""
    path = tmp_path / "pubs.db"
    init_db(path).close()

    def descriptors() -> int:
        return sum(1 for fd in os.listdir("/proc/self/fd") if _links_to(fd, str(path)))

    first, second = open_db(path), open_db(path)
    with first.fetch_run():
        pass
    first.close()
    assert descriptors() >= 1  # the second's connection, and what the first kept while the second is open
    second.close()
    assert descriptors() == 0


def _links_to(fd: str, path: str) -> bool:
    try:
        return os.readlink(f"/proc/self/fd/{fd}") == path
    except OSError:
        return False
