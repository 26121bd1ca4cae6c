"""What a batch held for company looks at: the hosts' work, the publications on their way to its step, and the
batches of the steps before and after it (:class:`CompanyLook`, the batcher's half that reads the run's state; the
decision itself is :func:`~pubfetch.engine.slack.holds`).

A batch goes with the batches around it rather than alone: it waits for an earlier step's batch that is about to
bring it publications, and near the bound's end a batch that would go pulls the held batches before it that carry
publications for it, so that the last request of each step takes everything the run still has for it.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

from pubfetch.engine.slack import RARELY, HostLoad, LaterHosts, Slack, holds
from pubfetch.resources.base import Context
from pubfetch.resources.pubstate import PubState

#: A batchable step of the chain: serves every publication it is given (each by its own flags), in as few requests
#: as it can.
Step = Callable[[Context, Sequence[PubState]], None]


@dataclass(frozen=True)
class BatchedService:
    """What the batcher needs to know of a batchable step: the URL whose host and rate limit its requests use, and
    the most publications one of its requests may carry."""

    url: Callable[[Context], str]
    size: Callable[[Context], int]


@dataclass
class Batch:
    """The publications gathered for one request of a batchable step, and where it stands."""

    states: list[PubState] = field(default_factory=list)
    opened: float = field(default_factory=time.time)
    closed: bool = False  # full, or taken: newcomers open another batch
    held: bool = False  # waiting for company (its members are parked: their batch of the run need not wait for them)
    pulled: bool = False  # it went because a later step's batch about to go waits for its members
    oldest_flow: int | None = None  # the oldest batch of the run a member is of (an urged one makes it go)
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None


def reaching(step: Step) -> tuple[str, Step]:
    """What :class:`~pubfetch.engine.slack.LaterHosts` records for a publication joining ``step``'s batch, beside the
    hosts it asks: which steps a step's publications come to afterwards is learned as the hosts are."""
    return "step", step


class CompanyLook:
    """The batcher's reading of the run for a held batch (:class:`~pubfetch.engine.service_batcher.Batcher` sets the
    state; every method is called under its lock)."""

    margin_s: float
    ahead_batches: int
    _clock: Callable[[], float]
    _load: HostLoad
    _later: LaterHosts
    _sending: dict[int, list[tuple[str, float]]]
    _follow_ups: dict[Step, list[int]]
    _transit: set[int]
    _flow_of: dict[int, int]
    _coming: set[Hashable]
    _going: set[int]
    _streams: int
    _flows: set[int]
    _led: dict[int, tuple[Step, Batch, str]]
    _rank: dict[Step, int]
    _pulled_members: set[int]
    _riders: dict[Step, Callable[[Context, PubState], bool]]

    def _follow_up_share(self, step: Step) -> float:
        """Requests to the step's host per publication it served, so far (1 until it served any: the cautious
        guess)."""
        served, follow_ups = self._follow_ups.get(step, (0, 0))
        return follow_ups / served if served else 1.0

    def _slack(self, step: Step, batch: Batch, host: str, nested: bool = False) -> Slack:
        """What the decision to hold ``batch`` looks at. ``nested``: foreseeing an earlier step's held batch for a
        later one (:meth:`_upstream_s`), whose own earlier steps are left out."""
        now = self._clock()
        brings = 1 + self._follow_up_share(step) * len(batch.states)
        bound = self._load.bound(other_than=host)
        ahead, lighter = 0.0, False
        if bound is not None:
            lighter = self._lighter(host, bound)
            if lighter and self._streams > 0:
                ahead = self._load.worked_s(bound) / len(self._flows) * self.ahead_batches
        feeds = self._expected(batch.states, step, bound) if bound is not None else 0.0
        feeding = self._feeding_s(step, batch, now)
        upstream = None if nested else self._upstream_s(step, batch, now)
        if upstream is not None:
            feeding = max(feeding or 0.0, upstream)
        pulled = not nested and self._pulled(step, batch)
        return Slack(moving=self._moving(batch) or upstream is not None, pulled=pulled,
                     feeding_s=feeding, own_s=self._load.remaining_s(host, now, extra=brings),
                     bound_s=self._load.bound_s(now, other_than=host), margin_s=self.margin_s, ahead_s=ahead,
                     feeds=feeds, lighter=lighter,
                     feeds_s=feeds * self._load.gap_s(bound) if bound is not None and not self._streams else 0.0,
                     upstream_s=upstream)

    def _lighter(self, host: str, bound: str) -> bool:
        """Whether ``host`` is not the one the run waits on beside ``bound``, the busiest other host: it has worked less
        in the run, or about as long (within the margin: two hosts busy since the run's start have worked about as
        long, and which of them is a fraction of a second ahead says nothing of which one the run waits on)."""
        return self._load.worked_s(host) < self._load.worked_s(bound) + max(self.margin_s, 0.0)

    def _expected(self, states: Sequence[PubState], step: Step, host: Hashable) -> float:
        """How many of ``states``, served by ``step`` now, are expected to ask ``host`` (or reach a step) afterwards
        (:meth:`LaterHosts.expects`)."""
        return sum(self._later.expects(id(state), step, host) for state in states)

    def _moving(self, batch: Batch | None = None) -> bool:
        """Whether a publication is on its way, has a request out or is in a batch (other than ``batch``) that left its
        hold and is not answered yet, or a batch of the run is about to start (under the lock)."""
        going = len(self._going) - (batch is not None and id(batch) in self._going)
        return bool(self._transit) or bool(self._sending) or bool(self._coming) or going > 0

    def _feeding_s(self, step: Step, batch: Batch, now: float) -> float | None:
        """When the publications of the batch's own batches of the run that may still join are done with their hosts
        at the latest (0: some on their way, none with a request out; ``None``: none may join). A publication whose
        like hardly ever came to the step after the step that served it last (:meth:`LaterHosts.coming`) will not
        join: the batch does not wait for it. A request past its host's usual time is waited for until the margin
        has passed (:meth:`HostLoad.serving_s`), except by a step whose request takes the publications still to come
        as riders (PubMed's efetch): they need not come to share it, and one held up by what the batch holds back
        (an open-access full text whose Unpaywall asks after the efetch's answer) would cost the margin for
        nothing."""
        flows = {self._flow_of.get(id(state)) for state in batch.states}
        reached = reaching(step)
        grace_s = 0.0 if step in self._riders else self.margin_s

        def may_join(state: int) -> bool:
            return self._flow_of.get(state) in flows and self._later.coming(state, reached) >= RARELY

        latest = 0.0 if any(may_join(state) for state in self._transit) else None
        for state, out in self._sending.items():
            if not may_join(state):
                continue
            for sent_to, started in out:
                left = self._load.serving_s(sent_to, started, now, self.margin_s, grace_s)
                if left is not None:
                    latest = max(latest or 0.0, left)
        return latest

    def _upstream_s(self, step: Step, batch: Batch, now: float) -> float | None:
        """When the batches of earlier steps (in the chain's order) that carry publications of the batch's own batches
        of the run expected to come to this step afterwards (:meth:`LaterHosts.expects`) will have been answered, by
        their hosts' work (``None``: none). Such a batch counts while it is not held for company (gathering, queued for
        its host, asked), or is held but would no longer be (it goes with its next look, woken most likely by what
        woke this one). Once this batch would go by the bound (:meth:`_ends`), a batch carrying publications of any
        batch of the run for it counts too, held or not (it pulls a held one, :meth:`_pulled`), and so do a pulled
        batch's publications once answered, on their way here; before that, waiting for other batches of the run at
        a host that may be the bound would idle it. A search split in two by the company it held for would
        otherwise split the efetch after it the same way; earlier steps only, so that two batches never wait for each
        other."""
        ends = functools.cache(lambda: self._ends(step, batch))  # this batch would go now: it pulls the held ones
        rank = self._rank.get(step, 0)
        flows = {self._flow_of.get(id(state)) for state in batch.states}
        reached = reaching(step)
        latest = None
        for other_step, other, other_host in self._led.values():
            if other is batch or self._rank.get(other_step, rank) >= rank:
                continue
            own = self._expected([state for state in other.states if self._flow_of.get(id(state)) in flows],
                                 other_step, reached)
            # read for every held batch upstream, its answer used or not: read only where it decides, the same
            # decisions on the same state made more searches in measured runs (docs/benchmarks.md, "The hold rule
            # of the batches upstream read at every look")
            going = not (other.held and not other.closed
                         and holds(self._slack(other_step, other, other_host, nested=True)))
            if not (own >= 1 and going) and not (
                    ends() and self._expected(other.states, other_step, reached) >= 1):
                continue
            latest = max(latest or 0.0, self._load.remaining_s(other_host, now, extra=0 if other.closed else 1))
        if latest is None and self._pulled_coming(reached) and ends():
            latest = 0.0
        return latest

    def _pulled_coming(self, reached: tuple[str, Step]) -> bool:
        """Whether a pulled batch's publications, answered, are on their way and likely to come to the step."""
        return any(state in self._transit and self._later.coming(state, reached) >= RARELY
                   for state in self._pulled_members)

    def _ends(self, step: Step, batch: Batch) -> bool:
        """Whether a held batch would go now but for the batches of earlier steps, the run's input read (the bound's
        end is near: there will be no later company)."""
        if self._streams or not batch.held or batch.closed:
            return False
        _, _, host = self._led.get(id(batch), (None, None, ""))
        return not holds(self._slack(step, batch, host, nested=True))

    def _pulled(self, step: Step, batch: Batch) -> bool:
        """Whether a held batch of a later step that would go now (:meth:`_ends`) expects publications of this one:
        then this one goes too, and that one waits for what it brings instead of leaving it a request of its own."""
        rank = self._rank.get(step, 0)
        for other_step, other, _ in self._led.values():
            if other is batch or self._rank.get(other_step, rank) <= rank or not other.held or other.closed:
                continue
            reached = reaching(other_step)
            if self._expected(batch.states, step, reached) < 1:
                continue
            if self._ends(other_step, other):
                return True
        return False
