"""The task a worker runs: fetch one batch of publications into the shared database.

A batch is walked through the chain together exactly as in a single process (``fetch_many`` with the batch as one
chain batch), so the batchable services (Europe PMC search, efetch, annotations) are asked once per batch, as they
would be by one process. The task is idempotent: an entry the database already holds complete enough is not fetched
again (the fetcher's can-fetch rules), so a batch delivered twice, after a worker was killed, only finishes what the
first delivery left undone; every entry is written in its own transaction.

The run is assembled as any other (:class:`~pubfetch.engine.assembly.FetchRun`) from the worker's configuration (its
own environment and config file, and the options of ``pubfetch worker``: :class:`WorkerSettings`, handed to the task
when the app is made, never through the environment) with the job's settings, which the message carries
(:meth:`~pubfetch.config.FetchConfig.job_settings`).
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pubfetch.config import FetchConfig
from pubfetch.ids import PublicationIds

log = logging.getLogger(__name__)

#: A batch's task: (IDs, database or None, the job's options) -> the batch's counts.
BatchTask = Callable[[list[list[str]], str | None, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class WorkerSettings:
    """What ``pubfetch worker`` was told: the database of jobs that name none, where the shared rate limits are kept
    (default: the broker's Redis), and whether links may point at private addresses."""

    db: str | None = None
    rate_db: str | None = None
    allow_private_addresses: bool = False


def encode_summary(summary: Any) -> dict[str, Any]:
    """A batch's :class:`~pubfetch.fetcher.BatchSummary` as JSON: its counts, and its sets as sorted lists (what else it
    carries for the process that made it, such as live request counters, stays behind)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(summary):
        value = getattr(summary, f.name)
        if isinstance(value, set):
            out[f.name] = sorted(value)
        elif isinstance(value, int):
            out[f.name] = value
    return out


def add_summary(into: Any, counts: dict[str, Any]) -> None:
    """Add a batch's counts (from :func:`encode_summary`) to a job's summary: counts add up, the time a retry is
    possible is the latest of the batches', the options that allow one are all of theirs."""
    for f in dataclasses.fields(into):
        value, current = counts.get(f.name), getattr(into, f.name)
        if value is None or not isinstance(current, set | int):
            continue
        if isinstance(current, set):
            current.update(value)
        elif f.name == "eligible_at":
            setattr(into, f.name, max(current, int(value)))
        else:
            setattr(into, f.name, current + int(value))


def encode_ids(ids: PublicationIds) -> list[str]:
    return list(ids.ids)


def encode_options(config: FetchConfig, *, use_stored: bool = True, retry_exceptions: bool = True) -> dict[str, Any]:
    """What a job asks of the workers, as JSON for the task messages: the job's settings, whether entries in the
    database are used (off: fetched afresh), whether entries that failed transiently are retried at the batch's end."""
    return {"settings": config.job_settings(), "use_stored": use_stored, "retry_exceptions": retry_exceptions}


@functools.cache
def worker_config(worker: WorkerSettings) -> FetchConfig:
    """The worker process's configuration (endpoints and keys from its environment and config file, its options)
    with the shared rate limits: ``--rate-db``, which defaults to the broker's Redis, so every worker of a cluster
    shares them. Made once per process: the limiter's connection serves every batch."""
    cfg = FetchConfig.from_env()
    cfg = cfg.replace(rate_db=worker.rate_db or cfg.rate_db,
                      allow_private_addresses=worker.allow_private_addresses or cfg.allow_private_addresses)
    return cfg.with_shared_rate_limits()


@functools.cache
def task_for(worker: WorkerSettings) -> BatchTask:
    """The task function of a worker with these settings (what the Celery app registers; one per settings, so that
    the apps a submitter makes register the same one)."""

    def fetch_batch_task(ids: list[list[str]], db: str | None, options: dict[str, Any]) -> dict[str, Any]:
        return fetch_batch(ids, db, options, worker)

    return fetch_batch_task


def fetch_batch(ids: list[list[str]], db: str | None, options: dict[str, Any],
                worker: WorkerSettings = WorkerSettings()) -> dict[str, Any]:
    """Fetch ``ids`` (each ``[pmid, pmcid, doi]``) into the database ``db`` (else the worker's ``--db``) with the
    job's ``options`` (:func:`encode_options`); return the batch's counts (a :class:`~pubfetch.fetcher.BatchSummary`
    as a dict)."""
    from pubfetch.engine.assembly import FetchRun
    from pubfetch.engine.summary import BatchSummary

    target = db or worker.db
    if not target:
        raise ValueError("no database: give the job one (-db-fetch) or the worker one (--db)")
    config = worker_config(worker).with_job_settings(options.get("settings") or {}).replace(
        batch_size=max(1, len(ids)))
    summary = BatchSummary()
    with FetchRun(config) as run:
        for _ in run.fetch([PublicationIds(*i) for i in ids], target, summary=summary,
                           use_stored=bool(options.get("use_stored", True)),
                           retry_exceptions=bool(options.get("retry_exceptions", True))):
            pass
    log.info("batch of %d done: %d fetched, %d already complete", len(ids), summary.fetched, summary.skipped)
    return encode_summary(summary)
