"""SQLite, the embedded default store: one file that several threads and processes can use at once.

Why it is safe to share and to kill:
- WAL journal, so readers never block the one writer, and a ``busy_timeout`` so writers from other processes wait their
  turn instead of failing;
- every put/remove is one ``BEGIN IMMEDIATE`` transaction (the write lock is taken before the ID map is read, so the
  read-merge-write of ``put_publication`` cannot interleave with another process); a process killed mid-put leaves an
  uncommitted WAL tail that SQLite discards, never half an entry;
- one connection per thread, because a sqlite3 connection must not be used by two threads at the same time.

The ID-map rules and the queries are shared with PostgreSQL in :mod:`pubfetch.store.sql`.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

from pubfetch._version import __version__
from pubfetch.store import schema
from pubfetch.store.base import StoreError
from pubfetch.store.sql import SqlStore, T, Tx

log = logging.getLogger(__name__)

BUSY_TIMEOUT_S = 60.0
SQLITE_HEADER = b"SQLite format 3\x00"


class SqliteStore(SqlStore):
    """A pubfetch database in one SQLite file: create with :meth:`init`, open with :meth:`open`."""

    DB_ERRORS = (sqlite3.Error,)

    def __init__(self, path: str | os.PathLike[str], readonly: bool = False) -> None:
        """Use :meth:`open`; the constructor only records the settings, it does not check the file."""
        super().__init__(str(path), readonly)
        self.path = str(path)
        self.label = f"database file '{self.path}'"
        #: the write-ahead log is a property of the file: once a connection of this store has switched it on, the
        #: connections of later threads need not ask again
        self._wal_on = False

    # --- creating and opening -----------------------------------------------------------------------------------------

    @classmethod
    def init(cls, path: str | os.PathLike[str]) -> SqliteStore:
        """Create a new, empty database; an existing file is never touched (it may be someone's only copy)."""
        p = str(path)
        if os.path.lexists(p):
            raise StoreError(f"database file '{p}' already exists; remove it or use another name")
        try:
            os.close(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        except FileExistsError:
            raise StoreError(f"database file '{p}' already exists; remove it or use another name") from None
        except FileNotFoundError:
            parent = os.path.dirname(p) or "."
            raise StoreError(f"cannot create database file '{p}': directory '{parent}' does not exist") from None
        except OSError as e:
            raise StoreError(f"cannot create database file '{p}': {e.strerror}") from None
        try:
            conn = sqlite3.connect(p, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("BEGIN IMMEDIATE")
                schema.create_current(conn, __version__)
                conn.execute("COMMIT")
            finally:
                conn.close()
        except sqlite3.Error as e:
            for suffix in ("", "-wal", "-shm"):
                with suppress(OSError):
                    os.remove(p + suffix)
            raise StoreError(f"cannot create database file '{p}': {e}") from None
        return cls.open(p)

    @classmethod
    def open(cls, path: str | os.PathLike[str], readonly: bool = False) -> SqliteStore:
        """Open an existing pubfetch database, refusing anything else with a message that says what the file is."""
        p = str(path)
        _check_file(p, readonly)
        store = cls(p, readonly)
        conn = store._conn()
        try:
            meta = schema.read_meta(conn)
        except sqlite3.DatabaseError as e:
            store.close()
            raise StoreError(f"database file '{p}' is not a usable SQLite database: {e}") from None
        try:
            store._check_meta(meta)
        except BaseException:
            store.close()
            raise
        return store

    def _check_meta(self, meta: dict[str, str] | None) -> None:
        p = self.path
        if meta is None or meta.get("created_by") != schema.CREATED_BY:
            raise StoreError(f"database file '{p}' is an SQLite database of another program, not a pubfetch database "
                             f"(it has no pubfetch '{schema.META_TABLE}' table)")
        try:
            version = int(meta.get("schema_version", ""))
        except ValueError:
            raise StoreError(f"database file '{p}' has an unreadable schema version "
                             f"'{meta.get('schema_version')}'") from None
        if version < 0:
            raise StoreError(f"database file '{p}' has an impossible schema version {version}; it is damaged or was "
                             "not written by pubfetch")
        if version > schema.SCHEMA_VERSION:
            raise StoreError(f"database file '{p}' has schema version {version}, newer than this pubfetch supports "
                             f"({schema.SCHEMA_VERSION}); upgrade pubfetch to use it")
        if version < schema.SCHEMA_VERSION:
            if self.readonly:
                raise StoreError(f"database file '{p}' has old schema version {version} (current is "
                                 f"{schema.SCHEMA_VERSION}); open it once without read-only to upgrade it")
            self._upgrade()

    def _upgrade(self) -> None:
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                # re-read under the write lock: another process may have upgraded the file meanwhile
                row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                version = int(row[0])
                if version < schema.SCHEMA_VERSION:
                    log.info("upgrading database %s from schema version %d to %d", self.path, version,
                             schema.SCHEMA_VERSION)
                    schema.migrate(conn, version)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except sqlite3.Error as e:
            raise StoreError(f"cannot upgrade database file '{self.path}': {e}") from None

    # --- connections and transactions ---------------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if not self.readonly:
            return self._connect_to(self.path, uri=False)
        target = Path(self.path).resolve().as_uri() + "?mode=ro"
        try:
            return self._connect_to(target, uri=True)
        except StoreError:
            # A WAL database read-only still needs its -shm file, which cannot be created on a read-only mount (or
            # in a directory that is not writable); nothing can change such a file, so it can be read as immutable.
            log.info("reading database %s as immutable (its directory is not writable)", self.path)
            return self._connect_to(target + "&immutable=1", uri=True)

    def _connect_to(self, target: str, *, uri: bool) -> sqlite3.Connection:
        try:
            # isolation_level=None: no implicit transactions; writes open their own BEGIN IMMEDIATE
            conn = sqlite3.connect(target, uri=uri, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            if not self.readonly and not self._wal_on:
                conn.execute("PRAGMA journal_mode = WAL")
                self._wal_on = True
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"database file '{self.path}' cannot be opened: {e}") from None
        return conn

    def _execute(self, conn: sqlite3.Connection, sql: str, params: tuple) -> sqlite3.Cursor:
        return conn.execute(sql, params)

    def _error(self, e: Exception) -> StoreError:
        msg = str(e)
        if "locked" in msg or "busy" in msg:
            return StoreError(f"database file '{self.path}' stayed locked by another process for more than "
                              f"{BUSY_TIMEOUT_S:.0f} s")
        if "readonly" in msg:
            return StoreError(f"database file '{self.path}' cannot be written: {msg}")
        return StoreError(f"database file '{self.path}': {msg}")

    def _transact(self, work: Callable[[Tx], T]) -> T:
        """One ``BEGIN IMMEDIATE`` transaction: the write lock is taken before the ID map is read, so the
        read-merge-write of a put cannot interleave with another process."""
        self._check_writable()
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise self._error(e) from None
        try:
            result = work(conn)
            conn.execute("COMMIT")
        except BaseException as exc:
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise self._error(exc) from None
            raise
        return result

    # --- lifecycle ----------------------------------------------------------------------------------------------------

    def commit(self) -> None:
        """Every put is committed when it returns; this folds the WAL back into the main file (PubFetcher's commit)."""
        if self.readonly:
            return
        try:
            self._conn().execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as e:
            raise self._error(e) from None

    def compact(self) -> None:
        """Rewrite the file without free pages and empty the WAL (PubFetcher's compact)."""
        self._check_writable()
        try:
            conn = self._conn()
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except sqlite3.Error as e:
            raise self._error(e) from None

    def integrity_check(self) -> str:
        """SQLite's own check: "ok" for a sound file, else the problems it found."""
        rows = self._read("PRAGMA integrity_check")
        return "\n".join(str(r[0]) for r in rows)

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r}{', readonly=True' if self.readonly else ''})"


def _check_file(p: str, readonly: bool) -> None:
    """Say what is wrong with a path before SQLite gives a vague "file is not a database" (or quietly creates it)."""
    if not os.path.lexists(p):
        raise StoreError(f"database file '{p}' does not exist (create it with -db-init)")
    if os.path.isdir(p):
        raise StoreError(f"database file '{p}' is a directory, not a database file")
    if not os.access(p, os.R_OK):
        raise StoreError(f"database file '{p}' is not readable (check its permissions)")
    if not readonly and not os.access(p, os.W_OK):
        raise StoreError(f"database file '{p}' is not writable (check its permissions, or open it read-only)")
    try:
        with open(p, "rb") as f:
            header = f.read(len(SQLITE_HEADER))
    except OSError as e:
        raise StoreError(f"database file '{p}' cannot be read: {e.strerror}") from None
    if not header:
        raise StoreError(f"database file '{p}' is empty, not a pubfetch database "
                         "(remove it and create it with -db-init)")
    if header != SQLITE_HEADER:
        raise StoreError(f"database file '{p}' is not an SQLite database (a PubFetcher MapDB file or some other kind "
                         "of file?); pubfetch databases are created with -db-init")
