"""Fetching on several machines: Celery workers take batches of IDs from a queue and write to one shared database.

- :mod:`.app`: the Celery application and its settings (late acknowledgement, a lost worker's batches redelivered
  after a grace period);
- :mod:`.message`: what a task message may carry (IDs and fetching thresholds, nothing of the worker's own);
- :mod:`.tasks`: the one task, fetching a batch into the worker's database, idempotent by the fetcher's can-fetch rules;
- :mod:`.sharedrun`: the batches a worker holds at the same time walked in one run, as one process's batches in flight;
- :mod:`.jobretry`: the job's end-of-run retry, once for the whole job, and the counts of the publications left to it;
  :mod:`.counts`: a batch's counts as JSON, added up into a job's;
- :mod:`.liveness`: the workers' heartbeats, which renew the batches they hold and record who holds which, and keep a
  chosen worker name to one worker; :mod:`.strays`: batches a Redis queue lost in delivery, sent again;
- :mod:`.submit`: splitting IDs into batches, sending them, following a job; :mod:`.jobstatus`: a job's state and
  cancelling it; :mod:`.worker`: ``pubfetch worker``.

Celery, its Redis transport and a PostgreSQL driver are the ``cluster`` extra: ``pip install "pubfetch[cluster]"``.
"""

from __future__ import annotations

import os as _os
import typing as _typing

from pubfetch import fetcher as _fetcher

if _typing.TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from pubfetch.config import FetchConfig
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
    **options: object,
) -> Iterator[Publication]:
    """``pubfetch.fetch_many``: :func:`pubfetch.fetcher.fetch_many` in this process, or with ``queue`` (a Celery broker
    URL, ``redis://host:6379/0``) by ``pubfetch worker`` processes into ``db`` (a database URL or path they reach),
    yielding the publications from it, in input order, once every batch is done.

    Through a queue, ``parts``, the fetching thresholds of ``args`` (cooldowns, retry limit, minimum lengths, timeout,
    quick), ``progress``, ``summary``, ``errors``, ``batch_size`` (IDs per task, default
    :data:`~pubfetch.distributed.submit.BATCH_SIZE`) and the run settings of ``config`` and the keyword options
    (:data:`~pubfetch.config.JOB_SETTINGS`: batch sizes of the batched services, links, linger) work as they do here.
    Refused with a ValueError: the settings that belong to each worker (endpoints, credentials and contact e-mails,
    threads, connections, rate limits, the address guard, the browser: :data:`~pubfetch.config.WORKER_SETTINGS`; in
    ``args`` the User-Agent, e-mails and rule files), as keyword options, in ``args`` or in ``config`` (there when
    they differ from both their defaults and this process's own configuration, which the workers would not use),
    ``context`` (live objects of this process), ``use_stored=False`` and ``retry_exceptions=False`` (workers always
    use the stored entries and retry failures at the job's end), and a ``db`` that is an open Store rather than a URL
    or path the workers reach.
    """
    if queue is None:
        cfg = _fetcher.call_config(config, args, parts, options, "fetch_many")
        return _fetcher.fetch_many(ids, db, config=cfg, context=context, progress=progress, summary=summary,
                                  retry_exceptions=retry_exceptions, use_stored=use_stored, errors=errors)
    from pubfetch.config import WORKER_SETTINGS, Batching
    from pubfetch.distributed.message import ALLOWED_ARGS
    from pubfetch.distributed.submit import fetch_many_queued
    from pubfetch.fetcher_args import FetcherArgs

    if errors not in ("skip", "raise"):
        raise ValueError(f"errors must be 'skip' or 'raise', not {errors!r}")
    if context is not None:
        raise ValueError("fetch_many(queue=...) cannot use a context: the workers build their own")
    refused = sorted(name for name in options if name in WORKER_SETTINGS and options[name] is not None)
    if refused:
        raise ValueError(f"fetch_many(queue=...) cannot set {', '.join(refused)}: each worker uses its own (the "
                         "options of pubfetch worker and its environment or config file)")
    default = FetcherArgs()
    worker_args = sorted(name for name in vars(default) if name not in ALLOWED_ARGS
                         and (args is not None and getattr(args, name) != getattr(default, name)
                              or options.get(name) is not None))
    if worker_args:
        raise ValueError(f"fetch_many(queue=...) cannot set the fetching parameters {', '.join(worker_args)}: each "
                         "worker uses its own (its environment or config file)")
    chosen = _worker_settings_chosen(config, ALLOWED_ARGS) if config is not None else []
    if chosen:
        raise ValueError(f"fetch_many(queue=...) cannot use config's {', '.join(chosen)}: each worker uses its own "
                         "(the options of pubfetch worker and its environment or config file); leave them at their "
                         "defaults or this process's settings")
    if not use_stored or not retry_exceptions:
        raise ValueError("fetch_many(queue=...) always uses the entries in the database and retries the failed "
                         "publications at the job's end: use_stored=False and retry_exceptions=False need a run in "
                         "this process")
    if db is None or not isinstance(db, str | _os.PathLike):
        raise ValueError("fetching through a queue needs db= a database URL or path the workers can reach")
    cfg = _fetcher.call_config(config, args, parts, options, "fetch_many")
    parts_asked = cfg.run.parts
    # IDs per task: the call's, config's or this process's batch size, else the queue's default
    chosen_size = options.get("batch_size") is not None or cfg.batching.batch_size != Batching().batch_size
    return fetch_many_queued(ids, db, queue, args=cfg.fetching, parts=sorted(p.value for p in parts_asked)
                             if parts_asked is not None else None, progress=progress, summary=summary,
                             batch_size=cfg.batching.batch_size if chosen_size else None,
                             settings=cfg.job_settings(), errors=errors)


def _worker_settings_chosen(config: FetchConfig, allowed_args: frozenset[str]) -> list[str]:
    """The settings of ``config`` that a queued job cannot carry (each worker's own) and that differ both from their
    defaults and from this process's configuration (environment, config file): chosen for this call, so refused
    rather than dropped. One this process's settings give anyway (its API key, its e-mail) is no choice of the call."""
    from pubfetch.config import SETTINGS, WORKER_SETTINGS, FetchConfig

    def value(cfg: FetchConfig, name: str) -> object:
        return getattr(getattr(cfg, SETTINGS[name]), name)

    default, own = FetchConfig(), FetchConfig.from_env()
    names = [name for name in SETTINGS if name in WORKER_SETTINGS
             or SETTINGS[name] == "fetching" and name not in allowed_args]
    return sorted(name for name in names if value(config, name) not in (value(default, name), value(own, name)))
