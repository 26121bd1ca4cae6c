"""Reaping the browser processes pubfetch adopts, so that none is left a zombie (``<defunct>``).

Chromium leaves processes that outlive the browser process itself: its crash handler (``chrome_crashpad_handler``)
forks twice to get away from the browser, and the helpers of a browser that was closed or killed end after it. Each
such orphan is given to the nearest ancestor that is a child subreaper, else to PID 1, and only its new parent can
reap it when it ends. That parent is pubfetch when pubfetch runs as PID 1 (a container started without ``--init``,
as the deploy image's ENTRYPOINT runs ``pubfetch worker``) or under a supervisor that made it a subreaper: nothing in
pubfetch waited for them, and every browser started left its zombies until the process ended.

So when this process adopts orphans (:func:`adopts_orphans`), closing or dropping a browser reaps them
(:func:`reap_adopted`). Only the adopted ones are reaped, each by its pid, never with ``waitpid(-1)``: the children
pubfetch starts itself (Playwright's driver, the page workers, ``subprocess``) are waited for by the code that started
them, which needs their exit statuses. An adopted Chromium process is told apart by two things a process pubfetch
started does not have together: a process group other than pubfetch's (Playwright starts the browser in a group of its
own, and the crash handler makes its own) and a Chromium program name. pubfetch does not make itself a subreaper: it
only reaps what it is given. Linux only (``/proc``); elsewhere nothing is adopted that way and nothing is done.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

logger = logging.getLogger(__name__)

#: prctl's option reading whether the calling process is a child subreaper (linux/prctl.h).
PR_GET_CHILD_SUBREAPER: Final = 37
#: The starts of the program names (``comm``, 15 characters at most) of Chromium's processes and its crash handler:
#: ``chromium``, ``chrome``, ``chrome_crashpad``, ``chrome-headless`` (Playwright's headless shell), ``headless_shell``.
CHROMIUM_NAMES: Final = ("chrom", "headless_shell")
#: How long a closing browser's adopted processes may take to end before they are left (they are reaped on the next
#: close, or by the process's own end).
REAP_WAIT_S: Final = 3.0
_POLL_S: Final = 0.02

_lock = threading.Lock()


@dataclass(frozen=True)
class Child:
    """One child process of this one, as /proc tells it."""

    pid: int
    name: str
    state: str
    pgid: int

    @property
    def zombie(self) -> bool:
        return self.state == "Z"


def adopts_orphans() -> bool:
    """Whether orphaned processes are given to this process: it is PID 1 (of its PID namespace) or a child subreaper."""
    if os.getpid() == 1:
        return True
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        flag = ctypes.c_int(0)
        if libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):  # not Linux, or no prctl
        return False
    return flag.value != 0


def children() -> list[Child]:
    """This process's children (those of every thread), from /proc; empty where /proc does not list them."""
    found: dict[int, Child] = {}
    for task in Path(f"/proc/{os.getpid()}/task").glob("*/children"):
        with contextlib.suppress(OSError, ValueError):
            for pid in map(int, task.read_text().split()):
                child = _read_child(pid)
                if child is not None:
                    found[pid] = child
    return list(found.values())


def _read_child(pid: int) -> Child | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # it ended (and was reaped) meanwhile
        return None
    name = stat[stat.find("(") + 1:stat.rfind(")")]
    fields = stat[stat.rfind(")") + 2:].split()  # state, ppid, pgrp, ...: the name may hold spaces and parentheses
    return Child(pid, name, fields[0], int(fields[2]))


def adopted_chromium(all_children: list[Child]) -> list[Child]:
    """The children that are Chromium's processes pubfetch was given, not ones it started: see the module docstring."""
    own_group = os.getpgid(0)
    return [c for c in all_children if c.pgid != own_group and c.name.startswith(CHROMIUM_NAMES)]


def reap_adopted(wait_s: float = REAP_WAIT_S) -> list[int]:
    """Reap the adopted Chromium processes, waiting up to ``wait_s`` for those still running to end (a closed browser's
    crash handler and helpers end just after it); the pids reaped. Does nothing unless this process adopts orphans."""
    if not adopts_orphans():
        return []
    reaped: list[int] = []
    deadline = time.monotonic() + wait_s
    with _lock:
        while True:
            adopted = adopted_chromium(children())
            for child in adopted:
                if child.zombie and _reap(child.pid):
                    reaped.append(child.pid)
            if all(c.zombie for c in adopted) or time.monotonic() >= deadline:
                break
            time.sleep(_POLL_S)  # waiting for processes that are ending; there is no event to wait on for another's
    left = [c.pid for c in adopted if not c.zombie]
    if reaped or left:
        logger.debug("reaped the adopted browser processes %s%s", reaped,
                     f"; still running: {left}" if left else "")
    return reaped


def _reap(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # someone else reaped it
        return False
    return done == pid
