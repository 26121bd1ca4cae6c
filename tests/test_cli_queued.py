"""``--queue``: the pipeline's publication fetch sent to the workers (``--detach`` prints the job id), and
``-job-status`` / ``-job-cancel``; a missing or unreachable queue is one usage error. No worker takes these jobs."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.cli.errors import UsageError
from pubfetch.cli.fetching import open_session
from pubfetch.cli.queued import _progress, fetch_step, job_cancel, job_status
from pubfetch.ids import PublicationIds
from support.cli import Cli

pytest.importorskip("celery", reason='queued fetching needs celery (pip install ".[test]")')

UNREACHABLE = "redis://127.0.0.1:1/0"


@pytest.mark.parametrize(("operation", "name"), [(job_status, "-job-status"), (job_cancel, "-job-cancel")])
def test_job_operations_need_the_queue(operation, name: str) -> None:  # noqa: ANN001 - either operation
    with pytest.raises(UsageError, match=f"^{name} needs the --queue the job was sent to$"):
        operation("some-job", None)
    with pytest.raises(UsageError, match="^cannot reach the queue redis://127.0.0.1:1/0: "):
        operation("some-job", "redis://user:pw@127.0.0.1:1/0")


def test_a_detached_fetch_prints_its_job_which_can_be_followed_and_cancelled(
        env: Path, redis_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    ids = [PublicationIds("30000000"), PublicationIds("30000001")]
    with open_session({"no-rate-limit": True}, {}) as sess:
        fetch_step(ids, str(env / "pubs.db"), redis_url, sess, batch_size=1, parts=None, detach=True, progress=False)
        assert not sess.fetched_publications  # nothing was fetched here: the summary stays out
    job = capsys.readouterr().out.strip()
    assert job
    status, code = job_status(job, redis_url)
    assert code == 4
    assert status.startswith(f"job {job}: running, 0 of 2 batches done, 0 running, 2 waiting; ")
    assert status.splitlines()[1:] == ["  batch 1: waiting", "  batch 2: waiting"]
    assert job_cancel(job, redis_url) == (f"job {job} cancelled: 2 waiting batches will be refused by the workers "
                                          "that take them, 0 running ones finish")


def test_the_same_run_sent_again_is_followed(env: Path, redis_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    ids = [PublicationIds("30000000")]
    with open_session({"no-rate-limit": True}, {}) as sess:
        fetch_step(ids, str(env / "pubs.db"), redis_url, sess, batch_size=None, parts=None, detach=True,
                   progress=False)
        fetch_step(ids, str(env / "pubs.db"), redis_url, sess, batch_size=None, parts=None, detach=True,
                   progress=False)
    captured = capsys.readouterr()
    first, second = captured.out.split()
    assert first == second
    assert captured.err == (f"pubfetch: the same run is already queued as job {first}: following it instead of "
                            "sending it again\n")
    job_cancel(first, redis_url)


def test_an_unreachable_queue_stops_the_command_with_one_line(env: Path, cli: Cli) -> None:
    code, _, lines = cli.lines("-pub", "30000000", "-db-fetch", env / "pubs.db", "--queue", UNREACHABLE)
    assert code == 2
    errors = [line for line in lines if "error" in line]
    assert len(errors) == 1 and errors[0].startswith(f"pubfetch: error: cannot reach the queue {UNREACHABLE}: ")


def test_the_submitters_progress_names_the_workers(capsys: pytest.CaptureFixture[str]) -> None:
    from pubfetch.distributed.jobstatus import BatchState, JobStatus
    from pubfetch.distributed.liveness import Holding

    status = JobStatus("J", 2, running=1, now=100.0)
    status.open_batches = [BatchState(1, "running", Holding("t1", "w@h", 88.0, 99.0)), BatchState(2, "waiting")]
    _progress(status)
    assert capsys.readouterr().err == f"pubfetch: {status}\n  w@h: batch 1 for 12 s\n"


def test_a_batch_size_of_200000_sends_tasks_of_at_most_the_task_cap(env: Path, redis_url: str, cli: Cli) -> None:
    """``--queue --batch-size 200000`` (the red team's one giant task: 1.5 GB of worker RSS, and past the grace period a
    second worker on it too): 1,005 IDs go as a task of 1,000 and one of 5."""
    from pubfetch.distributed.message import MAX_IDS_PER_TASK

    ids = env / "ids.txt"
    ids.write_text("".join(f"{30_000_000 + k}\n" for k in range(MAX_IDS_PER_TASK + 5)), encoding="utf-8")
    code, out, lines = cli.lines("-pub-file", ids, "-db-fetch", env / "pubs.db", "--queue", redis_url,
                                 "--batch-size", "200000", "--detach")
    assert code == 0, lines
    job = out.strip()
    assert job_status(job, redis_url)[0].startswith(f"job {job}: running, 0 of 2 batches done, 0 running, 2 waiting; ")
    job_cancel(job, redis_url)
