"""The exit status of a queued job's state, the same for ``-job-status`` (after ``--detach``) and for a submitter that
waited: 0 done, 3 done with failed batches or failed publications, 130 cancelled, 4 still running. The batches'
outcomes are written into the job's results as a worker writes them, the moment each batch is sent (no worker runs)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pubfetch.cli.errors import EXIT_JOB_CANCELLED, EXIT_JOB_RUNNING, EXIT_OK, EXIT_SOME_FAILED
from pubfetch.engine.summary import BatchSummary
from pubfetch.textutil import counted
from support.cli import Cli
from support.queue_sends import HeldSends

pytest.importorskip("celery", reason='queued jobs need celery (pip install ".[test]")')

IDS = ("30000000", "30000001")


def _counts(final: int, failed: int) -> dict[str, Any]:
    from pubfetch.distributed.tasks import encode_summary

    total = final + failed
    return encode_summary(BatchSummary(total=total, fetched=total, final=final, not_final=failed, failed=failed,
                                       empty=failed))


@pytest.fixture
def backend(redis_url: str) -> Iterator[Any]:
    """The result backend of the test's queue, where a worker writes how each batch ended."""
    from pubfetch.distributed.app import make_app

    app = make_app(redis_url)
    try:
        yield app.backend
    finally:
        app.close()


def _ended(backend: Any, outcomes: list[str]) -> Callable[[dict[str, Any]], None]:
    """Called with each task message as it is sent: writes that batch's outcome ("done", "failed publication",
    "failed")."""
    from pubfetch.distributed.tasks import BatchFailed

    left = iter(outcomes)

    def end(headers: dict[str, Any]) -> None:
        task_id, outcome = headers["id"], next(left)
        if outcome == "failed":
            backend.store_result(task_id, BatchFailed("the batch failed on worker w@h; its log has the details"),
                                 "FAILURE")
        else:
            backend.store_result(task_id, _counts(*((0, 1) if outcome == "failed publication" else (1, 0))),
                                 "SUCCESS")

    return end


@pytest.mark.parametrize(("outcomes", "code"), [
    (["done", "done"], EXIT_OK),
    (["done", "failed"], EXIT_SOME_FAILED),
    (["failed", "failed"], EXIT_SOME_FAILED),
    (["done", "failed publication"], EXIT_SOME_FAILED),
])
def test_job_status_after_detach(env: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, redis_url: str,
                                 backend: Any, outcomes: list[str], code: int) -> None:
    HeldSends(monkeypatch, seen=_ended(backend, outcomes))
    sent, out, lines = cli.lines("-pub", *IDS, "-db-fetch-end", env / "pubs.db", "--queue", redis_url,
                                 "--batch-size", "1", "--detach")
    assert sent == 0, lines  # a detached submitter returns before the job ends
    job = out.strip()
    status, report, _ = cli("-job-status", job, "--queue", redis_url)
    assert status == code, report
    done = len(outcomes) - outcomes.count("failed")
    assert report.startswith(f"job {job}: finished, {done} of 2 batches done")


@pytest.mark.parametrize(("outcomes", "code"), [
    (["done", "done"], EXIT_OK),
    (["done", "failed"], EXIT_SOME_FAILED),
    (["failed", "failed"], EXIT_SOME_FAILED),
])
def test_a_waiting_submitter_exits_as_job_status_does(env: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch,
                                                      redis_url: str, backend: Any, outcomes: list[str],
                                                      code: int) -> None:
    HeldSends(monkeypatch, seen=_ended(backend, outcomes))
    status, _, lines = cli.lines("-pub", *IDS, "-db-fetch-end", env / "pubs.db", "--queue", redis_url,
                                 "--batch-size", "1")
    assert status == code, lines
    failed = outcomes.count("failed")
    if failed:  # the reason once, saying where to look; no advice after it repeating that
        reasons = [line for line in lines if "failed: " in line]
        assert reasons == [f"  {counted(failed, 'batch', 'batches')} failed: the batch failed on worker w@h; its log "
                           "has the details"], lines
        assert not any("see the workers' logs" in line for line in lines), lines
    assert lines[-1] == f"pubfetch: {counted(2 - failed, 'publication')}: {2 - failed} fetched, 0 skipped; " \
                        f"{2 - failed} final, 0 partial, 0 failed"


def test_a_running_job_and_a_cancelled_one(env: Path, cli: Cli, redis_url: str) -> None:
    _, out, lines = cli.lines("-pub", *IDS, "-db-fetch-end", env / "pubs.db", "--queue", redis_url, "--detach")
    job = out.strip()
    status, report, _ = cli("-job-status", job, "--queue", redis_url)
    assert status == EXIT_JOB_RUNNING and report.startswith(f"job {job}: running, 0 of 1 batch done"), report
    assert cli("-job-cancel", job, "--queue", redis_url).code == EXIT_OK
    status, report, _ = cli("-job-status", job, "--queue", redis_url)
    assert status == EXIT_JOB_CANCELLED and report.startswith(f"job {job}: cancelled, 0 of 1 batch done"), report


def test_a_submitter_waiting_for_a_job_cancelled_meanwhile(env: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch,
                                                           redis_url: str, backend: Any) -> None:
    """The job is cancelled as its first batch is sent; every batch is then refused by the worker that takes it."""
    from pubfetch.distributed.submit import cancel
    from pubfetch.distributed.tasks import BatchRefused

    def cancelled(headers: dict[str, Any]) -> None:
        if not backend.client.keys("*cancelled*"):
            cancel(headers["group"], redis_url)
        backend.store_result(headers["id"], BatchRefused("the job was cancelled"), "FAILURE")

    HeldSends(monkeypatch, seen=cancelled)
    status, _, lines = cli.lines("-pub", *IDS, "-db-fetch-end", env / "pubs.db", "--queue", redis_url,
                                 "--batch-size", "1")
    assert status == EXIT_JOB_CANCELLED, lines
    assert "2 batches failed: the job was cancelled" in "\n".join(lines)
