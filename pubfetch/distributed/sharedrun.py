"""The batches a worker holds at the same time, fetched as one run: one context (HTTP client, host turns, rules) and one
batcher for the tasks of one job whose run settings are equal.

One process overlaps two batches (``fetch_many``), so the last efetch requests of a batch (PubMed's, PMC's, PubMed's
again after the full texts) ride with the next batch's, and a job costs about one request per step per batch plus one.
A worker that walked each batch alone would pay every batch's tail requests on its own. So the tasks of one worker
run as threads of one process (``pubfetch worker --pool threads``, the default), and a task joins the run of the tasks
running beside it whose settings equal its own (the job's fetching thresholds, parts and run settings, which the
message carries) and of its job: their batches are numbered, gathered and ranked together, as the two batches in flight
of one process are. A task of other settings, or of another job, gets a run of its own: a run remembers the answers it
had (a failure one job was told a later run retries would otherwise be served to the next job from memory), holds
its batches' claims until the batches begun before them have ended, and fails every member of a gathered request
whose step raises, all of which one process keeps within its own run. The run is closed when its last task leaves; a
run whose network was found down is not joined again (its tasks fail; the next ones start afresh), nor one older than
:data:`MAX_AGE_S`, so that what a run remembers (the answers it had, which are not asked again) is never older than
a long run of one process would keep.

What stays a task's own: its store connection and writer, its tally and summary (the counts it returns), its list of
publications left to the job's retry, and its claims (a paper named twice is fetched once within a job, never taken
from another job's count). A task whose batch fails waits for its own publications without stopping the run's
sending, so the batches beside it go on (:attr:`~pubfetch.engine.flow.InFlight.alone`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pubfetch.config import FetchConfig
from pubfetch.engine.assembly import FetchRun
from pubfetch.engine.flow import InFlight

#: Seconds after it opened that a run is no longer joined by new tasks (those running in it finish there).
MAX_AGE_S = 3600.0


@dataclass(eq=False)
class _Shared:
    config: FetchConfig
    scope: str
    run: FetchRun
    in_flight: InFlight
    users: int = 0
    opened: float = 0.0

    @property
    def joinable(self) -> bool:
        watch = getattr(self.run.context.client, "watch", None)
        return not (watch is not None and watch.halted) and time.monotonic() - self.opened < MAX_AGE_S


class SharedRuns:
    """The runs of one worker process, by settings (see the module's docstring). ``limiter``: the process's shared rate
    limiter, given to every run (not closed with them)."""

    def __init__(self, limiter: Any = None) -> None:
        self.limiter = limiter
        self._lock = threading.Lock()
        self._runs: list[_Shared] = []  # FetchConfig holds dicts: found by equality, not hashed

    @contextmanager
    def joined(self, config: FetchConfig, scope: str) -> Iterator[tuple[FetchRun, InFlight]]:
        """The run of ``config`` and ``scope`` (the task's job) with the batches in flight in it, shared with the tasks
        running in it now (a new run when there is none, or it was halted or is too old to join); closed when the last
        of them leaves."""
        with self._lock:
            shared = next((s for s in self._runs if s.scope == scope and s.config == config and s.joinable), None)
            if shared is None:
                run = FetchRun(config, rate_limiter=self.limiter)
                shared = _Shared(config, scope, run, InFlight(run.context, alone=False), opened=time.monotonic())
                self._runs.append(shared)
            shared.users += 1
        try:
            yield shared.run, shared.in_flight
        finally:
            with self._lock:
                shared.users -= 1
                last = shared.users == 0
                if last and shared in self._runs:
                    self._runs.remove(shared)
            if last:
                shared.run.close()

    def open_runs(self) -> int:
        """How many runs are open (for tests and logs)."""
        with self._lock:
            return len(self._runs)
