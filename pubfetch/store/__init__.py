"""Databases of fetched publications, webpages and docs (spec section 10).

Callers use three functions and the :class:`Store` interface; which engine sits behind a database is decided here, from
the form of its name, so another backend can be added without touching them:

- a plain path or ``sqlite:///path`` (``sqlite:////abs/path`` for an absolute one, as in SQLAlchemy): SQLite;
- ``postgresql://user@host/dbname`` (or ``postgres://``): PostgreSQL, for several machines (the ``postgres`` extra).
"""

from __future__ import annotations

import os

from pubfetch.store.base import Store, StoreError
from pubfetch.store.copy import CopyCounts
from pubfetch.store.postgres import PostgresStore, is_postgres
from pubfetch.store.sqlite import SqliteStore

__all__ = ["CopyCounts", "PostgresStore", "SqliteStore", "Store", "StoreError", "copy_store", "init_db", "init_store",
           "is_postgres", "open_db", "open_or_init_store", "open_store", "sqlite_path"]

_SQLITE_PREFIX = "sqlite:///"


def init_db(path: str | os.PathLike[str]) -> SqliteStore:
    """Create a new SQLite database; refuses an existing file."""
    return SqliteStore.init(path)


def open_db(path: str | os.PathLike[str], readonly: bool = False) -> SqliteStore:
    """Open an existing SQLite database, upgrading an older schema (unless ``readonly``)."""
    return SqliteStore.open(path, readonly=readonly)


def sqlite_path(target: str) -> str | None:
    """The file path of a SQLite target, or None if the target names another backend."""
    if is_postgres(target):
        return None
    if target.startswith(_SQLITE_PREFIX):
        path = target[len(_SQLITE_PREFIX):]
        if not path:
            raise StoreError(f"database URL '{target}' names no file")
        return path
    if target.startswith("sqlite:"):
        raise StoreError(f"database URL '{target}' is not of the form sqlite:///path")
    return target


def open_store(target: str | os.PathLike[str], readonly: bool = False) -> Store:
    """Open a database named by a path or URL."""
    path = sqlite_path(os.fspath(target))
    if path is None:
        return PostgresStore.open(os.fspath(target), readonly=readonly)
    return open_db(path, readonly=readonly)


def init_store(target: str | os.PathLike[str]) -> Store:
    """Create a database named by a path or URL."""
    path = sqlite_path(os.fspath(target))
    if path is None:
        return PostgresStore.init(os.fspath(target))
    return init_db(path)


def copy_store(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> CopyCounts:
    """Copy the database ``source`` into the new database ``target`` (created here), between any two backends."""
    from pubfetch.store.copy import copy_database
    from pubfetch.store.sql import SqlStore

    with open_store(source, readonly=True) as src:
        if not isinstance(src, SqlStore):
            raise StoreError(f"cannot copy from {src!r}")
        with init_store(target) as dst:
            assert isinstance(dst, SqlStore)
            return copy_database(src, dst)


def open_or_init_store(target: str | os.PathLike[str]) -> Store:
    """Open a database, creating it first when it does not exist yet: what fetching into a database wants, so that the
    first run of a fetching command needs no separate ``-db-init`` and every later run carries on in the same file."""
    path = sqlite_path(os.fspath(target))
    if path is None:
        return PostgresStore.open_or_init(os.fspath(target))
    if not os.path.lexists(path):
        try:
            return init_store(target)
        except StoreError:
            if not os.path.lexists(path):  # not a race with another process creating it: a real failure
                raise
    return open_store(target)
