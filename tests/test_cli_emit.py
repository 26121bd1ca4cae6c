"""Where the pipeline's output goes: stdout or ``-txt-*`` files written atomically (a killed run leaves the previous
file whole, its temporary file is cleared by the next run) without replacing a device, FIFO or symbolic link, ``-``
being stdout, each file with its kind even when it has no entries."""

from __future__ import annotations

import errno
import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import TextIO

import pytest

from pubfetch.cli.emit import Emitter, remove_stale_temporaries, write_file
from pubfetch.cli.errors import InputError
from pubfetch.cli.parser import parse_args
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from support.cli import Cli


def emitter(out: TextIO, *options: str) -> Emitter:
    return Emitter(out, parse_args(["-pub", "1", "-out", *options]), FetcherArgs(), ["pubfetch", "-out"])


def test_output_files_are_written_atomically(env: Path, cli: Cli) -> None:
    """A run that dies while writing leaves the previous output file whole and no temporary file behind."""
    fixtures = Path(__file__).parent / "data" / "cli" / "entries.json"
    out = env / "out" / "pubs.jsonl"
    code, _, err = cli("-pub-json", fixtures, "-txt-pub", out, "--format", "jsonl")
    assert code == 0, err
    first = out.read_text()
    assert len(first.splitlines()) == 3

    def dying(f: TextIO) -> None:
        f.write('{"half": ')
        raise OSError(28, "No space left on device")

    with pytest.raises(InputError, match=f"cannot write output file '{out}': No space left on device"):
        write_file(str(out), dying)
    assert out.read_text() == first
    assert [p.name for p in out.parent.iterdir()] == ["pubs.jsonl"]


def test_a_replaced_file_keeps_its_permissions_and_a_new_one_gets_the_umasks(tmp_path: Path) -> None:
    kept = tmp_path / "kept.txt"
    kept.write_text("old", encoding="utf-8")
    kept.chmod(0o640)
    write_file(str(kept), lambda f: f.write("new"))
    assert (kept.read_text(encoding="utf-8"), kept.stat().st_mode & 0o777) == ("new", 0o640)
    mask = os.umask(0o022)
    os.umask(mask)
    new = tmp_path / "sub" / "dir" / "new.txt"  # parent directories are made
    write_file(str(new), lambda f: f.write("x"))
    assert new.stat().st_mode & 0o777 == 0o666 & ~mask


def test_an_output_file_that_cannot_be_written_is_an_input_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match=f"^cannot write output file '{blocker}/out.json': "):
        write_file(str(blocker / "out.json"), lambda f: f.write("{}"))


def test_only_temporaries_of_gone_processes_are_removed(tmp_path: Path) -> None:
    out = tmp_path / "pubs.json"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    dead = tmp_path / f".pubs.json.{gone.stdout.strip()}.abc123.tmp"
    mine = tmp_path / f".pubs.json.{os.getpid()}.def456.tmp"
    other = tmp_path / f".other.json.{gone.stdout.strip()}.abc123.tmp"
    for path in (dead, mine, other):
        path.write_text("half", encoding="utf-8")
    assert remove_stale_temporaries(str(out)) == [dead.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, other.name])


def test_a_file_gets_its_kind_even_without_entries(tmp_path: Path) -> None:
    path = tmp_path / "pubs.json"
    emitter(io.StringIO(), "--format", "json").entries_file(str(path), "publications", [])
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["publications"] == [] and "webpages" not in document


def test_ids_go_to_stdout_and_to_files_in_the_chosen_format(tmp_path: Path) -> None:
    out = io.StringIO()
    ids = [PublicationIds("1", "PMC2", "10.1/A")]
    emitter(out, "--plain").ids(ids, ["https://a.example/"], [])
    assert out.getvalue() == "1\tPMC2\t10.1/A\nhttps://a.example/\n"
    path = tmp_path / "ids.json"
    emitter(io.StringIO(), "--format", "json").ids_file(str(path), "webpages", [])
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["webpageUrls"] == [] and "publicationIds" not in document


def test_a_symbolic_link_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "lnk"
    link.symlink_to("target.txt")
    write_file(str(link), lambda f: f.write("new"))
    assert link.is_symlink() and os.readlink(link) == "target.txt"
    assert target.read_text(encoding="utf-8") == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lnk", "target.txt"]


def test_a_fifo_is_written_in_place_not_replaced(tmp_path: Path) -> None:
    """The reading end is opened first (without blocking), so the write needs no reader thread and cannot hang."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_file(str(fifo), lambda f: f.write("through the pipe\n"))
        assert os.read(reader, 1000) == b"through the pipe\n"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


@pytest.fixture
def no_renames(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test writing to a device must not replace it (as root, a rename over /dev/null would) even on a regression."""
    def refuse(source: object, target: object, *args: object, **kwargs: object) -> None:
        raise AssertionError(f"{target} would have been replaced")

    monkeypatch.setattr(os, "replace", refuse)
    monkeypatch.setattr(os, "rename", refuse)


def test_dev_null_stays_a_device(no_renames: None) -> None:
    write_file(os.devnull, lambda f: f.write("discarded"))
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_write_error_of_a_device_is_one_line_naming_it(no_renames: None, cli: Cli) -> None:
    if not os.path.exists("/dev/full") or not stat.S_ISCHR(os.stat("/dev/full").st_mode):
        pytest.skip("this system has no /dev/full character device")
    fixtures = Path(__file__).parent / "data" / "cli" / "entries.json"
    code, out, err = cli("-pub-json", fixtures, "-txt-pub", "/dev/full")
    assert code == 2
    assert err.splitlines() == [f"pubfetch: error: cannot write output file '/dev/full': {os.strerror(errno.ENOSPC)}"]
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_dash_is_stdout(env: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(env)
    fixtures = Path(__file__).parent / "data" / "cli" / "entries.json"
    code, out, err = cli("-pub-json", fixtures, "-txt-pub", "-", "--format", "jsonl")
    assert code == 0, err
    assert len([json.loads(line) for line in out.splitlines()]) == 3
    assert not (env / "-").exists()


def test_a_dash_needs_no_writable_directory(env: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    fixtures = Path(__file__).parent / "data" / "cli" / "entries.json"
    locked = env / "locked"
    locked.mkdir()
    monkeypatch.chdir(locked)
    monkeypatch.setattr("pubfetch.cli.preflight.why_not_writable", lambda path: "it is not writable")
    code, out, err = cli("-pub-json", fixtures, "-txt-pub", "-", "--format", "jsonl")
    assert code == 0, err
    assert len(out.splitlines()) == 3
