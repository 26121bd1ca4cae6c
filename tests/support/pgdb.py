"""A PostgreSQL database of a test session's or a benchmark's own, on the machine's server, dropped afterwards."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

SERVER = "postgresql://postgres@127.0.0.1:5432/"


@contextlib.contextmanager
def own_database(admin: Any, name: str) -> Iterator[str]:
    """Create database ``name`` through the autocommit connection ``admin`` (closed at the end) and yield its URL; it is
    dropped at the end, its connections cut."""
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield SERVER + name
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
