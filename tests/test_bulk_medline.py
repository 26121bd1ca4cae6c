"""``-db-import-medline``: PubMed baseline and update files built from the corpus's efetch answers, imported on SQLite
and PostgreSQL (pubfetch/bulk/: medline, apply, ledger, runner; the command in pubfetch/cli/bulkimport.py)."""

from __future__ import annotations

from pathlib import Path

from pubfetch.cli.errors import EXIT_OK, EXIT_SOME_FAILED
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.store import open_or_init_store, open_store
from pubfetch.store.sql import SqlStore
from support.bulkfiles import (
    CORPUS,
    medline_set,
    pmid_of,
    pubmed_articles,
    revised,
    truncated,
    without_times,
    write_medline,
)

EUTILS = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/"


def entries(db: str) -> dict[str, dict]:
    with open_store(db, readonly=True) as store:
        return {ids.pmid: store.get_publication(ids).to_json(computed=False)  # type: ignore[union-attr]
                for ids in store.publication_ids()}


def ledger(db: str, sql: str) -> list[tuple]:
    with open_store(db) as store:
        assert isinstance(store, SqlStore)
        return [tuple(r) for r in store.transact(lambda tx: tx.execute(sql).fetchall())]


def test_a_baseline_is_stored_as_the_pubmed_xml_resource_stores_it(cli, tmp_path: Path, either_db: str) -> None:
    files = medline_set(tmp_path)
    run = cli("-db-import-medline", either_db, files.baseline, "--workers", "1")
    assert run.code == EXIT_OK, run.err
    assert "imported 1 file: 6 records stored, 0 deleted, 0 unchanged" in run.err
    stored = entries(either_db)
    assert sorted(stored) == sorted(files.pmids)
    # what the efetch resource merges for each answer of the corpus (resources/ncbi.py: fetch_pubmed_xml)
    for path in sorted((CORPUS / "pubmed_efetch").glob("*.xml")):
        for record in parse_pubmed_xml(path.read_bytes()):
            fetched = Publication()
            apply_record(fetched, record, PartType.pubmed_xml,
                         f"{EUTILS}efetch.fcgi?retmode=xml&db=pubmed&id={record.pmid}", FetcherArgs(),
                         force_corresp=True)
            assert without_times(stored[record.pmid]) == without_times(fetched.to_json(computed=False)), record.pmid


def test_an_update_revises_one_record_and_deletes_another(cli, tmp_path: Path, either_db: str) -> None:
    files = medline_set(tmp_path)
    run = cli("-db-import-medline", either_db, files.baseline, files.update, "--workers", "1")
    assert run.code == EXIT_OK, run.err
    stored = entries(either_db)
    assert files.deleted_pmid not in stored
    assert stored[files.revised_pmid]["title"]["content"].startswith("REVISED ")
    assert len(stored) == len(files.pmids) - 1
    names = ledger(either_db, "SELECT name, records, deleted FROM bulk_files ORDER BY name")
    assert names == [("pubmed26n0001.xml.gz", 6, 0), ("pubmed26n0002.xml.gz", 1, 1)]


def test_files_applied_out_of_order_end_as_in_order_and_twice_changes_nothing(cli, tmp_path: Path) -> None:
    files = medline_set(tmp_path)
    in_order, reversed_ = str(tmp_path / "in-order.db"), str(tmp_path / "reversed.db")
    assert cli("-db-import-medline", in_order, files.baseline, files.update, "--workers", "1").code == EXIT_OK
    # the update first, then the baseline it updates: file ranks decide, not the order of arrival
    assert cli("-db-import-medline", reversed_, files.update, "--workers", "1").code == EXIT_OK
    assert cli("-db-import-medline", reversed_, files.baseline, "--workers", "1").code == EXIT_OK
    assert without_times(entries(reversed_)) == without_times(entries(in_order))
    before = entries(in_order)
    again = cli("-db-import-medline", in_order, tmp_path, "--workers", "1")
    assert again.code == EXIT_OK
    assert "2 already imported" in again.err
    assert entries(in_order) == before


def test_an_older_version_never_replaces_a_newer_one(cli, tmp_path: Path) -> None:
    articles = pubmed_articles()
    db = str(tmp_path / "pubs.db")
    newer = write_medline(tmp_path / "pubmed26n0005.xml.gz", [revised(articles[2], version=2, title_prefix="V2 ")])
    older = write_medline(tmp_path / "pubmed26n0006.xml.gz", [revised(articles[2], version=1, title_prefix="V1 ")])
    run = cli("-db-import-medline", db, newer, older, "--workers", "1")
    assert run.code == EXIT_OK, run.err
    title = next(iter(entries(db).values()))["title"]["content"]
    assert title.startswith("V2 ")
    assert "imported 2 files: 1 records stored, 0 deleted, 1 unchanged" in run.err


def test_what_a_fetch_added_stays_through_a_new_version(cli, tmp_path: Path, either_db: str) -> None:
    files = medline_set(tmp_path)
    assert cli("-db-import-medline", either_db, files.baseline, "--workers", "1").code == EXIT_OK
    with open_or_init_store(either_db) as store:
        pub = store.get_publication(files.revised_pmid)
        assert pub is not None
        assert pub.set_fulltext("A full text from Europe PMC. " * 40, PartType.europepmc_xml, "https://epmc/x",
                                FetcherArgs())
        store.put_publication(pub)
    assert cli("-db-import-medline", either_db, files.update, "--workers", "1").code == EXIT_OK
    entry = entries(either_db)[files.revised_pmid]
    assert entry["title"]["content"].startswith("REVISED ")
    assert entry["fulltext"]["type"] == PartType.europepmc_xml.value
    assert entry["fulltext"]["content"].startswith("A full text from Europe PMC.")
    assert entry["mesh"]["type"] == PartType.pubmed_xml.value


def test_a_wrong_md5_and_a_truncated_file_are_said_and_the_others_go_on(cli, tmp_path: Path, either_db: str) -> None:
    articles = pubmed_articles()
    good = write_medline(tmp_path / "pubmed26n0001.xml.gz", articles[:3])
    wrong = write_medline(tmp_path / "pubmed26n0002.xml.gz", articles[3:4], md5="0" * 32)
    whole = write_medline(tmp_path / "whole.xml.gz", articles[4:])
    cut = truncated(whole, tmp_path / "pubmed26n0003.xml.gz")
    run = cli("-db-import-medline", either_db, good, wrong, cut, "--workers", "1")
    assert run.code == EXIT_SOME_FAILED
    assert any("pubmed26n0002.xml.gz: MD5" in line and "differs from the published" in line for line in run.lines)
    assert any(line.startswith("pubfetch: error: pubmed26n0003.xml.gz: unreadable") and "record" in line
               for line in run.lines), run.err
    assert "2 failed" in run.err
    names = [r[0] for r in ledger(either_db, "SELECT name FROM bulk_files")]
    assert names == ["pubmed26n0001.xml.gz"]
    # the good file whole; of the cut one, what was read before the damage (it is imported again when whole)
    assert set(entries(either_db)) >= {pmid_of(a) for a in articles[:3]}
    assert pmid_of(articles[3]) not in entries(either_db)


def test_the_import_creates_a_missing_database_and_adds_its_tables_to_an_older_one(cli, tmp_path: Path) -> None:
    files = medline_set(tmp_path)
    made = tmp_path / "new" / "pubs.db"
    made.parent.mkdir()
    assert cli("-db-import-medline", made, files.baseline, "--workers", "1").code == EXIT_OK
    assert cli("-db-publications-size", made).out == "6\n"
    older = tmp_path / "older.db"
    assert cli("-db-init", older).code == EXIT_OK
    assert cli("-db-import-medline", older, files.baseline, "--workers", "1").code == EXIT_OK
    assert cli("-db-publications-size", older).out == "6\n"


def test_the_pubmed_parts_of_an_imported_record_are_final_for_a_later_fetch(cli, tmp_path: Path) -> None:
    """A later -db-fetch asks efetch only for entries whose PubMed parts are not final (resources/ncbi.py)."""
    files = medline_set(tmp_path)
    db = str(tmp_path / "pubs.db")
    assert cli("-db-import-medline", db, files.baseline, "--workers", "1").code == EXIT_OK
    with open_store(db, readonly=True) as store:
        pub = store.get_publication("23121403")
    assert pub is not None
    for name in (PartName.pmid, PartName.doi, PartName.title, PartName.mesh, PartName.theAbstract):
        assert pub.part(name).is_final(FetcherArgs()), name


def test_two_workers_import_files_at_once(cli, tmp_path: Path, either_db: str) -> None:
    articles = pubmed_articles()
    paths = [write_medline(tmp_path / f"pubmed26n000{i + 1}.xml.gz", [a]) for i, a in enumerate(articles)]
    run = cli("-db-import-medline", either_db, *paths, "--workers", "2")
    assert run.code == EXIT_OK, run.err
    assert "imported 6 files: 6 records stored" in run.err
    assert len(entries(either_db)) == 6
    assert len(ledger(either_db, "SELECT name FROM bulk_files")) == 6


def test_a_missing_file_and_a_database_alone_are_one_line_each(cli, tmp_path: Path) -> None:
    missing = cli("-db-import-medline", tmp_path / "pubs.db", tmp_path / "nothing.xml.gz")
    assert missing.code == EXIT_SOME_FAILED
    assert any("nothing.xml.gz: no such file or directory" in line for line in missing.lines)
    alone = cli("-db-import-medline", tmp_path / "pubs.db")
    assert alone.code == 2
    assert alone.lines == ["pubfetch: error: -db-import-medline needs a database and at least one file, directory or "
                           "URL"]


def test_a_record_whose_doi_an_entry_holds_joins_that_entry(cli, tmp_path: Path, either_db: str) -> None:
    """New records go in together; one meeting an entry a fetch made (by its DOI) is merged into it as a put would."""
    files = medline_set(tmp_path)
    record = parse_pubmed_xml((CORPUS / "pubmed_efetch" / "pmid_23121403.xml").read_bytes())[0]
    with open_or_init_store(either_db) as store:
        pub = Publication()
        pub.set_doi(record.doi, PartType.doi, "https://doi.org/x", FetcherArgs())
        pub.set_fulltext("A full text from the publisher. " * 40, PartType.doi, "https://doi.org/x", FetcherArgs())
        store.put_publication(pub)
    assert cli("-db-import-medline", either_db, files.baseline, "--workers", "1").code == EXIT_OK
    stored = entries(either_db)
    assert len(stored) == len(files.pmids)
    joined = stored[record.pmid]
    assert joined["doi"]["content"].lower() == record.doi.lower()
    assert joined["fulltext"]["content"].startswith("A full text from the publisher.")
    assert joined["title"]["type"] == PartType.pubmed_xml.value
