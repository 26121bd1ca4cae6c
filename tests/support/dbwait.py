"""Waiting for a running pubfetch process to reach a point in its database, for the tests that kill it there, and
checking the database it leaves.

A fixed sleep before a kill is a bet on the machine's speed; these poll the database instead, with a ceiling that only
a hung run reaches.
"""

from __future__ import annotations

import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from pubfetch.store import open_db


def stored_count(db: Path, tables: tuple[str, ...] = ("publications",)) -> int:
    """Entries committed in ``tables`` of the SQLite file (0 before the tables exist), read without writing."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return sum(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in tables)
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


def stored_pages(db: Path, kind: str = "webpages") -> set[str]:
    """The start URLs of the webpages (or docs) committed in the SQLite file (none before the table exists)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return {url for (url,) in conn.execute(f"SELECT url FROM {kind}")}
    except sqlite3.OperationalError:
        return set()
    finally:
        conn.close()


def wait_while_running(proc: subprocess.Popen, reached: Callable[[], bool], ceiling_s: float,
                       every_s: float = 0.05) -> None:
    """Poll ``reached`` until it holds, the process ends, or the ceiling passes (the caller checks what happened)."""
    deadline = time.monotonic() + ceiling_s
    while proc.poll() is None and time.monotonic() < deadline and not reached():
        time.sleep(every_s)


def check_database(db: Path) -> dict[str, dict]:
    """integrity_check passes, the file reopens as a pubfetch database, and every entry is whole and consistent."""
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    store = open_db(db)
    try:
        entries = {}
        for ids in store.publication_ids():
            pub = store.get_publication(ids)
            assert pub is not None, ids
            # a whole entry: its IDs, and what the first resource (Europe PMC search) gives every publication
            assert pub.pmid.content and pub.title.content and pub.abstract.content, pub.to_json()
            entries[pub.pmid.content] = pub.to_json()
        mapped = dict(store.publications_map())
        assert set(mapped.values()) <= {e["pmid"]["content"] for e in entries.values()} | {
            e["doi"]["content"] for e in entries.values()} | {e["pmcid"]["content"] for e in entries.values()}
        assert store.publications_size() == len(entries)
    finally:
        store.close()
    return entries
