"""Which processes the test process has, for the tests that check worker processes end (no sleeps: bounded polls).

Read from Linux's ``/proc/<pid>/task/<tid>/children``; where that file does not exist the tests that need it skip.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path


def children_supported() -> bool:
    return Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").is_file()


def descendants(pid: int | None = None) -> set[int]:
    """Every live process below ``pid`` (default: this one), children of children included: the multiprocessing fork
    server is this process's child and the workers are its children, so both levels count."""
    found: set[int] = set()
    todo = [os.getpid() if pid is None else pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                kids = {int(k) for k in (task / "children").read_text().split()}
            except OSError:  # the process or thread ended while we looked
                continue
            todo.extend(kids - found)
            found |= kids
    return found


def process_gone(pid: int, wait: float = 60.0) -> bool:
    """Whether ``pid`` no longer runs, polled for at most ``wait`` seconds (a killed process may take a moment to be
    reaped by its parent, the fork server). A zombie counts as gone: an orphan's new parent (a container's init) may
    never reap it."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if _zombie(pid):
            return True
        time.sleep(0.05)
    return False


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] == "Z"  # the state follows the command name, which may hold spaces


def stop_process_groups(procs: list[subprocess.Popen[bytes]]) -> None:
    """End processes started with ``start_new_session=True`` (a worker and its pool) by their whole process group:
    SIGTERM to each, then SIGKILL to a group that has not ended within a minute."""
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()

