"""A list of JSON documents kept in a temporary SQLite file instead of memory.

The end-of-run retry list grows with what fails: when a service fails throughout a run of 200,000 IDs, every
publication waits for the retry. Held in memory (publications with their full texts) it grew by megabytes per thousand
IDs; here each waiting entry is a row on disk, read back in order a chunk at a time, so memory stays flat whatever
fails. The file is deleted when the list is closed (or by the operating system's temporary directory cleaning when a
run is killed).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from typing import Any, Self

__all__ = ["SpillList"]


class SpillList:
    """Documents appended with a sort key, read back by key order in chunks (each document once)."""

    def __init__(self, directory: str | None = None) -> None:
        self._directory = directory
        self._db: sqlite3.Connection | None = None
        self._path: str | None = None
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def _open(self) -> sqlite3.Connection:
        """The file is made on the first append: most runs never need one."""
        if self._db is None:
            handle, self._path = tempfile.mkstemp(prefix="pubfetch-retry-", suffix=".db", dir=self._directory)
            os.close(handle)
            # one writer thread at a time (the caller holds its lock); the file is private and temporary
            self._db = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=OFF")
            self._db.execute("PRAGMA synchronous=OFF")
            self._db.execute("CREATE TABLE entries (seq INTEGER PRIMARY KEY, k1 INTEGER, k2 INTEGER, doc TEXT)")
            self._db.execute("CREATE INDEX entries_order ON entries (k1, k2, seq)")
        return self._db

    def append(self, key: tuple[int, int], doc: Any) -> None:
        """Add a document (anything ``json.dumps`` takes) to be read back in order of ``key``."""
        self._open().execute("INSERT INTO entries (k1, k2, doc) VALUES (?, ?, ?)",
                             (key[0], key[1], json.dumps(doc, separators=(",", ":"))))
        self._count += 1

    def chunks(self, size: int) -> Iterator[list[Any]]:
        """The documents in key order (then in order of appending), ``size`` at a time, each removed as it is read."""
        if self._db is None:
            return
        db = self._db
        while True:
            rows = db.execute("SELECT seq, doc FROM entries ORDER BY k1, k2, seq LIMIT ?", (size,)).fetchall()
            if not rows:
                return
            db.executemany("DELETE FROM entries WHERE seq = ?", [(seq,) for seq, _ in rows])
            self._count -= len(rows)
            yield [json.loads(doc) for _, doc in rows]

    def close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            db.close()
        if self._path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._path)
            self._path = None
        self._count = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
