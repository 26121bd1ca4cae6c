"""The end-of-run retry list against its disk: a full ``$TMPDIR`` ended a run with "internal
error: database disk image is malformed", and the files of killed runs stayed for ever."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.store import spill as spillmod
from pubfetch.store.spill import SpillList

HERE = Path(__file__).parent


def can_mount_tmpfs(where: Path) -> bool:
    try:
        done = subprocess.run(["unshare", "-rm", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)],
                              capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def test_a_full_temporary_directory_keeps_the_rest_of_the_list_in_memory(tmp_path: Path):
    small = tmp_path / "small"
    small.mkdir()
    if not can_mount_tmpfs(small):
        pytest.skip("needs `unshare -rm` and tmpfs mounts (a mount namespace) for a directory that fills up")
    script = f"mount -t tmpfs -o size=64k tmpfs {small} && exec {sys.executable} {HERE / 'support' / 'spill_full_disk.py'} {small}"
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == {"count": 400, "ordered": True}
    warnings = [line for line in done.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1 and f"cannot grow on disk in {small}" in warnings[0]  # said once, with the place


def test_files_of_ended_runs_are_swept_and_live_ones_kept(tmp_path: Path):
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                           check=True)
    dead_pid = int(ended.stdout)  # that process has exited
    owner = spillmod._owner
    stale = tmp_path / f"{spillmod.PREFIX}{owner(dead_pid)}-abc123{spillmod.SUFFIX}"
    live = tmp_path / f"{spillmod.PREFIX}{owner(os.getppid())}-def456{spillmod.SUFFIX}"
    foreign = tmp_path / f"{spillmod.PREFIX}otherhost.{dead_pid}-ghi789{spillmod.SUFFIX}"
    unrelated = tmp_path / "pubfetch-retry-notes.txt"
    for path in (stale, live, foreign, unrelated):
        path.write_bytes(b"x")
    spill = SpillList(str(tmp_path))
    spill.append((1, 0), {"id": "a"})
    assert not stale.exists()  # a killed run's file
    assert live.exists() and foreign.exists() and unrelated.exists()  # a running process's, another host's, not ours
    assert list(spill.chunks(5)) == [[{"id": "a"}]]
    spill.close()
