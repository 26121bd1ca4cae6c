"""A command's inputs and outputs are checked before any request and before anything is created: output files that
cannot be written, ID files that cannot be read or hold no valid ID, databases that cannot be created. Every output
file option creates its missing directories the same way; output files get the umask's mode; a command that only
reads a database leaves no -wal/-shm files beside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from support.cli import Cli
from support.synthetic import Article, SyntheticServices

pytestmark = pytest.mark.services(2)

PRIVATE = "--allow-private-addresses"  # the services are on 127.0.0.1


@pytest.fixture(autouse=True)
def _in_tmp_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The commands name their files relative to the working directory, as a user typing them would."""
    monkeypatch.chdir(tmp_path)


def listing(d: Path) -> list[str]:
    """What the run left in ``d``, besides the suite's own files: the rate-limit file and the empty configuration
    home (where matplotlib, once imported, keeps its cache as it would in the user's)."""
    ours = {d / "rates.sqlite", d / "no-config"}
    return sorted(str(p.relative_to(d)) for p in d.rglob("*") if not ours & {p, *p.parents})


def test_a_missing_id_file_creates_no_database_and_no_report_directory(
        services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    before = listing(tmp_path)
    for fetch in ("-db-fetch-end", "-db-fetch"):
        code, _, err = cli.lines(PRIVATE, "-pub-file", "missing.txt", fetch, "pubs.db", "-report", "out/run.html")
        assert (code, err) == (2, ["pubfetch: error: cannot read publication ID file 'missing.txt': No such file or "
                                   "directory"])
    assert listing(tmp_path) == before
    assert services.server.requests == []


def test_an_id_file_of_invalid_lines_only_exits_2_before_anything_is_created(
        services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    (tmp_path / "ids.txt").write_text("# IDs\nnot-an-id\nPMC-x\n")
    before = listing(tmp_path)
    code, _, err = cli.lines(PRIVATE, "-pub-file", "ids.txt", "-db-fetch-end", "pubs.db")
    assert code == 2
    assert err[-1] == "pubfetch: error: ids.txt: 2 publication ID lines given, none valid (see the warnings above)"
    assert [line.split(": ")[2] for line in err[:-1]] == ["ids.txt:2", "ids.txt:3"]  # each line, once
    assert listing(tmp_path) == before and services.server.requests == []


@pytest.mark.parametrize("option", ["-report", "-txt-pub", "--warc", "-l"])
def test_an_output_file_that_cannot_be_written_is_refused_before_any_request(
        option: str, services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    (tmp_path / "afile").write_text("not a directory\n")
    (tmp_path / "adir").mkdir()
    before = listing(tmp_path)
    what = "log file" if option == "-l" else "output file"
    name = "--log" if option == "-l" else option
    for path, why in (("afile/out", f"'{tmp_path / 'afile'}' is not a directory"), ("adir", "it is a directory"),
                      ("/proc/out", "directory '/proc' is on the virtual 'proc' file system, which holds no "
                                    "ordinary files; choose another directory")):
        if path.startswith("/proc") and not os.path.isdir("/proc/self"):
            continue
        code, _, err = cli.lines(PRIVATE, "-pub", Article(0).pmid, "-db-fetch", "pubs.db", option, path)
        assert (code, err) == (2, [f"pubfetch: error: cannot write {what} '{path}' ({name}): {why}"])
    assert listing(tmp_path) == before and services.server.requests == []


def test_a_new_database_in_a_missing_directory_is_refused_before_any_request(
        services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    code, _, err = cli.lines(PRIVATE, "-pub", Article(0).pmid, "-db-fetch", "nodir/pubs.db")
    assert (code, err) == (2, [f"pubfetch: error: cannot create database file 'nodir/pubs.db': directory "
                               f"'{tmp_path / 'nodir'}' does not exist"])
    assert services.server.requests == []


def test_every_output_file_option_creates_its_missing_directories(
        services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    pytest.importorskip("matplotlib")
    code, _, err = cli.lines(PRIVATE, "-pub", Article(0).pmid, "-db-fetch", "pubs.db", "-report", "a/run.html",
                    "-txt-pub", "b/pubs.json", "--warc", "c/run.warc", "-l", "d/run.log")
    assert code == 0, err
    assert all((tmp_path / f).is_file() for f in ("a/run.html", "b/pubs.json", "c/run.warc", "d/run.log"))


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_output_files_get_the_umasks_mode(umask: int, services: SyntheticServices, tmp_path: Path,
                                          cli: Cli) -> None:
    old = os.umask(umask)
    try:
        code, _, err = cli.lines(PRIVATE, "-pub", Article(0).pmid, "-fetch", "-txt-pub", "pubs.txt")
    finally:
        os.umask(old)
    assert code == 0, err
    assert (tmp_path / "pubs.txt").stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_command_that_only_reads_a_database_leaves_no_wal_or_shm(
        services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    assert cli(PRIVATE, "-pub", Article(0).pmid, "-db-fetch", "pubs.db")[0] == 0
    before = listing(tmp_path)
    assert "pubs.db-wal" not in before
    for argv in (("-pub-db", "pubs.db", "-out-ids"), ("-pub", Article(0).pmid, "-db", "pubs.db", "-out")):
        assert cli(PRIVATE, *argv)[0] == 0
        assert listing(tmp_path) == before
