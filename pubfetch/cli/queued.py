"""``--queue URL``: the pipeline's publication fetch steps sent to Celery workers instead of run in this process;
``-job-status`` and ``-job-cancel``.

A job's state gives the command's exit status, the same for ``-job-status`` and for a submitter that waited for the job
(:func:`job_exit`), so a script that detached can tell how its job went as one that waited can."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pubfetch.cli.errors import EXIT_JOB_CANCELLED, EXIT_JOB_RUNNING, EXIT_OK, EXIT_SOME_FAILED, UsageError
from pubfetch.cli.fetching import Session
from pubfetch.ids import PublicationIds
from pubfetch.model import PartName
from pubfetch.textutil import counted

if TYPE_CHECKING:
    from pubfetch.distributed.jobstatus import JobStatus

log = logging.getLogger("pubfetch.cli")


def _progress(status: JobStatus) -> None:
    print(f"pubfetch: {status.progress()}", file=sys.stderr, flush=True)


def _same_run(job: str) -> None:
    print(f"pubfetch: the same run is already queued as job {job}: following it instead of sending it again",
          file=sys.stderr, flush=True)


def job_exit(status: JobStatus) -> int:
    """The exit status of a job's state: cancelled (130, whatever its running batches still do), running or waiting
    for workers (4), done with failed batches or failed publications (3), done (0)."""
    if status.cancelled:
        return EXIT_JOB_CANCELLED
    if not status.finished:
        return EXIT_JOB_RUNNING
    if status.failed or status.summary.failed:
        return EXIT_SOME_FAILED
    return EXIT_OK


def fetch_step(ids: Iterable[PublicationIds], db: str, queue: str, session: Session, *, batch_size: int | None,
               parts: frozenset[PartName] | None, detach: bool, progress: bool, quiet: bool = False) -> None:
    """Send the IDs to the queue's workers as batches (with the session's fetching thresholds and run settings); wait
    for all of them unless ``detach`` (then print the job id); the workers' counts go into the session's summary.
    Progress (the job's state line when it changes, with the batches each worker runs and those of silent workers) is
    shown on stderr with ``progress``, or when it is a terminal and not ``quiet``.

    Batches that failed on a worker (after their retries) are said with the job's report, and the command exits with
    the job's status (:func:`job_exit`: 3, or 130 for a cancelled job) once the rest of the run is done."""
    from pubfetch.distributed import submit as queued

    progress = progress or (sys.stderr.isatty() and not quiet)
    try:
        job = queued.submit(ids, db, queue, batch_size=batch_size or queued.BATCH_SIZE, args=session.args,
                            parts=sorted(p.value for p in parts) if parts is not None else None,
                            on_same_run=_same_run, settings=session.config.job_settings())
        if detach:
            print(job, flush=True)
            return
        status = queued.wait(job, queue, _progress if progress else None)
    except (queued.QueueError, ValueError) as e:
        raise UsageError(str(e)) from None
    log.info("%s", status)
    # the run's summary line and exit status count the workers' entries as they count a local fetch's
    session.fetched_publications = True
    _count(session, status)
    session.job_exit = max(session.job_exit, job_exit(status))
    if status.failed:
        log.error("%s", status.report())  # each reason says where to look (a worker's log) or what to do


def _count(session: Session, status: JobStatus) -> None:
    """The job's counts into the command's summary: paper by paper when the workers listed their papers and the
    command counts each paper once across its steps (another step may have got the same papers), else as a whole."""
    from pubfetch.distributed.counts import add_summary, decode_summary, encode_summary
    from pubfetch.engine.command_summary import CommandSummary, paper_keys

    summary = session.summary
    if status.papers is None or not isinstance(summary, CommandSummary):
        add_summary(summary, encode_summary(status.summary))
        return
    for ids, counts in status.papers:
        summary.count_paper(paper_keys(ids), decode_summary(counts))


def job_status(job_id: str, queue: str | None) -> tuple[str, int]:
    """The job's report and the exit status of its state (:func:`job_exit`)."""
    if not queue:
        raise UsageError("-job-status needs the --queue the job was sent to")
    from pubfetch.distributed.submit import Job, QueueError

    try:
        with Job(queue) as job:
            status = job.status(job_id)
    except (QueueError, ValueError) as e:
        raise UsageError(str(e)) from None
    return status.report(), job_exit(status)


def job_cancel(job_id: str, queue: str | None) -> str:
    if not queue:
        raise UsageError("-job-cancel needs the --queue the job was sent to")
    from pubfetch.distributed.submit import Job, QueueError

    try:
        with Job(queue) as job:
            status = job.cancel(job_id)
    except (QueueError, ValueError) as e:
        raise UsageError(str(e)) from None
    if status.finished:
        return f"job {job_id} had already finished; nothing to cancel"
    return (f"job {job_id} cancelled: {counted(status.waiting, 'waiting batch', 'waiting batches')} will be refused "
            f"by the workers that take them, {counted(status.running, 'running one')} "
            f"{'finishes' if status.running == 1 else 'finish'}")
