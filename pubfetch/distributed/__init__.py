"""Fetching on several machines: Celery workers take batches of IDs from a queue and write to one shared database.

- :mod:`.app`: the Celery application and its settings (late acknowledgement, a lost worker's batches redelivered
  after a grace period);
- :mod:`.message`: what a task message may carry (IDs and fetching thresholds, nothing of the worker's own);
- :mod:`.tasks`: the one task, fetching a batch into the worker's database, idempotent by the fetcher's can-fetch rules;
- :mod:`.jobretry`: the job's end-of-run retry, once for the whole job;
- :mod:`.liveness`: the workers' heartbeats, which renew the batches they hold and record who holds which;
- :mod:`.submit`: splitting IDs into batches, sending them, following a job; :mod:`.jobstatus`: a job's state and
  cancelling it; :mod:`.worker`: ``pubfetch worker``.

Celery, its Redis transport and a PostgreSQL driver are the ``cluster`` extra: ``pip install "pubfetch[cluster]"``.
"""

from __future__ import annotations

import typing as _typing

from pubfetch import fetcher

if _typing.TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from pubfetch.model import Publication

__all__ = ["fetch_many"]


def fetch_many(ids: Iterable[Any], db: Any = None, parts: Any = None, args: Any = None, *, queue: str | None = None,
               **options: Any) -> Iterator[Publication]:
    """``pubfetch.fetch_many``: :func:`pubfetch.fetcher.fetch_many` in this process, or with ``queue`` (a Celery broker
    URL, ``redis://host:6379/0``) by ``pubfetch worker`` processes into ``db`` (a database URL or path they reach),
    yielding the publications from it, in input order, once every batch is done."""
    if queue is None:
        return fetcher.fetch_many(ids, db, parts, args, **options)
    from pubfetch.distributed.submit import fetch_many_queued

    return fetch_many_queued(ids, db, queue, args=args, parts=parts, progress=options.get("progress"),
                             summary=options.get("summary"), batch_size=options.get("batch_size"))
