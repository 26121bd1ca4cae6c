"""A queued job's end-of-run retry, done once for the whole job as one process does once at the end of its run.

A batch's publications that ended with a fetch exception worth asking again are not retried by the batch's task (which
would ask the batched services again once per batch); the task stores them as they ended and records where each one
stopped in the results' Redis. The task that finishes the job's last batch then retries them all together, asking
only what failed, and counts them in its summary (the other tasks left them out of theirs, so every publication is
counted once). A batch given again after a lost worker records its publications again; the retry takes each
publication once.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pubfetch.ids import PublicationIds

if TYPE_CHECKING:
    from pubfetch.engine.resume import RetryEntry


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
        pipe.expire(self.entries_key, self.expires)
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
