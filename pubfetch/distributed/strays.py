"""Batches lost in delivery on a Redis queue, sent again.

kombu's Redis transport takes a message off the queue (``BRPOP``) and records it as unacknowledged in a second
command. A worker killed between the two, or a machine lost while Redis's answer was on its way to it, has taken a batch
that is then nowhere: not queued, not unacknowledged (so never given back after the grace period), never done; its job
would wait for ever. (RabbitMQ gives an unacknowledged message back whatever happens to its consumer.)

So the submitter keeps each job's messages in the results' Redis (:func:`register`), and the workers of a Redis queue
look for such batches with their heartbeats (:class:`Sweeper`): once the queue is empty, a batch of an open job that
is neither done nor unacknowledged, seen so on two rounds in a row (a batch being taken is out of both for
milliseconds), is sent again under its own task id and counted as given again after a lost worker. A batch sent twice
is still stored once (the tasks are idempotent).

A batch is looked for only once it can be lost: the submitter registers a job after it has sent every batch, so a
slow submitter's batches not sent yet are never taken for lost ones (a batch lost before the registration is found
by the first round after it). And a worker looks only at the jobs of its own queue: the open jobs are kept by queue
(:func:`queue_id`, an identity kept in the queue's own Redis, whatever the URL it was reached by), so clusters that
share a results' Redis never send each other's batches to their own workers.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from pubfetch.distributed.app import RESULT_EXPIRES_S, TASK_NAME

log = logging.getLogger(__name__)

#: The queue's Redis key (after the queue's prefix) of the queue's identity (:func:`queue_id`).
QUEUE_ID = "pubfetch-queue-id"


def queue_id(client: Any, prefix: str) -> str:
    """The identity of the queue at ``client`` under ``prefix``: made once, by whoever asks first, and kept in that
    queue's Redis, so the submitters and workers of a queue agree on it however their URLs name the server."""
    import uuid

    key = prefix + QUEUE_ID
    client.set(key, uuid.uuid4().hex, nx=True)
    return _text(client.get(key))


def open_jobs_key(queue: str) -> str:
    """The results' Redis set of the jobs of the queue whose identity is ``queue`` whose batches may still be lost (a
    job leaves it when all its batches are done)."""
    return f"pubfetch-jobs:open:{queue}"


def redone_key(job: str) -> str:
    """The results' Redis hash of a job's batches given again: task id -> times."""
    return f"pubfetch-job:{job}:redone"


def messages_key(job: str) -> str:
    """The results' Redis hash of a job's messages: task id -> message (JSON)."""
    return f"pubfetch-job:{job}:messages"


def register(client: Any, prefix: str, queue: str, job: str, messages: Mapping[str, dict[str, Any]]) -> None:
    """Keep the messages of a job sent to the queue whose identity is ``queue`` by task id, so that a batch lost in
    delivery can be sent again; called once every batch has been sent."""
    pipe = client.pipeline(transaction=False)
    pipe.hset(prefix + messages_key(job), mapping={task: json.dumps(m) for task, m in messages.items()})
    pipe.expire(prefix + messages_key(job), RESULT_EXPIRES_S)
    pipe.sadd(prefix + open_jobs_key(queue), job)
    pipe.execute()


class Sweeper:
    """Looks for the batches lost in delivery on the worker's Redis queue, on each heartbeat round (see the module's
    docstring). One worker at a time looks (a lock held for a round)."""

    def __init__(self, app: Any, queue: tuple[Any, str], results: tuple[Any, str], interval: float) -> None:
        """``queue``, ``results``: a Redis client of each and its key prefix (the queue's is applied here: kombu's own
        client leaves some commands unprefixed)."""
        self.app = app
        self.raw_queue, self.queue_prefix = queue
        self.results, self.prefix = results
        self.interval = interval
        self.queue = app.conf.task_default_queue
        self._open_jobs = ""  # the results' key of this queue's open jobs, once the queue's identity is known
        self._connection: Any = None
        self._suspects: set[str] = set()

    def _channel(self) -> Any:
        if self._connection is None:
            self._connection = self.app.connection_for_read()
        return self._connection.default_channel

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()

    def sweep(self) -> list[str]:
        """One round: the task ids sent again."""
        if not self.results.set(self.prefix + "pubfetch-sweep", "1", nx=True, px=max(1, int(self.interval * 900))):
            return []  # another worker looks this round
        channel = self._channel()
        if channel._size(self.queue):
            self._suspects.clear()  # batches still queued: any missing one may be among them
            return []
        unacked = {self._task_id(raw) for raw in self.raw_queue.hvals(self.queue_prefix + channel.unacked_key)}
        if not self._open_jobs:
            self._open_jobs = self.prefix + open_jobs_key(queue_id(self.raw_queue, self.queue_prefix))
        missing: dict[str, str] = {}  # task id -> job
        for raw_job in self.results.smembers(self._open_jobs):
            job = _text(raw_job)
            tasks = [_text(t) for t in self.results.hkeys(self.prefix + messages_key(job))]
            done = self._done(tasks)
            if all(done):
                self.results.srem(self._open_jobs, job)
                continue
            missing.update((task, job) for task, finished in zip(tasks, done, strict=True)
                           if not finished and task not in unacked)
        lost, self._suspects = set(missing) & self._suspects, set(missing)
        for task in sorted(lost):
            job = missing[task]
            raw_message = self.results.hget(self.prefix + messages_key(job), task)
            if raw_message is None:
                continue
            log.warning("batch %s of job %s was lost in delivery (a worker taking it died); sending it again", task,
                        job)
            self.app.send_task(TASK_NAME, args=(json.loads(raw_message),), task_id=task, group_id=job)
            self.results.hincrby(self.prefix + redone_key(job), task, 1)
            self.results.expire(self.prefix + redone_key(job), RESULT_EXPIRES_S)
            self._suspects.discard(task)
        return sorted(lost)

    def _done(self, tasks: list[str]) -> list[bool]:
        backend = self.app.backend
        pipe = backend.client.pipeline(transaction=False)
        for task in tasks:
            pipe.exists(backend.get_key_for_task(task))
        return [bool(n) for n in pipe.execute()]

    @staticmethod
    def _task_id(raw: bytes | str) -> str:
        """The task id of an unacknowledged message as kombu keeps it (``[payload, exchange, routing key]``)."""
        try:
            payload = json.loads(raw)[0]
            return str(payload["headers"]["id"])
        except (ValueError, KeyError, IndexError, TypeError):
            return ""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
