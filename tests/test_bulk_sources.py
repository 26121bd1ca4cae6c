"""Bulk files given by URL (pubfetch/bulk/sources.py): a directory listing's files not yet imported downloaded in
order, in ranges through the run's HTTP client, an interrupted download resumed from its bytes, MD5s checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.bulk import sources
from pubfetch.cli.errors import EXIT_OK, EXIT_SOME_FAILED
from support.bulkfiles import medline_set, serve_files
from support.loopback import LoopbackServer


@pytest.mark.slow
def test_a_listing_gives_only_the_files_not_yet_imported_and_a_download_resumes(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    published = tmp_path / "nlm"
    published.mkdir()
    files = medline_set(published)
    downloads = tmp_path / "downloads"
    db = tmp_path / "pubs.db"
    monkeypatch.setattr(sources, "RANGE_BYTES", 512)
    ranges: list[tuple[str, str]] = []
    with LoopbackServer() as server:
        serve_files(published, server, ranges)
        base = server.url("/updatefiles/")
        first = cli("-db-import-medline", db, base + files.baseline.name, "--download-dir", downloads,
                    "--workers", "1")
        assert first.code == EXIT_OK, first.err
        assert len([r for r in ranges if r[0] == files.baseline.name]) == -(-files.baseline.stat().st_size // 512)
        # an interrupted download of the update: its first bytes are on disk
        data = files.update.read_bytes()
        (downloads / (files.update.name + ".part")).write_bytes(data[:300])
        ranges.clear()
        daily = cli("-db-import-medline", db, base, "--download-dir", downloads, "--workers", "1")
    assert daily.code == EXIT_OK, daily.err
    assert "imported 1 file: 1 records stored, 1 deleted" in daily.err
    asked = [name for name, _ in ranges]
    assert files.baseline.name not in asked  # recorded: not downloaded again
    assert ranges[0] == (files.update.name, "bytes=300-811")
    assert (downloads / files.update.name).read_bytes() == data
    assert cli("-db-publications-size", db).out == f"{len(files.pmids) - 1}\n"


def test_a_download_whose_md5_differs_is_not_imported(cli, tmp_path: Path) -> None:
    published = tmp_path / "nlm"
    published.mkdir()
    files = medline_set(published)
    Path(f"{files.update}.md5").write_text(f"MD5({files.update.name})= {'f' * 32}\n")
    with LoopbackServer() as server:
        serve_files(published, server, [])
        run = cli("-db-import-medline", tmp_path / "pubs.db", server.url("/updatefiles/"), "--download-dir",
                  tmp_path / "downloads", "--workers", "1")
    assert run.code == EXIT_SOME_FAILED
    assert any(f"{files.update.name}: MD5" in line for line in run.lines), run.err
    assert "imported 1 file: 6 records stored" in run.err


def test_plain_http_is_refused_for_other_hosts(cli, tmp_path: Path) -> None:
    run = cli("-db-import-medline", tmp_path / "pubs.db", "http://ftp.ncbi.nlm.nih.gov/pubmed/updatefiles/")
    assert run.code == EXIT_SOME_FAILED
    assert any("downloaded over HTTPS only" in line for line in run.lines), run.err


def test_an_md5_file_is_read_as_nlm_writes_it(tmp_path: Path) -> None:
    path = tmp_path / "pubmed26n0001.xml.gz"
    path.write_bytes(b"abc")
    Path(f"{path}.md5").write_text("MD5(pubmed26n0001.xml.gz)= 900150983cd24fb0d6963f7d28e17f72\n")
    assert sources.checked_md5(str(path)) == "900150983cd24fb0d6963f7d28e17f72"
    Path(f"{path}.md5").write_text("900150983cd24fb0d6963f7d28e17f72  pubmed26n0001.xml.gz\n")
    with pytest.raises(sources.FileProblem, match="not of the form"):
        sources.checked_md5(str(path))
