"""Where a queued job is: batches done, running (on which worker, for how long), waiting, failed, and given again after
a lost worker; and cancelling one.

A job is a Celery group saved in the result backend under the job id, so any machine that reaches the queue can follow
it while it runs or after, for as long as results are kept. Which worker holds a running batch is what the workers'
heartbeats record (:mod:`.liveness`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pubfetch.distributed.app import RESULT_EXPIRES_S, make_app
from pubfetch.distributed.counts import papers_of
from pubfetch.distributed.jobretry import counted_apart
from pubfetch.distributed.liveness import Holding, holdings
from pubfetch.distributed.tasks import add_summary, cancelled_key
from pubfetch.engine.summary import BatchSummary
from pubfetch.net.urls import shown_url
from pubfetch.textutil import counted


class QueueError(Exception):
    """The queue cannot be reached, or knows no such job; the message is meant for the user as is."""


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds // 60 % 60} min"


@dataclass
class BatchState:
    """One batch of a job that is not done: running on a worker, waiting in the queue, or failed."""

    number: int
    state: str  # "running", "waiting", "failed"
    holding: Holding | None = None
    redone: int = 0
    reason: str = ""

    def line(self, now: float) -> str:
        again = f", given again {self.redone} time{'s' if self.redone > 1 else ''} after a lost worker" \
            if self.redone else ""
        if self.state == "running" and self.holding is not None:
            return f"batch {self.number}: running on {self.holding.worker} for {_duration(now - self.holding.since)}" \
                   f"{again}"
        if self.holding is not None:
            return (f"batch {self.number}: waiting, {self.holding.worker} went silent "
                    f"{_duration(now - self.holding.beat)} ago{again}")
        return f"batch {self.number}: waiting{again}"


@dataclass
class JobStatus:
    """Where a job is: batches done, failed, running and in all; summed counts of the batches done."""

    job_id: str
    batches: int
    done: int = 0
    failed: int = 0
    running: int = 0
    redone: int = 0
    cancelled: bool = False
    summary: BatchSummary = field(default_factory=BatchSummary)
    open_batches: list[BatchState] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    now: float = 0.0
    #: the publications of the batches done, each with its IDs and own counts (``None`` when a batch's result did not
    #: list them: a worker of an earlier version), so a command counts each paper once across its steps
    papers: list[tuple[list[str], dict[str, Any]]] | None = field(default_factory=list)

    def add_papers(self, papers: list[tuple[list[str], dict[str, Any]]] | None) -> None:
        if papers is None or self.papers is None:
            self.papers = None
        else:
            self.papers.extend(papers)

    @property
    def finished(self) -> bool:
        return self.done + self.failed == self.batches

    @property
    def waiting(self) -> int:
        return self.batches - self.done - self.failed - self.running

    def __str__(self) -> str:
        """One line: the state, the batch counts and the publications' counts."""
        state = "finished" if self.finished else "cancelled" if self.cancelled else "running"
        parts = [f"{self.done} of {counted(self.batches, 'batch', 'batches')} done"]
        if not self.finished:
            parts += [f"{self.running} running", f"{self.waiting} waiting"]
        if self.failed:
            parts.append(f"{self.failed} failed")
        if self.redone:
            parts.append(f"{self.redone} given again after a lost worker")
        return f"job {self.job_id}: {state}, {', '.join(parts)}; {self.summary.line()}"

    def progress(self, most: int = 8) -> str:
        """What a submitter shows while it waits, whenever the state line changes: that line, one line per worker
        (up to ``most``) with the batches it runs and for how long, and one per batch whose worker went silent."""
        lines = [str(self)]
        running: dict[str, list[BatchState]] = {}
        for batch in sorted(self.open_batches, key=lambda b: b.number):
            if batch.state == "running" and batch.holding is not None:
                running.setdefault(batch.holding.worker, []).append(batch)
        for worker in sorted(running)[:most]:
            lines.append(f"  {worker}: " + ", ".join(f"batch {b.number} for {_duration(self.now - b.holding.since)}"
                                                     for b in running[worker] if b.holding is not None))
        if len(running) > most:
            lines.append(f"  and {len(running) - most} more workers: pubfetch -job-status {self.job_id} --queue URL")
        lines += ["  " + b.line(self.now) for b in sorted(self.open_batches, key=lambda b: b.number)
                  if b.state != "running" and b.holding is not None]
        return "\n".join(lines)

    def report(self) -> str:
        """The line of :meth:`__str__` and one more per batch not done (running ones first) and per failure reason."""
        lines = [str(self)]
        order = {"running": 0, "waiting": 1}
        for batch in sorted(self.open_batches, key=lambda b: (order.get(b.state, 2), b.number)):
            lines.append("  " + batch.line(self.now))
        for reason, n in self.failures.most_common():
            lines.append(f"  {counted(n, 'batch', 'batches')} failed: {reason}")
        return "\n".join(lines)


class Job:
    """A connection to a queue's results for following and cancelling its jobs; :meth:`close` it when done (a Celery
    app left to the interpreter's exit fails there, printing a traceback)."""

    def __init__(self, queue: str) -> None:
        from pubfetch.distributed.liveness import connect

        self.queue = queue
        self.app = make_app(queue)
        try:
            with self.app.connection_for_write() as conn:
                conn.ensure_connection(max_retries=2, interval_start=0.2, interval_step=0.5)
        except Exception as e:  # kombu and the transports raise their own kinds
            self.close()
            raise QueueError(f"cannot reach the queue {shown_url(queue)}: {_first_line(e)}") from None
        backend = self.app.conf.result_backend
        self.prefix = (self.app.conf.result_backend_transport_options or {}).get("global_keyprefix", "")
        self.results = connect(backend)

    def close(self) -> None:
        results = getattr(self, "results", None)
        if results is not None:
            results.close()
        self.app.close()

    def __enter__(self) -> Job:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def status(self, job_id: str) -> JobStatus:
        """The state of a submitted job."""
        result = self.app.GroupResult.restore(job_id)
        if result is None:
            raise QueueError(f"no job {job_id} in the results of {shown_url(self.queue)} (finished over a week ago, "
                             "or another queue)")
        status = JobStatus(job_id, len(result.results))
        status.cancelled = bool(self.results.exists(self.prefix + cancelled_key(job_id)))
        now, held, redone = holdings(self.results, self.prefix, job_id)
        status.now = now
        status.redone = sum(1 for n in redone.values() if n)
        for number, task in enumerate(result.results, start=1):
            state = task.state
            if state == "SUCCESS":
                status.done += 1
                add_summary(status.summary, task.result or {})
                status.add_papers(papers_of(task.result or {}))
                continue
            if state in ("FAILURE", "REVOKED"):
                status.failed += 1
                status.failures[_first_line(task.result) if state == "FAILURE" else "revoked"] += 1
                continue
            holding = held.get(task.id)
            alive = holding is not None and now - holding.beat <= holding.grace
            status.running += alive
            status.open_batches.append(BatchState(number, "running" if alive else "waiting", holding,
                                                  redone.get(task.id, 0)))
        for ids, counts in counted_apart(self.results, self.prefix, job_id):
            add_summary(status.summary, counts)
            status.add_papers([(ids, counts)])
        self.release(result)
        return status

    def release(self, group_result: Any) -> None:
        """Stop waiting for the results of ``group_result``'s tasks: Celery waits for every task result object it
        makes until the object is destroyed, and one destroyed at the interpreter's exit fails with a traceback."""
        remove = getattr(self.app.backend, "remove_pending_result", None)
        if remove is not None:
            for task in group_result.results:
                remove(task)

    def cancel(self, job_id: str) -> JobStatus:
        """Mark the job cancelled: its waiting batches are refused by the workers that take them (at once, not
        fetched), its running ones finish. Returns the state at the time of cancelling."""
        status = self.status(job_id)
        self.results.set(self.prefix + cancelled_key(job_id), "1", ex=RESULT_EXPIRES_S)
        status.cancelled = True
        return status


def _first_line(e: object) -> str:
    text = str(e).strip()
    return text.splitlines()[0][:300] if text else type(e).__name__

