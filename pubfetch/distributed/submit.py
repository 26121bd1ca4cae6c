"""Sending a run to the workers: split the IDs into batches, one task each, and follow the job until it is done.

The job is saved in the result backend under its id (:mod:`.jobstatus`), so ``-job-status ID`` can report on it from
any machine. A run sent again while the same run (same database, IDs, batches and options) is still queued follows
that job instead of sending its batches a second time: two submitters of one run cost the services one run's requests.
Following a job survives outages of the queue's Redis for minutes (it asks again with backoff), since the job goes on
in the workers whatever happens to the submitter.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import Any

from pubfetch.config import SETTINGS, WORKER_SETTINGS, Batching, FetchConfig
from pubfetch.distributed.app import RESULT_EXPIRES_S, TASK_NAME, is_redis
from pubfetch.distributed.jobstatus import Job, JobStatus, QueueError
from pubfetch.distributed.message import ALLOWED_ARGS, MAX_IDS_PER_TASK, BatchMessage, database_name, job_args
from pubfetch.distributed.strays import queue_id, register
from pubfetch.distributed.tasks import add_summary, encode_summary
from pubfetch.engine.options import Errors, FetchOptions, call_config
from pubfetch.engine.run_batch import to_ids
from pubfetch.engine.summary import BatchSummary, FetchError, failed_transiently
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import InvalidId, PublicationIds, check_publication_ids
from pubfetch.model import Publication
from pubfetch.net.urls import shown_url
from pubfetch.store import open_or_init_store, open_store

__all__ = ["BATCH_SIZE", "Job", "JobStatus", "QueueError", "QueuedCall", "cancel", "fetch_many_queued",
           "fetch_queued", "fetch_through_queue", "job_status", "submit", "wait"]

log = logging.getLogger(__name__)

POLL_S = 0.5
#: IDs per task by default: small enough that CPU-heavy batches (PDFs) spread over the workers, large enough that the
#: batchable services are still asked about many publications per request.
BATCH_SIZE = 50
#: How long a submitter keeps asking a queue whose Redis stopped answering before it gives up following the job.
OUTAGE_S = 300.0


def _checked(value: Any) -> PublicationIds:
    """``value`` as PublicationIds, checked as a worker checks a message's IDs (:func:`.message.decode`): InvalidId
    here names the bad ID, where a worker could only refuse the whole batch."""
    ids = to_ids(value)
    check_publication_ids(*ids.ids)
    return ids


def _batches(ids: Iterable[Any], size: int) -> Iterable[list[PublicationIds]]:
    iterator = (_checked(i) for i in ids)
    while batch := list(islice(iterator, size)):
        yield batch


def _run_key(messages: list[dict[str, Any]]) -> str:
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
    return f"pubfetch-run:{digest}"


def submit(ids: Iterable[Any], db: str, queue: str, *, batch_size: int = BATCH_SIZE, args: FetcherArgs | None = None,
           parts: Iterable[Any] | None = None, on_same_run: Callable[[str], None] | None = None,
           settings: dict[str, Any] | None = None) -> str:
    """Send the IDs as tasks of ``batch_size`` IDs (at most :data:`~.message.MAX_IDS_PER_TASK` each); return the job id
    at once (the workers do the rest). When the same run is still queued, return its job id instead, after calling
    ``on_same_run`` with it. ``settings``: the job's run settings
    (:meth:`~pubfetch.config.FetchConfig.job_settings`).

    ``db`` is created first when it does not exist yet or holds no pubfetch database, as a fetch in this process
    creates it (:func:`~pubfetch.store.open_or_init_store`): the workers only open their ``--db``, so a batch sent to
    a database nobody made would fail on every worker. A database that cannot be made is a StoreError here, before
    anything is sent."""
    from celery import group

    size = max(1, min(batch_size, MAX_IDS_PER_TASK))
    shown_parts = [getattr(p, "value", str(p)) for p in parts] if parts is not None else None
    name = os.path.abspath(db) if database_name(db).startswith("sqlite:") and "://" not in db else db
    batches = list(_batches(ids, size))
    messages = [BatchMessage(batch, name, job_args(args), shown_parts, len(batches), dict(settings or {})).encode()
                for batch in batches]
    with Job(queue) as job:
        open_or_init_store(db).close()
        run_key = job.prefix + _run_key(messages)
        signature = group([job.app.signature(TASK_NAME, args=(m,)) for m in messages])
        result = signature.freeze()
        # SET NX, then GET (not SET NX GET, which Redis before 7 lacks): a job id set meanwhile is followed too
        earlier = None if job.results.set(run_key, result.id, nx=True, ex=RESULT_EXPIRES_S) else \
            job.results.get(run_key)
        if earlier is not None:
            earlier_id = earlier.decode() if isinstance(earlier, bytes) else str(earlier)
            try:
                state = job.status(earlier_id)
            except QueueError:
                state = None  # its submitter has not saved it yet, or it expired
            if state is None or not (state.finished or state.cancelled):
                job.release(result)
                if on_same_run is not None:
                    on_same_run(earlier_id)
                return earlier_id
            job.results.set(run_key, result.id, ex=RESULT_EXPIRES_S)
        result.save()
        signature.apply_async()
        if is_redis(queue):  # kept for sending again a batch lost in delivery (.strays), once all are sent
            register(job.results, job.prefix, _queue_id(queue), str(result.id),
                     {str(task.id): m for task, m in zip(result.results, messages, strict=True)})
        job.release(result)
        return str(result.id)


def _queue_id(queue: str) -> str:
    """The identity of a Redis queue (:func:`.strays.queue_id`), asked of the queue's own Redis."""
    from pubfetch.distributed.liveness import connect
    from pubfetch.net.ratelimit_redis import split_prefix

    client = connect(queue)
    try:
        return queue_id(client, split_prefix(queue)[1])
    finally:
        client.close()


def job_status(job_id: str, queue: str) -> JobStatus:
    """The state of a submitted job, from the result backend of the queue it was sent to."""
    with Job(queue) as job:
        return job.status(job_id)


def _outage_errors() -> tuple[type[BaseException], ...]:
    import redis
    from kombu.exceptions import OperationalError

    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OperationalError, OSError)


def wait(job_id: str, queue: str, progress: Callable[[JobStatus], None] | None = None,
         poll: float = POLL_S, timeout: float | None = None, outage: float = OUTAGE_S) -> JobStatus:
    """Follow a job until every batch is done or failed, calling ``progress`` whenever its state line changes;
    TimeoutError after ``timeout`` seconds (None: wait as long as it takes). While the queue's Redis does not answer,
    ask again with backoff for up to ``outage`` seconds (one warning when it starts), then :class:`QueueError`."""
    seen = ""
    deadline = None if timeout is None else time.monotonic() + timeout
    errors = _outage_errors()
    lost_since: float | None = None
    with Job(queue) as job:
        while True:
            try:
                status = job.status(job_id)
            except errors as e:
                now = time.monotonic()
                if lost_since is None:
                    lost_since = now
                    log.warning("the queue %s does not answer (%s); asking again for up to %.0f s",
                                shown_url(queue), type(e).__name__, outage)
                if now - lost_since > outage:
                    raise QueueError(f"the queue {shown_url(queue)} has not answered for {outage:.0f} s; the job goes "
                                     f"on in the workers: pubfetch -job-status {job_id} --queue URL") from None
                time.sleep(min(10.0, 0.5 * 2 ** min(5, int((now - lost_since) // 2))))
                continue
            if lost_since is not None:
                log.warning("the queue %s answers again", shown_url(queue))
                lost_since = None
            if progress is not None and str(status) != seen:
                seen = str(status)
                progress(status)
            if status.finished:
                return status
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"{status} after {timeout:.0f} s")
            time.sleep(poll)


def cancel(job_id: str, queue: str) -> JobStatus:
    """Cancel a job (see :meth:`.jobstatus.Job.cancel`)."""
    with Job(queue) as job:
        return job.cancel(job_id)


def fetch_queued(ids: Iterable[Any], db: str, queue: str, *, batch_size: int = BATCH_SIZE,
                 args: FetcherArgs | None = None, parts: Iterable[Any] | None = None,
                 progress: Callable[[JobStatus], None] | None = None,
                 settings: dict[str, Any] | None = None) -> JobStatus:
    """Submit and wait: the queued equivalent of fetching the IDs into ``db`` in this process."""
    job = submit(ids, db, queue, batch_size=batch_size, args=args, parts=parts, settings=settings)
    return wait(job, queue, progress)


def fetch_many_queued(ids: Iterable[Any], db: str | os.PathLike[str], queue: str, *,
                      args: FetcherArgs | None = None, parts: Iterable[Any] | None = None,
                      progress: Callable[[int, Publication], None] | None = None,
                      summary: BatchSummary | None = None, batch_size: int | None = None,
                      settings: dict[str, Any] | None = None, errors: Errors = "skip") -> Iterator[Publication]:
    """``fetch_many(ids, db=..., queue=...)``: the workers fetch, then the publications are read from the database in
    input order (an ID the database has no entry for is skipped); ``errors`` as for
    :func:`pubfetch.fetcher.fetch_many`."""
    wanted = list(_valid(ids, errors))
    status = fetch_queued(wanted, os.fspath(db), queue, batch_size=batch_size or BATCH_SIZE, args=args, parts=parts,
                          settings=settings)
    if status.failed:
        raise RuntimeError(f"{status}; see the workers' logs")
    if summary is not None:
        add_summary(summary, encode_summary(status.summary))
    with open_store(db, readonly=True) as store:
        done = 0
        for ids_ in wanted:
            pub = store.get_publication(ids_)
            if pub is None:
                continue
            if errors == "raise" and failed_transiently(pub):
                raise FetchError(pub)
            done += 1
            if progress is not None:
                progress(done, pub)
            yield pub


def _valid(ids: Iterable[Any], errors: Errors) -> Iterator[PublicationIds]:
    """The IDs as PublicationIds: an invalid one is skipped with a warning, or raises with ``errors="raise"``."""
    for value in ids:
        if isinstance(value, str) and (not value.strip() or value.lstrip().startswith("#")):
            continue
        try:
            yield _checked(value)
        except InvalidId as e:
            if errors == "raise":
                raise
            log.warning("skipping %r: %s", str(value), e)


# --- fetch_many(queue=...): what a queued job can carry, and what it refuses -----------------------------------------


@dataclass(frozen=True)
class QueuedCall:
    """A ``fetch_many`` call with ``queue``: its settings (``config``, ``args``, ``parts``, the keyword ``settings``),
    its per-call ``options``, and what only a run in this process can use (``context``, ``rate_limiter``, a
    ``snowball``)."""

    config: FetchConfig | None
    args: FetcherArgs | None
    parts: Iterable[Any] | None
    settings: Mapping[str, object]
    options: FetchOptions
    context: object = None
    rate_limiter: object = None
    snowball: bool = False


def fetch_through_queue(ids: Iterable[Any], db: object, queue: str, call: QueuedCall) -> Iterator[Publication]:
    """``pubfetch.fetch_many(..., queue=...)``: the IDs fetched by ``pubfetch worker`` processes into ``db``, then
    read from it (:func:`fetch_many_queued`). What the workers cannot do as this process would is refused here, with
    a ValueError saying why, before anything is sent: see :func:`pubfetch.fetcher.fetch_many`."""
    _refuse_in_process_only(call)
    _refuse_worker_settings(call)
    if db is None or not isinstance(db, str | os.PathLike):
        raise ValueError("fetching through a queue needs db= a database URL or path the workers can reach")
    cfg = call_config(call.config, call.args, call.parts, call.settings, "fetch_many")
    parts_asked = cfg.run.parts
    # IDs per task: the call's, config's or this process's batch size, else the queue's default
    chosen_size = call.settings.get("batch_size") is not None or cfg.batching.batch_size != Batching().batch_size
    options = call.options
    return fetch_many_queued(ids, db, queue, args=cfg.fetching, parts=sorted(p.value for p in parts_asked)
                             if parts_asked is not None else None, progress=options.progress,
                             summary=options.summary, batch_size=cfg.batching.batch_size if chosen_size else None,
                             settings=cfg.job_settings(), errors=options.errors)


def _refuse_in_process_only(call: QueuedCall) -> None:
    """What only a run in this process does: a snowball, live objects of this process, the stored entries ignored,
    no end-of-run retry, failures handed back to retry later."""
    if call.snowball:
        raise ValueError("fetch_many(queue=...) cannot snowball (citations=, expand_references=): run it without a "
                         "queue")
    if call.context is not None or call.rate_limiter is not None:
        what = "a context" if call.context is not None else "a rate_limiter"
        raise ValueError(f"fetch_many(queue=...) cannot use {what}: the workers build their own")
    options = call.options
    if not options.use_stored or not options.retry_exceptions:
        raise ValueError("fetch_many(queue=...) always uses the entries in the database and retries the failed "
                         "publications at the job's end: use_stored=False and retry_exceptions=False need a run in "
                         "this process")
    if options.deferred is not None:
        raise ValueError("fetch_many(queue=...) retries the failed publications at the job's end: deferred= needs a "
                         "run in this process")


def _refuse_worker_settings(call: QueuedCall) -> None:
    """The settings that belong to each worker, chosen for this call: as keyword settings, in ``args`` or in
    ``config``."""
    settings = call.settings
    refused = sorted(name for name in settings if name in WORKER_SETTINGS and settings[name] is not None)
    if refused:
        raise ValueError(f"fetch_many(queue=...) cannot set {', '.join(refused)}: each worker uses its own (the "
                         "options of pubfetch worker and its environment or config file)")
    default = FetcherArgs()
    worker_args = sorted(name for name in vars(default) if name not in ALLOWED_ARGS
                         and (call.args is not None and getattr(call.args, name) != getattr(default, name)
                              or settings.get(name) is not None))
    if worker_args:
        raise ValueError(f"fetch_many(queue=...) cannot set the fetching parameters {', '.join(worker_args)}: each "
                         "worker uses its own (its environment or config file)")
    chosen = _worker_settings_chosen(call.config) if call.config is not None else []
    if chosen:
        raise ValueError(f"fetch_many(queue=...) cannot use config's {', '.join(chosen)}: each worker uses its own "
                         "(the options of pubfetch worker and its environment or config file); leave them at their "
                         "defaults or this process's settings")


def _worker_settings_chosen(config: FetchConfig) -> list[str]:
    """The settings of ``config`` that a queued job cannot carry (each worker's own) and that differ both from their
    defaults and from this process's configuration (environment, config file): chosen for this call, so refused
    rather than dropped. One this process's settings give anyway (its API key, its e-mail) is no choice of the call."""
    def value(cfg: FetchConfig, name: str) -> object:
        return getattr(getattr(cfg, SETTINGS[name]), name)

    default, own = FetchConfig(), FetchConfig.from_env()
    names = [name for name in SETTINGS if name in WORKER_SETTINGS
             or SETTINGS[name] == "fetching" and name not in ALLOWED_ARGS]
    return sorted(name for name in names if value(config, name) not in (value(default, name), value(own, name)))
