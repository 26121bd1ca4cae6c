"""The Celery application shared by workers and submitters; both build it from the same broker URL.

The settings are what makes a batch survive a lost worker. A task is acknowledged only when it has finished
(``acks_late``); with ``--pool prefork``, a task whose pool process died goes back to the queue at once
(``reject_on_worker_lost``; with the default threads a worker's tasks live and die with its process); a worker
reserves no more batches than it fetches at a time (prefetch multiplier 1), so a lost worker strands only the batches
it was working on. Those come back after the grace period (:data:`GRACE_S`, ``pubfetch worker --grace-period``):

- on Redis, the queue's own redelivery (kombu's visibility timeout) is set to the grace period, and every live worker
  renews the delivery times of the batches it holds several times per period (:mod:`.liveness`), so only a silent
  worker's batches come back, and a slow live one keeps its batch however long it takes;
- on RabbitMQ, the broker gives a consumer's unacknowledged batches to another one as soon as its connection closes,
  which is at once when the worker's processes die, and after two missed AMQP heartbeats (a heartbeat every half grace
  period) when its machine is lost.

``?prefix=NAME:`` in a Redis URL puts every key of the queue under that prefix (as it does for the rate limits), and in
any broker URL names the queue ``NAME:pubfetch``, so several clusters can share one server. Results (the batch
summaries a job's progress is counted from, and who holds which batch) go to the broker's Redis, or to the one
``$PUBFETCH_RESULT_BACKEND`` names (needed with a RabbitMQ broker).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pubfetch.config import result_backend_default
from pubfetch.net.urls import shown_url

if TYPE_CHECKING:
    from pubfetch.distributed.tasks import WorkerSettings

TASK_NAME = "pubfetch.fetch_batch"
#: Seconds a worker may stay silent before the batches it holds are given to another worker.
GRACE_S = 60.0
#: The shortest grace period accepted: a worker renews its batches every quarter of it, and a busy machine may delay a
#: renewal by a few seconds without the batch being taken.
MIN_GRACE_S = 8.0
RESULT_EXPIRES_S = 7 * 86_400


RESULT_BACKEND_ENV = "PUBFETCH_RESULT_BACKEND"


def default_backend(broker: str) -> str:
    """Where batch results (and so job progress) are kept: ``$PUBFETCH_RESULT_BACKEND``, else the broker's Redis.

    A RabbitMQ broker keeps no results that another process could read later (Celery's RPC backend cannot save a job),
    so it needs a Redis named by the variable."""
    configured = result_backend_default()
    if configured:
        return configured
    if is_redis(broker):
        return broker
    raise ValueError(f"a queue at {shown_url(broker)} needs a Redis for the job's results: set "
                     f"{RESULT_BACKEND_ENV}=redis://host:6379/N for the submitter and the workers, or use a redis:// "
                     "queue")


def is_redis(url: str) -> bool:
    return url.startswith(("redis://", "rediss://"))


def renew_interval(grace: float) -> float:
    """How often a worker renews the batches it holds: four times per grace period."""
    return grace / 4


def make_app(broker: str, backend: str | None = None, grace: float = GRACE_S,
             worker: WorkerSettings | None = None) -> Any:
    """A Celery app with pubfetch's task registered; ``celery`` is imported here so the rest of pubfetch runs without
    it. ``worker``: the settings of ``pubfetch worker`` (its database, rate limits, address guard), which its tasks read
    from the app (its tasks are threads of the worker, or processes forked from it after the app is made), never from
    the environment."""
    try:
        from celery import Celery
    except ImportError:
        raise ValueError('queued fetching needs Celery: pip install "pubfetch[cluster]"') from None
    from pubfetch.distributed.tasks import BatchFailed, BatchRefused, WorkerSettings, fetch_batch
    from pubfetch.net.ratelimit_redis import split_prefix

    broker, prefix = split_prefix(broker)
    results, results_prefix = split_prefix(backend or default_backend(broker), prefix)
    # a silent worker's batches come back within about 1.25 grace periods: the queue looks for them every eighth of
    # one, and the lock of that look is short-lived, so that a worker killed while holding it delays nothing for long
    transport: dict[str, Any] = {"visibility_timeout": grace, "unacked_restore_interval": max(1.0, grace / 8),
                                 "unacked_restore_throttle": 1, "unacked_mutex_expire": max(5, int(grace / 4))}
    queue_keys = {**transport, **({"global_keyprefix": prefix} if prefix else {})}
    result_keys = {"global_keyprefix": results_prefix} if results_prefix else {}
    app = Celery("pubfetch", broker=broker, backend=results)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=RESULT_EXPIRES_S,
        result_extended=False,
        broker_transport_options=queue_keys,
        result_backend_transport_options=result_keys,
        broker_connection_retry_on_startup=True,
        broker_heartbeat=max(2, int(grace / 2)),
        worker_hijack_root_logger=False,
        worker_cancel_long_running_tasks_on_connection_loss=False,
    )
    if prefix:  # on RabbitMQ, where keys have no prefix, the queue's own name tells clusters apart
        app.conf.task_default_queue = f"{prefix}pubfetch"
    app.conf.pubfetch_worker = worker or WorkerSettings()
    app.task(name=TASK_NAME, bind=True, throws=(BatchRefused, BatchFailed))(fetch_batch)
    from pubfetch.distributed.bulktask import register

    register(app)
    return app
