"""Writing an output file so that the next pipeline step never reads half of one, without destroying what the path
names.

A regular file (or a new path) is written into a temporary file beside it and renamed over it only when complete, so
an interrupted or killed run leaves the previous file whole. Renaming over a path replaces whatever is there, so the
rename is kept for regular files: a symbolic link is followed (its resolved target is written atomically, the link
stays a link), and a path naming something that is not a regular file (``/dev/null``, ``/dev/full``, a FIFO a reader
waits on, a socket) is opened and written in place, as ``open(path, "w")`` would, so its write errors (ENOSPC on
``/dev/full``) reach the caller. Every file the command line writes (``-txt-*``, ``-out-tables``, ``-report``,
``--supplements``) goes through :func:`write_output_file`.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Callable
from typing import IO, Any

__all__ = ["remove_stale_temporaries", "write_output_file"]


def write_output_file(path: str | os.PathLike[str], write: Callable[[Any], object], *, binary: bool = False,
                      newline: str | None = None) -> None:
    """Write ``path`` with ``write`` (given a text file in UTF-8, or a binary one with ``binary``); missing parent
    directories are made, as PubFetcher does. Raises OSError for the caller to word."""
    target = os.path.realpath(path)  # a symbolic link (even a dangling one) is written through, never replaced
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        with _open(target, binary, newline) as f:  # a device, FIFO or socket: written in place
            write(f)
        return
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    remove_stale_temporaries(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.{os.getpid()}.", suffix=".tmp", dir=parent)
    try:
        os.fchmod(fd, _mode_for(mode))  # mkstemp's 0600 is for secrets; an output file is made as any other
        with _open(fd, binary, newline) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _open(file: str | int, binary: bool, newline: str | None) -> IO[Any]:
    if binary:
        return open(file, "wb")  # noqa: SIM115 (the caller's with-block closes it)
    return open(file, "w", encoding="utf-8", newline=newline)  # noqa: SIM115


def _mode_for(existing: int | None) -> int:
    """The permissions of the file replaced, or for a new file those the umask gives (as ``open(path, "w")``)."""
    if existing is not None:
        return existing & 0o7777
    return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it (changing it races other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def remove_stale_temporaries(path: str) -> list[str]:
    """Remove the temporary files a killed run left beside ``path`` (``.NAME.PID.XXXX.tmp`` of a process that is gone;
    a live process's file, another run writing the same output now, is left alone). Returns the names removed."""
    parent = os.path.dirname(path) or "."
    pattern = re.compile(rf"\.{re.escape(os.path.basename(path))}\.([0-9]+)\.[^./]+\.tmp")
    removed = []
    with contextlib.suppress(OSError):
        for name in os.listdir(parent):
            match = pattern.fullmatch(name)
            if match and not _process_alive(int(match.group(1))):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(parent, name))
                    removed.append(name)
    return removed


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # someone else's process, or not a PID this system can have: leave its file alone
    return True
