"""What a worker process can tell about its own sockets, as jobs that tests/test_workerpool.py runs in it (a module
that imports next to nothing, so the worker's import of it is quick)."""

from __future__ import annotations

import os
import socket
from pathlib import Path


def send_buffers() -> list[int]:
    """The send buffer (SO_SNDBUF, bytes) of each Unix socket this process holds open."""
    sizes = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if not Path(f"/proc/self/fd/{fd}").readlink().name.startswith("socket:"):
                continue
            with socket.socket(fileno=os.dup(fd)) as sock:
                if sock.family == socket.AF_UNIX:
                    sizes.append(sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF))
        except OSError:
            continue  # the listing's own descriptor, closed by now
    return sizes


def largest_send_buffer_allowed(asked: int) -> int | None:
    """The send buffer Linux grants an unprivileged ``setsockopt`` asking for ``asked`` bytes (capped at
    ``net.core.wmem_max``, then doubled), or None where the limit cannot be read."""
    try:
        limit = int(Path("/proc/sys/net/core/wmem_max").read_text())
    except (OSError, ValueError):
        return None
    return 2 * min(asked, limit)
