"""A list of JSON documents kept in a temporary SQLite file instead of memory.

The end-of-run retry list grows with what fails: when a service fails throughout a run of 200,000 IDs, every
publication waits for the retry. Held in memory (publications with their full texts) it grew by megabytes per thousand
IDs; here each waiting entry is a row on disk, read back in order a chunk at a time, so memory stays flat whatever
fails. The file is deleted when the list is closed.

A full (or unwritable) temporary directory must not end the run: the entries that cannot be written are kept in
memory from then on, with one warning, and read back merged with those on disk. The file keeps a rollback journal in
memory, so a write that fails is undone cleanly (with no journal at all, a failed write left a file SQLite calls
malformed). A killed run cannot delete its file; its name holds the host and process, and the next list made on the
same host removes the files of processes that are gone.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import logging
import os
import socket
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, Self

__all__ = ["SpillList"]

log = logging.getLogger(__name__)

PREFIX: Final = "pubfetch-retry-"
SUFFIX: Final = ".db"

#: (k1, k2, seq, document as JSON): the order the documents are read back in
Entry = tuple[int, int, int, str]


class SpillList:
    """Documents appended with a sort key, read back by key order in chunks (each document once).

    All documents are appended before reading starts (the end-of-run retry appends during the run and reads after).
    """

    def __init__(self, directory: str | None = None) -> None:
        self._directory = directory
        self._db: sqlite3.Connection | None = None
        self._path: str | None = None
        self._count = 0
        self._seq = 0
        #: entries that could not be written to the file (a full disk), as a heap
        self._memory: list[Entry] = []
        self._disk_failed = False

    def __len__(self) -> int:
        return self._count

    def _open(self) -> sqlite3.Connection:
        """The file is made on the first append: most runs never need one."""
        if self._db is None:
            directory = self._directory or tempfile.gettempdir()
            sweep_stale(directory)
            handle, self._path = tempfile.mkstemp(prefix=f"{PREFIX}{_owner()}-", suffix=SUFFIX, dir=directory)
            os.close(handle)
            # one writer thread at a time (the caller holds its lock); the file is private and temporary
            self._db = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=MEMORY")
            self._db.execute("PRAGMA synchronous=OFF")
            self._db.execute("CREATE TABLE entries (seq INTEGER PRIMARY KEY, k1 INTEGER, k2 INTEGER, doc TEXT)")
            self._db.execute("CREATE INDEX entries_order ON entries (k1, k2, seq)")
        return self._db

    def append(self, key: tuple[int, int], doc: Any) -> None:
        """Add a document (anything ``json.dumps`` takes) to be read back in order of ``key``."""
        self._seq += 1
        entry: Entry = (key[0], key[1], self._seq, json.dumps(doc, separators=(",", ":")))
        if not self._disk_failed:
            try:
                self._open().execute("INSERT INTO entries (seq, k1, k2, doc) VALUES (?, ?, ?, ?)",
                                     (entry[2], entry[0], entry[1], entry[3]))
                self._count += 1
                return
            except (sqlite3.Error, OSError) as e:
                self._disk_failed = True
                where = self._directory or tempfile.gettempdir()
                log.warning("the end-of-run retry list cannot grow on disk in %s (%s); the rest of it is kept in "
                            "memory: free space there or set TMPDIR to a roomier directory", where, e)
        heapq.heappush(self._memory, entry)
        self._count += 1

    def chunks(self, size: int) -> Iterator[list[Any]]:
        """The documents in key order (then in order of appending), ``size`` at a time, each handed out once."""
        disk = self._disk_entries(size)
        nxt = next(disk, None)
        while self._count > 0:
            chunk: list[Any] = []
            while len(chunk) < size:
                if nxt is not None and (not self._memory or nxt < self._memory[0]):
                    chunk.append(json.loads(nxt[3]))
                    nxt = next(disk, None)
                elif self._memory:
                    chunk.append(json.loads(heapq.heappop(self._memory)[3]))
                else:
                    break
            if not chunk:
                return
            self._count -= len(chunk)
            yield chunk

    def _disk_entries(self, size: int) -> Iterator[Entry]:
        """The file's entries in order, read ``size`` at a time after the last one read (no writes while reading:
        a full disk cannot fail the read)."""
        if self._db is None:
            return
        db = self._db
        after: tuple[int, int, int] | None = None
        while True:
            if after is None:
                rows = db.execute("SELECT k1, k2, seq, doc FROM entries ORDER BY k1, k2, seq LIMIT ?",
                                  (size,)).fetchall()
            else:
                rows = db.execute("SELECT k1, k2, seq, doc FROM entries WHERE (k1, k2, seq) > (?, ?, ?) "
                                  "ORDER BY k1, k2, seq LIMIT ?", (*after, size)).fetchall()
            if not rows:
                return
            yield from rows
            after = rows[-1][:3]

    def close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            db.close()
        if self._path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._path)
            self._path = None
        self._memory = []
        self._count = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _owner(pid: int | None = None) -> str:
    """``<host>.<pid>``: whose file it is (the host's name made safe for a file name)."""
    host = "".join(c if c.isalnum() or c == "-" else "_" for c in socket.gethostname())[:64] or "host"
    return f"{host}.{pid if pid is not None else os.getpid()}"


def sweep_stale(directory: str) -> int:
    """Remove the retry-list files of this host's processes that are gone (killed runs); returns how many."""
    own_host = _owner().rsplit(".", 1)[0]
    removed = 0
    try:
        names = [p for p in Path(directory).iterdir() if p.name.startswith(PREFIX) and p.name.endswith(SUFFIX)]
    except OSError:
        return 0
    for path in names:
        owner = path.name[len(PREFIX):].rsplit("-", 1)[0]
        host, _, pid_text = owner.rpartition(".")
        if host != own_host or not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            removed += 1
    if removed:
        log.info("removed %d retry-list files of ended runs from %s", removed, directory)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True
