"""Micro-batching for publications that flow through the chain on their own.

Each publication of a batch walks the resources in its own thread, so that a publication waiting for one host never
holds up another on a different host. The services that take many IDs per request (Europe PMC search, the annotations
API, efetch for PubMed and PMC) are still asked for many publications at once: a publication reaching such a step
joins that step's open batch and waits; the batch is served by one call of the step's batch function (the same
function the whole-batch chain calls) when it is full, when every publication of the flow is waiting (then the batch
of the earliest step in the chain goes: those waiting at later steps may still be joined by the publications it
serves, as when the whole batch walked the chain step by step), or when nobody has joined it for a while.

"For a while" is at least ``linger`` after the first arrival (as long as a batch has always waited), and then as long
as publications keep coming. Publications leave a per-publication step one by one (fullTextXML at Europe PMC's 10
requests/s lets out one every 0.1 s), and a linger counted from the first arrival only cut that trickle into a request
per second, on the host that bounds the run (10 annotation requests per 200 publications instead of one, and under load
the GO and efetch batches after them split too). So once the linger is over, a batch goes when nobody has joined it for
:data:`GAP_FACTOR` times the longest gap between its arrivals so far (at least a tenth of the linger, at most the
linger): a trickle is waited for to its end, a group that came together goes at once. :data:`CAP_FACTOR` times the
linger after its first member a batch goes whatever comes, so that an endless trickle cannot hold the first
publications for long.

Two other policies were measured and left (1,000 PMIDs, benchmarks/): waiting for every publication that may still
reach the step makes the closed-access half wait at efetch for the open-access half's full texts (10 s per 200) before
it asks doi.org and Unpaywall, which doubled the wall time; sending a group that came together after a tenth of the
linger saved the closed-access half most of its second (60.6 s instead of 63.1 s), but a group a few hundred
milliseconds behind it (a small batch against fast services) then got a request of its own. The step function sees each
publication with its own flags, so grouping never changes what is decided for a publication.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pubfetch.resources.base import Context, PubRun

#: After the linger, a batch waits for its next member this many times the longest gap between its arrivals so far ...
GAP_FACTOR = 5.0
#: ... but at least this fraction of the linger (arrivals microseconds apart say little about the next one).
MIN_WAIT_FRACTION = 0.1
#: A batch goes at the latest this many lingers after its first member came (the guard against an endless trickle).
CAP_FACTOR = 30.0

#: A batchable step of the chain: serves every run it is given (each by its own flags), in as few requests as it can.
Step = Callable[[Context, Sequence[PubRun]], None]


@dataclass
class _Batch:
    runs: list[PubRun] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    joined: float = field(default_factory=time.monotonic)  # latest arrival
    gap: float = 0.0  # longest time between two arrivals
    due: bool = False
    taken: bool = False
    done: bool = False
    error: BaseException | None = None


class Flow:
    """The publications of one batch in flight, and one open batch per batchable step.

    Args:
        ctx: the run's context (passed to the step functions).
        runs: the publications that will flow (each calls :meth:`finished` once at its end); a batch serves its
            members in this order, whatever order they arrived in, so that its requests do not depend on timing.
        size: most publications per batch (a full batch is served at once).
        linger: least wait of a batch for more members, in seconds (see the module's description).
        order: the steps in chain order.
    """

    def __init__(self, ctx: Context, runs: Sequence[PubRun], size: int, linger: float,
                 order: Mapping[Step, int]) -> None:
        self.ctx = ctx
        self.size = size
        self.linger = linger
        self._step_order = order
        self._order = {id(run): index for index, run in enumerate(runs)}
        self._running = len(runs)
        self._open: dict[Step, _Batch] = {}
        self._cond = threading.Condition()

    def serve(self, step: Step, run: PubRun) -> None:
        """Serve ``run`` by ``step`` together with the other runs that reach the step about now (blocks)."""
        with self._cond:
            batch = self._open.setdefault(step, _Batch())
            if batch.runs:
                now = time.monotonic()
                batch.gap = max(batch.gap, now - batch.joined)
                batch.joined = now
            batch.runs.append(run)
            self._running -= 1
            if self._running == 0:
                self._release_earliest()
            if len(batch.runs) >= self.size or batch.due:
                self._take(step, batch)
                self._cond.notify_all()
                leader = True
            else:
                leader = self._wait_for_turn(step, batch)
        if leader:
            self._serve_batch(step, batch)
        else:
            with self._cond:
                while not batch.done:
                    self._cond.wait()
        if batch.error is not None:
            raise batch.error

    def finished(self) -> None:
        """A publication is done: when everybody left is waiting, their batches go out now."""
        with self._cond:
            self._running -= 1
            if self._running == 0:
                self._release_earliest()

    def _release_earliest(self) -> None:
        """Nobody runs: the open batch of the earliest step goes out now (served by one of its waiting members)."""
        if self._open:
            step = min(self._open, key=lambda s: self._step_order.get(s, 0))
            self._open[step].due = True
            self._cond.notify_all()

    def _wait_for_turn(self, step: Step, batch: _Batch) -> bool:
        """Wait (holding the condition) until the batch is taken by another, or take it: when its arrivals have
        stopped (:meth:`_deadline`) or the batch is due. Returns whether this thread serves the batch."""
        while not batch.taken:
            remaining = self._deadline(batch) - time.monotonic()
            if remaining <= 0 or batch.due:
                self._take(step, batch)
                self._cond.notify_all()
                return True
            self._cond.wait(remaining)
        return False

    def _deadline(self, batch: _Batch) -> float:
        """When the batch goes unless somebody joins it before (a newcomer may move it; the cap does not move)."""
        wait = min(self.linger, max(self.linger * MIN_WAIT_FRACTION, GAP_FACTOR * batch.gap))
        return min(max(batch.started + self.linger, batch.joined + wait), batch.started + CAP_FACTOR * self.linger)

    def _take(self, step: Step, batch: _Batch) -> None:
        batch.taken = True
        self._running += 1  # the thread serving it runs
        if self._open.get(step) is batch:
            del self._open[step]

    def _serve_batch(self, step: Step, batch: _Batch) -> None:
        try:
            step(self.ctx, sorted(batch.runs, key=lambda run: self._order.get(id(run), 0)))
        except BaseException as e:  # every member re-raises it in its own thread
            batch.error = e
        finally:
            with self._cond:
                batch.done = True
                # the members run again from now on, before their threads wake up: counted now, so that nobody
                # takes the flow for idle in between
                self._running += len(batch.runs) - 1
                self._cond.notify_all()
