"""Who holds which batch, and whether they are still there: the heartbeats of ``pubfetch worker``.

A worker's main process (the one that takes batches from the queue and acknowledges them) runs a thread that, four
times per grace period, renews every batch the worker holds:

- with a Redis queue, it moves the batch's delivery time in the queue's unacknowledged index to now (only for a batch
  still there: an acknowledged one is not brought back). The queue gives a batch back once its delivery time is a
  grace period old, so it gives back only the batches of a worker that stopped renewing, however long a live one
  takes;
- on either queue, it records the holding in the results' Redis (worker, since when, last heard of), which is what
  ``-job-status`` shows, and counts the batches that came back after a lost worker;
- it keeps the worker's name claimed in the results' Redis for one grace period at a time, so that a second worker
  started under a name in use is refused at start (on RabbitMQ it would die of Celery's locked control queue; on Redis
  two workers of one name could not be told apart in ``-job-status``). A worker that stops frees its name; one that
  was killed frees it when its grace period has passed.

The main process's liveness is the worker's: its tasks are threads of it (``--pool threads``), or, with ``--pool
prefork``, pool processes, one of which killed alone has its batch given back at once by Celery
(``reject_on_worker_lost``); a task that is merely slow keeps its batch. Times are the Redis server's, so machines
whose clocks differ agree on who is silent.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pubfetch.distributed.app import GRACE_S, RESULT_EXPIRES_S, is_redis, renew_interval
from pubfetch.distributed.strays import Sweeper, redone_key

log = logging.getLogger(__name__)

#: kombu's Redis transport keeps a delivered, unacknowledged message's delivery time under this key (after the prefix).
UNACKED_INDEX = "unacked_index"


def held_key(job: str) -> str:
    """The results' Redis hash of a job's held batches: task id -> holding (JSON)."""
    return f"pubfetch-job:{job}:held"


def connect(url: str) -> Any:
    """A Redis client for a queue or results URL, its ``?prefix=`` applied to every key by the caller."""
    from pubfetch.net.ratelimit_redis import connect as redis_connect
    from pubfetch.net.ratelimit_redis import split_prefix

    return redis_connect(split_prefix(url)[0])


def name_key(name: str) -> str:
    """The results' Redis key that holds a running worker's name (its value: that worker's own token)."""
    return f"pubfetch-worker:{name}"


class NameTaken(Exception):
    """Another live worker of the queue has this name; the message is meant for the operator as is."""


def server_time(client: Any) -> float:
    seconds, micros = client.time()
    return float(seconds) + micros / 1e6


@dataclass(frozen=True)
class Holding:
    """A batch held by a worker: who, since when, last heard of (Redis server times)."""

    task: str
    worker: str
    since: float
    beat: float
    grace: float = GRACE_S  # the worker's grace period: silent for longer, it is taken for lost

    @classmethod
    def parse(cls, task: str, raw: bytes | str) -> Holding | None:
        try:
            data = json.loads(raw)
            return cls(task, str(data["worker"]), float(data["since"]), float(data["beat"]),
                       float(data.get("grace", GRACE_S)))
        except (ValueError, KeyError, TypeError):
            return None


class Heartbeat:
    """Renews the batches a worker holds (see the module's docstring); started when the worker is ready."""

    def __init__(self, broker: str, backend: str, grace: float, name: str = "", app: Any = None) -> None:
        import uuid

        from pubfetch.net.ratelimit_redis import split_prefix

        self.grace = grace
        self.name = name
        self._token = f"{uuid.uuid4().hex}"
        self._queue = connect(broker) if is_redis(broker) else None
        self._queue_prefix = split_prefix(broker)[1]
        self._results = connect(backend)
        self._results_prefix = split_prefix(backend, self._queue_prefix)[1]
        self.sweeper: Any = None
        if app is not None and self._queue is not None:  # a Redis queue can lose a batch in delivery (.strays)
            self.sweeper = Sweeper(app, (self._queue, self._queue_prefix), (self._results, self._results_prefix),
                                   renew_interval(grace))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._since: dict[str, float] = {}  # task id -> when this worker took it
        self._lock = threading.Lock()  # the event loop (a batch delivered) and the thread both record holdings

    def claim_name(self) -> None:
        """Take the worker's name for one grace period, or raise :class:`NameTaken` when a live worker has it."""
        key = self._results_prefix + name_key(self.name)
        if self._results.set(key, self._token, nx=True, px=int(self.grace * 1000)):
            return
        left = self._results.pttl(key)
        freed = f"; if that worker was killed, its name is free again within {max(1, -(-left // 1000))} s" \
            if left and left > 0 else ""
        raise NameTaken(f"a worker named {self.name} is already running on this queue: give this one another --name, "
                        f"or leave --name out for a name of its own (pubfetch-PID@HOST){freed}")

    def _renew_name(self) -> None:
        """Keep the name for one more grace period; take it back if it lapsed (this worker was silent that long: its
        batches went to others, and it goes on with the next ones), and say so once if another worker took it."""
        if not self.name:
            return
        key = self._results_prefix + name_key(self.name)
        holder = self._results.get(key)
        holder = holder.decode() if isinstance(holder, bytes) else holder
        if holder in (None, self._token):
            self._results.set(key, self._token, px=int(self.grace * 1000))
        elif not self._name_lost:
            self._name_lost = True
            log.warning("another worker took the name %s while this one was silent; stop one of them", self.name)

    _name_lost = False

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="pubfetch-heartbeat", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self.sweeper is not None:
            self.sweeper.close()
        if self.name:
            try:  # free the name for a worker started in its place (only if it is still this worker's)
                key = self._results_prefix + name_key(self.name)
                holder = self._results.get(key)
                if (holder.decode() if isinstance(holder, bytes) else holder) == self._token:
                    self._results.delete(key)
            except Exception as e:
                log.warning("could not free the name %s (%s); it is free again after %.0f s", self.name,
                            type(e).__name__, self.grace)

    def _run(self) -> None:
        from celery.worker import state

        failing = False
        while not self._stop.wait(renew_interval(self.grace)):
            try:
                self._renew_name()
                held = list(state.active_requests | state.reserved_requests)
                self.renew(held)
                self.forget_finished(r.id for r in held)
                if self.sweeper is not None:
                    self.sweeper.sweep()
            except Exception as e:  # Redis down: the next round tries again; the batches are safe until the grace ends
                if not failing:
                    log.warning("could not renew the batches this worker holds (%s); trying again every %.0f s (past "
                                "the grace period of %.0f s they go to other workers)", type(e).__name__,
                                renew_interval(self.grace), self.grace)
                failing = True
            else:
                if failing:
                    log.warning("renewing the batches this worker holds again")
                failing = False

    def received(self, request: Any) -> None:
        """A batch has just been delivered to this worker: record the holding now, and count a redelivery."""
        try:
            self.renew([request])
        except Exception as e:
            log.warning("could not record the batch %s this worker took (%s)", request.id, type(e).__name__)

    def renew(self, requests: Iterable[Any]) -> None:
        requests = [r for r in requests if getattr(r, "group", None)]
        if not requests:
            return
        now = server_time(self._results)
        if self._queue is not None:
            tags = {r.message.delivery_tag: now for r in requests if r.message.delivery_tag}
            if tags:
                self._queue.zadd(self._queue_prefix + UNACKED_INDEX, tags, xx=True)
        pipe = self._results.pipeline(transaction=False)
        for r in requests:
            with self._lock:
                first = r.id not in self._since
                since = self._since.setdefault(r.id, now)
            key = self._results_prefix + held_key(r.group)
            pipe.hset(key, r.id, json.dumps({"worker": r.hostname, "since": since, "beat": now, "grace": self.grace}))
            pipe.expire(key, RESULT_EXPIRES_S)
            if first and (r.delivery_info or {}).get("redelivered"):
                redone = self._results_prefix + redone_key(r.group)
                pipe.hincrby(redone, r.id, 1)
                pipe.expire(redone, RESULT_EXPIRES_S)
        pipe.execute()

    def forget_finished(self, held: Iterable[str]) -> None:
        """Keep the take times of the batches still held only."""
        keep = set(held)
        with self._lock:
            for task in [t for t in self._since if t not in keep]:
                del self._since[task]


def install(app: Any, broker: str, backend: str, grace: float, name: str = "") -> Heartbeat:
    """Claim the worker's ``name`` (:class:`NameTaken` if a live worker has it) and start renewing it, then connect the
    heartbeat to the worker's signals (a batch delivered: record it; shutdown: stop)."""
    from celery import signals

    beat = Heartbeat(broker, backend, grace, name, app)
    if name:
        beat.claim_name()
    beat.start()

    def on_ready(**_: Any) -> None:
        beat.start()

    def on_received(request: Any = None, **_: Any) -> None:
        if request is not None:
            beat.received(request)

    def on_shutdown(**_: Any) -> None:
        beat.stop()

    signals.worker_ready.connect(on_ready, weak=False)
    signals.task_received.connect(on_received, weak=False)
    signals.worker_shutdown.connect(on_shutdown, weak=False)
    return beat


def holdings(client: Any, prefix: str, job: str) -> tuple[float, dict[str, Holding], dict[str, int]]:
    """The Redis server's time, the job's recorded holdings by task id, and how often each task was given again."""
    now = server_time(client)
    held = {}
    for task, raw in (client.hgetall(prefix + held_key(job)) or {}).items():
        task_id = task.decode() if isinstance(task, bytes) else str(task)
        holding = Holding.parse(task_id, raw)
        if holding is not None:
            held[task_id] = holding
    redone = {(k.decode() if isinstance(k, bytes) else str(k)): int(v)
              for k, v in (client.hgetall(prefix + redone_key(job)) or {}).items()}
    return now, held, redone
