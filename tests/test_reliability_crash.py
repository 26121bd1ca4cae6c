"""Crash safety of a real command-line batch: ``python -m pubfetch -pub-file F -db-fetch DB`` killed with SIGKILL at
seeded random moments, restarted each time on the same database, then two processes fetching into one database at
once. The database must always pass ``PRAGMA integrity_check``, reopen, hold only whole entries, never lose an entry
committed before a kill, and end with every publication complete.

The batches are small (``--batch-size 5``) and the services answer with a little latency, so that a run commits about
sixty times and a kill can land anywhere: in a request, in parsing, or in the middle of a commit. ``--retryLimit 0``
keeps a restart from fetching the non-final (closed-access) entries again, so each run carries on where the killed one
stopped and the kills spread over the whole batch.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pubfetch.model.part_type import PartType
from pubfetch.store import init_db
from support.dbwait import check_database, stored_count, wait_while_running
from support.pubfetch_processes import service_env
from support.synthetic import Article, SyntheticServices

REPO = Path(__file__).resolve().parents[1]
N = 300
KILL_N = 400
KILL_SEEDS = (11, 23, 37, 41, 53, 67, 79, 97)


def start(ids: Path, db: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pubfetch", "-pub-file", str(ids), "-db-fetch", str(db), "--allow-private-addresses",
         "--quiet", "--no-rate-limit", "--no-javascript", "--batch-size", "5", "--threads", "4",
         "--retryLimit", "0"],
        env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def expect_complete(entries: dict[str, dict], pmids: list[str]) -> None:
    """Every publication is there, with the full text of the open-access ones."""
    assert sorted(entries) == sorted(pmids)
    for pmid, e in entries.items():
        a = Article(int(pmid) - 30_000_000)
        assert e["title"]["content"] == a.title
        assert e["pmcid"]["content"] == a.pmcid
        if a.oa:
            assert e["fulltext"]["type"] == PartType.europepmc_xml.value and e["final"] is True
        assert e["fetchException"] is False


@pytest.mark.slow
def test_sigkill_at_random_points_of_a_db_fetch_batch_then_a_rerun_completes(tmp_path: Path):
    db = tmp_path / "kill.db"
    init_db(db).close()
    with SyntheticServices(KILL_N, latency=0.01) as services:
        ids = tmp_path / "ids.txt"
        ids.write_text("".join(p + "\n" for p in services.pmids()))
        env = service_env(services, PUBFETCH_RATE_DB=str(tmp_path / "rates.sqlite"))
        kills = 0
        before: dict[str, dict] = {}
        for seed in KILL_SEEDS:
            proc = start(ids, db, env)
            time.sleep(random.Random(seed).uniform(1.2, 3.6))
            if not before:  # a loaded machine may still be starting: kill the first run only once it has committed
                wait_while_running(proc, lambda: stored_count(db) > 0, ceiling_s=120.0, every_s=0.2)
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=30)
            if proc.returncode == -signal.SIGKILL:
                kills += 1
            after = check_database(db)
            # entries committed before the kill are all still there, and never went backwards
            assert set(before) <= set(after)
            for pmid, entry in before.items():
                if entry["final"]:
                    assert after[pmid] == entry  # final entries are not fetched again
            before = after
        assert kills >= len(KILL_SEEDS) // 2  # (a fast machine may finish before the last kills)
        assert len(before) > 0
        proc = start(ids, db, env)
        _, err = proc.communicate(timeout=600)  # a ceiling for a hung run: a loaded machine may need minutes
    assert proc.returncode == 0, err  # the closed-access half is partial only in the full text no service had
    assert f"pubfetch: {KILL_N} publications: " in err and f"; {KILL_N - KILL_N // 2} final, " in err
    expect_complete(check_database(db), services.pmids())


@pytest.mark.slow
def test_two_processes_fetching_into_one_database_lose_nothing(tmp_path: Path):
    db = tmp_path / "shared.db"
    init_db(db).close()
    with SyntheticServices(N, latency=0.005) as services:
        pmids = services.pmids()
        first, second = tmp_path / "first.txt", tmp_path / "second.txt"
        first.write_text("".join(p + "\n" for p in pmids[: 2 * N // 3]))  # they overlap in the middle third
        second.write_text("".join(p + "\n" for p in reversed(pmids[N // 3:])))
        env = service_env(services, PUBFETCH_RATE_DB=str(tmp_path / "rates.sqlite"))
        procs = [start(first, db, env), start(second, db, env)]
        results = [p.communicate(timeout=600) for p in procs]  # a ceiling for a hung run only
    for proc, (_, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err  # closed-access halves partial, none failed
        assert "locked" not in err and "internal error" not in err and "Traceback" not in err, err
    assert f"pubfetch: {2 * N // 3} publications: " in results[0][1]
    assert f"; {2 * N // 3 - N // 3} final, " in results[0][1]
    expect_complete(check_database(db), pmids)
