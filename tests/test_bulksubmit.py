"""A bulk import on the cluster (pubfetch/distributed/bulksubmit.py sends each file as a task, bulktask.py runs it):
read by name under the worker's own ``--import-dir`` into its ``--db``, each file once; the task message's checks
are test_bulktask.py's."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.cli.errors import EXIT_OK
from pubfetch.store import init_store, open_store
from pubfetch.store.sql import SqlStore
from support.bulkfiles import write_synthetic
from support.procs import stop_process_groups
from support.pubfetch_processes import service_env, start_worker
from support.synthetic import SyntheticServices

FILES, RECORDS = 4, 150


@pytest.mark.slow
def test_two_workers_import_each_file_once_into_the_shared_database(cli, tmp_path: Path, pg_url: str,
                                                                      redis_url: str) -> None:
    import_dir = tmp_path / "bulk"
    import_dir.mkdir()
    for i in range(FILES):
        write_synthetic(import_dir / f"pubmed26n{i + 1:04d}.xml.gz", RECORDS, first_pmid=90_000_001 + i * RECORDS)
    with SyntheticServices(1) as services:
        env = service_env(services)
        workers = [start_worker(redis_url, pg_url, env, tmp_path / f"worker{i}.log", "--import-dir", str(import_dir))
                   for i in range(2)]
        try:
            run = cli("-db-import-medline", pg_url, import_dir, "--queue", redis_url)
            again = cli("-db-import-medline", pg_url, import_dir, "--queue", redis_url)
        finally:
            stop_process_groups(workers)
    assert run.code == EXIT_OK, run.err + "".join(
        (tmp_path / f"worker{i}.log").read_text(errors="replace")[-2000:] for i in range(2))
    with open_store(pg_url) as store:
        assert isinstance(store, SqlStore)
        assert store.publications_size() == FILES * RECORDS
        files = store.transact(lambda tx: tx.execute("SELECT name, records FROM bulk_files ORDER BY name").fetchall())
    assert [tuple(f) for f in files] == [(f"pubmed26n{i + 1:04d}.xml.gz", RECORDS) for i in range(FILES)]
    assert f"imported {FILES} files: {FILES * RECORDS} records stored, 0 deleted, 0 unchanged" in run.err
    assert again.code == EXIT_OK
    assert "imported 0 files: 0 records stored, 0 deleted, 0 unchanged" in again.err  # all recorded: none sent


@pytest.mark.slow
def test_a_file_a_lost_worker_held_is_finished_by_another_once(tmp_path: Path, pg_url: str, redis_url: str) -> None:
    """The worker importing a file is killed with its process group (a lost machine); after the grace period the file
    goes to the other worker, which finishes it: every record once, the file recorded once, the submitter content."""
    import os
    import signal
    import subprocess

    from support.dbwait import wait_while_running
    from support.pubfetch_processes import pubfetch_cmd

    import_dir = tmp_path / "bulk"
    import_dir.mkdir()
    write_synthetic(import_dir / "pubmed26n0001.xml.gz", 3000)
    init_store(pg_url).close()
    grace = ("--grace-period", "8")
    with SyntheticServices(1) as services:
        env = {**service_env(services), "PUBFETCH_IMPORT_CHUNK": "100"}
        first = start_worker(redis_url, pg_url, env, tmp_path / "first.log", "--import-dir", str(import_dir), *grace)
        submitter = subprocess.Popen(pubfetch_cmd("-db-import-medline", pg_url, import_dir, "--queue", redis_url),
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        second = None
        try:
            def stored() -> int:
                with open_store(pg_url) as store:
                    return store.publications_size()

            wait_while_running(submitter, lambda: stored() >= 300, ceiling_s=300, every_s=0.5)
            assert submitter.poll() is None and stored() < 3000, "the file was done before the worker could be lost"
            os.killpg(first.pid, signal.SIGKILL)
            second = start_worker(redis_url, pg_url, env, tmp_path / "second.log", "--import-dir", str(import_dir),
                                  *grace)
            _, err = submitter.communicate(timeout=600)
        finally:
            stop_process_groups([p for p in (first, second) if p is not None])
            if submitter.poll() is None:  # the test failed before the job ended: the waiting submitter goes too
                submitter.kill()
                submitter.communicate()
    assert submitter.returncode == 0, err
    assert "imported 1 file: " in err
    with open_store(pg_url) as store:
        assert isinstance(store, SqlStore)
        assert store.publications_size() == 3000
        rows = store.transact(lambda tx: tx.execute("SELECT name, records FROM bulk_files").fetchall())
        versions = store.transact(lambda tx: tx.execute("SELECT COUNT(*) FROM pubmed_versions").fetchone()[0])
    assert [tuple(r) for r in rows] == [("pubmed26n0001.xml.gz", 3000)]
    assert versions == 3000
