"""An output file written whole or not at all, through a symbolic link, in place on a device; what a killed run
left beside it removed. The command line's use of it (-txt-*, '-', a full device) is tested in test_cli_emit.py."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.outfiles import remove_stale_temporaries, write_output_file


def test_a_new_file_is_made_with_its_parents_and_an_existing_one_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "out.txt"
    write_output_file(target, lambda f: f.write("first\n"))
    assert target.read_text(encoding="utf-8") == "first\n"
    target.chmod(0o640)
    write_output_file(target, lambda f: f.write(b"second\n"), binary=True)
    assert target.read_bytes() == b"second\n" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in target.parent.iterdir()] == ["out.txt"]  # no temporary left


def test_a_failing_write_leaves_the_old_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("kept\n", encoding="utf-8")

    def fail(f) -> None:
        f.write("half")
        raise OSError("disk full")

    with pytest.raises(OSError):
        write_output_file(target, fail)
    assert target.read_text(encoding="utf-8") == "kept\n" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_a_symbolic_link_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_output_file(link, lambda f: f.write("new\n"))
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new\n"


def test_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader first, so that opening for writing cannot block
    try:
        write_output_file(fifo, lambda f: f.write("through the pipe\n"))
        assert os.read(reader, 100) == b"through the pipe\n"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_temporaries_of_a_gone_process_are_removed_and_a_live_ones_kept(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True).stdout.strip()
    stale = tmp_path / f".out.txt.{gone}.abc123.tmp"
    live = tmp_path / f".out.txt.{os.getpid()}.def456.tmp"
    stale.write_text("", encoding="utf-8")
    live.write_text("", encoding="utf-8")
    assert remove_stale_temporaries(str(target)) == [stale.name]
    assert live.exists() and not stale.exists()
