"""Crash safety of a bulk import (pubfetch/bulk/apply.py, ledger.py): ``pubfetch -db-import-medline`` killed with
SIGKILL part way through a file, at seeded moments, then run again on the same database until it finishes.

After every kill the database passes ``PRAGMA integrity_check``, the file is not recorded as imported, and every entry
stored has its version row and the other way round (an entry and its row are one transaction: nothing half-written);
after the last run every record is there once and the file is recorded once.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest

from pubfetch.store import init_db
from support.bulkfiles import write_synthetic
from support.dbwait import stored_count, wait_while_running
from support.pubfetch_processes import pubfetch_cmd

REPO = Path(__file__).resolve().parents[1]
N = 3000
CHUNK = 50
SEEDS = (5, 17, 29)


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PUBFETCH_")}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["PUBFETCH_IMPORT_CHUNK"] = str(CHUNK)
    return env


def check(db: Path) -> tuple[int, int, int]:
    """(entries, version rows, files recorded); integrity and the one-to-one of entries and version rows hold."""
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        pmids = {r[0] for r in conn.execute("SELECT pmid FROM publications")}
        versions = {r[0] for r in conn.execute("SELECT pmid FROM pubmed_versions")}
        assert pmids == versions
        mapped = conn.execute("SELECT COUNT(*) FROM publication_ids").fetchone()[0]
        assert mapped == 2 * len(pmids)  # each synthetic record's PMID and DOI, nothing left of a cut write
        files = conn.execute("SELECT COUNT(*) FROM bulk_files").fetchone()[0]
        return len(pmids), len(versions), files
    finally:
        conn.close()


@pytest.mark.slow
def test_a_killed_import_resumes_and_leaves_every_record_once(tmp_path: Path) -> None:
    baseline = write_synthetic(tmp_path / "pubmed26n0001.xml.gz", N)
    db = tmp_path / "pubs.db"
    init_db(db).close()  # made before the bulk tables: the import adds them
    command = pubfetch_cmd("-db-import-medline", db, baseline, "--workers", "1")
    reached = 0
    for seed in SEEDS:
        target = reached + random.Random(seed).randrange(CHUNK, 6 * CHUNK)
        proc = subprocess.Popen(command, env=environment(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_while_running(proc, lambda t=target: stored_count(db) >= t, ceiling_s=300)
        assert proc.poll() is None, "the import ended before it could be killed (make N larger)"
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
        entries, _, files = check(db)
        assert files == 0
        assert entries >= target
        reached = entries
    final = subprocess.run(command, env=environment(), cwd=REPO, capture_output=True, text=True, timeout=600)
    assert final.returncode == 0, final.stderr
    assert check(db) == (N, N, 1)
    again = subprocess.run(command, env=environment(), cwd=REPO, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0
    assert "1 already imported" in again.stderr
    assert check(db) == (N, N, 1)
