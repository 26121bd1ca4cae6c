"""Celery workers for real: a ``pubfetch worker`` process with a Redis broker fetches queued batches from the synthetic
services into PostgreSQL; with ``--pool prefork``, one of its pool processes is killed with SIGKILL in the middle of
the run, and the run still completes with every ID stored exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.distributed.submit import job_status, submit, wait
from pubfetch.ids import PublicationIds
from pubfetch.store import init_store, open_store
from support.procs import stop_process_groups
from support.pubfetch_processes import rabbitmq_queue, service_env, start_worker
from support.synthetic import SyntheticServices
from support.waits import wait_until, within

pytest.importorskip("celery", reason='Celery workers need celery (pip install ".[test]")')


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
        return [int(p) for p in f.read().split()]


def _busy_pool_process(broker: str) -> int:
    """The pid of a pool process that is running a batch now (asked through Celery's remote control)."""
    from pubfetch.distributed.app import make_app

    app = make_app(broker)

    def busy() -> int | None:
        # limit=1: the one worker's answer is used as soon as it comes; without it inspect() waits out its whole
        # timeout, and a snapshot two seconds old may name a process whose batch has ended since
        for tasks in (app.control.inspect(timeout=10, limit=1).active() or {}).values():
            pids = [t["worker_pid"] for t in tasks if t.get("worker_pid")]
            if pids:
                return pids[0]
        return None

    return wait_until(busy, 60, "a pool process running a batch", every_s=0.1)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finding the worker's pool processes needs /proc")
def test_sigkilled_worker_process_loses_nothing_and_stores_each_id_once(tmp_path: Path, pg_url: str,
                                                                         redis_url: str) -> None:
    count, batch = 40, 4
    init_store(pg_url).close()
    log = tmp_path / "worker.log"
    with SyntheticServices(count, latency=0.15) as services:  # a batch takes seconds: the kill finds it running
        worker = start_worker(redis_url, pg_url, service_env(services), log, "--pool", "prefork")
        try:
            wait_until(lambda: len(_children(worker.pid)) == 2, 60, "the worker's two pool processes")
            job = submit(services.pmids(), pg_url, redis_url, batch_size=batch)
            wait_until(lambda: job_status(job, redis_url).done >= 2, 120, "the first batches")
            victim = _busy_pool_process(redis_url)
            os.kill(victim, signal.SIGKILL)
            status = wait(job, redis_url, timeout=180)
        finally:
            stop_process_groups([worker])
        articles = [services.article(pmid=p) for p in services.pmids()]
    text = log.read_text(encoding="utf-8", errors="replace")
    assert f"pid:{victim} exited with 'signal 9 (SIGKILL)'" in text, text[-3000:]
    assert "WorkerLostError('Worker exited prematurely: signal 9 (SIGKILL)" in text  # it was working on a batch
    assert (status.batches, status.done, status.failed) == (count // batch, count // batch, 0)
    assert status.summary.total == count
    with open_store(pg_url) as store:
        assert store.publications_size() == count
        expected = {a.pmid: PublicationIds(a.pmid, a.pmcid if a.oa else "", a.doi) for a in articles}
        reverse = dict(store.publications_map_reverse())
        assert {k: PublicationIds(*v.ids) for k, v in reverse.items()} == expected
        for a in articles:
            pub = store.get_publication(a.pmid)
            assert pub is not None and pub.title.content == a.title


@pytest.mark.slow
def test_cli_queue_detach_job_status_and_library(tmp_path: Path, pg_url: str, redis_url: str) -> None:
    """``-db-fetch DB --queue URL`` waits and prints the entries; ``--detach`` prints a job id that ``-job-status``
    reports on; ``fetch_many(ids, db=..., queue=...)`` yields the publications the workers stored."""
    import pubfetch

    count = 12
    with SyntheticServices(count, latency=0.01) as services:
        env = service_env(services)
        pmids = services.pmids()
        ids = tmp_path / "ids.txt"
        ids.write_text("\n".join(pmids[:6]) + "\n", encoding="utf-8")
        worker = start_worker(redis_url, pg_url, env, tmp_path / "worker.log")
        try:
            run = subprocess.run([sys.executable, "-m", "pubfetch", "-pub-file", ids, "-db-fetch", pg_url, "--queue",
                                  redis_url, "--batch-size", "2", "-out-ids"], env=env, capture_output=True, text=True,
                                 timeout=180)
            assert run.returncode == 0, run.stderr  # the closed-access half is partial, as in a local run
            assert "pubfetch: 6 publications: 6 fetched, 0 skipped; 3 final, 3 partial, 0 failed" in run.stderr
            assert "Traceback" not in run.stderr and "Error" not in run.stderr, run.stderr  # none at exit either
            assert [line.split("]")[0].split(",")[0].lstrip("[") for line in run.stdout.splitlines()] == pmids[:6]
            # a local step, then the queued one, of the same papers: each counted once, by the job's count of it
            # (the workers list their papers), fetched since the local step asked the services
            both = subprocess.run([sys.executable, "-m", "pubfetch", "-pub-file", ids, "-fetch", "-db-fetch", pg_url,
                                   "--queue", redis_url, "--batch-size", "2"], env=env, capture_output=True, text=True,
                                  timeout=180)
            assert "pubfetch: 6 publications: 6 fetched, 0 skipped; 3 final, 3 partial, 0 failed" in both.stderr, (
                both.stderr)
            detached = subprocess.run([sys.executable, "-m", "pubfetch", "-pub-file", ids, "-db-fetch-end", pg_url,
                                       "--queue", redis_url, "--detach"], env=env, capture_output=True, text=True,
                                      timeout=60)
            assert detached.returncode == 0 and detached.stderr == "", detached.stderr
            job = detached.stdout.strip()
            wait(job, redis_url, timeout=120)
            report = subprocess.run([sys.executable, "-m", "pubfetch", "-job-status", job, "--queue", redis_url],
                                    env=env, capture_output=True, text=True, timeout=60)
            assert report.returncode == 0 and report.stderr == "", report.stderr
            # the second run found the final (open-access) entries complete in the database and fetched only the rest
            assert report.stdout == (f"job {job}: finished, 1 of 1 batch done; 6 publications: 3 fetched, "
                                     "3 skipped; 3 final, 3 partial, 0 failed\n")
            pubs = list(pubfetch.fetch_many(pmids[4:], db=pg_url, queue=redis_url, batch_size=3))
        finally:
            stop_process_groups([worker])
    assert [p.pmid.content for p in pubs] == pmids[4:]
    missing = subprocess.run([sys.executable, "-m", "pubfetch", "-job-status", "no-such-job", "--queue", redis_url],
                             env=env, capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "no job no-such-job" in missing.stderr


def test_unreachable_queue_is_one_line(tmp_path: Path) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("123\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pubfetch", "-pub-file", ids, "-db-fetch", tmp_path / "pubs.db",
                          "--queue", "redis://user:secret@127.0.0.1:1/0"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.startswith("pubfetch: error: cannot reach the queue redis://127.0.0.1:1/0: ")
    assert len(run.stderr.splitlines()) == 1 and "secret" not in run.stderr


def test_rabbitmq_broker_with_results_in_redis(tmp_path: Path, redis_url: str) -> None:
    """A RabbitMQ queue works when PUBFETCH_RESULT_BACKEND names a Redis for the results (job progress)."""
    from pubfetch.distributed.submit import fetch_queued

    db = tmp_path / "pubs.db"
    init_store(db).close()
    with rabbitmq_queue(redis_url) as broker, SyntheticServices(6, latency=0.01) as services:
        env = service_env(services, PUBFETCH_RESULT_BACKEND=redis_url)
        worker = start_worker(broker, str(db), env, tmp_path / "worker.log")
        try:
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("PUBFETCH_RESULT_BACKEND", redis_url)
                # a queued run waits for its workers as long as it takes: a test whose worker died must not hang
                status = within(300, lambda: fetch_queued(services.pmids(), str(db), broker, batch_size=3))
        finally:
            stop_process_groups([worker])
    assert (status.batches, status.done, status.summary.total) == (2, 2, 6)
    with open_store(db) as store:
        assert store.publications_size() == 6
