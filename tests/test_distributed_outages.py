"""The red team's cluster faults that are not about a message (issue 28), with real ``pubfetch worker`` processes:
the worker's way to the shared rate limits' Redis cut for 10 s while it fetches, and two submitters of one run at the
same moment. The submitter's own outages are in test_distributed_messages.py."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from pubfetch.distributed.submit import submit, wait
from pubfetch.store import init_store, open_store
from support.procs import stop_process_groups
from support.pubfetch_processes import service_env, start_worker
from support.synthetic import SyntheticServices, per_publication
from support.tcpcut import CuttableForwarder

pytest.importorskip("celery", reason='Celery workers need celery (pip install ".[test]")')


@pytest.mark.slow
def test_a_worker_rides_out_a_10_s_outage_of_its_rate_limits_redis(tmp_path: Path, redis_url: str) -> None:
    """The worker's shared rate limits (``--rate-db``, by default the broker's Redis) stop answering for 10 s while
    it fetches a job: its requests wait for the limiter to answer again instead of each failing as "rate limit:
    Connection refused" (every publication asked during the outage ended with a fetch exception). The job ends as a
    healthy one does, and the worker's log says when the outage started and when it ended."""
    db = tmp_path / "pubs.db"
    init_store(db).close()
    log = tmp_path / "worker.log"
    with SyntheticServices(9, latency=0.2) as services, CuttableForwarder(6379) as forwarder:
        env = service_env(services)
        rate_db = redis_url.replace("127.0.0.1:6379", f"127.0.0.1:{forwarder.port}")
        worker = start_worker(redis_url, str(db), env, log, "--rate-db", rate_db)  # the queue itself stays up
        pmids = services.pmids()
        try:
            # a first job opens the worker's limiter (opening fails at once, as a database's does)
            first = wait(submit(pmids[:1], str(db), redis_url, batch_size=1), redis_url, timeout=120)
            assert (first.done, first.failed) == (1, 0)
            forwarder.cut()
            threading.Timer(10.0, forwarder.restore).start()
            status = wait(submit(pmids[1:], str(db), redis_url, batch_size=2), redis_url, timeout=240)
        finally:
            stop_process_groups([worker])
    summary = status.summary
    assert (status.done, status.failed) == (4, 0)
    assert (summary.total, summary.fetch_exception, summary.failed) == (8, 0, 0), summary
    assert summary.final == 4  # the open-access half; the closed-access half has no full text, as in a healthy run
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "rate limits' Redis" in text and "answers again" in text, text[-3000:]
    with open_store(db) as store:
        assert store.publications_size() == 9


def test_two_submitters_of_one_run_at_once_make_one_job(tmp_path: Path, redis_url: str) -> None:
    """Two submitters send the same run at the same moment (the red team's two submitters did 40 % more requests):
    both follow one job, and the workers ask each once-per-publication service as often as for one submitter."""
    db = tmp_path / "pubs.db"
    init_store(db).close()
    with SyntheticServices(6, latency=0.0) as services:
        env = service_env(services)
        pmids = services.pmids()
        start = threading.Barrier(2)
        jobs: list[str] = []

        def submitter() -> None:
            start.wait()
            jobs.append(submit(pmids, str(db), redis_url, batch_size=2))

        threads = [threading.Thread(target=submitter) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        worker = start_worker(redis_url, str(db), env, tmp_path / "worker.log")
        try:
            statuses = [wait(job, redis_url, timeout=120) for job in jobs]
        finally:
            stop_process_groups([worker])
        counts = per_publication(services.counts)
    assert len(jobs) == 2 and jobs[0] == jobs[1]
    assert [(s.batches, s.done, s.failed) for s in statuses] == [(3, 3, 0)] * 2
    # as one job asks: the open-access half's full texts, doi.org and Unpaywall for the closed-access half, once each
    assert counts == {"europepmc_fulltext": 3, "doi": 3, "unpaywall": 3}, counts


@pytest.mark.slow
def test_a_worker_rides_out_a_10_s_outage_of_its_queue(tmp_path: Path, redis_url: str) -> None:
    """The worker's whole way to Redis (queue, results, rate limits) is cut for 10 s while it fetches a job: the
    batches it holds finish, their results are stored when Redis answers again, and the job ends as a healthy one."""
    db = tmp_path / "pubs.db"
    init_store(db).close()
    log = tmp_path / "worker.log"
    with SyntheticServices(9, latency=0.2) as services, CuttableForwarder(6379) as forwarder:
        env = service_env(services)
        through = redis_url.replace("127.0.0.1:6379", f"127.0.0.1:{forwarder.port}")
        worker = start_worker(through, str(db), env, log)
        pmids = services.pmids()
        try:
            first = wait(submit(pmids[:1], str(db), redis_url, batch_size=1), redis_url, timeout=120)
            assert (first.done, first.failed) == (1, 0)
            outage = forwarder.outage_at(2, 10.0)

            status = wait(submit(pmids[1:], str(db), redis_url, batch_size=2), redis_url, progress=outage,
                          poll=0.5, timeout=240)
        finally:
            stop_process_groups([worker])
    summary = status.summary
    assert (status.done, status.failed) == (4, 0), (status.failures, log.read_text(errors="replace")[-4000:])
    assert (summary.total, summary.fetch_exception, summary.failed) == (8, 0, 0), summary
    with open_store(db) as store:
        assert store.publications_size() == 9
