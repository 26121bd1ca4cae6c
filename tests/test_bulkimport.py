"""The bulk import commands' own messages (pubfetch/cli/bulkimport.py): a file that is not there and a command
missing its files are one line each, not a traceback."""

from __future__ import annotations

from pathlib import Path

from pubfetch.cli.errors import EXIT_SOME_FAILED


def test_a_missing_file_and_a_database_alone_are_one_line_each(cli, tmp_path: Path) -> None:
    missing = cli("-db-import-medline", tmp_path / "pubs.db", tmp_path / "nothing.xml.gz")
    assert missing.code == EXIT_SOME_FAILED
    assert any("nothing.xml.gz: no such file or directory" in line for line in missing.lines)
    alone = cli("-db-import-medline", tmp_path / "pubs.db")
    assert alone.code == 2
    assert alone.lines == ["pubfetch: error: -db-import-medline needs a database and at least one file, directory or "
                           "URL"]
