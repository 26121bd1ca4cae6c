"""Tests for pubfetch.net.browser.processes: a hung browser's processes found by their marker argument and killed."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from pubfetch.net.browser import processes
from support.waits import wait_until

pytestmark = pytest.mark.skipif(not Path("/proc/self/cmdline").is_file(),
                                reason="marked processes are found in Linux's /proc")


def test_marked_processes_are_found_and_killed() -> None:
    marker = f"{processes.MARKER_PREFIX}{uuid.uuid4().hex}"
    other = f"{processes.MARKER_PREFIX}{uuid.uuid4().hex}"
    wait_for_stdin = [sys.executable, "-c", "import sys; sys.stdin.read()"]
    marked = [subprocess.Popen([*wait_for_stdin, marker], stdin=subprocess.PIPE) for _ in range(2)]
    unmarked = subprocess.Popen([*wait_for_stdin, other], stdin=subprocess.PIPE)
    try:
        # a process started a moment ago may not have its command line yet (between fork and exec): wait for both
        wait_until(lambda: len(processes.marked_pids(marker)) == 2, 60, "both marked processes to have started")
        assert sorted(processes.marked_pids(marker)) == sorted(p.pid for p in marked)
        assert sorted(processes.kill(processes.marked_pids(marker))) == sorted(p.pid for p in marked)
        assert [p.wait(timeout=60) for p in marked] == [-9, -9]
        assert processes.marked_pids(marker) == [] and unmarked.poll() is None
    finally:
        for process in (*marked, unmarked):
            if process.poll() is None:
                process.kill()
            process.wait(timeout=60)
            process.stdin.close()


def test_a_marker_only_matches_a_whole_argument() -> None:
    marker = f"{processes.MARKER_PREFIX}{uuid.uuid4().hex}"
    longer = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()", marker + "-other"],
                              stdin=subprocess.PIPE)
    try:
        wait_until(lambda: (marker + "-other").encode() in Path(f"/proc/{longer.pid}/cmdline").read_bytes(), 60,
                   "the process with the longer argument to have started")
        assert processes.marked_pids(marker) == []
    finally:
        longer.kill()
        longer.wait(timeout=60)
        longer.stdin.close()

