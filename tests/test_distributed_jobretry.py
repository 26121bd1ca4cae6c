"""A queued job's end-of-run retry: each batch records the publications it leaves to it in the results' Redis, and
the task that finishes the job's last batch, and only that one, retries each publication once with what it last
recorded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pubfetch.distributed.jobretry import JobRetry
from pubfetch.engine.run_batch import init_publication
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from pubfetch.net.ratelimit_redis import connect, split_prefix
from pubfetch.store import init_db

ARGS = FetcherArgs()


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[tuple[Any, str]]:
    """The Redis of the test (keys under a prefix of its own, deleted afterwards) and that prefix."""
    url, prefix = split_prefix(redis_url)
    client = connect(url)
    yield client, prefix
    client.close()


def entry(pmid: str, again: str) -> dict[str, Any]:
    """A deferred publication as fetch_many leaves it: the entry as JSON and where it stopped."""
    return {"pub": init_publication(PublicationIds(pmid), ARGS).to_json(computed=False),
            "resume": {"again": [again]}}


def test_only_the_last_batch_to_finish_retries(redis_client: tuple[Any, str]) -> None:
    client, prefix = redis_client
    first, second = (JobRetry(client, prefix, "job1", 2, task, 60) for task in ("task-a", "task-b"))
    assert not first.finish()
    assert second.finish()
    assert first.finish() is False  # a late redelivery of a finished batch does not take the retry
    assert second.finish()  # a redelivery of the task holding the retry keeps it
    assert client.ttl(second.claim_key) > 0


def test_each_publication_is_retried_once_as_it_last_stopped(redis_client: tuple[Any, str], tmp_path: Path) -> None:
    client, prefix = redis_client
    store = init_db(tmp_path / "p.db")
    for pmid in ("1", "2"):
        store.put_publication(init_publication(PublicationIds(pmid), ARGS))
    store.commit()
    retry = JobRetry(client, prefix, "job2", 2, "task-a", 60)
    retry.defer([entry("1", "europepmc"), entry("2", "efetch")])
    retry.defer([entry("1", "unpaywall")])  # the batch given again after a lost worker
    retry.defer([entry("3", "doi")])  # never stored: nothing to retry it from
    retry.defer([])
    entries = retry.entries(store)
    store.close()
    assert [(e["pub"]["pmid"]["content"], e["resume"]) for e in entries] == [("1", {"again": ["unpaywall"]}),
                                                                             ("2", {"again": ["efetch"]})]
    assert client.ttl(retry.entries_key) > 0
    retry.done()
    assert not client.exists(retry.entries_key)


def test_jobs_keep_their_lists_apart(redis_client: tuple[Any, str], tmp_path: Path) -> None:
    client, prefix = redis_client
    store = init_db(tmp_path / "p.db")
    store.put_publication(init_publication(PublicationIds("1"), ARGS))
    store.commit()
    JobRetry(client, prefix, "job3", 1, "t", 60).defer([entry("1", "europepmc")])
    assert JobRetry(client, prefix, "job4", 1, "t", 60).entries(store) == []
    assert JobRetry(client, prefix, "job4", 1, "t", 60).finish()  # its own single batch: its own retry
    store.close()


def test_a_publication_once_left_to_the_retry_is_counted_apart_by_whoever_settled_it_last(
        redis_client: tuple[Any, str]) -> None:
    """Publication 1 was left to the retry; a later delivery of its batch that counts it (and 2, never left to the
    retry) moves 1 out of the batch's result into the job's records, replacing the retry's record of it."""
    from pubfetch.distributed.jobretry import EachCounted, counted_apart

    client, prefix = redis_client
    retry = JobRetry(client, prefix, "job5", 2, "task-a", 60)
    retry.defer([entry("1", "europepmc")])
    retried = EachCounted()
    retried.count(init_publication(PublicationIds("1"), ARGS), ARGS, fetched=True)
    retry.settle(retried)
    assert [(ids, c["total"], c["fetched"]) for ids, c in counted_apart(client, prefix, "job5")] == [(["1"], 1, 1)]
    again = EachCounted()
    for pmid in ("1", "2"):
        again.count(init_publication(PublicationIds(pmid), ARGS), ARGS, fetched=False)
    retry.settle(again, again)
    assert (again.total, again.skipped) == (1, 1)  # 2 only: 1 is the job's to count
    assert [ids for ids, _ in again.each] == [("2",)]  # and only 2 is among the batch's papers
    assert [(ids, c["total"], c["skipped"], c["fetched"]) for ids, c in counted_apart(client, prefix, "job5")] == [
        (["1"], 1, 1, 0)]
    assert counted_apart(client, prefix, "job6") == []
