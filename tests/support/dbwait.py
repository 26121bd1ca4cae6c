"""Waiting for a running pubfetch process to reach a point in its database, for the tests that kill it there.

A fixed sleep before a kill is a bet on the machine's speed; these poll the database instead, with a ceiling that only
a hung run reaches.
"""

from __future__ import annotations

import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def stored_count(db: Path, tables: tuple[str, ...] = ("publications",)) -> int:
    """Entries committed in ``tables`` of the SQLite file (0 before the tables exist), read without writing."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return sum(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in tables)
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


def wait_while_running(proc: subprocess.Popen, reached: Callable[[], bool], ceiling_s: float,
                       every_s: float = 0.05) -> None:
    """Poll ``reached`` until it holds, the process ends, or the ceiling passes (the caller checks what happened)."""
    deadline = time.monotonic() + ceiling_s
    while proc.poll() is None and time.monotonic() < deadline and not reached():
        time.sleep(every_s)
