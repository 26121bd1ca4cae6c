"""The bulk import's ways of writing (pubfetch/bulk/fresh.py, pubfetch/bulk/ledger.py, ``insert_rows`` of the stores:
multi-row inserts on SQLite, COPY on PostgreSQL), on both engines: text that COPY must escape comes back as it went
in, a PMID given several times in one chunk ends at its last version, and importing again changes nothing."""

from __future__ import annotations

from pathlib import Path

from pubfetch.cli.errors import EXIT_OK
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.store import open_or_init_store, open_store
from pubfetch.store.sql import SqlStore
from support.bulkfiles import pmid_of, pubmed_articles, revised, write_medline
from support.bulkstore import entries, ledger

#: what COPY's text format escapes (tab, newline, carriage return, backslash) and what JSON escapes, with non-ASCII
AWKWARD = 'Tab\there, line\nbreak\r, back\\slash \\N, "quoted", \\t literally, ß → 漢字 \U0001F9EC'


def test_rows_written_together_keep_every_character(either_db: str) -> None:
    with open_or_init_store(either_db) as store:
        assert isinstance(store, SqlStore)
        pub = Publication()
        pub.set_pmid("70000001", PartType.pubmed_xml, "https://pubmed/70000001?a=1\tb", FetcherArgs())
        pub.set_title(AWKWARD, PartType.pubmed_xml, "https://pubmed/70000001", FetcherArgs())
        doc = store.encode_utf8(pub.to_json(computed=False))
        columns = ("primary_id", "pmid", "pmcid", "doi", "pmid_url", "pmcid_url", "doi_url", "json")
        store.transact(lambda tx: store.insert_rows(
            tx, "publications", columns, [("70000001", "70000001", "", "", pub.pmid.url, "", "", doc)],
            json_column="json"))
        store.transact(lambda tx: store.insert_rows(tx, "publication_ids", ("id", "primary_id"),
                                                    [("70000001", "70000001")]))
    with open_store(either_db, readonly=True) as store:
        back = store.get_publication("70000001")
        assert back is not None
        assert back.title.content == AWKWARD
        assert back.pmid.url == "https://pubmed/70000001?a=1\tb"


def test_a_pmid_given_three_times_in_one_chunk_ends_at_its_last_version(cli, tmp_path: Path, either_db: str) -> None:
    articles = pubmed_articles()
    twice, other, gone = articles[0], articles[1], pmid_of(articles[2])
    pmid = pmid_of(twice)
    # the first is new (written with the chunk's new records), the two others replace it in the same transaction
    path = write_medline(tmp_path / "pubmed26n0001.xml.gz",
                         [revised(twice, 1, "V1 "), other, revised(twice, 2, "V2 "), revised(twice, 3, "V3 ")],
                         deleted=[gone])
    run = cli("-db-import-medline", either_db, path, "--workers", "1")
    assert run.code == EXIT_OK, run.err
    assert "imported 1 file: 4 records stored, 0 deleted, 1 unchanged" in run.err  # a PMID not held: nothing to delete
    stored = entries(either_db)
    assert sorted(stored) == sorted([pmid, pmid_of(other)])
    assert stored[pmid]["title"]["content"].startswith("V3 ")
    versions = ledger(either_db, "SELECT pmid, version, deleted FROM pubmed_versions ORDER BY pmid")
    assert sorted(versions) == sorted([(pmid, 3, 0), (pmid_of(other), 1, 0), (gone, 0, 1)])


def test_importing_a_file_again_changes_nothing_and_an_update_replaces(cli, tmp_path: Path, either_db: str) -> None:
    articles = pubmed_articles()
    baseline = write_medline(tmp_path / "pubmed26n0001.xml.gz", articles)
    assert cli("-db-import-medline", either_db, baseline, "--workers", "1").code == EXIT_OK
    before = entries(either_db)
    # as after a kill between the last records' commit and the file's: the file is read again, record by record
    with open_store(either_db) as store:
        assert isinstance(store, SqlStore)
        store.transact(lambda tx: tx.execute("DELETE FROM bulk_files"))
    again = cli("-db-import-medline", either_db, baseline, "--workers", "1")
    assert again.code == EXIT_OK, again.err
    assert f"imported 1 file: 0 records stored, 0 deleted, {len(articles)} unchanged" in again.err
    assert entries(either_db) == before  # the moments the parts were set included
    update = write_medline(tmp_path / "pubmed26n0002.xml.gz", [revised(articles[3], 2, "NEW ")],
                           deleted=[pmid_of(articles[4])])
    run = cli("-db-import-medline", either_db, update, "--workers", "1")
    assert run.code == EXIT_OK, run.err
    assert "imported 1 file: 1 records stored, 1 deleted, 0 unchanged" in run.err
    after = entries(either_db)
    assert pmid_of(articles[4]) not in after
    assert after[pmid_of(articles[3])]["title"]["content"].startswith("NEW ")
    untouched = [pmid_of(a) for a in articles[:3] + articles[5:]]
    assert untouched and all(after[p] == before[p] for p in untouched)


def test_an_entry_written_together_is_stored_as_a_put_stores_it(either_db: str) -> None:
    # a NUL (which PostgreSQL's jsonb refuses, so its store drops it) and text COPY escapes, in UTF-8 bytes
    pub = Publication()
    pub.set_pmid("70000002", PartType.pubmed_xml, "https://pubmed/70000002", FetcherArgs())
    pub.set_title("NUL\x00 then " + AWKWARD, PartType.pubmed_xml, "https://pubmed/70000002", FetcherArgs())
    alone = Publication.from_json(pub.to_json(computed=False))
    alone.pmid.content = "70000003"
    columns = ("primary_id", "pmid", "pmcid", "doi", "pmid_url", "pmcid_url", "doi_url", "json")
    with open_or_init_store(either_db) as store:
        assert isinstance(store, SqlStore)
        doc = store.encode_utf8(pub.to_json(computed=False))
        assert isinstance(doc, bytes)
        store.transact(lambda tx: store.insert_rows(
            tx, "publications", columns, [("70000002", "70000002", "", "", pub.pmid.url, "", "", doc)],
            json_column="json"))
        store.transact(lambda tx: store.insert_rows(tx, "publication_ids", ("id", "primary_id"),
                                                    [("70000002", "70000002")]))
        store.put_publication(alone)
    with open_store(either_db, readonly=True) as store:
        together, put = store.get_publication("70000002"), store.get_publication("70000003")
        assert together is not None and put is not None
        assert together.title.content == put.title.content
        assert together.title.content.endswith(AWKWARD)
    if not either_db.startswith("postgresql"):
        # bound as bytes, stored as text: plain sqlite3 and every reader see the same column type as a put writes
        assert ledger(either_db, "SELECT DISTINCT typeof(json) FROM publications") == [("text",)]
