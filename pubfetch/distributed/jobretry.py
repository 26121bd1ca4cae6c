"""A queued job's end-of-run retry, done once for the whole job as one process does once at the end of its run.

A batch's publications that ended with a fetch exception worth asking again are not retried by the batch's task (which
would ask the batched services again once per batch); the task stores them as they ended and records where each one
stopped in the results' Redis. The task that finishes the job's last batch then retries them all together, asking
only what failed, and counts them once for the job, apart from every batch's result (the tasks left them out of
theirs, so every publication is counted once). A batch given again after a lost worker records its publications
again; the retry takes each publication once.

A batch's result is its first delivery's (the result backend does not store a later SUCCESS over it), so a count
that a later delivery makes cannot live in a task's result: a retrying task whose batch already had a result from an
earlier delivery would have its retried publications counted nowhere. The publications a job ever left to its retry
are therefore counted apart, one record each in the results' Redis (:meth:`JobRetry.settle`), written by whichever
delivery or retry settled it last, and a batch delivered again counts such a publication there, not in its own
result. A delivery of a batch that already has a result leaves nothing to the retry: that result counted those
publications, and the retry would count them again.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from pubfetch.distributed.counts import encode_summary
from pubfetch.engine.summary import BatchSummary
from pubfetch.ids import PublicationIds

if TYPE_CHECKING:
    from pubfetch.engine.resume import RetryEntry
    from pubfetch.fetcher_args import FetcherArgs
    from pubfetch.model import Publication


class EachCounted(BatchSummary):
    """A summary that also keeps each publication's own count (its IDs -> a one-publication summary), so that the
    publications counted apart can be taken out of a batch's result (:meth:`JobRetry.settle`)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.each: list[tuple[tuple[str, ...], BatchSummary]] = []

    def count(self, pub: Publication, args: FetcherArgs, fetched: bool) -> None:
        super().count(pub, args, fetched)
        one = BatchSummary()
        one.count(pub, args, fetched)
        self.each.append((tuple(i for i in pub.ids.ids if i), one))


def _key(job: str, what: str) -> str:
    return f"pubfetch-job:{job}:{what}"


class JobRetry:
    """The retry list of one job, in the results' Redis (``client``, keys under ``prefix``, kept ``expires`` seconds
    as the job's results are)."""

    def __init__(self, client: Any, prefix: str, job: str, batches: int, task: str, expires: int) -> None:
        self.client, self.job, self.batches, self.task, self.expires = client, job, batches, task, expires
        self.entries_key = prefix + _key(job, "retry")
        self.finished_key = prefix + _key(job, "finished")
        self.claim_key = prefix + _key(job, "retrying")
        #: each ID of a publication ever left to the retry -> that publication's key in ``counted_key``
        self.apart_key = prefix + _key(job, "apart")
        #: publication key -> its count (encoded summary), for the publications counted apart from their batch
        self.counted_key = prefix + _key(job, "counted")

    def defer(self, entries: list[RetryEntry]) -> None:
        """Record the publications a batch leaves to the job's retry (as :func:`~pubfetch.fetcher.fetch_many` deferred
        them): their IDs (the entry itself is in the database) and where each stopped."""
        if not entries:
            return
        from pubfetch.model import Publication

        pipe = self.client.pipeline()
        for entry in entries:
            ids = list(Publication.from_json(entry["pub"]).ids.ids)
            pipe.rpush(self.entries_key, json.dumps({"ids": ids, "resume": entry["resume"],
                                                     "rejections": entry.get("rejections", 0)}))
            key = json.dumps(ids)
            for one_id in ids:
                if one_id:
                    pipe.hsetnx(self.apart_key, one_id, key)
        pipe.expire(self.entries_key, self.expires)
        pipe.expire(self.apart_key, self.expires)
        pipe.execute()

    def settle(self, summary: EachCounted, own: BatchSummary | None = None) -> None:
        """Record the counts of the publications of ``summary`` that the job counts apart (those ever left to its
        retry), each replacing what an earlier delivery or retry recorded for it; with ``own`` (the batch's result),
        take them out of it, which then counts only the others."""
        ids = sorted({i for pub_ids, _ in summary.each for i in pub_ids})
        keys = dict(zip(ids, self.client.hmget(self.apart_key, ids), strict=True)) if ids else {}
        counted: dict[str, str] = {}
        for pub_ids, one in summary.each:
            key = next((keys[i] for i in pub_ids if keys.get(i)), None)
            if key is None:
                continue
            counted[key.decode() if isinstance(key, bytes) else str(key)] = json.dumps(encode_summary(one))
            if own is not None:
                _take_out(own, one)
        if counted:
            pipe = self.client.pipeline()
            pipe.hset(self.counted_key, mapping=counted)
            pipe.expire(self.counted_key, self.expires)
            pipe.execute()

    def finish(self) -> bool:
        """Mark this batch finished; whether it is the one to retry the job's list: every batch has finished and no
        other batch's task has taken the retry (this task's own earlier delivery may have)."""
        pipe = self.client.pipeline()
        pipe.sadd(self.finished_key, self.task)
        pipe.scard(self.finished_key)
        pipe.expire(self.finished_key, self.expires)
        _, finished, _ = pipe.execute()
        if finished < self.batches:
            return False
        if self.client.set(self.claim_key, self.task, nx=True, ex=self.expires):
            return True
        holder = self.client.get(self.claim_key)
        return (holder.decode() if isinstance(holder, bytes) else holder) == self.task

    def entries(self, store: Any) -> list[RetryEntry]:
        """The job's retry list as :func:`~pubfetch.fetcher.fetch_retries` takes it, each publication once (its latest
        record), read from the database as it was stored."""
        latest: dict[tuple[str, ...], dict[str, Any]] = {}
        for raw in self.client.lrange(self.entries_key, 0, -1):
            record = json.loads(raw)
            latest[tuple(record["ids"])] = record
        out: list[RetryEntry] = []
        for ids, record in latest.items():
            pub = store.get_publication(PublicationIds(*ids))
            if pub is not None:
                out.append({"pub": pub.to_json(computed=False), "resume": record["resume"],
                            "rejections": record.get("rejections", 0)})
        return out

    def done(self) -> None:
        self.client.delete(self.entries_key)


def _take_out(summary: BatchSummary, one: BatchSummary) -> None:
    """Take a publication's counts out of a summary that counted it (the retry-limit time and options stay: they say
    when some publication of the batch may be retried, which is still true)."""
    for f in dataclasses.fields(summary):
        if f.name != "eligible_at" and isinstance(getattr(summary, f.name), int):
            setattr(summary, f.name, getattr(summary, f.name) - getattr(one, f.name))
    if isinstance(summary, EachCounted):  # nor is it among the batch's papers
        summary.each = [(ids, counted) for ids, counted in summary.each if counted is not one]


def counted_apart(client: Any, prefix: str, job: str) -> list[tuple[list[str], dict[str, Any]]]:
    """The IDs and counts of a job's publications counted apart from their batches (:meth:`JobRetry.settle`): with the
    batches' results, the job's counts."""
    return [([i for i in json.loads(_text(key)) if i], json.loads(raw))
            for key, raw in client.hgetall(prefix + _key(job, "counted")).items()]


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
