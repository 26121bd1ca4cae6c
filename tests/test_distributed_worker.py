"""``pubfetch worker``'s command line: its options, and a bad one refused with one line and status 2 before any
connection; a name chosen with ``--name`` is the worker's in ``-job-status`` and refused to a second worker while the
first runs, on a Redis queue and on a RabbitMQ one (real worker processes)."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import uuid
from pathlib import Path

import pytest

from pubfetch.distributed.app import GRACE_S, MIN_GRACE_S, RESULT_BACKEND_ENV
from pubfetch.distributed.worker import main, node_name, parser, shared_rate_db
from pubfetch.store import init_store, open_store
from support.procs import stop_process_groups
from support.pubfetch_processes import pubfetch_cmd, rabbitmq_queue, service_env, start_worker
from support.synthetic import SyntheticServices, hold_searches
from support.waits import wait_until

pytest.importorskip("celery", reason='the worker needs celery (pip install ".[test]")')


def test_options_and_their_defaults() -> None:
    opts = parser().parse_args(["--broker", "redis://127.0.0.1:6379/1", "--db", "p.db"])
    assert (opts.broker, opts.db, opts.rate_db, opts.grace_period, opts.allow_private_addresses, opts.name) == \
        ("redis://127.0.0.1:6379/1", "p.db", None, GRACE_S, False, None)
    assert (opts.pool, opts.concurrency) == ("threads", None)  # two batches at a time, as one process has in flight
    named = parser().parse_args(["--broker", "b", "--db", "d", "--hostname", "w1@%h", "--grace-period", "30"])
    assert (named.name, named.grace_period) == ("w1@%h", 30.0)


@pytest.mark.parametrize(("options", "message"), [
    (["--concurrency", "0"], "pubfetch: error: --concurrency must be at least 1\n"),
    (["--grace-period", "2"], f"pubfetch: error: --grace-period must be at least {MIN_GRACE_S:.0f} s (workers renew "
                              "their batches every quarter of it)\n"),
])  # fmt: skip
def test_a_bad_option_is_one_line_and_status_2(options: list[str], message: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--broker", "redis://127.0.0.1:1/0", "--db", "p.db", *options]) == 2
    assert capsys.readouterr().err == message


def test_a_rabbitmq_queue_without_a_results_redis_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv(RESULT_BACKEND_ENV, raising=False)
    assert main(["--broker", "amqp://guest:guest@127.0.0.1:1//", "--db", "p.db"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pubfetch: error: a queue at amqp://127.0.0.1:1// needs a Redis for the job's results")
    assert err.count("\n") == 1 and "guest:guest" not in err


def test_a_name_that_cannot_be_claimed_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--broker", "redis://:pw@127.0.0.1:1/0", "--db", "p.db", "--name", "w1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pubfetch: error: cannot reach the results' Redis redis://127.0.0.1:1/0 to claim the name "
                          f"w1@{socket.gethostname()} (")
    assert err.count("\n") == 1 and "pw" not in err


def test_broker_and_database_are_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--db", "p.db"])
    assert info.value.code == 2
    assert "--broker" in capsys.readouterr().err


def test_a_name_without_host_gets_this_machines() -> None:
    host = socket.gethostname()
    assert node_name("fetcher1") == f"fetcher1@{host}"
    assert (node_name("fetcher1@%h"), node_name("a@node7")) == (f"fetcher1@{host}", "a@node7")


def test_rate_limits_are_shared_in_the_clusters_redis_by_default() -> None:
    """With a RabbitMQ queue the results' Redis (which it needs anyway) keeps the limits: machines added to the
    cluster share them without a --rate-db of their own."""
    redis_q, results = "redis://q:6379/0", "redis://r:6379/1"
    assert shared_rate_db(None, redis_q, redis_q) == redis_q
    assert shared_rate_db(None, "amqp://guest:guest@mq//", results) == results
    assert shared_rate_db("/var/lib/pubfetch/rates.sqlite", redis_q, redis_q) == "/var/lib/pubfetch/rates.sqlite"


def _ready(log: Path, proc: subprocess.Popen[bytes]) -> bool:
    assert proc.poll() is None, log.read_text(errors="replace")
    return "ready" in log.read_text(errors="replace")


@pytest.mark.slow
@pytest.mark.parametrize("queue", ["redis", "rabbitmq"])
def test_a_named_worker_is_known_by_its_name_and_the_name_is_its_own(queue: str, tmp_path: Path, redis_url: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``--name NAME``: the batches it holds are shown as held by NAME@HOST; a second worker started under that name
    while the first runs exits with one line and status 2 (on RabbitMQ it used to die of Celery's locked control
    queue); once the first has stopped, the name can be used again at once."""
    from pubfetch.distributed.jobstatus import Job
    from pubfetch.distributed.liveness import holdings
    from pubfetch.distributed.submit import submit, wait

    monkeypatch.setenv(RESULT_BACKEND_ENV, redis_url)
    name = f"fetcher-{uuid.uuid4().hex[:8]}"
    full = f"{name}@{socket.gethostname()}"
    db = str(tmp_path / "pubs.db")
    init_store(db).close()
    with contextlib.ExitStack() as stack:
        broker = redis_url if queue == "redis" else stack.enter_context(rabbitmq_queue(redis_url))
        services = stack.enter_context(SyntheticServices(4, latency=0.0))
        env = service_env(services, PUBFETCH_RESULT_BACKEND=redis_url)
        first_log, again_log = tmp_path / "first.log", tmp_path / "again.log"
        first = start_worker(broker, db, env, first_log, "--name", name)
        try:
            wait_until(lambda: _ready(first_log, first), 90, "the named worker to be ready")
            second = subprocess.run(pubfetch_cmd("worker", "--broker", broker, "--db", db, "--name", f"{name}@%h"),
                                    env=env, capture_output=True, text=True, timeout=120)
            job_id = submit(services.pmids(), db, broker, batch_size=2)
            status = wait(job_id, broker, timeout=120)
            with Job(broker) as job:
                _, held, _ = holdings(job.results, job.prefix, job_id)
        finally:
            stop_process_groups([first])
        again = start_worker(broker, db, env, again_log, "--name", name)
        try:
            wait_until(lambda: _ready(again_log, again), 90, "a worker of the freed name to be ready")
        finally:
            stop_process_groups([again])
    assert second.returncode == 2, second.stderr
    assert second.stderr.startswith(f"pubfetch: error: a worker named {full} is already running on this queue: ")
    assert second.stderr.count("\n") == 1 and "Traceback" not in second.stderr
    assert (status.done, status.failed) == (2, 0)
    assert len(held) == 2 and {h.worker for h in held.values()} == {full}


@pytest.mark.slow
def test_ctrl_c_twice_ends_a_threads_worker_and_its_batch_goes_to_another(tmp_path: Path, redis_url: str) -> None:
    """Threads cannot be killed, so Celery's cold shutdown would wait for the batch in hand (here, one that never
    ends) and log its pool's failure: a second Ctrl-C ends the worker at once with one line, and its batch, never
    acknowledged, is fetched by another worker after the grace period and stored once."""
    from pubfetch.distributed.submit import submit, wait

    db = str(tmp_path / "pubs.db")
    init_store(db).close()
    with SyntheticServices(4, latency=0.0) as services:
        searching, release = hold_searches(services)
        env = service_env(services)
        first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
        first = start_worker(redis_url, db, env, first_log, "--grace-period", f"{MIN_GRACE_S:.0f}")
        second = None
        try:
            job_id = submit(services.pmids(), db, redis_url, batch_size=4)
            assert searching.wait(120), first_log.read_text(errors="replace")

            def interrupted() -> bool:  # the first SIGINT asks for a warm shutdown, a later one for a cold one
                if first.poll() is None:
                    first.send_signal(signal.SIGINT)
                return first.poll() is not None

            wait_until(interrupted, 120, "the worker to end after Ctrl-C twice", every_s=0.5)
            release.set()
            second = start_worker(redis_url, db, env, second_log, "--grace-period", f"{MIN_GRACE_S:.0f}")
            status = wait(job_id, redis_url, timeout=180)
        finally:
            release.set()
            stop_process_groups([p for p in (first, second) if p is not None])
    output = first_log.read_text(errors="replace")
    assert first.returncode != 0
    assert "pubfetch worker: stopped by " in output and "the batches it held go back to the queue" in output, \
        output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    assert (status.done, status.failed, status.summary.total) == (1, 0, 4)
    with open_store(db, readonly=True) as store:
        assert store.publications_size() == 4
