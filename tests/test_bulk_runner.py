"""Bulk files imported by worker processes, one file each at a time (pubfetch/bulk/runner.py); a killed import
resuming is test_bulk_crash.py's."""

from __future__ import annotations

from pathlib import Path

from pubfetch.cli.errors import EXIT_OK
from support.bulkfiles import pubmed_articles, renumbered, write_medline
from support.bulkstore import entries, ledger


def test_two_workers_import_files_at_once(cli, tmp_path: Path, either_db: str) -> None:
    articles = pubmed_articles()
    paths = [write_medline(tmp_path / f"pubmed26n000{i + 1}.xml.gz", [a]) for i, a in enumerate(articles)]
    run = cli("-db-import-medline", either_db, *paths, "--workers", "2")
    assert run.code == EXIT_OK, run.err
    assert "imported 6 files: 6 records stored" in run.err
    assert len(entries(either_db)) == 6
    assert len(ledger(either_db, "SELECT name FROM bulk_files")) == 6


def test_what_the_workers_say_is_said_and_logged_as_this_process_says_it(cli, tmp_path: Path) -> None:
    """A worker's warning goes through the command's console (one ``pubfetch: warning:`` line) and into its log file,
    as the same warning from an import in this process does: spawned workers have no logging of their own."""
    first, second = (renumbered(article, pmid) for article, pmid in zip(pubmed_articles()[:2], (92_000_001, 92_000_002),
                                                                       strict=True))
    second = second.replace("10.5555/bulk.92000002", "10.5555/bulk.92000001")
    paths = [write_medline(tmp_path / "pubmed26n0001.xml.gz", [first, second]),
             write_medline(tmp_path / "pubmed26n0002.xml.gz", [renumbered(pubmed_articles()[2], 92_000_003)])]
    log = tmp_path / "import.log"
    run = cli("-db-import-medline", str(tmp_path / "pubs.db"), *map(str, paths), "--workers", "2", "--log", str(log))
    assert run.code == EXIT_OK, run.err
    said = "PMID 92000002 names DOI 10.5555/bulk.92000001, as does PMID 92000001 in the database"
    assert [line for line in run.err.splitlines() if said in line] == [f"pubfetch: warning: {said}, another paper: "
                                                                        "stored without it"]
    logged = [line for line in log.read_text(encoding="utf-8").splitlines() if said in line]
    assert len(logged) == 1 and "WARNING" in logged[0] and "pubfetch.bulk.apply" in logged[0]
