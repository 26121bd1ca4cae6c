"""A queue message is input from whoever can write to the queue: the red team's attacks through it, sent to a real
``pubfetch worker``. The worker writes only to its own ``--db``, takes no file paths, User-Agent or e-mails from a
message, refuses oversized tasks, and what it stores in the result backend (readable by the queue's writers) never
quotes a file. Each refusal is one line in the worker's log; nothing is retried."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.distributed.app import TASK_NAME, make_app
from pubfetch.distributed.message import MAX_IDS_PER_TASK
from pubfetch.distributed.submit import submit, wait
from pubfetch.store import init_store, open_store
from support.procs import stop_process_groups
from support.pubfetch_processes import service_env, start_worker
from support.synthetic import SyntheticServices
from support.waits import wait_until

pytest.importorskip("celery", reason='Celery workers need celery (pip install ".[test]")')

SECRET = "root:$6$SECRETHASHfromthefile:19000:0:99999:7:::"


def _outcome(app, task_id: str) -> tuple[str, str]:
    """(state, everything the result backend holds about the failure as text) once the task is done."""
    result = app.AsyncResult(task_id)
    wait_until(lambda: result.ready(), 120, f"task {task_id} to end")
    state, text = result.state, f"{result.result!s} {result.traceback or ''}"
    app.backend.remove_pending_result(result)
    return state, text


@pytest.mark.slow
def test_messages_cannot_choose_the_database_or_read_worker_files(tmp_path: Path) -> None:
    import socket

    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=2).close()
    except OSError:
        pytest.skip("Redis not reachable at 127.0.0.1:6379")
    import uuid

    broker = f"redis://127.0.0.1:6379/13?prefix=pubfetch-test-msg-{uuid.uuid4().hex[:8]}:"
    shadow = tmp_path / "shadow"
    shadow.write_text(SECRET + "\n", encoding="utf-8")
    own_db = tmp_path / "own.db"
    init_store(own_db).close()
    elsewhere = tmp_path / "elsewhere" / "chosen.db"
    log = tmp_path / "worker.log"
    # a host:port a message names as its database: the worker must not even connect to it
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    named = f"postgresql://x@127.0.0.1:{listener.getsockname()[1]}/other"
    with listener, SyntheticServices(4, latency=0.0) as services:
        env = service_env(services)
        pmid = services.pmids()[0]
        worker = start_worker(broker, str(own_db), env, log)
        app = make_app(broker)
        try:
            wait_until(lambda: "ready" in log.read_text(errors="replace"), 90, "the worker to be ready")
            attacks = {
                # the old message shape, as the red team sent it: another database, a rule file of the worker's
                "old shape, other db": ((([pmid, "", ""],), str(elsewhere), {"args": {"journals_yaml": str(shadow)}})),
                "rule file": ({"v": 1, "ids": [[pmid, "", ""]], "args": {"journals_yaml": str(shadow)}},),
                "user agent": ({"v": 1, "ids": [[pmid, "", ""]], "args": {"user_agent": "evil"}},),
                "e-mail": ({"v": 1, "ids": [[pmid, "", ""]], "args": {"oadoi_email": "x@evil.example"}},),
                "other database": ({"v": 1, "ids": [[pmid, "", ""]], "db": str(elsewhere)},),
                "postgres elsewhere": ({"v": 1, "ids": [[pmid, "", ""]], "db": named},),
                "old shape, postgres elsewhere": ((([pmid, "", ""],), named, {}),),
                "unknown field": ({"v": 1, "ids": [[pmid, "", ""]], "config": {"endpoints": {"ncbi": "http://x"}}},),
                "too many IDs": ({"v": 1, "ids": [[str(30_000_000 + k), "", ""]
                                                  for k in range(MAX_IDS_PER_TASK + 1)]},),
            }
            sent = {what: app.send_task(TASK_NAME, args=args).id for what, args in attacks.items()}
            outcomes = {what: _outcome(app, task_id) for what, task_id in sent.items()}
        finally:
            stop_process_groups([worker])
            app.close()
        with pytest.raises(BlockingIOError):
            listener.accept()  # no connection was ever made to the host:port a message named
    text = log.read_text(encoding="utf-8", errors="replace")
    for what, (state, stored) in outcomes.items():
        assert state == "FAILURE", what
        assert "SECRETHASH" not in stored and "evil" not in stored, (what, stored)
        assert len(str(stored).split(" Traceback")[0].splitlines()) == 1, (what, stored)
    assert not elsewhere.parent.exists()
    assert "SECRETHASH" not in text
    refusals = [line for line in text.splitlines() if "refused:" in line]
    assert len(refusals) == len(attacks), refusals
    with open_store(own_db) as store:
        assert store.publications_size() == 0  # nothing of a refused message was fetched
    assert text.count("Traceback") == 0


@pytest.mark.slow
def test_a_cancelled_job_is_refused_at_once(tmp_path: Path, redis_url: str) -> None:
    """``-job-cancel`` makes the batches of a job that no worker has taken yet fail at once, one line each, without a
    request; the worker goes on with the next job."""
    from pubfetch.fetcher_args import FetcherArgs

    db = tmp_path / "pubs.db"
    init_store(db).close()
    log = tmp_path / "worker.log"
    with SyntheticServices(6, latency=0.0) as services:
        env = service_env(services)
        pmids = services.pmids()
        cancelled = submit(pmids[:3], str(db), redis_url, batch_size=1, args=FetcherArgs(retry_limit=7))
        cancel = subprocess.run([sys.executable, "-m", "pubfetch", "-job-cancel", cancelled, "--queue", redis_url],
                                env=env, capture_output=True, text=True, timeout=60)
        assert cancel.returncode == 0 and cancel.stderr == "", cancel.stderr
        assert cancel.stdout == (f"job {cancelled} cancelled: 3 waiting batches will be refused by the workers that "
                                 "take them, 0 running ones finish\n")
        worker = start_worker(redis_url, str(db), env, log)
        try:
            status = wait(cancelled, redis_url, timeout=120)
            requests = sum(services.counts.values())
            done = wait(submit(pmids[3:], str(db), redis_url, batch_size=3), redis_url, timeout=120)
        finally:
            stop_process_groups([worker])
        report = subprocess.run([sys.executable, "-m", "pubfetch", "-job-status", cancelled, "--queue", redis_url],
                                env=env, capture_output=True, text=True, timeout=60)
    assert (status.batches, status.done, status.failed, requests) == (3, 0, 3, 0)
    assert report.returncode == 130 and report.stderr == "", report.stderr  # EXIT_JOB_CANCELLED
    assert report.stdout.splitlines()[1:] == ["  3 batches failed: the job was cancelled"]
    assert (done.done, done.summary.total) == (1, 3)
    text = log.read_text(encoding="utf-8", errors="replace")
    assert sum("the job was cancelled" in line for line in text.splitlines()) == 3
    with open_store(db) as store:
        assert store.publications_size() == 3


@pytest.mark.slow
def test_a_worker_whose_database_is_gone_fails_each_batch_at_once(tmp_path: Path, redis_url: str,
                                                                  pg_database: str) -> None:
    """The worker's database was dropped after the job was sent (the submitter made it): each batch fails at once with
    one log line naming it, and the worker does not create it again (a job for it is stale)."""
    import os
    import uuid

    import psycopg

    gone = pg_database.rsplit("/", 1)[0] + f"/pubfetch_gone_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    log = tmp_path / "worker.log"
    with SyntheticServices(2, latency=0.0) as services:
        env = service_env(services)
        job_id = submit(services.pmids(), gone, redis_url, batch_size=1)
        with psycopg.connect(pg_database.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{gone.rsplit("/", 1)[1]}" WITH (FORCE)')
        worker = start_worker(redis_url, gone, env, log)
        try:
            status = wait(job_id, redis_url, timeout=120)
        finally:
            stop_process_groups([worker])
        requests = sum(services.counts.values())
    assert (status.done, status.failed, requests) == (0, 2, 0)
    (reason, n), = status.failures.items()
    assert n == 2 and reason.startswith("the worker's database cannot be opened: ") and "does not exist" in reason
    lines = [line for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if "refused:" in line]
    assert len(lines) == 2
    with psycopg.connect(pg_database.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
        assert admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (gone.rsplit("/", 1)[1],)).fetchone() \
            is None


@pytest.mark.slow
def test_a_submitter_follows_its_job_through_a_10_s_redis_outage(tmp_path: Path, redis_url: str,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    """The submitter's own way to Redis is cut for 10 s while its job runs: it asks again with backoff, logs that the
    queue does not answer and then that it answers again, and returns the finished job."""
    import logging

    from support.tcpcut import CuttableForwarder

    db = tmp_path / "pubs.db"
    init_store(db).close()
    log = tmp_path / "worker.log"
    with SyntheticServices(4, latency=0.3) as services, CuttableForwarder(6379) as forwarder:
        env = service_env(services)
        through = redis_url.replace("127.0.0.1:6379", f"127.0.0.1:{forwarder.port}")
        worker = start_worker(redis_url, str(db), env, log)  # the workers' way to Redis stays up
        outage = forwarder.outage_at(1, 10.0)

        try:
            with caplog.at_level(logging.WARNING, logger="pubfetch.distributed.submit"):
                job_id = submit(services.pmids(), str(db), through, batch_size=2)
                status = wait(job_id, through, progress=outage, timeout=180)
        finally:
            stop_process_groups([worker])
    assert (status.done, status.failed, status.summary.total) == (2, 0, 4)
    messages = [r.getMessage() for r in caplog.records]
    assert any("does not answer" in m for m in messages) and any("answers again" in m for m in messages), messages


@pytest.mark.slow
def test_a_submitter_whose_database_connection_is_ended_reads_the_results_anyway(tmp_path: Path, pg_url: str,
                                                                                  redis_url: str) -> None:
    """``-db-fetch PG --queue``: the server ends the submitter's database connection while the workers fetch (a restart,
    an idle timeout); the submitter reads the results through a new one and exits as the run deserves (1: the
    closed-access halves stay partial), not as if the job had failed."""
    import psycopg
    import redis

    init_store(pg_url).close()
    prefix = redis_url.split("prefix=", 1)[1]
    results = redis.Redis.from_url(redis_url.split("?")[0])
    with SyntheticServices(4, latency=0.0) as services:
        env = service_env(services)
        ids = tmp_path / "ids.txt"
        ids.write_text("\n".join(services.pmids()) + "\n", encoding="utf-8")
        submitter = subprocess.Popen([sys.executable, "-m", "pubfetch", "-pub-file", ids, "-db-fetch", pg_url,
                                      "--queue", redis_url, "--batch-size", "2", "-out-ids"], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        worker = None
        try:
            wait_until(lambda: list(results.scan_iter(match=f"{prefix}pubfetch-run:*")), 60, "the job to be sent")
            with psycopg.connect(pg_url, autocommit=True) as admin:
                ended = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                                      "current_database() AND pid <> pg_backend_pid()").fetchall()
            worker = start_worker(redis_url, pg_url, env, tmp_path / "worker.log")
            out, err = submitter.communicate(timeout=180)
        finally:
            if worker is not None:
                stop_process_groups([worker])
            if submitter.poll() is None:
                submitter.kill()
    assert ended  # the submitter's connection was there and was ended
    assert submitter.returncode == 0, err  # closed-access halves stay partial (none failed), as in a local run
    assert "pubfetch: 4 publications: 4 fetched, 0 skipped; 2 final, 2 partial, 0 failed" in err
    assert len(out.splitlines()) == 4


def test_a_failed_batch_stores_one_line_never_the_failures_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """A batch fails with an error whose text quotes a file (as an error reading a file may quote the line it could
    not read): what goes to the result backend (readable by the queue's writers) is a line of the task's own;
    the error itself stays in the worker's log."""
    import logging
    from types import SimpleNamespace

    from pubfetch.distributed.tasks import BatchFailed, WorkerSettings, fetch_batch
    from pubfetch.engine.assembly import FetchRun

    shadow = tmp_path / "shadow"
    shadow.write_text(SECRET + "\n", encoding="utf-8")
    db = tmp_path / "pubs.db"
    init_store(db).close()

    def fail_quoting_the_file(*args: object, **kwargs: object) -> None:
        raise ValueError(f"{shadow}:1: cannot read {shadow.read_text(encoding='utf-8').strip()!r}")

    monkeypatch.setattr(FetchRun, "fetch", fail_quoting_the_file)  # the run the task's batch is walked in
    task = SimpleNamespace(request=SimpleNamespace(id="t1", group=None, hostname="w@h"),
                           app=SimpleNamespace(conf=SimpleNamespace(pubfetch_worker=WorkerSettings(str(db)))))
    with caplog.at_level(logging.ERROR, logger="pubfetch.distributed.tasks"), pytest.raises(BatchFailed) as failed:
        fetch_batch(task, {"v": 1, "ids": [["30000000", "", ""]]})
    assert "SECRETHASH" in caplog.text  # the error quotes the file, and the worker's log has it ...
    assert str(failed.value) == "the batch failed on worker w@h; its log has the details"  # ... the result does not
    assert failed.value.__suppress_context__ and failed.value.__cause__ is None
