"""What a database remembers of its bulk imports (pubfetch/bulk/ledger.py): files already imported are skipped, each
PMID's version decides whether a record replaces the stored one, and the ledger's tables are added to any database."""

from __future__ import annotations

from pathlib import Path

from pubfetch.cli.errors import EXIT_OK
from support.bulkfiles import medline_set, pubmed_articles, revised, without_times, write_medline
from support.bulkstore import entries


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
