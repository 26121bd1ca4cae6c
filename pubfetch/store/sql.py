"""What SQLite and PostgreSQL stores share: the tables' use, PubFetcher's ID-map rules, pages, per-thread connections.

Both engines hold the same tables (publications with their IDs and JSON, publication_ids mapping any ID to a primary
ID, webpages, docs; every table with an insertion-ordered ``seq``) and understand the same SQL, so the rules are written
once here, in the ``?`` placeholder style; a backend supplies connections, transactions and its own opening rules.

The ID-map rules are PubFetcher's Database.putPublication/removePublication (spec section 10), with one hardening:
removing a publication drops every ID that maps to it, not only the IDs its stored JSON still carries, so the map never
points at a publication that is gone. Each put or remove is one transaction in which the ID map is read, merged and
written, so two writers merging into one publication (one adding a PMCID, another a DOI) both count.
"""

from __future__ import annotations

import functools
import json
import logging
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from pubfetch import ids as idmod
from pubfetch.ids import PublicationIds
from pubfetch.model import Publication, Webpage
from pubfetch.model.edges import EDGE_COLUMNS, CitationEdge
from pubfetch.perthread import PerThread
from pubfetch.store.base import Store, StoreError
from pubfetch.store.edges import TABLE as EDGES_TABLE
from pubfetch.store.edges import put_edges, read_edges
from pubfetch.store.rows import decode_entry

try:
    import orjson as _orjson
except ImportError:  # optional (the ``fast`` extra): the standard library writes the same text
    _orjson = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

T = TypeVar("T")

ID_COLUMNS = "pmid, pmcid, doi, pmid_url, pmcid_url, doi_url"
#: a DOI prefix's registration agency is the meta row ``doi_agency:<prefix>``
AGENCY_KEY = "doi_agency:"
#: prefixes per look-up statement (SQLite's host parameters are limited)
AGENCY_QUERY = 500
PAGE_TABLES = ("webpages", "docs")


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Tx(Protocol):
    """One open transaction: runs a ``?``-style statement (sqlite3.Connection, or the PostgreSQL adapter)."""

    def execute(self, sql: str, params: tuple = ()) -> Cursor: ...


def _stdlib_dumps(d: dict[str, Any]) -> str:
    # ensure_ascii=False keeps the entries readable with the engines' own clients; compact separators keep full texts
    # small
    return json.dumps(d, ensure_ascii=False, separators=(",", ":"))


def dumps(d: dict[str, Any]) -> str:
    """An entry's stored JSON. With orjson installed (the ``fast`` extra) the same text, written about five times
    faster: serialising was the largest cost of storing a bulk-imported record (docs/benchmarks.md, "Bulk imports")."""
    fast = _orjson_dumps(d)
    return fast.decode() if fast is not None else _stdlib_dumps(d)


def dumps_utf8(d: dict[str, Any]) -> bytes:
    """:func:`dumps` as UTF-8 bytes, for a bulk import's rows: orjson writes bytes, and handing them to the engine as
    they are saves decoding them into a ``str`` that the engine's driver encodes back (docs/bulk.md)."""
    fast = _orjson_dumps(d)
    return fast if fast is not None else _stdlib_dumps(d).encode()


def _orjson_dumps(d: dict[str, Any]) -> bytes | None:
    """orjson's UTF-8 JSON of the entry; None without orjson, or for what it refuses (an integer beyond 64 bits),
    which the standard library writes as before."""
    if _orjson is None:
        return None
    try:
        return _orjson.dumps(d)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return None


def lookup_key(publication_id: str) -> str:
    """The form an ID is stored under: trimmed, and DOIs normalised as PublicationIds does (so 10.1093/nar matches)."""
    v = publication_id.strip()
    return idmod.normalise_doi(v) if idmod.is_doi(v) else v


def check_kind(kind: str) -> str:
    if kind not in PAGE_TABLES:
        raise ValueError(f"unknown page kind '{kind}' (expected one of {', '.join(PAGE_TABLES)})")
    return kind


# --- the ID map (every function runs inside the caller's transaction) -----------------------------------------------


def primary_of(tx: Tx, any_id: str) -> str | None:
    row = tx.execute("SELECT primary_id FROM publication_ids WHERE id = ?", (any_id,)).fetchone()
    return row[0] if row else None


def reverse(tx: Tx, primary: str) -> tuple[str, ...] | None:
    row = tx.execute(f"SELECT {ID_COLUMNS} FROM publications WHERE primary_id = ?", (primary,)).fetchone()
    return tuple(row) if row else None


def remove_primary(tx: Tx, primary: str) -> bool:
    tx.execute("DELETE FROM publication_ids WHERE primary_id = ?", (primary,))
    return tx.execute("DELETE FROM publications WHERE primary_id = ?", (primary,)).rowcount > 0


def remove_by_id(tx: Tx, any_id: str) -> bool:
    primary = primary_of(tx, any_id)
    if primary is None:
        return False
    removed = remove_primary(tx, primary)
    if not removed:
        log.error("can't find publication with primary ID %s for removal from database", primary)
    return removed


def remove_old_ids(tx: Tx, primary: str, new: tuple[str, str, str]) -> bool:
    """Drop IDs of the entry at ``primary`` that the new publication contradicts; True if the whole entry went.

    An entry whose primary ID itself is contradicted (its PMID changed, say) is removed entirely: it was another paper.
    """
    old = reverse(tx, primary)
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
            remove_primary(tx, primary)
            primary_removed = True
        else:
            log.warning("removing old ID %s (overridden by %s) from database", old_id, new_id)
            tx.execute("DELETE FROM publication_ids WHERE id = ? AND primary_id = ?", (old_id, primary))
    return primary_removed


def resolve_id(tx: Tx, any_id: str, kept: str | None, new: tuple[str, str, str], pub: Publication) -> str | None:
    """The entry one ID of the new publication leads to, or None when there is none (left) to merge into.

    ``kept`` is the entry a stronger ID (PMID before PMCID before DOI) already chose: another entry reached by this ID
    is the same work stored twice and is superseded. Without a kept entry, the one found loses the IDs the new
    publication contradicts, and is dropped entirely when its primary ID is among them.
    """
    if not any_id:
        return None
    found = primary_of(tx, any_id)
    if found is None:
        return None
    if kept is not None:
        if kept != found:
            log.warning("removing entry with ID %s, equivalent to %s, merged by %s", any_id, kept, pub.ids)
            remove_by_id(tx, any_id)
            return None
        return found
    return None if remove_old_ids(tx, found, new) else found


def merged_ids(tx: Tx, primary: str | None, new: tuple[str, str, str], urls: tuple[str, str, str]) -> tuple[
        str, tuple[str, ...]]:
    """The primary ID to store under and the IDs with URLs of the entry: the new ones, else what the entry had."""
    if primary is None:
        return next(i for i in new if i), new + urls
    old = reverse(tx, primary)
    if old is None:
        log.error("missing publication IDs for ID %s in database", primary)
        return primary, new + urls
    return primary, tuple(n or o for n, o in zip(new + urls, old, strict=True))


def write_entry(tx: Tx, primary: str, new: tuple[str, str, str], ids_urls: tuple[str, ...], doc: str,
                json_mark: str) -> None:
    for any_id in new:
        if any_id:
            tx.execute("INSERT INTO publication_ids (id, primary_id) VALUES (?, ?) "
                       "ON CONFLICT (id) DO UPDATE SET primary_id = excluded.primary_id", (any_id, primary))
    tx.execute(f"INSERT INTO publications (primary_id, {ID_COLUMNS}, json) VALUES (?, ?, ?, ?, ?, ?, ?, {json_mark}) "
               "ON CONFLICT (primary_id) DO UPDATE SET pmid = excluded.pmid, pmcid = excluded.pmcid, "
               "doi = excluded.doi, pmid_url = excluded.pmid_url, pmcid_url = excluded.pmcid_url, "
               "doi_url = excluded.doi_url, json = excluded.json", (primary, *ids_urls, doc))


def put_entry(tx: Tx, pub: Publication, doc: str, json_mark: str) -> None:
    """PubFetcher's putPublication in one transaction: resolve each ID to an entry, merge the ID maps, write."""
    # keys as lookups normalise them; a DOI set by the fetcher is normalised already, one loaded from elsewhere may not
    # be
    new = (lookup_key(pub.pmid.content), lookup_key(pub.pmcid.content), lookup_key(pub.doi.content))
    pmid_primary = resolve_id(tx, new[0], None, new, pub)
    pmcid_primary = resolve_id(tx, new[1], pmid_primary, new, pub)
    doi_primary = resolve_id(tx, new[2], pmid_primary if pmid_primary is not None else pmcid_primary, new, pub)
    found = next((p for p in (pmid_primary, pmcid_primary, doi_primary) if p is not None), None)
    primary, ids_urls = merged_ids(tx, found, new, (pub.pmid.url, pub.pmcid.url, pub.doi.url))
    write_entry(tx, primary, new, ids_urls, doc, json_mark)


def get_entry(tx: Tx, any_id: str) -> Publication | None:
    """The publication one ID leads to, read inside the caller's transaction (None when none, or its row is
    damaged)."""
    row = tx.execute("SELECT p.primary_id, p.json FROM publication_ids m JOIN publications p "
                     "ON p.primary_id = m.primary_id WHERE m.id = ?", (lookup_key(any_id),)).fetchone()
    if row is None:
        return None
    return decode_entry(Publication.from_json, _template("publication"), row[1], f"publication {row[0]}")


@functools.cache
def _template(kind: str) -> dict[str, Any]:
    """The JSON shape of a fresh entry of a kind, the yardstick of :func:`~pubfetch.store.rows.decode_entry`."""
    return Publication().to_json(computed=False) if kind == "publication" else Webpage().to_json(computed=False)


# --- the store -------------------------------------------------------------------------------------------------------


class SqlStore(Store):
    """A Store over an SQL engine; subclasses open connections and run transactions.

    ``JSON_MARK`` is the placeholder of a JSON value (PostgreSQL casts text to JSONB); ``DB_ERRORS`` the engine's
    exception base classes, turned into StoreError by :meth:`_error`.
    """

    JSON_MARK = "?"
    #: the placeholder of an encoded entry bound as UTF-8 bytes in :meth:`insert_rows` (stored as that text, not as a
    #: BLOB)
    JSON_BYTES_MARK = "CAST(? AS TEXT)"
    #: the insertion-order key of a table made after the database (the citation edges'), in this engine's DDL
    SEQ_DDL = "INTEGER PRIMARY KEY"
    #: a query answering a row when the table its parameter names exists
    TABLE_EXISTS = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    DB_ERRORS: tuple[type[Exception], ...] = ()

    def __init__(self, name: str, readonly: bool = False) -> None:
        self.name = name
        self.label = f"database '{name}'"
        self.readonly = readonly
        #: one connection per thread (both engines' connections are for one thread at a time)
        self._conns: PerThread[Any] = PerThread(self._connect, self._close_all)
        self._closed = False

    # --- what a backend supplies --------------------------------------------------------------------------------------

    @abstractmethod
    def _connect(self) -> Any:
        """A new connection for the calling thread."""

    @abstractmethod
    def _transact(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` in one write transaction: all of it is committed, or (on an exception or a kill) none of it."""

    @abstractmethod
    def _error(self, e: Exception) -> StoreError: ...

    @abstractmethod
    def _execute(self, conn: Any, sql: str, params: tuple) -> Cursor:
        """One ``?``-style statement outside a write transaction."""

    @staticmethod
    def _decode(doc: Any) -> dict[str, Any]:
        """A stored JSON value as a dict (SQLite gives text, PostgreSQL a parsed JSONB value)."""
        return doc if isinstance(doc, dict) else json.loads(doc)

    def _encode(self, d: dict[str, Any]) -> str:
        return dumps(d)

    # --- what a bulk writer (pubfetch.bulk) runs itself: its own statements in one transaction ---------------------

    def transact(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` in one write transaction (all committed or none); it may be run again after a conflict or an
        outage, so it must only read and write through the ``Tx`` it is given."""
        return self._transact(work)

    def encode(self, d: dict[str, Any]) -> str:
        """An entry's JSON as this engine stores it (bound with :attr:`JSON_MARK`)."""
        return self._encode(d)

    def encode_utf8(self, d: dict[str, Any]) -> bytes:
        """:meth:`encode` as UTF-8 bytes, the form :meth:`insert_rows` takes an entry in."""
        return dumps_utf8(d)

    def tune_for_bulk(self) -> None:
        """Settings of this thread's connection for a bulk import's large transactions (none by default)."""

    #: host parameters per multi-row insert (SQLite takes 32,766 since 3.32)
    INSERT_PARAMS = 3200

    def insert_rows(self, tx: Tx, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]],
                    json_column: str = "") -> None:
        """Insert rows none of whose keys the table holds yet (a duplicate fails the transaction), many per statement;
        ``json_column`` takes an entry encoded as UTF-8 bytes (:meth:`encode_utf8`). ``table`` and ``columns`` are the
        code's own names, never input."""
        marks = ", ".join(self.JSON_BYTES_MARK if c == json_column else "?" for c in columns)
        per = max(1, self.INSERT_PARAMS // len(columns))
        for start in range(0, len(rows), per):
            part = rows[start:start + per]
            tx.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES {', '.join([f'({marks})'] * len(part))}",
                       tuple(v for row in part for v in row))

    # --- connections --------------------------------------------------------------------------------------------------

    def _conn(self) -> Any:
        """This thread's connection, made on first use. A fetch run starts new threads batch after batch (a thread per
        publication): the connections of ended threads are closed a few at a time (:class:`~pubfetch.perthread.
        PerThread`), as they held two file descriptors and their caches each."""
        if self._closed:
            raise StoreError(f"database '{self.name}' is already closed")
        return self._conns.get()

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        """One statement, so one snapshot: readers see only committed entries."""
        try:
            return list(self._execute(self._conn(), sql, params).fetchall())
        except self.DB_ERRORS as e:
            raise self._error(e) from None

    def _check_writable(self) -> None:
        if self.readonly:
            raise StoreError(f"{self.label} is open read-only")

    def close(self) -> None:
        self._closed = True
        self._close_all(self._conns.drain())

    def _close_all(self, conns: list[Any]) -> None:
        for conn in conns:
            try:
                conn.close()
            except self.DB_ERRORS as e:
                log.warning("closing database %s: %s", self.name, e)

    # --- citation edges ----------------------------------------------------------------------------------------------

    def put_edges(self, edges: Iterable[CitationEdge]) -> int:
        todo = list(edges)
        if not todo:
            return 0
        return self._transact(lambda tx: put_edges(tx, todo, self.SEQ_DDL))

    def citation_edges(self) -> Iterator[CitationEdge]:
        if not self._read(self.TABLE_EXISTS, (EDGES_TABLE,)):
            return iter(())
        return read_edges(self._read(f"SELECT {', '.join(EDGE_COLUMNS)} FROM {EDGES_TABLE} ORDER BY seq"))

    # --- DOI registration agencies (rows of the meta table: no new table, no schema change) -------------------------

    def get_agencies(self, prefixes: Sequence[str]) -> dict[str, str]:
        wanted = [AGENCY_KEY + p for p in dict.fromkeys(prefixes)]
        found: dict[str, str] = {}
        for start in range(0, len(wanted), AGENCY_QUERY):
            chunk = wanted[start:start + AGENCY_QUERY]
            marks = ", ".join("?" * len(chunk))
            for key, value in self._read(f"SELECT key, value FROM meta WHERE key IN ({marks})", tuple(chunk)):
                found[key.removeprefix(AGENCY_KEY)] = value
        return found

    def put_agencies(self, agencies: Mapping[str, str]) -> None:
        if self.readonly or not agencies:
            return

        def put(tx: Tx) -> None:
            for prefix, agency in agencies.items():
                tx.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = "
                           "excluded.value", (AGENCY_KEY + prefix, agency))

        self._transact(put)

    # --- publications -------------------------------------------------------------------------------------------------

    def put_publication(self, pub: Publication) -> bool:
        if pub is None:
            log.error("not putting null publication to database")
            return False
        if pub.id_count() < 1:
            log.error("not putting publication with no IDs to database")
            return False
        doc = self._encode(pub.to_json(computed=False))  # serialise before taking the write lock
        self._transact(lambda tx: put_entry(tx, pub, doc, self.JSON_MARK))
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
            return self._get_one(lookup_key(ids))
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
        keys = [lookup_key(ids)] if isinstance(ids, str) else ids.non_empty()
        if not keys:
            log.error("empty IDs given for publication removal from database")
            return False

        def remove(tx: Tx) -> bool:
            removed = False
            for key in keys:
                removed = remove_by_id(tx, key) or removed
            return removed

        return self._transact(remove)

    def contains_publication(self, ids: PublicationIds | str) -> bool:
        keys = [lookup_key(ids)] if isinstance(ids, str) else ids.non_empty()
        if not keys or not keys[0]:
            log.error("empty publication IDs given for availability checking in database")
            return False
        marks = ", ".join("?" * len(keys))
        rows = self._read(f"SELECT COUNT(*) FROM publication_ids WHERE id IN ({marks})", tuple(keys))
        return rows[0][0] == len(set(keys))

    def publication_ids(self) -> Iterator[PublicationIds]:
        rows = self._read(f"SELECT {ID_COLUMNS} FROM publications ORDER BY seq")
        return iter([PublicationIds(*row) for row in rows])

    def publications_size(self) -> int:
        return int(self._read("SELECT COUNT(*) FROM publications")[0][0])

    def publications_map(self) -> Iterator[tuple[str, str]]:
        return iter([(r[0], r[1]) for r in self._read("SELECT id, primary_id FROM publication_ids ORDER BY seq")])

    def publications_map_reverse(self) -> Iterator[tuple[str, PublicationIds]]:
        rows = self._read(f"SELECT primary_id, {ID_COLUMNS} FROM publications ORDER BY seq")
        return iter([(row[0], PublicationIds(*row[1:])) for row in rows])

    # --- webpages and docs --------------------------------------------------------------------------------------------

    def put_page(self, kind: str, page: Webpage) -> bool:
        table = check_kind(kind)
        if page is None or not page.start_url:
            log.error("not putting %s with no start URL to database", table[:-1])
            return False
        doc = self._encode(page.to_json(computed=False))
        self._transact(lambda tx: tx.execute(
            f"INSERT INTO {table} (url, json) VALUES (?, {self.JSON_MARK}) "
            "ON CONFLICT (url) DO UPDATE SET json = excluded.json", (page.start_url, doc)))
        return True

    def get_page(self, kind: str, url: str) -> Webpage | None:
        rows = self._read(f"SELECT json FROM {check_kind(kind)} WHERE url = ?", (url,))
        if not rows:
            return None
        return decode_entry(Webpage.from_json, _template("webpage"), rows[0][0], f"{kind[:-1]} {url}")

    def remove_page(self, kind: str, url: str) -> bool:
        table = check_kind(kind)
        removed = self._transact(lambda tx: tx.execute(f"DELETE FROM {table} WHERE url = ?", (url,)).rowcount > 0)
        if not removed:
            log.warning("can't find %s with start URL %s for removal from database", table[:-1], url)
        return removed

    def contains_page(self, kind: str, url: str) -> bool:
        return bool(self._read(f"SELECT 1 FROM {check_kind(kind)} WHERE url = ?", (url,)))

    def page_urls(self, kind: str) -> Iterator[str]:
        return iter([r[0] for r in self._read(f"SELECT url FROM {check_kind(kind)} ORDER BY seq")])

    def pages_size(self, kind: str) -> int:
        return int(self._read(f"SELECT COUNT(*) FROM {check_kind(kind)}")[0][0])
