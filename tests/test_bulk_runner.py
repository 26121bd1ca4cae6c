"""Bulk files imported by worker processes, one file each at a time (pubfetch/bulk/runner.py); a killed import
resuming is test_bulk_crash.py's."""

from __future__ import annotations

from pathlib import Path

from pubfetch.cli.errors import EXIT_OK
from support.bulkfiles import pubmed_articles, write_medline
from support.bulkstore import entries, ledger


def test_two_workers_import_files_at_once(cli, tmp_path: Path, either_db: str) -> None:
    articles = pubmed_articles()
    paths = [write_medline(tmp_path / f"pubmed26n000{i + 1}.xml.gz", [a]) for i, a in enumerate(articles)]
    run = cli("-db-import-medline", either_db, *paths, "--workers", "2")
    assert run.code == EXIT_OK, run.err
    assert "imported 6 files: 6 records stored" in run.err
    assert len(entries(either_db)) == 6
    assert len(ledger(either_db, "SELECT name FROM bulk_files")) == 6
