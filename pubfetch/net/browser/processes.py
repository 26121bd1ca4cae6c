"""Killing a browser that hangs: its processes are found by a marker argument on their command line.

A page can hang Chromium in a call that has no timeout of its own; killing the processes makes that call fail at once.
Playwright does not give the process ids of the renderers and helpers, so every process started with the browser's
unique marker argument is found in /proc (Linux; elsewhere none are found and a stuck worker is abandoned instead).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterable
from typing import Final

#: The argument that marks a browser's processes; a unique suffix per browser follows it.
MARKER_PREFIX: Final = "--pubfetch-browser="


def marked_pids(marker: str) -> list[int]:
    """Processes started with ``marker`` as one of their arguments (Linux /proc; empty elsewhere)."""
    wanted = marker.encode()
    own = os.getpid()
    pids: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return pids
    for entry in entries:
        if not entry.isdigit() or int(entry) == own:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if wanted in argv:
            pids.append(int(entry))
    return pids


def kill(pids: Iterable[int]) -> list[int]:
    """SIGKILL the processes; the ones that were signalled."""
    killed = []
    sig = getattr(signal, "SIGKILL", signal.SIGTERM)
    for pid in pids:
        try:
            os.kill(pid, sig)
            killed.append(pid)
        except (ProcessLookupError, PermissionError):
            pass
    return killed
