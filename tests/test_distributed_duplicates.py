"""A batch delivered twice loses no count and adds none. A job of two batches: the first meets services that all fail,
so its publication is left to the job's retry; the second, the last to finish, retries it. Then one of the two is
delivered again (a lost worker, or the strays sweeper): its new result replaces its first, and the job's summary
still counts each publication once. The red team's job summaries said 39 of 40 and 119 of 120 after such runs: the
retry's count lived in the retrying task's result, which its second delivery replaced without it."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pubfetch.distributed.jobstatus import Job
from pubfetch.distributed.strays import messages_key
from pubfetch.distributed.submit import submit
from pubfetch.distributed.tasks import WorkerSettings, fetch_batch
from pubfetch.engine.summary import BatchSummary
from pubfetch.net.ratelimit_redis import split_prefix
from pubfetch.store import init_db
from support.synthetic import SyntheticServices

pytest.importorskip("celery", reason='queued jobs need celery (pip install ".[test]")')

ALL_SERVICES = {"europepmc_search", "europepmc_fulltext", "annotations", "ncbi", "doi", "unpaywall"}


class Delivery:
    """The job's batches as a worker runs them, in this process: each delivery's result written where a worker
    writes it (a later delivery of a batch replaces the earlier one's)."""

    def __init__(self, job: Job, job_id: str, db: Path, redis_url: str, tmp_path: Path) -> None:
        self.job, self.job_id = job, job_id
        group = job.app.GroupResult.restore(job_id)
        self.tasks = [str(t.id) for t in group.results]
        job.release(group)
        raw = job.results.hgetall(job.prefix + messages_key(job_id))
        self.messages = {k.decode(): json.loads(v) for k, v in raw.items()}
        worker = WorkerSettings(str(db), str(tmp_path / "rates.sqlite"), allow_private_addresses=True)
        self.conf = SimpleNamespace(pubfetch_worker=worker, result_expires=600, result_backend=redis_url,
                                    result_backend_transport_options={"global_keyprefix": split_prefix(redis_url)[1]})

    def run(self, number: int) -> dict[str, Any]:
        task_id = self.tasks[number - 1]
        task = SimpleNamespace(request=SimpleNamespace(id=task_id, group=self.job_id, hostname="w@h"),
                               app=SimpleNamespace(conf=self.conf))
        counts = fetch_batch(task, self.messages[task_id])
        self.job.app.backend.store_result(task_id, counts, "SUCCESS")
        return counts


def _summary(redis_url: str, job_id: str) -> BatchSummary:
    """The job's summary as -job-status reads it, in a process of its own (Celery keeps a result it has read once)."""
    with Job(redis_url) as job:
        return job.status(job_id).summary


@pytest.mark.services(2)
def test_a_duplicate_that_takes_the_retry_keeps_its_count(services: SyntheticServices, tmp_path: Path,
                                                          redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batch 1's first delivery leaves its publication to the retry (every service failing) and stores its result.
    Batch 2 records that it has finished; before it takes the retry, batch 1's second delivery finishes, sees every
    batch finished and takes the retry itself. Its result is dropped (the result backend keeps a batch's first), so
    the retried publication was counted nowhere: the job said 1 of 2."""
    from pubfetch.distributed.jobretry import JobRetry

    db = tmp_path / "worker.db"
    init_db(db).close()
    job_id = submit(services.pmids(), str(db), redis_url, batch_size=1)
    with Job(redis_url) as job:
        batches = Delivery(job, job_id, db, redis_url, tmp_path)
        services.failing.update(ALL_SERVICES)
        services.failing_retry_after = "0"  # no waits between the failed attempts
        assert batches.run(1)["total"] == 0  # left to the job's retry
        services.failing.clear()
        finish = JobRetry.finish
        second_delivery: list[dict[str, Any]] = []

        def batch_1_again_meanwhile(retry: JobRetry) -> bool:
            if retry.task == batches.tasks[1] and not second_delivery:
                retry.client.sadd(retry.finished_key, retry.task)  # batch 2 has recorded its finish ...
                second_delivery.append(batches.run(1))  # ... and batch 1's second delivery ends meanwhile
            return finish(retry)

        monkeypatch.setattr(JobRetry, "finish", batch_1_again_meanwhile)
        batches.run(2)
    assert second_delivery
    summary = _summary(redis_url, job_id)
    assert (summary.total, summary.failed) == (2, 0), summary.line()


@pytest.mark.services(2)
def test_a_duplicate_that_fails_where_the_first_delivery_counted_adds_nothing(
        services: SyntheticServices, tmp_path: Path, redis_url: str) -> None:
    """Batch 1's first delivery counts its (partial) publication and stores its result. Its second delivery, with
    every service failing, would leave the publication to the job's retry, which batch 2 then does: counted by the
    first result and again by the retry, the job said 3 of 2."""
    from pubfetch.fetcher_args import FetcherArgs

    db = tmp_path / "worker.db"
    init_db(db).close()
    partial, final = services.pmids()[1], services.pmids()[0]  # closed access: fetched again at once (no cooldown)
    job_id = submit([partial, final], str(db), redis_url, batch_size=1, args=FetcherArgs(non_final_cooldown=0))
    with Job(redis_url) as job:
        batches = Delivery(job, job_id, db, redis_url, tmp_path)
        assert batches.run(1)["total"] == 1
        services.failing.update(ALL_SERVICES)
        services.failing_retry_after = "0"  # no waits between the failed attempts
        batches.run(1)
        services.failing.clear()
        batches.run(2)
    summary = _summary(redis_url, job_id)
    assert summary.total == 2, summary.line()
