"""The task a worker runs: fetch one batch of publications into the worker's own database.

A batch is walked through the chain as in a single process, so the batchable services (Europe PMC search, efetch,
annotations) are asked about many publications together; the batches of one job a worker holds at the same time (its
tasks are threads of one process) are walked in one run when their settings are equal, so that one batch's last
requests ride with the next one's, as the two batches in flight of one process do (:mod:`.sharedrun`). The task is
idempotent: an entry the database already holds complete enough is not fetched again (the fetcher's can-fetch rules),
so a batch delivered twice, after a worker was lost, only finishes what the first delivery left undone; every entry is
written in its own transaction.

The run is assembled as any other (``fetch_many``, :class:`~pubfetch.engine.assembly.FetchRun`) from the worker's
configuration (its environment and config file, and the options of ``pubfetch worker``: :class:`WorkerSettings`,
read from the app, never from the environment) with the job's fetching thresholds, parts and run settings, which the
message carries. The message is checked first (:mod:`.message`); a message that is refused, a job that was
cancelled, or a worker database that is gone fail the batch at once with one log line and are not retried: no later
delivery could succeed.
Whatever fails, what goes back to the result backend (which whoever writes to the queue can read) is one line written
here, never an exception's own text, which may quote a file or an answer.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
from typing import Any

from pubfetch.distributed.counts import add_summary, encode_summary
from pubfetch.distributed.message import MessageRefused, database_name, decode

log = logging.getLogger(__name__)

__all__ = ["add_summary", "encode_summary", "fetch_batch"]



@dataclasses.dataclass(frozen=True)
class WorkerSettings:
    """What ``pubfetch worker`` was told: its database (the only one its tasks write to), where the shared rate limits
    are kept (default: the broker's Redis, else the results' one), and whether links may point at private addresses.
    Handed to the tasks in the app (``app.conf.pubfetch_worker``), never through the environment."""

    db: str = ""
    rate_db: str | None = None
    allow_private_addresses: bool = False
    #: the directory of bulk files a queued import's tasks name (``--import-dir``), and where URLs are downloaded to
    import_dir: str | None = None
#: Publications of a task walked through the chain together (a task of more is walked in batches of this many).
WALK = 200


#: Where Celery's Redis result backend keeps a task's result (after the results' key prefix): it keeps the first
#: delivery's, and a later delivery of the batch is not stored over it.
RESULT_KEY = "celery-task-meta-"


class BatchRefused(Exception):
    """A batch this worker will not fetch, whoever delivers it (refused message, cancelled job, database gone)."""


class BatchFailed(Exception):
    """A batch whose fetch failed on this worker; the details are in the worker's log only."""


def cancelled_key(job: str) -> str:
    """The results' Redis key whose presence cancels a job (``-job-cancel``)."""
    return f"pubfetch-job:{job}:cancelled"


def _worker(task: Any) -> WorkerSettings:
    settings = getattr(task.app.conf, "pubfetch_worker", None)
    return settings if isinstance(settings, WorkerSettings) else WorkerSettings()


@functools.cache
def _config(worker: WorkerSettings) -> Any:
    """The worker process's configuration (endpoints, keys, contact e-mails, User-Agent and rule files from its
    environment and config file) with its options; the shared rate limits are kept where ``--rate-db`` says, which
    defaults to the queue's or the results' Redis, so every worker of a cluster shares them."""
    from pubfetch.config import FetchConfig

    cfg = FetchConfig.from_env()
    return cfg.with_changes(rate_db=worker.rate_db or cfg.run.rate_db,
                            allow_private_addresses=worker.allow_private_addresses or cfg.http.allow_private_addresses)


_opening = threading.Lock()  # the tasks of a worker are threads: the process's limiter and runs are made once


def _rate_limiter(worker: WorkerSettings) -> Any:
    """The worker process's shared rate limiter, opened once: it serves every batch (each batch's run is assembled
    beside it, :class:`~pubfetch.engine.assembly.FetchRun`). It is opened in a batch, so a Redis that is away then is
    waited for as during the batch's requests, not a failed batch."""
    with _opening:
        return _opened_limiter(worker)


@functools.cache
def _opened_limiter(worker: WorkerSettings) -> Any:
    from pubfetch.engine.assembly import shared_rate_limiter
    from pubfetch.net.ratelimit_redis import OUTAGE_S

    return shared_rate_limiter(_config(worker), open_wait_s=OUTAGE_S)


def _runs(worker: WorkerSettings) -> Any:
    """The runs of the batches this process holds at the same time (:mod:`.sharedrun`)."""
    with _opening:
        return _shared_runs(worker)


@functools.cache
def _shared_runs(worker: WorkerSettings) -> Any:
    from pubfetch.distributed.sharedrun import SharedRuns

    return SharedRuns(_opened_limiter(worker))


@functools.cache
def _results_client(url: str) -> Any:
    from pubfetch.net.ratelimit_redis import connect, split_prefix

    return connect(split_prefix(url)[0])


@functools.cache
def _results_outages(url: str) -> Any:
    from pubfetch.net.ratelimit_redis import RedisOutages
    from pubfetch.net.urls import shown_url

    return RedisOutages(f"the results' Redis at {shown_url(url)}", "the batch waits for it")


def _ride(task: Any, op: Any, *args: Any) -> Any:
    """``op(*args)`` on the results' Redis, waited for through an outage as the rate limits are (a batch would fail
    for a Redis restart otherwise)."""
    from pubfetch.net.ratelimit_redis import OUTAGE_S

    return _results_outages(task.app.conf.result_backend).call(OUTAGE_S, op, *args)


def _results(task: Any) -> tuple[Any, str]:
    """The results' Redis of the task's app and its key prefix."""
    conf = task.app.conf
    return _results_client(conf.result_backend), (conf.result_backend_transport_options or {}).get("global_keyprefix",
                                                                                                  "")


def _cancelled(task: Any, job: str | None) -> bool:
    if not job:
        return False
    client, prefix = _results(task)
    return bool(_ride(task, client.exists, prefix + cancelled_key(job)))


def _refuse(task: Any, reason: str) -> BatchRefused:
    log.warning("batch %s of job %s refused: %s", task.request.id, task.request.group, reason)
    return BatchRefused(reason)


def fetch_batch(task: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Fetch the IDs of the message into the worker's ``--db``; return the batch's counts (a
    :class:`~pubfetch.fetcher.BatchSummary` as a dict)."""
    from pubfetch.store import StoreError, open_store

    try:
        message = decode(args, kwargs)
    except MessageRefused as e:
        raise _refuse(task, f"message refused: {e}") from None
    target = _worker(task).db
    if not target:
        raise _refuse(task, "this worker has no --db")
    if message.db and database_name(message.db) != database_name(target):
        raise _refuse(task, "the job names another database than this worker's --db (start workers with the job's "
                            "database, or send the job to its database's queue)")
    if _cancelled(task, task.request.group):
        raise _refuse(task, "the job was cancelled")
    try:
        store = open_store(target)
    except StoreError as e:
        raise _refuse(task, f"the worker's database cannot be opened: {str(e).splitlines()[0][:300]}") from None
    try:
        return _fetch(task, message, store)
    except Exception:
        log.exception("batch %s of job %s failed", task.request.id, task.request.group)
        raise BatchFailed(f"the batch failed on worker {task.request.hostname}; its log has the details") from None
    finally:
        store.close()


def _fetch(task: Any, message: Any, store: Any) -> dict[str, Any]:
    """Fetch the batch; in a job, leave its publications to retry to the job's retry, and do that retry when this is
    the job's last batch to finish (:mod:`.jobretry`)."""
    from pubfetch.distributed.jobretry import EachCounted, JobRetry
    from pubfetch.engine.assembly import FetchRun
    from pubfetch.engine.options import FetchOptions, call_config
    from pubfetch.engine.resume import RetryEntry

    worker = _worker(task)
    cfg = _config(worker).with_job_settings(message.settings)
    limiter = _rate_limiter(worker)
    args = message.fetcher_args(cfg.fetching)
    summary = EachCounted()
    job = task.request.group
    deferred: list[RetryEntry] | None = [] if job and message.batches else None
    # the run of the batches of this job beside this one of equal settings: the batch size is the walk's, whatever
    # this task holds
    settings = call_config(cfg, args, message.parts, {"batch_size": WALK}, "fetch_many")
    scope = job or task.request.id
    with _runs(worker).joined(settings, scope) as (run, in_flight):
        for _ in run.fetch(message.ids, store, FetchOptions(summary=summary, deferred=deferred), shared=in_flight,
                           batch_size=max(1, min(len(message.ids), WALK)), scope=scope):
            pass
    if deferred is not None:
        client, prefix = _results(task)
        retry = JobRetry(client, prefix, job, message.batches, task.request.id, int(task.app.conf.result_expires))
        if not _ride(task, client.exists, prefix + RESULT_KEY + task.request.id):
            _ride(task, retry.defer, deferred)
        # else: an earlier delivery's result, which the backend keeps, counted them; the retry would count them again
        _ride(task, retry.settle, summary, summary)  # publications an earlier delivery left to the retry
        if _ride(task, retry.finish):
            entries = _ride(task, retry.entries, store)
            if entries:
                log.info("last batch of job %s: retrying the job's %d publications that ended with a fetch "
                         "exception", job, len(entries))
            retried = EachCounted()  # counted apart from this batch, whose result a later delivery replaces
            with FetchRun(call_config(cfg, args, message.parts, {}, "fetch_retries"), rate_limiter=limiter) as run:
                for _ in run.fetch_retries(entries, store, summary=retried):
                    pass
            _ride(task, retry.settle, retried)
            _ride(task, retry.done)
    log.info("batch %s of %d done: %d fetched, %d already complete", task.request.id, len(message.ids),
             summary.fetched, summary.skipped)
    return encode_summary(summary)
