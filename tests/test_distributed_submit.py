"""Sending a run to the workers: the IDs split into tasks (never more than a task may carry), the job saved so that any
machine can follow or cancel it, a run sent again while queued followed instead of repeated. No worker takes these
jobs: what is tested is what the submitter sends and reads."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from pubfetch.distributed.message import MAX_IDS_PER_TASK
from pubfetch.distributed.submit import Job, cancel, fetch_many_queued, job_status, submit, wait
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import InvalidId, PublicationIds

pytest.importorskip("celery", reason='queued fetching needs celery (pip install ".[test]")')


def queued_messages(redis_url: str) -> list[dict]:
    """The batch messages waiting in the test's queue."""
    import redis

    prefix = redis_url.split("prefix=", 1)[1]
    queued = redis.Redis.from_url(redis_url.split("?")[0]).lrange(f"{prefix}{prefix}pubfetch", 0, -1)
    return [json.loads(base64.b64decode(json.loads(m)["body"]))[0][0] for m in queued]


def test_a_batch_size_over_the_task_cap_is_split(tmp_path: Path, redis_url: str) -> None:
    """``--queue --batch-size 200000`` sends tasks of at most MAX_IDS_PER_TASK IDs (no worker holds a giant batch)."""
    ids = [str(30_000_000 + k) for k in range(MAX_IDS_PER_TASK + 5)]
    job_id = submit(ids, str(tmp_path / "pubs.db"), redis_url, batch_size=200_000)
    assert sorted(len(message["ids"]) for message in queued_messages(redis_url)) == [5, MAX_IDS_PER_TASK]
    with Job(redis_url) as job:
        job.cancel(job_id)


def test_one_run_sent_twice_is_followed_not_repeated(tmp_path: Path, redis_url: str) -> None:
    """Two submitters of the same run (same database, IDs, batches, options) while it is queued: the second follows the
    first's job, so the workers fetch it once."""
    notes: list[str] = []
    ids = [str(30_000_000 + k) for k in range(5)]
    first = submit(ids, str(tmp_path / "pubs.db"), redis_url, batch_size=2)
    second = submit(ids, str(tmp_path / "pubs.db"), redis_url, batch_size=2, on_same_run=notes.append)
    other = submit(ids[:4], str(tmp_path / "pubs.db"), redis_url, batch_size=2)
    assert second == first and notes == [first]
    assert other != first
    with Job(redis_url) as job:
        job.cancel(first)
        job.cancel(other)
    # once cancelled (or finished), the same run sent again is a new job
    assert submit(ids, str(tmp_path / "pubs.db"), redis_url, batch_size=2) != first





def test_a_job_carries_its_database_batches_and_thresholds(tmp_path: Path, redis_url: str) -> None:
    ids = ["30000000", "PMC9000000", "10.5555/synth.3"]
    job_id = submit(ids, str(tmp_path / "pubs.db"), redis_url, batch_size=2, args=FetcherArgs(retry_limit=5),
                    parts=["title"], settings={"max_links": 2})
    messages = sorted(queued_messages(redis_url), key=lambda m: len(m["ids"]))
    assert [m["ids"] for m in messages] == [[["", "", "10.5555/SYNTH.3"]],
                                            [["30000000", "", ""], ["", "PMC9000000", ""]]]
    assert {(m["db"], m["batches"], json.dumps(m["args"]), json.dumps(m["parts"]), json.dumps(m["settings"]))
            for m in messages} == {(str(tmp_path / "pubs.db"), 2, '{"retry_limit": 5}', '["title"]', '{"max_links": 2}')}
    cancel(job_id, redis_url)


def test_a_submitted_job_can_be_followed_and_cancelled_from_its_id(tmp_path: Path, redis_url: str) -> None:
    job_id = submit([str(30_000_000 + k) for k in range(3)], str(tmp_path / "pubs.db"), redis_url, batch_size=1)
    status = job_status(job_id, redis_url)
    assert (status.batches, status.done, status.running, status.waiting, status.cancelled) == (3, 0, 0, 3, False)
    assert str(status).startswith(f"job {job_id}: running, 0 of 3 batches done, 0 running, 3 waiting; ")
    assert cancel(job_id, redis_url).cancelled
    assert job_status(job_id, redis_url).cancelled
    with pytest.raises(TimeoutError, match=f"job {job_id}: cancelled, 0 of 3 batches done"):
        wait(job_id, redis_url, timeout=0)


def test_following_a_job_reports_its_state_line(tmp_path: Path, redis_url: str) -> None:
    job_id = submit(["30000000"], str(tmp_path / "pubs.db"), redis_url)
    seen: list[str] = []
    with pytest.raises(TimeoutError):
        wait(job_id, redis_url, progress=lambda status: seen.append(str(status)), timeout=0)
    assert seen == [str(job_status(job_id, redis_url))]
    cancel(job_id, redis_url)


def test_an_invalid_id_is_refused_before_anything_is_sent(tmp_path: Path) -> None:
    with pytest.raises(InvalidId):
        list(fetch_many_queued(["30000000", "no such id"], tmp_path / "p.db", "redis://127.0.0.1:1/0",
                               errors="raise"))


def test_ids_a_worker_would_refuse_are_named_by_the_submitter(tmp_path: Path) -> None:
    """A PublicationIds with an invalid field is refused before any queue is asked (the queue here is unreachable),
    and fetch_many skips it with a warning as it skips an invalid string."""
    bad = PublicationIds("123", doi="not-a-doi")
    with pytest.raises(InvalidId, match="^invalid DOI 'not-a-doi'"):
        submit([PublicationIds("30000000"), bad], str(tmp_path / "p.db"), "redis://127.0.0.1:1/0")
    with pytest.raises(InvalidId):
        list(fetch_many_queued([bad], tmp_path / "p.db", "redis://127.0.0.1:1/0", errors="raise"))
