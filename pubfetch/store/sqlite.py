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

import fcntl
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from pubfetch._version import __version__
from pubfetch.store import schema
from pubfetch.store.base import StoreError
from pubfetch.store.saved import SavedSearches
from pubfetch.store.sql import T, Tx

log = logging.getLogger(__name__)

#: The database files (device, inode) each thread of this process holds a fetching run on, with how many runs hold each.
_HELD: dict[tuple[int, int, int], int] = {}
_HELD_LOCK = threading.Lock()

#: Descriptors of database files this process opened itself (for a run's ``flock``, to read a file's header), idle ones
#: by (device, inode) for the next use. They are not closed while a store of this process has the file open: closing
#: any descriptor of a file releases every POSIX lock the process holds on it, SQLite's included, whatever descriptor
#: took them; the store's connections would then hold none, and another process closing its last connection would
#: take the database as unused and delete the -wal and -shm files they still use (their next transaction: "file is not
#: a database", "disk I/O error"). The last store of the file to close closes them, its connections closed first.
_IDLE_FDS: dict[tuple[int, int], list[int]] = {}
_OPEN_STORES: dict[tuple[int, int], int] = {}
_FDS_LOCK = threading.Lock()


def _inode(file: os.stat_result) -> tuple[int, int]:
    """A file's (device, inode): what names it whatever path leads to it."""
    return file.st_dev, file.st_ino


def _borrow_fd(path: str) -> tuple[tuple[int, int], int]:
    """A read-only descriptor of the file (an idle one of this process's, else a new one) and its (device, inode)."""
    key = _inode(os.stat(path))
    with _FDS_LOCK:
        idle = _IDLE_FDS.get(key)
        if idle:
            return key, idle.pop()
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    return _inode(os.fstat(fd)), fd


def _give_back(key: tuple[int, int], fd: int) -> None:
    """A descriptor of :func:`_borrow_fd` kept for the next use while a store of the file is open, else closed (no
    connection of this process to the file has a lock to lose)."""
    with _FDS_LOCK:
        if _OPEN_STORES.get(key):
            _IDLE_FDS.setdefault(key, []).append(fd)
            return
    os.close(fd)


def _file_key(path: str) -> tuple[int, int] | None:
    try:
        return _inode(os.stat(path))
    except OSError:
        return None


def _store_opened(key: tuple[int, int] | None) -> None:
    if key is not None:
        with _FDS_LOCK:
            _OPEN_STORES[key] = _OPEN_STORES.get(key, 0) + 1


def _store_closed(key: tuple[int, int] | None) -> None:
    """A store of the file closed (its connections first): the last one closes the kept descriptors."""
    if key is None:
        return
    with _FDS_LOCK:
        left = _OPEN_STORES.get(key, 1) - 1
        if left > 0:
            _OPEN_STORES[key] = left
            return
        _OPEN_STORES.pop(key, None)
        idle = _IDLE_FDS.pop(key, [])
    for fd in idle:
        os.close(fd)

BUSY_TIMEOUT_S = 60.0
#: the page cache of a bulk import's connection, in KiB: a chunk of 2,000 records of the corpus's shapes is about 16 MB
BULK_CACHE_KIB = 32_768
SQLITE_HEADER = b"SQLite format 3\x00"


class SqliteStore(SavedSearches):
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
        #: a read-only store found no -wal/-shm beside the file: the ones its reading makes are removed on close
        self._tidy_on_close = readonly and not any(os.path.lexists(self.path + s) for s in _WAL_FILES)
        #: the file as this process's stores count it (:func:`_give_back`), until the store closes
        self._file_key = _file_key(self.path)
        _store_opened(self._file_key)

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
        except OSError as e:
            raise StoreError(f"cannot create database file '{p}': {why_not_created(p, e)}") from None
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

    def close(self) -> None:
        """Close the connections; a read-only store also leaves the directory as it found it. Reading a WAL database
        makes -wal and -shm files that only a writable connection removes (when it is the last one to close), so one
        is opened and closed for that; it writes nothing, and where it cannot open (a read-only file or mount) the
        files stay."""
        super().close()
        try:
            self._tidy()
        finally:
            key, self._file_key = self._file_key, None
            _store_closed(key)

    def _tidy(self) -> None:
        if not self._tidy_on_close:
            return
        self._tidy_on_close = False
        with suppress(sqlite3.Error, OSError):
            if os.access(self.path, os.W_OK) and os.access(os.path.dirname(os.path.abspath(self.path)), os.W_OK):
                conn = sqlite3.connect(self.path, timeout=0, isolation_level=None)
                try:
                    conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
                finally:
                    conn.close()

    @contextmanager
    def fetch_run(self, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
        """One fetching run at a time on this file (see :meth:`Store.fetch_run`): an exclusive ``flock`` on the
        database file itself, so nothing new is created beside it and a killed run's lock goes with its process.
        ``flock`` locks are apart from the POSIX locks SQLite takes on the same file (on local file systems; over
        NFS, where they are the same, SQLite's own advice is not to share a database at all). The descriptor is one
        this process keeps open (:func:`_borrow_fd`): closing it would release SQLite's locks too."""
        file_key, fd = _borrow_fd(self.path)
        key = (*file_key, threading.get_ident())
        locked = False
        try:
            with _HELD_LOCK:
                nested = key in _HELD
                _HELD[key] = _HELD.get(key, 0) + 1
            try:
                # a run inside another run of this thread (a fetch() while iterating a fetch_many on the same file)
                # goes on under the outer one's lock: waiting for it would wait for ever; another thread waits
                if not nested:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        if on_wait is not None:
                            on_wait()
                        fcntl.flock(fd, fcntl.LOCK_EX)
                    locked = True
                yield
            finally:
                with _HELD_LOCK:
                    _HELD[key] -= 1
                    if not _HELD[key]:
                        del _HELD[key]
        finally:
            if locked:
                fcntl.flock(fd, fcntl.LOCK_UN)
            _give_back(file_key, fd)

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
            return StoreError(_directory_problem(self.path) or f"database file '{self.path}' cannot be written: {msg}")
        return StoreError(f"database file '{self.path}': {msg}")

    def tune_for_bulk(self) -> None:
        """A page cache a bulk import's chunk fits in: with SQLite's default (2 MB) a transaction of thousands of
        entries spills its pages to the log before the commit, and the ID map's and the tables' pages it touches
        again go there more than once (docs/bulk.md, "Speed and memory")."""
        try:
            self._conn().execute(f"PRAGMA cache_size = -{BULK_CACHE_KIB}")
        except sqlite3.Error as e:
            raise self._error(e) from None

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


#: What SQLite keeps beside a database in WAL mode while it is open.
_WAL_FILES = ("-wal", "-shm")

#: File systems that hold no ordinary files: creating one there fails with a misleading "No such file or directory".
_VIRTUAL_FILE_SYSTEMS = frozenset({"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs",
                                   "securityfs", "pstore", "bpf", "configfs", "fusectl", "mqueue", "hugetlbfs"})


def why_not_created(path: str, error: OSError) -> str:
    """Why a new file could not be created at ``path``, in words that point at the fix (``error``: what the system
    said): a missing directory, one that is not writable, one on a virtual file system such as /proc, a full disk."""
    problem = creation_problem(path)
    if problem is not None:
        return problem
    if isinstance(error, PermissionError):
        return f"directory '{os.path.dirname(os.path.abspath(path))}' is not writable (check its permissions)"
    return f"{error.strerror or error} in directory '{os.path.dirname(os.path.abspath(path))}'"


def creation_problem(path: str) -> str | None:
    """Why a new file could not be created at ``path``, told without trying (``None``: nothing stands in the way)."""
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"directory '{parent}' does not exist"
    fs = _file_system_type(parent)
    if fs in _VIRTUAL_FILE_SYSTEMS:
        return f"directory '{parent}' is on the virtual '{fs}' file system, which holds no ordinary files; choose " \
               "another directory"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"directory '{parent}' is not writable (check its permissions)"
    return None


def _file_system_type(directory: str) -> str | None:
    """The type of the file system ``directory`` is on, from /proc/self/mounts (``None`` where that cannot be read)."""
    real = os.path.realpath(directory)
    best, kind = "", None
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as mounts:
            for line in mounts:
                fields = line.split()
                if len(fields) < 3:
                    continue
                point = fields[1].replace("\\040", " ")
                inside = real == point or real.startswith(point.rstrip("/") + "/")
                if inside and len(point) >= len(best):
                    best, kind = point, fields[2]
    except OSError:
        return None
    return kind


def _directory_problem(p: str) -> str | None:
    """Why a database cannot be written for its directory: SQLite creates its write-ahead log and shared-memory files
    (``-wal``, ``-shm``) beside it, and says only "attempt to write a readonly database" when it cannot."""
    directory = os.path.dirname(os.path.abspath(p))
    if os.access(directory, os.W_OK | os.X_OK) or all(os.path.exists(p + s) for s in _WAL_FILES):
        return None
    return (f"database file '{p}' cannot be written: its directory '{directory}' is not writable, and SQLite keeps "
            "its -wal and -shm files beside the database; make the directory writable, or copy the database to a "
            "writable directory (opened read-only, as -db opens it, it is read where it is)")



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
    if not readonly and (problem := _directory_problem(p)) is not None:  # said before SQLite fails on it
        raise StoreError(problem)
    try:  # through a descriptor kept open: this process may have the file open in SQLite already (_borrow_fd)
        key, fd = _borrow_fd(p)
        try:
            header = os.pread(fd, len(SQLITE_HEADER), 0)
        finally:
            _give_back(key, fd)
    except OSError as e:
        raise StoreError(f"database file '{p}' cannot be read: {e.strerror}") from None
    if not header:
        raise StoreError(f"database file '{p}' is empty, not a pubfetch database "
                         "(remove it and create it with -db-init)")
    if header != SQLITE_HEADER:
        raise StoreError(f"database file '{p}' is not an SQLite database (a PubFetcher MapDB file or some other kind "
                         "of file?); pubfetch databases are created with -db-init")
