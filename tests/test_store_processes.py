"""The database under real processes: SIGKILL in the middle of a batch of puts, and two writers on one file."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from pubfetch.model import Publication, Webpage
from pubfetch.store import init_db, open_db
from support.dbwait import stored_count, wait_while_running

WORKER = Path(__file__).resolve().parent / "support" / "store_worker.py"


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(WORKER), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _assert_whole(db: Path) -> int:
    """The file is sound, every row is a whole entry, and the ID map agrees with the publications table."""
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        pubs = conn.execute("SELECT primary_id, pmid, pmcid, doi, json FROM publications").fetchall()
        id_map = dict(conn.execute("SELECT id, primary_id FROM publication_ids"))
        pages = conn.execute("SELECT url, json FROM webpages").fetchall()
    primaries = set()
    for primary, pmid, pmcid, doi, doc in pubs:
        d = json.loads(doc)
        pub = Publication.from_json(d)
        assert pub.to_json(computed=False) == d
        assert pub.fulltext.size > 0 and pub.title.content
        assert primary in (pmid, pmcid, doi)
        for any_id in (pmid, pmcid, doi):
            if any_id:
                assert id_map.get(any_id) == primary, (any_id, primary)
        primaries.add(primary)
    assert set(id_map.values()) <= primaries  # no ID points at a missing entry
    for url, doc in pages:
        page = Webpage.from_json(json.loads(doc))
        assert page.start_url == url and page.content
    return len(pubs) + len(pages)


def test_sigkill_mid_batch_leaves_whole_entries(tmp_path: Path) -> None:
    db = tmp_path / "kill.db"
    init_db(db).close()
    total = 0
    for round_no in range(1, 4):
        proc = _start("kill", str(db), str(round_no))
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read() if proc.stderr else ""
        # the kill lands at a different moment each round, but only once this round has written something: a loaded
        # machine may take longer than any fixed sleep to get the worker going
        wait_while_running(proc, lambda: stored_count(db, ("publications", "webpages")) > total, ceiling_s=120.0)
        time.sleep(0.13 * round_no)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=120)
        assert proc.returncode == -signal.SIGKILL
        proc.stdout.close()
        if proc.stderr:
            proc.stderr.close()
        count = _assert_whole(db)
        assert count > total  # earlier rounds' entries survive (rounds use disjoint IDs), and this round added some
        total = count
    assert total > 0
    with open_db(db) as store:  # and pubfetch itself opens and uses it
        assert store.integrity_check() == "ok"
        for ids in store.publication_ids():
            assert store.get_publication(ids) is not None


def test_two_processes_put_concurrently(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    init_db(db).close()
    procs = [_start("put", str(db), str(start), "300") for start in (1, 100_001)]
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert out.strip() == "done"
    with open_db(db) as store:
        assert store.publications_size() == 600
        assert len(dict(store.publications_map())) == 1200
        assert store.integrity_check() == "ok"
        assert store.get_publication("100300").title.content == "title 100300"
        assert store.get_publication("10.2000/C300").pmid.content == "300"
