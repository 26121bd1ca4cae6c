"""SQLite, the embedded default store: one file that several threads and processes can use at once.

Why it is safe to share and to kill:
- WAL journal, so readers never block the one writer, and a ``busy_timeout`` so writers from other processes wait their
  turn instead of failing;
- every put/remove is one ``BEGIN IMMEDIATE`` transaction (the write lock is taken before the ID map is read, so the
  read-merge-write of ``put_publication`` cannot interleave with another process); a process killed mid-put leaves an
  uncommitted WAL tail that SQLite discards, never half an entry;
- one connection per thread, because a sqlite3 connection must not be used by two threads at the same time.

The ID-map rules are PubFetcher's Database.putPublication/removePublication (spec section 10), with one hardening:
removing a publication drops every ID that maps to it, not only the IDs its stored JSON still carries, so the map never
points at a publication that is gone.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from pubfetch import __version__
from pubfetch import ids as idmod
from pubfetch.ids import PublicationIds
from pubfetch.model import Publication, Webpage
from pubfetch.store import schema
from pubfetch.store.base import Store, StoreError
from pubfetch.store.rows import decode_entry

log = logging.getLogger(__name__)

BUSY_TIMEOUT_S = 60.0
SQLITE_HEADER = b"SQLite format 3\x00"

_ID_COLUMNS = "pmid, pmcid, doi, pmid_url, pmcid_url, doi_url"


def _dumps(d: dict[str, Any]) -> str:
    # ensure_ascii=False keeps the file readable with sqlite3; compact separators keep large full texts small
    return json.dumps(d, ensure_ascii=False, separators=(",", ":"))


def _lookup_key(publication_id: str) -> str:
    """The form an ID is stored under: trimmed, and DOIs normalised as PublicationIds does (so 10.1093/nar matches)."""
    v = publication_id.strip()
    return idmod.normalise_doi(v) if idmod.is_doi(v) else v


def _check_kind(kind: str) -> str:
    if kind not in schema.PAGE_TABLES:
        raise ValueError(f"unknown page kind '{kind}' (expected one of {', '.join(schema.PAGE_TABLES)})")
    return kind


class SqliteStore(Store):
    """A pubfetch database in one SQLite file: create with :meth:`init`, open with :meth:`open`."""

    def __init__(self, path: str | os.PathLike[str], readonly: bool = False) -> None:
        """Use :meth:`open`; the constructor only records the settings, it does not check the file."""
        self.path = str(path)
        self.readonly = readonly
        self._local = threading.local()
        self._lock = threading.Lock()
        self._conns: list[sqlite3.Connection] = []
        self._closed = False

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
            if not self.readonly:
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"database file '{self.path}' cannot be opened: {e}") from None
        return conn

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection, made on first use (check_same_thread=False only so close() can close them all)."""
        if self._closed:
            raise StoreError(f"database '{self.path}' is already closed")
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
            with self._lock:
                self._conns.append(conn)
        return conn

    def _error(self, e: sqlite3.Error) -> StoreError:
        msg = str(e)
        if "locked" in msg or "busy" in msg:
            return StoreError(f"database file '{self.path}' stayed locked by another process for more than "
                              f"{BUSY_TIMEOUT_S:.0f} s")
        if "readonly" in msg:
            return StoreError(f"database file '{self.path}' cannot be written: {msg}")
        return StoreError(f"database file '{self.path}': {msg}")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it is committed, or (on an exception or a kill) none of it."""
        if self.readonly:
            raise StoreError(f"database file '{self.path}' is open read-only")
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise self._error(e) from None
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise self._error(exc) from None
            raise

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        """One statement, so one snapshot: readers see only committed entries."""
        try:
            return self._conn().execute(sql, params).fetchall()
        except sqlite3.Error as e:
            raise self._error(e) from None

    # --- publications: ID map helpers (all run inside the caller's transaction) ---------------------------------------

    @staticmethod
    def _primary_of(conn: sqlite3.Connection, any_id: str) -> str | None:
        row = conn.execute("SELECT primary_id FROM publication_ids WHERE id = ?", (any_id,)).fetchone()
        return row[0] if row else None

    @staticmethod
    def _reverse(conn: sqlite3.Connection, primary: str) -> tuple[str, ...] | None:
        return conn.execute(f"SELECT {_ID_COLUMNS} FROM publications WHERE primary_id = ?", (primary,)).fetchone()

    @staticmethod
    def _remove_primary(conn: sqlite3.Connection, primary: str) -> bool:
        conn.execute("DELETE FROM publication_ids WHERE primary_id = ?", (primary,))
        return conn.execute("DELETE FROM publications WHERE primary_id = ?", (primary,)).rowcount > 0

    def _remove_by_id(self, conn: sqlite3.Connection, any_id: str) -> bool:
        primary = self._primary_of(conn, any_id)
        if primary is None:
            return False
        removed = self._remove_primary(conn, primary)
        if not removed:
            log.error("can't find publication with primary ID %s for removal from database", primary)
        return removed

    def _remove_old_ids(self, conn: sqlite3.Connection, primary: str, new: tuple[str, str, str]) -> bool:
        """Drop IDs of the entry at ``primary`` that the new publication contradicts; True if the whole entry went.

        An entry whose primary ID itself is contradicted (its PMID changed, say) is removed entirely: it was another
        paper.
        """
        old = self._reverse(conn, primary)
        if old is None:
            log.error("missing publication IDs for primary ID %s in database", primary)
            return False
        primary_removed = False
        for new_id, old_id in zip(new, old[:3], strict=True):
            if not new_id or not old_id or new_id == old_id:
                continue
            if not primary_removed and old_id == primary:
                log.warning("removing old primary ID %s (overridden by %s) and its publication from database", primary,
                            new_id)
                self._remove_primary(conn, primary)
                primary_removed = True
            else:
                log.warning("removing old ID %s (overridden by %s) from database", old_id, new_id)
                conn.execute("DELETE FROM publication_ids WHERE id = ? AND primary_id = ?", (old_id, primary))
        return primary_removed

    def _supersede(self, conn: sqlite3.Connection, any_id: str, kept: str, pub: Publication) -> None:
        log.warning("removing entry with ID %s, equivalent to %s, merged by %s", any_id, kept, pub.ids)
        self._remove_by_id(conn, any_id)

    # --- publications -------------------------------------------------------------------------------------------------

    def put_publication(self, pub: Publication) -> bool:
        if pub is None:
            log.error("not putting null publication to database")
            return False
        if pub.id_count() < 1:
            log.error("not putting publication with no IDs to database")
            return False
        doc = _dumps(pub.to_json(computed=False))  # serialise before taking the write lock
        # keys as lookups normalise them; a DOI set by the fetcher is normalised already, one loaded from elsewhere may
        # not be
        pmid, pmcid, doi = (_lookup_key(p.content) for p in (pub.pmid, pub.pmcid, pub.doi))
        new = (pmid, pmcid, doi)
        with self._write() as conn:
            pmid_primary = None
            if pmid:
                pmid_primary = self._primary_of(conn, pmid)
                if pmid_primary is not None and self._remove_old_ids(conn, pmid_primary, new):
                    pmid_primary = None
            pmcid_primary = None
            if pmcid:
                pmcid_primary = self._primary_of(conn, pmcid)
                if pmcid_primary is not None:
                    if pmid_primary is not None and pmid_primary != pmcid_primary:
                        self._supersede(conn, pmcid, pmid_primary, pub)
                        pmcid_primary = None
                    elif pmid_primary is None and self._remove_old_ids(conn, pmcid_primary, new):
                        pmcid_primary = None
            doi_primary = None
            if doi:
                doi_primary = self._primary_of(conn, doi)
                if doi_primary is not None:
                    kept = pmid_primary if pmid_primary is not None else pmcid_primary
                    if kept is not None and kept != doi_primary:
                        self._supersede(conn, doi, kept, pub)
                        doi_primary = None
                    elif kept is None and self._remove_old_ids(conn, doi_primary, new):
                        doi_primary = None

            primary = next((p for p in (pmid_primary, pmcid_primary, doi_primary) if p is not None), None)
            urls = (pub.pmid.url, pub.pmcid.url, pub.doi.url)
            merged: tuple[str, ...] | None = None
            if primary is not None:
                old = self._reverse(conn, primary)
                if old is not None:
                    merged = tuple(n or o for n, o in zip(new + urls, old, strict=True))
                else:
                    log.error("missing publication IDs for ID %s in database", primary)
            else:
                primary = pmid or pmcid or doi
            if merged is None:
                merged = new + urls
            for any_id in new:
                if any_id:
                    conn.execute("INSERT INTO publication_ids (id, primary_id) VALUES (?, ?) "
                                 "ON CONFLICT (id) DO UPDATE SET primary_id = excluded.primary_id", (any_id, primary))
            conn.execute(f"INSERT INTO publications (primary_id, {_ID_COLUMNS}, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                         "ON CONFLICT (primary_id) DO UPDATE SET pmid = excluded.pmid, pmcid = excluded.pmcid, "
                         "doi = excluded.doi, pmid_url = excluded.pmid_url, pmcid_url = excluded.pmcid_url, "
                         "doi_url = excluded.doi_url, json = excluded.json", (primary, *merged, doc))
        return True

    def _get_one(self, any_id: str) -> Publication | None:
        rows = self._read("SELECT m.primary_id, p.json FROM publication_ids m "
                          "LEFT JOIN publications p ON p.primary_id = m.primary_id WHERE m.id = ?", (any_id,))
        if not rows:
            return None
        primary, doc = rows[0]
        if doc is None:
            log.error("no publication found for primary ID %s in database", primary)
            return None
        return decode_entry(Publication.from_json, _template("publication"), doc, f"publication {primary}")

    def get_publication(self, ids: PublicationIds | str) -> Publication | None:
        if isinstance(ids, str):
            return self._get_one(_lookup_key(ids))
        if ids.is_empty():
            log.error("empty IDs given for getting publication from database")
            return None
        for query in ids.ids:
            if not query:
                continue
            pub = self._get_one(query)
            if pub is not None:
                for given, present in zip(ids.ids, pub.ids.ids, strict=True):
                    if given and present and given != present:
                        log.warning("mismatch between ID given (%s) and ID present (%s) in publication got using ID %s",
                                    given, present, query)
                return pub
        log.debug("no publication found for IDs %s in database", ids)
        return None

    def remove_publication(self, ids: PublicationIds | Publication | str) -> bool:
        if isinstance(ids, Publication):
            ids = ids.ids
        keys = [_lookup_key(ids)] if isinstance(ids, str) else ids.non_empty()
        if not keys:
            log.error("empty IDs given for publication removal from database")
            return False
        removed = False
        with self._write() as conn:
            for key in keys:
                removed = self._remove_by_id(conn, key) or removed
        return removed

    def contains_publication(self, ids: PublicationIds | str) -> bool:
        keys = [_lookup_key(ids)] if isinstance(ids, str) else ids.non_empty()
        if not keys or not keys[0]:
            log.error("empty publication IDs given for availability checking in database")
            return False
        marks = ", ".join("?" * len(keys))
        rows = self._read(f"SELECT COUNT(*) FROM publication_ids WHERE id IN ({marks})", tuple(keys))
        return rows[0][0] == len(set(keys))

    def publication_ids(self) -> Iterator[PublicationIds]:
        rows = self._read(f"SELECT {_ID_COLUMNS} FROM publications ORDER BY seq")
        return iter([PublicationIds(*row) for row in rows])

    def publications_size(self) -> int:
        return int(self._read("SELECT COUNT(*) FROM publications")[0][0])

    def publications_map(self) -> Iterator[tuple[str, str]]:
        return iter([(r[0], r[1]) for r in self._read("SELECT id, primary_id FROM publication_ids ORDER BY seq")])

    def publications_map_reverse(self) -> Iterator[tuple[str, PublicationIds]]:
        rows = self._read(f"SELECT primary_id, {_ID_COLUMNS} FROM publications ORDER BY seq")
        return iter([(row[0], PublicationIds(*row[1:])) for row in rows])

    # --- webpages and docs --------------------------------------------------------------------------------------------

    def put_page(self, kind: str, page: Webpage) -> bool:
        table = _check_kind(kind)
        if page is None or not page.start_url:
            log.error("not putting %s with no start URL to database", table[:-1])
            return False
        doc = _dumps(page.to_json(computed=False))
        with self._write() as conn:
            conn.execute(f"INSERT INTO {table} (url, json) VALUES (?, ?) "
                         "ON CONFLICT (url) DO UPDATE SET json = excluded.json", (page.start_url, doc))
        return True

    def get_page(self, kind: str, url: str) -> Webpage | None:
        rows = self._read(f"SELECT json FROM {_check_kind(kind)} WHERE url = ?", (url,))
        if not rows:
            return None
        return decode_entry(Webpage.from_json, _template("webpage"), rows[0][0], f"{kind[:-1]} {url}")

    def remove_page(self, kind: str, url: str) -> bool:
        table = _check_kind(kind)
        with self._write() as conn:
            removed = conn.execute(f"DELETE FROM {table} WHERE url = ?", (url,)).rowcount > 0
        if not removed:
            log.warning("can't find %s with start URL %s for removal from database", table[:-1], url)
        return removed

    def contains_page(self, kind: str, url: str) -> bool:
        return bool(self._read(f"SELECT 1 FROM {_check_kind(kind)} WHERE url = ?", (url,)))

    def page_urls(self, kind: str) -> Iterator[str]:
        return iter([r[0] for r in self._read(f"SELECT url FROM {_check_kind(kind)} ORDER BY seq")])

    def pages_size(self, kind: str) -> int:
        return int(self._read(f"SELECT COUNT(*) FROM {_check_kind(kind)}")[0][0])

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
        if self.readonly:
            raise StoreError(f"database file '{self.path}' is open read-only")
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

    def close(self) -> None:
        with self._lock:
            conns, self._conns = self._conns, []
            self._closed = True
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error as e:
                log.warning("closing database %s: %s", self.path, e)

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r}{', readonly=True' if self.readonly else ''})"


@functools.cache
def _template(kind: str) -> dict[str, Any]:
    """The JSON shape of a fresh entry of a kind, the yardstick of :func:`~pubfetch.store.rows.decode_entry`."""
    return Publication().to_json(computed=False) if kind == "publication" else Webpage().to_json(computed=False)


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
