"""The Celery application shared by workers and submitters; both build it from the same broker URL.

The settings are what makes a batch survive a killed worker: a task is acknowledged only when it has finished
(``acks_late``), a task whose worker process died is put back on the queue instead of failing
(``reject_on_worker_lost``), and a worker reserves one task at a time (prefetch 1), so a kill strands at most the batch
it was working on. ``?prefix=NAME:`` in a Redis URL puts every key of the queue under that prefix (as it does for the
rate limits), so several clusters can share one Redis. Results (the batch summaries a job's progress is counted from)
go to the broker's Redis unless another result backend is named.
"""

from __future__ import annotations

from typing import Any

TASK_NAME = "pubfetch.fetch_batch"
#: How long a Redis-broker task may stay unacknowledged before it is given to another worker: the longest a batch may
#: take, and how long a whole worker killed with SIGKILL delays its batch (a killed pool process's batch goes back at
#: once).
VISIBILITY_TIMEOUT_S = 3600
RESULT_EXPIRES_S = 7 * 86_400


def default_backend(broker: str) -> str:
    """Results in the broker's Redis; with another broker (RabbitMQ) in Celery's RPC backend."""
    return broker if broker.startswith(("redis://", "rediss://")) else "rpc://"


def make_app(broker: str, backend: str | None = None, visibility_timeout: float = VISIBILITY_TIMEOUT_S) -> Any:
    """A Celery app with pubfetch's task registered; ``celery`` is imported here so the rest of pubfetch runs without
    it."""
    try:
        from celery import Celery
    except ImportError:
        raise ValueError('queued fetching needs Celery: pip install "pubfetch[cluster]"') from None
    from pubfetch.distributed.tasks import fetch_batch
    from pubfetch.net.ratelimit_redis import split_prefix

    broker, prefix = split_prefix(broker)
    transport: dict[str, Any] = {"visibility_timeout": visibility_timeout}
    if prefix:
        transport["global_keyprefix"] = prefix
    app = Celery("pubfetch", broker=broker, backend=backend or default_backend(broker))
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=RESULT_EXPIRES_S,
        broker_transport_options=transport,
        result_backend_transport_options=transport,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    app.task(name=TASK_NAME, bind=False)(fetch_batch)
    return app
