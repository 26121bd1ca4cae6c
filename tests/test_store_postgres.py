"""The PostgreSQL store beyond the shared contract of tests/test_store_sql.py: its opening rules, JSONB entries,
and writers in separate processes merging into the same publications (run on both backends, as the contract)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.ids import PublicationIds
from pubfetch.model import Webpage
from pubfetch.store import PostgresStore, StoreError, init_store, open_store
from support.store_worker import make_pub

psycopg = pytest.importorskip("psycopg", reason='PostgreSQL tests need psycopg (pip install ".[test]")')

WORKER = Path(__file__).resolve().parent / "support" / "store_worker.py"


def test_init_refuses_a_database_holding_pubfetch_tables(pg_url: str) -> None:
    init_store(pg_url).close()
    with pytest.raises(StoreError) as e:
        init_store(pg_url)
    assert str(e.value) == (f"PostgreSQL database '{pg_url}' already holds tables named docs, meta, publication_ids, "
                            "publications, webpages; use another database")


def test_init_creates_a_missing_database(pg_database: str) -> None:
    url = pg_database + "_new"
    try:
        with init_store(url) as s:
            assert isinstance(s, PostgresStore)
            assert s.publications_size() == 0
    finally:
        with psycopg.connect(pg_database, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


def test_open_refuses_what_is_not_a_pubfetch_database(pg_url: str) -> None:
    with pytest.raises(StoreError) as e:
        open_store(pg_url)
    assert str(e.value) == f"PostgreSQL database '{pg_url}' holds no pubfetch database (create one with -db-init)"


def test_open_refuses_newer_schema(pg_url: str) -> None:
    init_store(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match=r"has schema version 99, newer than this pubfetch supports \(2\)"):
        open_store(pg_url)


def test_unreachable_server_is_one_line_without_password() -> None:
    with pytest.raises(StoreError) as e:
        open_store("postgresql://me:secret@127.0.0.1:1/pubs")
    message = str(e.value)
    assert message.startswith("cannot connect to PostgreSQL database 'postgresql://me:***@127.0.0.1:1/pubs': ")
    assert "secret" not in message and "\n" not in message


def test_entries_are_jsonb_and_nul_free(pg_url: str) -> None:
    with init_store(pg_url) as s:
        s.put_publication(make_pub(pmid="42", doi="10.5/ABC", title="Inspect\x00 me", fulltext="ünïcode body"))
        s.put_webpage(Webpage(start_url="https://example.org/", title="Home", content="Welcome"))
        assert s.get_publication("10.5/abc").title.content == "Inspect me"
        s.remove_publication("42")
        s.compact()
        assert s.publications_size() == 0 and s.webpages_size() == 1
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT json->>'title' FROM webpages").fetchone()[0] == "Home"
        assert conn.execute("SELECT pg_typeof(json)::text FROM webpages").fetchone()[0] == "jsonb"


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_processes_merging_into_the_same_publications(backend: str, request: pytest.FixtureRequest,
                                                          tmp_path: Path) -> None:
    """One process adds PMCIDs, the other DOIs, to the same 150 PMIDs at the same time: every entry ends with both."""
    target = str(tmp_path / "merge.db") if backend == "sqlite" else request.getfixturevalue("pg_url")
    init_store(target).close()
    count = 150
    procs = [subprocess.Popen([sys.executable, str(WORKER), "merge", target, str(count), side], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for side in ("pmcid", "doi")]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert out.strip() == "done"
    with open_store(target) as s:
        assert s.publications_size() == count
        reverse = dict(s.publications_map_reverse())
        assert reverse == {str(k): PublicationIds(str(k), f"PMC{k}", f"10.3000/M{k}") for k in range(1, count + 1)}
        assert dict(s.publications_map()) == {
            **{str(k): str(k) for k in range(1, count + 1)},
            **{f"PMC{k}": str(k) for k in range(1, count + 1)},
            **{f"10.3000/M{k}": str(k) for k in range(1, count + 1)},
        }


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from pubfetch.cli.main import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_copies_between_sqlite_and_postgresql(pg_url: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """-db-copy keeps the ID map (with an ID the entry's JSON no longer carries), entries, pages and listing order; the
    database operations take the PostgreSQL URL where they take a file."""
    first, back = tmp_path / "first.db", tmp_path / "back.db"
    with init_store(first) as s:
        s.put_publication(make_pub(pmid="20", pmcid="PMC20", doi="10.1/B"))
        s.put_publication(make_pub(pmid="20", title="only the PMID now"))
        s.put_publication(make_pub(pmid="3", title="third", fulltext="x\x00y"))
        s.put_doc(Webpage(start_url="https://example.org/doc", title="A doc", content="text"))
    assert _cli(capsys, "-db-copy", str(first), pg_url) == (
        0, "copied 2 publications, 4 publication IDs, 0 webpages, 1 doc, 0 saved searches\n", "")
    assert _cli(capsys, "-db-publications-size", pg_url)[:2] == (0, "2\n")
    assert _cli(capsys, "-db-publications-map", pg_url)[1] == "20 -> 20\nPMC20 -> 20\n10.1/B -> 20\n3 -> 3\n"
    assert _cli(capsys, "-pub-db", pg_url, "-db", pg_url, "-out-ids")[1].splitlines()[1] == (
        "[3] (https://www.ncbi.nlm.nih.gov/pubmed/?term=3)")
    assert _cli(capsys, "-db-copy", pg_url, str(back))[0] == 0
    with open_store(first) as a, open_store(back) as b:
        assert list(a.publications_map()) == list(b.publications_map())
        assert list(a.publications_map_reverse()) == list(b.publications_map_reverse())
        assert b.get_publication("PMC20").title.content == "only the PMID now"
        assert b.get_publication("3").fulltext.content == "xy"  # PostgreSQL's JSONB holds no U+0000
        assert b.get_doc("https://example.org/doc").to_json() == a.get_doc("https://example.org/doc").to_json()
    code, out, err = _cli(capsys, "-db-copy", str(first), str(back))
    assert (code, out) == (2, "")
    assert f"database file '{back}' already exists; remove it or use another name" in err


def test_fetching_creates_the_tables_of_an_empty_database(pg_url: str) -> None:
    from pubfetch.store import open_or_init_store

    with open_or_init_store(pg_url) as s:
        s.put_publication(make_pub(pmid="5"))
    with open_or_init_store(pg_url) as s:  # and carries on in them the next time
        assert s.publications_size() == 1
