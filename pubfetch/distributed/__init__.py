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
- :mod:`.submit`: splitting IDs into batches, sending them, following a job, and what ``pubfetch.fetch_many(...,
  queue=...)`` refuses; :mod:`.jobstatus`: a job's state and cancelling it; :mod:`.worker`: ``pubfetch worker``.

Celery, its Redis transport and a PostgreSQL driver are the ``cluster`` extra: ``pip install "pubfetch[cluster]"``.
"""

import typing as _typing

from pubfetch.lazy import lazy_names as _lazy_names

#: The queue's library calls (``pubfetch.fetch_many(..., queue=...)`` is the usual way in; :func:`.submit.submit`
#: sends a job without waiting), imported on first use so that Celery is only needed by those who use them.
_LAZY = {
    "wait": "pubfetch.distributed.submit",
    "fetch_queued": "pubfetch.distributed.submit",
    "job_status": "pubfetch.distributed.submit",
    "cancel": "pubfetch.distributed.submit",
    "JobStatus": "pubfetch.distributed.jobstatus",
    "QueueError": "pubfetch.distributed.jobstatus",
}

__all__ = [*_LAZY]  # noqa: PLE0604 - the lazy table is the one list of public names

if _typing.TYPE_CHECKING:  # pragma: no cover - what type checkers read instead (``as``: re-exported)
    from pubfetch.distributed.jobstatus import JobStatus as JobStatus
    from pubfetch.distributed.jobstatus import QueueError as QueueError
    from pubfetch.distributed.submit import cancel as cancel
    from pubfetch.distributed.submit import fetch_queued as fetch_queued
    from pubfetch.distributed.submit import job_status as job_status
    from pubfetch.distributed.submit import wait as wait


def __getattr__(name: str) -> object:
    return _lazy(name)


_lazy = _lazy_names(__name__, _LAZY)
