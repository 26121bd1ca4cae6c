"""Sending a run to the workers: split the IDs into batches, one task each, and follow the job until it is done.

A job is a Celery group whose result is saved in the result backend under the job id, so ``-job-status ID`` (or
:func:`job_status`) can report it from any machine, while it runs or after, for as long as results are kept.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from pubfetch.config import FetchConfig
from pubfetch.distributed.app import TASK_NAME, make_app
from pubfetch.distributed.tasks import add_summary, encode_ids, encode_options, encode_summary
from pubfetch.fetcher import BatchSummary, FetchError, IdsLike, failed_transiently, to_ids
from pubfetch.ids import InvalidId, PublicationIds
from pubfetch.model import Publication
from pubfetch.store import open_store

log = logging.getLogger(__name__)

POLL_S = 0.5
#: IDs per task by default: small enough that CPU-heavy batches (PDFs) spread over the workers, large enough that the
#: batchable services are still asked about many publications per request.
BATCH_SIZE = 50


class QueueError(Exception):
    """The queue cannot be reached, or knows no such job; the message is meant for the user as is."""


def _connected_app(queue: str) -> Any:
    """The Celery app of ``queue``, after checking that its broker answers (Celery would otherwise retry for long)."""
    app = make_app(queue)
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=2, interval_start=0.2, interval_step=0.5)
    except Exception as e:  # kombu and the transports raise their own kinds
        shown = queue.rsplit("@", maxsplit=1)[-1] if "@" in queue else queue
        raise QueueError(f"cannot reach the queue {shown}: {str(e).strip().splitlines()[0] if str(e) else e!r}") \
            from None
    return app


@dataclass
class JobStatus:
    """Where a job is: batches done, failed and in all; summed counts of the batches done."""

    job_id: str
    batches: int
    done: int = 0
    failed: int = 0
    summary: BatchSummary = field(default_factory=BatchSummary)

    @property
    def finished(self) -> bool:
        return self.done + self.failed == self.batches

    def __str__(self) -> str:
        state = "finished" if self.finished else "running"
        failed = f", {self.failed} failed" if self.failed else ""
        return f"job {self.job_id}: {state}, {self.done} of {self.batches} batches done{failed}; {self.summary.line()}"


def _batches(ids: Iterable[IdsLike], size: int) -> Iterable[list[list[str]]]:
    iterator = (encode_ids(to_ids(i)) for i in ids)
    while batch := list(islice(iterator, size)):
        yield batch


def submit(ids: Iterable[IdsLike], db: str, queue: str, *, batch_size: int = BATCH_SIZE,
           config: FetchConfig | None = None, use_stored: bool = True, retry_exceptions: bool = True) -> str:
    """Send the IDs as tasks of ``batch_size`` IDs with the job's settings (``config``'s
    :meth:`~pubfetch.config.FetchConfig.job_settings`); return the job id at once (the workers do the rest)."""
    from celery import group

    app = _connected_app(queue)
    options = encode_options(config or FetchConfig(), use_stored=use_stored, retry_exceptions=retry_exceptions)
    signatures = [app.signature(TASK_NAME, args=(batch, db, options)) for batch in _batches(ids, batch_size)]
    result = group(signatures).apply_async()
    result.save()
    return str(result.id)


def job_status(job_id: str, queue: str) -> JobStatus:
    """The state of a submitted job, from the result backend of the queue it was sent to."""
    app = _connected_app(queue)
    result = app.GroupResult.restore(job_id)
    if result is None:
        raise QueueError(f"no job {job_id} in the results of {queue} (finished over a week ago, or another queue)")
    status = JobStatus(job_id, len(result.results))
    for task in result.results:
        if task.successful():
            status.done += 1
            add_summary(status.summary, task.result or {})
        elif task.failed():
            status.failed += 1
    return status


def wait(job_id: str, queue: str, progress: Callable[[JobStatus], None] | None = None,
         poll: float = POLL_S, timeout: float | None = None) -> JobStatus:
    """Follow a job until every batch is done or failed, calling ``progress`` whenever more batches are; TimeoutError
    after ``timeout`` seconds (None: wait as long as it takes)."""
    seen = -1
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        status = job_status(job_id, queue)
        if progress is not None and status.done + status.failed != seen:
            seen = status.done + status.failed
            progress(status)
        if status.finished:
            return status
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError(f"{status} after {timeout:.0f} s")
        time.sleep(poll)


def fetch_queued(ids: Iterable[IdsLike], db: str, queue: str, *, batch_size: int = BATCH_SIZE,
                 config: FetchConfig | None = None, use_stored: bool = True, retry_exceptions: bool = True,
                 progress: Callable[[JobStatus], None] | None = None) -> JobStatus:
    """Submit and wait: the queued equivalent of fetching the IDs into ``db`` in this process."""
    job = submit(ids, db, queue, batch_size=batch_size, config=config, use_stored=use_stored,
                 retry_exceptions=retry_exceptions)
    return wait(job, queue, progress)


def fetch_many_queued(ids: Iterable[IdsLike], db: str | os.PathLike[str], queue: str, config: FetchConfig, *,
                      progress: Callable[[int, Publication], None] | None = None,
                      summary: BatchSummary | None = None, use_stored: bool = True, retry_exceptions: bool = True,
                      errors: str = "skip") -> Iterator[Publication]:
    """``fetch_many(ids, db=..., queue=...)``: the workers fetch with the job's settings of ``config``, then the
    publications are read from the database in input order (an ID the database has no entry for is skipped);
    ``errors`` as for :func:`pubfetch.fetcher.fetch_many`."""
    wanted = list(_valid(ids, errors))
    status = fetch_queued(wanted, os.fspath(db), queue, batch_size=config.batch_size, config=config,
                          use_stored=use_stored, retry_exceptions=retry_exceptions)
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


def _valid(ids: Iterable[IdsLike], errors: str) -> Iterator[PublicationIds]:
    """The IDs as PublicationIds: an invalid one is skipped with a warning, or raises with ``errors="raise"``."""
    for value in ids:
        if isinstance(value, str) and (not value.strip() or value.lstrip().startswith("#")):
            continue
        try:
            yield to_ids(value)
        except InvalidId as e:
            if errors == "raise":
                raise
            log.warning("skipping %r: %s", str(value), e)
