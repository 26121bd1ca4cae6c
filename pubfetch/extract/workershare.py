"""A worker's large arguments (a PDF's bytes, a page's HTML) handed over through memory both processes map, not the
pipe.

Through the pipe, a 740 KB PDF is pickled (a copy), written into the socket (a copy into the kernel), read out in the
worker into a buffer grown as it comes and then joined (two more) and unpickled (another), each into freshly allocated
memory: 1.8 % of the PDF extraction's CPU (docs/benchmarks.md). So the parent writes the bytes into a memory file
shared with that worker (Linux's ``memfd_create``, its descriptor passed once over the worker's Unix socket), the
pickled job carries only a small :class:`SharedBytes` marker, and the worker copies the bytes out (one copy) before the
job runs; a text goes as its UTF-8. Where there is no ``memfd_create`` or the descriptor cannot be passed, the
arguments go through the pipe.

The file grows to the largest argument seen (whole MiB) and, after one over :data:`KEPT`, shrinks back, so that a run's
worker does not keep a large PDF's pages for its remaining jobs.
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import os
from multiprocessing import reduction
from typing import Any

__all__ = ["KEPT", "MIN_SHARED", "SharedArgs", "SharedBytes", "WorkerMapping"]

log = logging.getLogger(__name__)

#: Arguments at least this long go through the shared memory (a smaller one costs the pipe less than a copy here).
MIN_SHARED = 64 * 1024
#: The memory file's size kept between jobs; a larger argument grows it for its job only.
KEPT = 8 * 1024 * 1024
_MIB = 1024 * 1024


class SharedBytes:
    """In a job's arguments, bytes the worker finds at the start of its shared memory: their ``size``, the memory
    file's ``capacity`` when the job was sent (the worker maps it anew when it changed), and whether they are a text's
    UTF-8 (``text``: a page's HTML, given as str)."""

    __slots__ = ("capacity", "size", "text")

    def __init__(self, size: int, capacity: int, text: bool = False) -> None:
        self.size = size
        self.capacity = capacity
        self.text = text

    def __reduce__(self) -> tuple[Any, tuple[int, int, bool]]:
        return SharedBytes, (self.size, self.capacity, self.text)


#: The job a worker gets before the memory file's descriptor follows on the socket.
ATTACH = "pubfetch-shared-memory"


class _MemoryFile:
    """A memory file's descriptor and its mapping, each side's own; closed with the worker."""

    def __init__(self) -> None:
        self._fd = -1
        self._map: mmap.mmap | None = None

    def close(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1


class SharedArgs(_MemoryFile):
    """The parent's side of one worker's shared memory: the memory file and its mapping, made on the first large
    argument; unusable (every argument through the pipe) where it cannot be made or handed over."""

    def __init__(self) -> None:
        super().__init__()
        self._usable = hasattr(os, "memfd_create")

    def pack(self, args: tuple[Any, ...], conn: Any, pid: int | None, nested: bool = True) -> tuple[Any, ...]:
        """``args`` with their first bytes or text of at least :data:`MIN_SHARED` bytes or characters (a PDF; a page's
        HTML, which the page readers pass inside a tuple of the job's own arguments: looked for one level down)
        written into the shared memory and replaced by its marker; ``args`` as they are when nothing goes that way."""
        if not self._usable:
            return args
        for index, value in enumerate(args):
            replaced: SharedBytes | tuple[Any, ...] | None
            if isinstance(value, (bytes, str)) and len(value) >= MIN_SHARED:
                replaced = self._write(value, conn, pid)
                if replaced is None:  # the memory cannot be shared: everything through the pipe
                    return args
            elif nested and type(value) is tuple:
                replaced = self.pack(value, conn, pid, nested=False)
                if replaced is value:
                    continue
            else:
                continue
            return (*args[:index], replaced, *args[index + 1:])
        return args

    def after_job(self) -> None:
        """Shrink the memory file back to :data:`KEPT` after a job that grew it past that."""
        if self._map is not None and len(self._map) > KEPT:
            self._resize(KEPT)

    def _write(self, value: bytes | str, conn: Any, pid: int | None) -> SharedBytes | None:
        text = isinstance(value, str)
        if isinstance(value, str):
            value = value.encode("utf-8", "surrogatepass")  # as pickle writes a str: any str goes, and comes back
        try:
            if self._map is None:
                self._attach(conn, pid, max(KEPT, _whole_mib(len(value))))
            elif len(value) > len(self._map):
                self._resize(_whole_mib(len(value)))
        except OSError as exc:  # no memory file here, or the socket refuses descriptors: the pipe then
            log.debug("worker arguments go through the pipe: %s", exc)
            self.close()
            self._usable = False
            return None
        assert self._map is not None
        self._map[:len(value)] = value
        return SharedBytes(len(value), len(self._map), text)

    def _attach(self, conn: Any, pid: int | None, capacity: int) -> None:
        self._fd = os.memfd_create("pubfetch-worker-args", os.MFD_CLOEXEC)
        self._resize(capacity)
        conn.send(ATTACH)
        reduction.send_handle(conn, self._fd, pid)

    def _resize(self, capacity: int) -> None:
        """The memory file at ``capacity`` bytes, mapped anew (the worker maps it anew by the marker's capacity)."""
        if self._map is not None:
            self._map.close()
        os.ftruncate(self._fd, capacity)
        self._map = mmap.mmap(self._fd, capacity)


def _whole_mib(size: int) -> int:
    return -(-size // _MIB) * _MIB


class WorkerMapping(_MemoryFile):
    """The worker's side: the memory file's descriptor, once received, and its mapping at the size the last job
    gave."""

    def receive(self, conn: Any) -> None:
        """Take the descriptor that follows an :data:`ATTACH` job on the socket."""
        self.close()
        self._fd = reduction.recv_handle(conn)

    def unpack(self, args: tuple[Any, ...], nested: bool = True) -> tuple[Any, ...]:
        """``args`` with their marker (one level down in a tuple too) replaced by the bytes or text it stands for."""
        for index, value in enumerate(args):
            if isinstance(value, SharedBytes):
                return (*args[:index], self._read(value), *args[index + 1:])
            if nested and type(value) is tuple:
                inner = self.unpack(value, nested=False)
                if inner is not value:
                    return (*args[:index], inner, *args[index + 1:])
        return args

    def _read(self, marker: SharedBytes) -> bytes | str:
        if self._fd < 0:
            raise OSError("shared arguments without shared memory")
        if self._map is None or len(self._map) != marker.capacity:
            if self._map is not None:
                self._map.close()
                self._map = None
            self._map = mmap.mmap(self._fd, marker.capacity, access=mmap.ACCESS_READ)
        data = self._map[:marker.size]
        return data.decode("utf-8", "surrogatepass") if marker.text else data
