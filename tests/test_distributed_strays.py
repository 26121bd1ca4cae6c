"""A batch taken off a Redis queue by a worker that died before recording it as unacknowledged is nowhere (not queued,
not unacknowledged, never done): once the queue is empty, the workers send it again, and its job ends. The loss is
made here as it happens (the message popped off the queue and dropped), so no kill has to land in the window."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pubfetch.distributed.app import make_app
from pubfetch.distributed.jobstatus import Job
from pubfetch.distributed.liveness import connect
from pubfetch.distributed.strays import Sweeper, open_jobs_key, queue_id
from pubfetch.distributed.submit import submit, wait
from pubfetch.net.ratelimit_redis import split_prefix
from pubfetch.store import init_store, open_store
from support.procs import stop_process_groups
from support.pubfetch_processes import service_env, start_worker
from support.synthetic import SyntheticServices

pytest.importorskip("celery", reason='queued jobs need celery (pip install ".[test]")')


class Queue:
    """The test's Redis queue as kombu keeps it: pop a message as a worker does (and lose it), or hold it as a live
    worker does (unacknowledged)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.app = make_app(url)
        self.conn = self.app.connection_for_write()
        self.channel = self.conn.default_channel
        self.name = self.app.conf.task_default_queue
        self.raw, self.prefix = connect(url), split_prefix(url)[1]

    def pop(self) -> dict[str, Any]:
        return json.loads(self.channel.client.rpop(self.name))

    def hold(self, payload: dict[str, Any]) -> None:
        self.raw.hset(self.prefix + "unacked", payload["properties"]["delivery_tag"],
                      json.dumps([payload, "", self.name]))

    def size(self) -> int:
        return int(self.channel._size(self.name))

    def sweeper(self, results: str | None = None) -> Sweeper:
        """A sweeper of this queue (results in the queue's Redis, or ``results``) whose every call is a round of its
        own (the lock of the round before has expired)."""
        app = make_app(self.url, results) if results else self.app
        client, prefix = (connect(results), split_prefix(results)[1]) if results else (self.raw, self.prefix)
        sweeper = Sweeper(app, (self.raw, self.prefix), (client, prefix), 1.0)
        sweep = sweeper.sweep

        def round_() -> list[str]:
            client.delete(prefix + "pubfetch-sweep")
            return sweep()

        sweeper.sweep = round_  # type: ignore[method-assign]
        return sweeper

    def close(self) -> None:
        self.conn.close()
        self.raw.close()
        self.app.close()


def test_a_lost_batch_is_sent_again_once_the_queue_is_empty_and_seen_lost_twice(tmp_path: Path,
                                                                                 redis_url: str) -> None:
    job_id = submit(["30000000", "30000001", "30000002"], str(tmp_path / "pubs.db"), redis_url, batch_size=1)
    queue = Queue(redis_url)
    try:
        sweeper = Sweeper(queue.app, (queue.raw, queue.prefix), (queue.raw, queue.prefix), 1.0)

        def round_() -> list[str]:
            queue.raw.delete(queue.prefix + "pubfetch-sweep")  # the lock of the round before has expired
            return sweeper.sweep()

        lost = queue.pop()["headers"]["id"]
        assert round_() == []  # two batches still queued: the missing one may be among them for all it knows
        held = queue.pop()
        queue.hold(held)  # taken by a live worker
        other = queue.pop()["headers"]["id"]
        assert queue.size() == 0
        assert round_() == []  # seen missing once: it may be in a worker's hands for a moment
        assert sorted(round_()) == sorted([lost, other])
        assert queue.size() == 2 and {queue.pop()["headers"]["id"] for _ in range(2)} == {lost, other}
        with Job(redis_url) as job:
            status = job.status(job_id)
        assert status.redone == 2
        for task in (lost, other, held["headers"]["id"]):
            queue.app.backend.store_result(task, {}, "SUCCESS")
        assert round_() == [] and round_() == []
        open_jobs = queue.prefix + open_jobs_key(queue_id(queue.raw, queue.prefix))
        assert not queue.raw.smembers(open_jobs)  # a finished job is looked at no more
    finally:
        queue.close()


@pytest.mark.slow
def test_a_worker_sends_a_lost_batch_again_and_the_job_ends(tmp_path: Path, redis_url: str) -> None:
    db = str(tmp_path / "pubs.db")
    init_store(db).close()
    log = tmp_path / "worker.log"
    with SyntheticServices(4, latency=0.0) as services:
        job_id = submit(services.pmids(), db, redis_url, batch_size=1)
        queue = Queue(redis_url)
        try:
            queue.pop()  # taken by a worker that died at once
        finally:
            queue.close()
        worker = start_worker(redis_url, db, service_env(services), log, "--grace-period", "8")
        try:
            status = wait(job_id, redis_url, timeout=180)
        finally:
            stop_process_groups([worker])
    assert (status.batches, status.done, status.failed, status.redone) == (4, 4, 0, 1)
    lines = [line for line in log.read_text(errors="replace").splitlines() if "was lost in delivery" in line]
    assert len(lines) == 1
    with open_store(db) as store:
        assert store.publications_size() == 4


def test_a_slow_submitters_batches_not_sent_yet_are_not_taken_for_lost(tmp_path: Path, redis_url: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The submitter is held after its first batch (a slow link to the queue); that batch is taken by a worker. The
    other two, not sent yet, are in no queue and unacknowledged by nobody: no round may send them (they would run
    twice, and count as given again after a lost worker)."""
    import threading

    from support.queue_sends import HeldSends

    held = HeldSends(monkeypatch, hold_after=1)
    job: list[str] = []
    submitter = threading.Thread(target=lambda: job.append(submit(["30000000", "30000001", "30000002"],
                                                                  str(tmp_path / "pubs.db"), redis_url, batch_size=1)))
    submitter.start()
    queue = Queue(redis_url)
    try:
        held.wait_held()
        queue.hold(queue.pop())  # the first batch, in a worker's hands
        sweeper = queue.sweeper()
        assert [sweeper.sweep() for _ in range(3)] == [[], [], []]
        held.release()
        submitter.join(60)
        assert job and queue.size() == 2
        assert [sweeper.sweep() for _ in range(3)] == [[], [], []]
        assert queue.size() == 2
        with Job(redis_url) as following:
            assert following.status(job[0]).redone == 0
    finally:
        held.release()
        queue.close()


def test_a_sweeper_leaves_the_jobs_of_another_queue_sharing_its_results(tmp_path: Path, redis_url: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two clusters, each its own queue, share one results' Redis. The first cluster's workers are down and its
    batches were lost in delivery: the idle second cluster must not send them to its own workers (which would refuse
    them as another database's, failing the whole job); the first cluster's own sweeper does send them again."""
    base, prefix = split_prefix(redis_url)
    first, second, results = (f"{base}?prefix={prefix}{name}:" for name in ("first", "second", "results"))
    monkeypatch.setenv("PUBFETCH_RESULT_BACKEND", results)
    job_id = submit(["30000000", "30000001"], str(tmp_path / "pubs.db"), first, batch_size=1)
    mine, other = Queue(first), Queue(second)
    try:
        lost = {mine.pop()["headers"]["id"] for _ in range(2)}  # taken by workers that died at once
        idle = other.sweeper(results)
        assert [idle.sweep() for _ in range(3)] == [[], [], []]
        assert other.size() == 0
        own = mine.sweeper(results)
        assert own.sweep() == [] and set(own.sweep()) == lost
        assert mine.size() == 2
        with Job(first) as job:
            assert job.status(job_id).redone == 2
    finally:
        mine.close()
        other.close()


def _sweep_rounds(client: Any, key: str, rounds: int) -> None:
    """Return once the workers' sweeper has begun ``rounds`` more rounds: each round sets the lock ``key`` afresh,
    so its time to live jumps back up (or the key comes back)."""
    from support.waits import wait_until

    seen = {"rounds": 0, "ttl": -2}

    def next_round() -> bool:
        ttl = int(client.pttl(key))
        if ttl > 0 and (seen["ttl"] <= 0 or ttl > seen["ttl"]):
            seen["rounds"] += 1
        seen["ttl"] = ttl
        return seen["rounds"] >= rounds + 1  # the round under way when watching began is not counted

    wait_until(next_round, 120, f"{rounds} sweep rounds", every_s=0.01)


@pytest.mark.slow
def test_a_worker_sends_nothing_again_while_a_slow_submitter_is_still_sending(tmp_path: Path, redis_url: str,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A real worker (8 s grace period: a sweep round every 2 s) takes the first batch while the submitter is held
    before its second for three of the worker's sweep rounds: every batch runs once, none is given again."""
    import threading

    from support.queue_sends import HeldSends

    db = str(tmp_path / "pubs.db")
    init_store(db).close()
    log = tmp_path / "worker.log"
    raw, prefix = connect(redis_url), split_prefix(redis_url)[1]
    with SyntheticServices(3, latency=0.0) as services:
        worker = start_worker(redis_url, db, service_env(services), log, "--grace-period", "8")
        held = HeldSends(monkeypatch, hold_after=1)
        job: list[str] = []
        submitter = threading.Thread(target=lambda: job.append(submit(services.pmids(), db, redis_url,
                                                                      batch_size=1)))
        try:
            submitter.start()
            held.wait_held()
            _sweep_rounds(raw, prefix + "pubfetch-sweep", 3)
            held.release()
            submitter.join(60)
            status = wait(job[0], redis_url, timeout=180)
        finally:
            held.release()
            stop_process_groups([worker])
            raw.close()
    assert (status.batches, status.done, status.failed, status.redone) == (3, 3, 0, 0)
    text = log.read_text(errors="replace")
    assert "was lost in delivery" not in text
    assert sum(" done: " in line for line in text.splitlines()) == 3  # each batch fetched once
