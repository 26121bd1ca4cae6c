"""Where a queued job is: one line for the job and one per batch not done, from any machine that reaches the queue's
results; an unreachable queue or an unknown job is one message."""

from __future__ import annotations

from collections import Counter

import pytest

from pubfetch.distributed.jobstatus import BatchState, Job, JobStatus, QueueError
from pubfetch.distributed.liveness import Holding
from pubfetch.engine.summary import BatchSummary

pytest.importorskip("celery", reason='queued jobs need celery (pip install ".[test]")')


def test_job_status_report_lines() -> None:
    """-job-status: one line for the job, one per batch not done (running first: which worker, for how long; then
    waiting, naming a worker that went silent), one per failure reason."""
    now = 10_000.0
    status = JobStatus("J", 6, done=2, failed=1, running=2, redone=1, now=now, failures=Counter({"the job was "
                                                                                                  "cancelled": 1}))
    status.open_batches = [
        BatchState(5, "waiting", Holding("t5", "pubfetch-12@a", now - 300, now - 75, 60.0)),
        BatchState(4, "running", Holding("t4", "pubfetch-34@b", now - 130, now - 2, 60.0), redone=1),
        BatchState(3, "running", Holding("t3", "pubfetch-12@a", now - 12, now - 1, 60.0)),
    ]
    assert status.report().splitlines() == [
        "job J: running, 2 of 6 batches done, 2 running, 1 waiting, 1 failed, 1 given again after a lost worker; "
        + status.summary.line(),
        "  batch 3: running on pubfetch-12@a for 12 s",
        "  batch 4: running on pubfetch-34@b for 2 min 10 s, given again 1 time after a lost worker",
        "  batch 5: waiting, pubfetch-12@a went silent 75 s ago",
        "  1 batch failed: the job was cancelled",
    ]


def test_counts_of_one_are_singular() -> None:
    status = JobStatus("J", 1, failed=1, failures=Counter({"the job was cancelled": 1}))
    status.summary.total = status.summary.fetched = status.summary.final = 1
    assert status.report().splitlines() == [
        "job J: finished, 0 of 1 batch done, 1 failed; 1 publication: 1 fetched, 0 skipped; 1 final, 0 partial, "
        "0 failed",
        "  1 batch failed: the job was cancelled",
    ]



def test_a_submitter_shows_each_workers_batches_and_the_silent_ones() -> None:
    """While it waits: the state line, one line per worker with its running batches and for how long, one per batch
    whose worker went silent; beyond ``most`` workers, where to see the rest."""
    now = 10_000.0
    status = JobStatus("J", 5, done=1, running=3, now=now)
    status.open_batches = [
        BatchState(5, "waiting"),
        BatchState(4, "waiting", Holding("t4", "pubfetch-9@c", now - 90, now - 70, 60.0)),
        BatchState(3, "running", Holding("t3", "pubfetch-34@b", now - 5, now - 1, 60.0), redone=1),
        BatchState(2, "running", Holding("t2", "pubfetch-12@a", now - 40, now - 2, 60.0)),
        BatchState(1, "running", Holding("t1", "pubfetch-12@a", now - 3, now - 2, 60.0)),
    ]
    assert status.progress().splitlines() == [
        str(status),
        "  pubfetch-12@a: batch 1 for 3 s, batch 2 for 40 s",
        "  pubfetch-34@b: batch 3 for 5 s",
        "  batch 4: waiting, pubfetch-9@c went silent 70 s ago",
    ]
    assert status.progress(most=1).splitlines()[1:3] == [
        "  pubfetch-12@a: batch 1 for 3 s, batch 2 for 40 s",
        "  and 1 more workers: pubfetch -job-status J --queue URL"]


def test_a_finished_job_says_so_without_running_or_waiting_counts() -> None:
    status = JobStatus("J", 2, done=2, summary=BatchSummary(total=4, fetched=4, final=4))
    assert status.finished and status.waiting == 0
    assert str(status) == "job J: finished, 2 of 2 batches done; 4 publications: 4 fetched, 0 skipped; 4 final, " \
                          "0 partial, 0 failed"
    assert status.report() == str(status)


def test_a_cancelled_job_and_its_waiting_batches() -> None:
    status = JobStatus("J", 3, done=1, cancelled=True)
    status.open_batches = [BatchState(3, "waiting", redone=2), BatchState(2, "waiting")]
    assert str(status).startswith("job J: cancelled, 1 of 3 batches done, 0 running, 2 waiting; ")
    assert status.report().splitlines()[1:] == ["  batch 2: waiting",
                                                "  batch 3: waiting, given again 2 times after a lost worker"]


def test_long_durations_are_in_hours_and_minutes() -> None:
    now = 100_000.0
    batch = BatchState(1, "running", Holding("t", "w@h", now - 3 * 3600 - 125, now, 60.0))
    assert batch.line(now) == "batch 1: running on w@h for 3 h 2 min"


def test_an_unreachable_queue_is_one_message() -> None:
    with pytest.raises(QueueError) as info:
        Job("redis://user:pw@127.0.0.1:1/0")
    message = str(info.value)
    assert message.startswith("cannot reach the queue redis://127.0.0.1:1/0: ")
    assert "\n" not in message and "pw" not in message


def test_an_unknown_job_is_one_message(redis_url: str) -> None:
    with Job(redis_url) as job, pytest.raises(QueueError, match="no job nosuchjob in the results of "):
        job.status("nosuchjob")
