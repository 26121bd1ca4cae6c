"""Fetching on several machines: Celery workers take batches of IDs from a queue and write to one shared database.

- :mod:`.app`: the Celery application and its settings (late acknowledgement, redelivery of a killed worker's batch);
- :mod:`.tasks`: the one task, fetching a batch into the database, idempotent by the fetcher's can-fetch rules;
- :mod:`.submit`: splitting IDs into batches, sending them, following a job; :mod:`.worker`: ``pubfetch worker``.

Celery, its Redis transport and a PostgreSQL driver are the ``cluster`` extra: ``pip install "pubfetch[cluster]"``.
"""

from __future__ import annotations

import os as _os
import typing as _typing

if _typing.TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Unpack

    from pubfetch.config import FetchConfig, FetchOptions
    from pubfetch.fetcher import BatchSummary, DbLike, IdsLike, Progress
    from pubfetch.fetcher_args import FetcherArgs
    from pubfetch.model import Publication
    from pubfetch.model.part_type import PartName
    from pubfetch.resources.base import Context

__all__ = ["fetch_many"]


def fetch_many(
    ids: Iterable[IdsLike],
    db: DbLike = None,
    parts: Iterable[PartName | str] | None = None,
    args: FetcherArgs | None = None,
    *,
    queue: str | None = None,
    config: FetchConfig | None = None,
    context: Context | None = None,
    progress: Progress | None = None,
    summary: BatchSummary | None = None,
    retry_exceptions: bool = True,
    use_stored: bool = True,
    errors: str = "skip",
    **options: Unpack[FetchOptions],
) -> Iterator[Publication]:
    """``pubfetch.fetch_many``: :func:`pubfetch.fetcher.fetch_many` in this process, or with ``queue`` (a Celery broker
    URL, ``redis://host:6379/0``) by ``pubfetch worker`` processes into ``db`` (a database URL or path they reach),
    yielding the publications from it, in input order, once every batch is done.

    Through a queue, ``parts``, ``args``, ``progress``, ``summary``, ``retry_exceptions``, ``use_stored``, ``errors``,
    ``batch_size`` (IDs per task) and the job's settings of ``config`` and the keyword options
    (:data:`~pubfetch.config.JOB_SETTINGS`: what to fetch, how to batch it) work as they do here; the settings that
    belong to each worker (endpoints, credentials, threads, connections, rate limits, the address guard, the browser:
    :data:`~pubfetch.config.WORKER_SETTINGS`) and ``context`` (live objects of this process) are refused with a
    ValueError, and so is a ``db`` that is an open Store rather than a URL or path the workers reach.
    """
    from pubfetch import fetcher

    if queue is None:
        return fetcher.fetch_many(ids, db, parts, args, config=config, context=context, progress=progress,
                                  summary=summary, retry_exceptions=retry_exceptions, use_stored=use_stored,
                                  errors=errors, **options)
    from pubfetch.config import WORKER_SETTINGS
    from pubfetch.distributed.submit import BATCH_SIZE, fetch_many_queued

    if errors not in ("skip", "raise"):
        raise ValueError(f"errors must be 'skip' or 'raise', not {errors!r}")
    if context is not None:
        raise ValueError("fetch_many(queue=...) cannot use a context: the workers build their own")
    refused = sorted(name for name in options if name in WORKER_SETTINGS and options[name] is not None)  # type: ignore[literal-required]
    if refused:
        raise ValueError(f"fetch_many(queue=...) cannot set {', '.join(refused)}: each worker uses its own (the "
                         "options of pubfetch worker and its environment or config file)")
    if db is None or not isinstance(db, str | _os.PathLike):
        raise ValueError("fetching through a queue needs db= a database URL or path the workers can reach")
    cfg = fetcher.call_config(config, args, parts, {"batch_size": BATCH_SIZE, **options}, "fetch_many")
    return fetch_many_queued(ids, db, queue, cfg, progress=progress, summary=summary, use_stored=use_stored,
                             retry_exceptions=retry_exceptions, errors=errors)
