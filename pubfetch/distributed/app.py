"""The Celery application shared by workers and submitters; both build it from the same broker URL.

The settings are what makes a batch survive a killed worker: a task is acknowledged only when it has finished
(``acks_late``), a task whose worker process died is put back on the queue instead of failing
(``reject_on_worker_lost``), and a worker reserves one task at a time (prefetch 1), so a kill strands at most the batch
it was working on. ``?prefix=NAME:`` in a Redis URL puts every key of the queue under that prefix (as it does for the
rate limits), and in any broker URL names the queue ``NAME:pubfetch``, so several clusters can share one server.
Results (the batch summaries a job's progress is counted from) go to the broker's Redis, or to the one
``$PUBFETCH_RESULT_BACKEND`` names (needed with a RabbitMQ broker).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pubfetch.config import result_backend_default

if TYPE_CHECKING:
    from pubfetch.distributed.tasks import WorkerSettings

TASK_NAME = "pubfetch.fetch_batch"
#: How long a Redis-broker task may stay unacknowledged before it is given to another worker: the longest a batch may
#: take, and how long a whole worker killed with SIGKILL delays its batch (a killed pool process's batch goes back at
#: once).
VISIBILITY_TIMEOUT_S = 3600
RESULT_EXPIRES_S = 7 * 86_400


RESULT_BACKEND_ENV = "PUBFETCH_RESULT_BACKEND"


def default_backend(broker: str) -> str:
    """Where batch results (and so job progress) are kept: ``$PUBFETCH_RESULT_BACKEND``, else the broker's Redis.

    A RabbitMQ broker keeps no results that another process could read later (Celery's RPC backend cannot save a job),
    so it needs a Redis named by the variable."""
    configured = result_backend_default()
    if configured:
        return configured
    if broker.startswith(("redis://", "rediss://")):
        return broker
    raise ValueError(f"a queue at {broker.rsplit('@', maxsplit=1)[-1]} needs a Redis for the job's results: set "
                     f"{RESULT_BACKEND_ENV}=redis://host:6379/N for the submitter and the workers, or use a redis:// "
                     "queue")


def make_app(broker: str, backend: str | None = None, visibility_timeout: float = VISIBILITY_TIMEOUT_S,
             worker: WorkerSettings | None = None) -> Any:
    """A Celery app with pubfetch's task registered (with a worker's settings, for ``pubfetch worker``); ``celery``
    is imported here so the rest of pubfetch runs without it."""
    try:
        from celery import Celery
    except ImportError:
        raise ValueError('queued fetching needs Celery: pip install "pubfetch[cluster]"') from None
    from pubfetch.distributed.tasks import WorkerSettings, task_for
    from pubfetch.net.ratelimit_redis import split_prefix

    broker, prefix = split_prefix(broker)
    results, results_prefix = split_prefix(backend or default_backend(broker), prefix)
    transport: dict[str, Any] = {"visibility_timeout": visibility_timeout}
    queue_keys = {**transport, **({"global_keyprefix": prefix} if prefix else {})}
    result_keys = {**transport, **({"global_keyprefix": results_prefix} if results_prefix else {})}
    app = Celery("pubfetch", broker=broker, backend=results)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=RESULT_EXPIRES_S,
        broker_transport_options=queue_keys,
        result_backend_transport_options=result_keys,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    if prefix:  # on RabbitMQ, where keys have no prefix, the queue's own name tells clusters apart
        app.conf.task_default_queue = f"{prefix}pubfetch"
    app.task(name=TASK_NAME, bind=False)(task_for(worker or WorkerSettings()))
    return app
