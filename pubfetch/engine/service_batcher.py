"""Micro-batching for publications that flow through the chain each on its own thread: work-conserving.

The services that take many IDs per request (Europe PMC search, the annotations API, efetch for PubMed and PMC) are
asked for many publications at once, but no publication waits for a host that could serve it now. A publication
reaching such a step joins the step's open batch; the first one to arrive leads it. The leader first waits for the
publications on their way to some step (those just released by a batch, just started, or between two requests: they
are milliseconds away, and a group released together is asked for together), then queues for the step's host (its
connection slot, :meth:`~pubfetch.net.client.HttpClient.turn`) like any other request; while the host is busy with
others the batch keeps gathering, up to the service's batch size. When the leader has the host and other requests
(not other batches) wait for it, the host's connection is what the run waits on and holding the batch back costs the
host nothing: they go first, the batch queues again behind them and gathers meanwhile, for as long as any wait. Then
it waits for the service's rate-limit permit (gathering meanwhile: where the permits are what the run waits on, this
is when the company comes) and goes with everything gathered by then. A full batch closes and the next
arrival opens a new one.

Before it queues, a partial batch may wait for company while waiting is free: while another host bounds the run and
still has more work before it than the batch brings its own, or while the last publications of its own batch of the
run are within a margin of it (:mod:`pubfetch.engine.slack`; never when nothing else in the run moves), or while
a batch of an earlier step that is not held, or is about to go, carries publications of its own batches of the run
that will come to it (the rest of a batch of the run that a search's company split off); near the bound's end a batch
about to go pulls the held batches of earlier steps carrying publications of any batch of the run for it along, and
waits for them (:mod:`pubfetch.engine.company`). Otherwise a
publication that reaches a step while the host is idle is asked for at once, whatever the other publications are
doing (the second pass of one publication does not wait for the first pass of the others), and the stragglers of a
batch ride with the next request to the same endpoint: one batcher serves every batch of a run in flight
(``fetch_many`` overlaps two). Hosts serve the threads of the oldest batch first
(:meth:`~pubfetch.net.client.HttpClient.rank_thread`), so that it finishes while the next keeps them busy. The step
function sees each publication with its own flags, so grouping never changes what is decided for a publication.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence

from pubfetch.engine.company import Batch, BatchedService, CompanyLook, Step, reaching
from pubfetch.engine.slack import HostLoad, LaterHosts, holds
from pubfetch.net.urls import host_key
from pubfetch.resources.base import Context
from pubfetch.resources.pubstate import PubState

log = logging.getLogger(__name__)

#: The rank a batch queues with for a host after letting the requests waiting for it go: behind all of them.
LAST_RANK = 1 << 62

#: How often a batch held for company reads the hosts' work again. Its batch filling, a flow urged and nothing else
#: moving in the run are seen at every wake; the rest of the decision goes over every publication in flight, and read
#: at each request the run sends it would keep the interpreter from the threads sending them (docs/throughput.md),
#: where the margin it is read against is counted in seconds.
HOLD_POLL_S = 0.05

class Batcher(CompanyLook):
    """The open batch of each batchable step, shared by the flows of a run, and the publications on their way.

    Args:
        ctx: the run's context (its client's host turns; the step functions get it).
        settle_s: the longest a batch waits for publications on their way (a safety net: they normally arrive, send
            a request or finish within milliseconds).
        margin_s: how long before the busiest other host is done a partial batch held for company goes anyway
            (:class:`~pubfetch.engine.slack.Slack`); negative: never held.
        clock: seconds, for the hosts' work (tests give their own).
        ahead_batches: the batches of the run still to come that a held batch may gather from (``carry_batches``,
            at least one): while a run's input has more, the bound's work ahead counts what that many bring it.
        order: the batchable steps in the chain's order (a batch waits for the batches of earlier steps only); steps
            not in it come after them, in the order they are first reached.
        riders: the steps whose requests take, in the room their batch leaves, publications that will come to them
            later (by a test of each: :func:`pubfetch.resources.ncbi.may_ride`); such a step takes them as
            ``riders``.
    """

    def __init__(self, ctx: Context, settle_s: float, margin_s: float = -1.0,
                 clock: Callable[[], float] = time.monotonic, ahead_batches: int = 1,
                 order: Sequence[Step] = (), riders: Mapping[Step, Callable[[Context, PubState], bool]] | None = None,
                 ) -> None:
        self.ctx = ctx
        self.settle_s = settle_s
        self.margin_s = margin_s
        self.ahead_batches = max(1, ahead_batches)
        self._clock = clock
        self._load = HostLoad()
        self._later = LaterHosts()
        self._sending: dict[int, list[tuple[str, float]]] = {}  # state -> its requests out: host, sent at
        self._holding = 0
        self._after: dict[int, tuple[Step, str]] = {}  # state -> the step that last served it, and its host
        self._follow_ups: dict[Step, list[int]] = {}  # step -> [publications served, their requests to its host after]
        self._cond = threading.Condition()
        self._open: dict[Step, Batch] = {}
        self._transit: set[int] = set()
        self._order: dict[int, tuple[int, int]] = {}
        self._flow_of: dict[int, int] = {}
        self._leaders_queued: Counter[str] = Counter()  # host -> batches waiting for its connection
        self._on_release: dict[int, Callable[[], None]] = {}  # flow -> called once its publications are all parked
        self._urged = 0  # held batches with a publication of this flow or an older one go at once
        self._coming: set[Hashable] = set()  # batches of the run about to bring publications (coming())
        self._going: set[int] = set()  # batches that left their hold, until their members are on their way again
        self._streams = 0  # runs whose input has more batches to come
        self._flows: set[int] = set()  # the flows started, for the work one of them brings a host
        self._led: dict[int, tuple[Step, Batch, str]] = {}  # batches being led (gathering to answered): step, host
        self._rank = {step: index for index, step in enumerate(order)}  # step -> its place in the chain
        self._asking: dict[int, list[int]] = {}  # leader -> the batch's members, while its step sends the request
        self._riders = dict(riders or {})
        self._states: dict[int, PubState] = {}  # the publications started and not finished, for riders
        self._sizes: dict[Step, int] = {}
        self._pulled_members: set[int] = set()  # a pulled batch's publications, until they reach a step or are done

    # ------------------------------------------------------------------------------------------ publications' moves

    def start(self, states: Sequence[PubState], flow: int, on_release: Callable[[], None] | None = None) -> None:
        """``states`` (of flow number ``flow``) start: on their way, served in flow and input order. ``on_release`` is
        called (once, on some thread of the run, under the batcher's lock: it must only signal, or announce the batch
        of the run its release lets in with :meth:`coming`) when every one of
        them still unfinished is parked in a batch waiting for company: the flow's batch of the run need not wait
        for them to let the next one start."""
        with self._cond:
            self._flows.add(flow)
            self._coming.discard(flow)  # on their way now (announced under the flow's number)
            for index, state in enumerate(states):
                self._states[id(state)] = state
                self._order[id(state)] = (flow, index)
                self._flow_of[id(state)] = flow
                self._transit.add(id(state))
            if on_release is not None:
                self._on_release[flow] = on_release
                self._check_releases()

    def coming(self, key: Hashable) -> None:
        """A batch of the run is on its way in under ``key``: being read, read and starting (its publications not yet
        handed to :meth:`start`), or about to be read because a batch was released. The publications held for
        company count it as moving until :meth:`arrived` or :meth:`start` with the same ``key``, so that they do not
        go in the moment between two batches."""
        with self._cond:
            self._coming.add(key)
            self._cond.notify_all()

    def arrived(self, key: Hashable) -> None:
        """The batch of the run announced by :meth:`coming` under ``key`` has started, or will not come."""
        with self._cond:
            self._coming.discard(key)
            self._cond.notify_all()

    def streaming(self, more: bool) -> None:
        """A run's input has more batches to come (``more``), or no longer: while one has, the bound's work ahead counts
        what a batch of the run brings it (:attr:`~pubfetch.engine.slack.Slack.ahead_s`)."""
        with self._cond:
            self._streams += 1 if more else -1
            self._cond.notify_all()

    def urge(self, flow: int) -> None:
        """The held batches carrying publications of ``flow`` or an older flow go now (their batches of the run are
        all the memory the run may hold)."""
        with self._cond:
            if flow > self._urged:
                self._urged = flow
                self._cond.notify_all()

    def _urged_member(self, batch: Batch) -> bool:
        return batch.oldest_flow is not None and batch.oldest_flow <= self._urged

    def _check_releases(self) -> None:
        """Call the release of each flow whose unfinished publications are all parked in held batches (under the
        lock)."""
        if not self._on_release:
            return
        parked = {id(state) for batch in self._open.values() if batch.held and not batch.closed
                  for state in batch.states}
        waiting = {flow for state, flow in self._flow_of.items() if flow in self._on_release and state not in parked}
        for flow in [flow for flow in self._on_release if flow not in waiting]:
            self._on_release.pop(flow)()

    def flow_of(self, state: PubState) -> int:
        return self._flow_of.get(id(state), 0)

    def requesting(self, state: PubState, sending: bool, url: str = "") -> None:
        """``state`` sends a request to ``url`` (it waits for a host, not on its way to a step) or got its answer (on
        its way again: it may come to a step in a moment)."""
        host = host_key(url) if url else ""
        with self._cond:
            now = self._clock()
            if sending:
                self._transit.discard(id(state))
                after = self._after.get(id(state))
                if after is not None and after[1] == host:
                    self._follow_ups[after[0]][1] += 1
                self._sending.setdefault(id(state), []).append((host, now))
                self._load.sent(host)
                for member in self._asking.get(id(state), (id(state),)):  # a batched request asks for every member
                    self._later.sent(member, host)
                self._cond.notify_all()
                return
            out = self._sending.get(id(state))
            if out:
                sent_to, started = out.pop()
                self._load.answered(sent_to, started, now)
                if not out:
                    del self._sending[id(state)]
            if id(state) in self._order:
                self._transit.add(id(state))

    def finished(self, state: PubState) -> None:
        """``state`` is done: forgotten."""
        with self._cond:
            self._transit.discard(id(state))
            self._pulled_members.discard(id(state))
            self._states.pop(id(state), None)
            self._order.pop(id(state), None)
            self._flow_of.pop(id(state), None)
            self._after.pop(id(state), None)
            self._later.finished(id(state))
            for sent_to, started in self._sending.pop(id(state), []):  # interrupted mid-request
                self._load.answered(sent_to, started, self._clock())
            self._check_releases()
            self._cond.notify_all()

    # ------------------------------------------------------------------------------------------------- the batches

    def serve(self, step: Step, service: BatchedService, state: PubState) -> None:
        """Serve ``state`` by ``step`` together with the other publications that reach the step before its host can
        take the request (blocks until served; re-raises the step's error)."""
        size, url = max(1, service.size(self.ctx)), service.url(self.ctx)
        with self._cond:
            self._sizes[step] = size
            self._transit.discard(id(state))
            self._pulled_members.discard(id(state))
            self._after.pop(id(state), None)
            self._later.sent(id(state), reaching(step))
            self._rank.setdefault(step, len(self._rank))
            batch = self._open.get(step)
            leader = batch is None
            if batch is None:
                batch = self._open[step] = Batch()
                self._led[id(batch)] = (step, batch, host_key(url))
            batch.states.append(state)
            flow = self._flow_of.get(id(state))
            if flow is not None and (batch.oldest_flow is None or flow < batch.oldest_flow):
                batch.oldest_flow = flow
            if len(batch.states) >= size:
                self._close(step, batch)
            elif batch.held:
                self._check_releases()
            self._cond.notify_all()
        if leader:
            self._lead(step, url, batch)
        else:
            batch.done.wait()
        if batch.error is not None:
            raise batch.error

    def _lead(self, step: Step, url: str, batch: Batch) -> None:
        _, _, host = self._led[id(batch)]
        try:
            self._settle(batch)
            self._hold(step, batch, host)
            ready = time.time()
            behind = rehold = False
            while True:
                if rehold:
                    self._hold(step, batch, host)
                    behind = rehold = False
                queued = True
                with self._cond:
                    self._leaders_queued[host] += 1
                try:
                    with self._behind_all(behind, batch), self._turn(url) as prepay:
                        with self._cond:
                            self._leaders_queued[host] -= 1
                            queued = False
                        self._rank_as(batch)
                        self._settle(batch, same_flows=True)
                        if not batch.closed and self._others_waiting(url, host):
                            # the host has other work: sending now would not make it busier, only the batch smaller,
                            # so the others go first and the batch keeps gathering (its turn comes after them)
                            behind = True
                            continue
                        if behind and not batch.closed and self._holds_now(step, batch, host):
                            # it queued while its own host was the busiest; now that the host has nothing else,
                            # another may bound the run: the batch waits for company again, as it would have
                            # had it reached an idle host
                            rehold = True
                            continue
                        permit = time.time()
                        prepay()
                        with self._cond:
                            self._close(step, batch)
                            states = sorted(batch.states, key=lambda r: self._order.get(id(r), (0, 0)))
                        # the batch's timeline (epoch seconds), for finding a host idle while work waited for it
                        log.debug("batch of %d for %s: opened %.3f, held to %.3f, rate limit %.3f-%.3f", len(states),
                                  url, batch.opened, ready, permit, time.time())
                        self._ask(step, batch.states[0], states, host)
                        break
                finally:
                    if queued:
                        with self._cond:
                            self._leaders_queued[host] -= 1
        except BaseException as e:  # every member re-raises it in its own thread
            batch.error = e
        finally:
            with self._cond:
                self._transit.update(id(r) for r in batch.states)  # released together: on their way again
                self._going.discard(id(batch))
                if batch.pulled:
                    self._pulled_members.update(id(r) for r in batch.states)
                self._led.pop(id(batch), None)
            batch.done.set()

    def _ask(self, step: Step, leader: PubState, states: Sequence[PubState], host: str) -> None:
        """The step's request for ``states``, sent on the leader's thread. The client reports the requests it sends as
        the leader's (its ``on_request`` is per thread): while the step runs they count as asked by every member, so
        that :class:`LaterHosts` learns that each asked the host, not the leader alone (else the hosts a step's
        publications ask afterwards would look a batch's size rarer for the batched services' hosts)."""
        with self._cond:
            self._asking[id(leader)] = [id(state) for state in states]
        try:
            ride = self._riders.get(step)
            if ride is None:
                step(self.ctx, states)
            else:
                step(self.ctx, states, riders=self._riding(step, ride, len(states)))  # type: ignore[call-arg]
        finally:
            with self._cond:
                self._asking.pop(id(leader), None)
        self._served(step, host, states)

    def _riding(self, step: Step, ride: Callable[[Context, PubState], bool], taken: int) -> list[PubState]:
        """The publications that may ride with a request of ``step`` carrying ``taken`` (:func:`may_ride`'s test),
        oldest batch of the run first, in the room left: those started, not finished and not in any batch of the step
        (those are asked by theirs)."""
        room = self._sizes.get(step, 0) - taken
        if room <= 0:
            return []
        with self._cond:
            at_step = {id(state) for other_step, batch, _ in self._led.values() if other_step == step
                       for state in batch.states}
            batch = self._open.get(step)
            if batch is not None:
                at_step.update(id(state) for state in batch.states)
            started = sorted((state for key, state in self._states.items() if key not in at_step),
                             key=lambda state: self._order.get(id(state), (0, 0)))
        riders = []
        for state in started:
            try:
                rides = ride(self.ctx, state)
            except RuntimeError:  # its parts changed under the test (its own thread merges them): it asks itself
                continue
            if rides:
                riders.append(state)
                if len(riders) == room:
                    break
        return riders

    def _served(self, step: Step, host: str, states: Sequence[PubState]) -> None:
        """Watch what the publications just served ask of the same host next (the full texts after a search): the work
        a batch of this step brings its host beyond its own request."""
        with self._cond:
            self._follow_ups.setdefault(step, [0, 0])[0] += len(states)
            for state in states:
                self._after[id(state)] = (step, host)
                self._later.served(id(state), step)

    def _hold(self, step: Step, batch: Batch, host: str) -> None:
        """Keep a partial batch open while waiting for company is free (:func:`~pubfetch.engine.slack.holds`): until it
        is full, nothing else in the run moves, or its host would need longer than the busiest other host."""
        if self.margin_s < 0:
            return
        with self._cond:
            self._going.discard(id(batch))  # held again after it queued: not going while it holds
            self._holding += 1
            try:
                look_at = 0.0  # when the hosts' work is read again
                while not batch.closed and not self._urged_member(batch):
                    now = time.monotonic()
                    if now >= look_at or not self._moving(batch):
                        slack = self._slack(step, batch, host)
                        if not holds(slack):
                            batch.pulled = slack.pulled
                            break
                        look_at = now + HOLD_POLL_S
                    if not batch.held:
                        batch.held = True
                        self._check_releases()
                    self._cond.wait(max(look_at - now, 0.001))
                else:
                    slack = None
                if batch.held:  # why it goes, for reading a run's log beside the server's timeline
                    log.debug("held batch of %d for %s (%s) goes: %s (bound %s)", len(batch.states), host,
                              getattr(step, "__name__", step),
                              "full" if batch.closed else "urged" if slack is None else slack,
                              self._load.bound(other_than=host))
            finally:
                batch.held = False
                self._holding -= 1
                self._going.add(id(batch))  # in the same look as its decision: nothing sees it neither held nor going

    def _holds_now(self, step: Step, batch: Batch, host: str) -> bool:
        """Whether the batch would be held for company now (:meth:`_hold`'s first look)."""
        if self.margin_s < 0:
            return False
        with self._cond:
            return not self._urged_member(batch) and holds(self._slack(step, batch, host))

    @property
    def holding(self) -> int:
        """Batches held for company now (for tests and monitoring)."""
        with self._cond:
            return self._holding

    def _turn(self, url: str) -> contextlib.AbstractContextManager[Callable[[], None]]:
        turn = getattr(self.ctx.client, "turn", None)
        return turn(url) if turn is not None else _no_turn()

    @contextlib.contextmanager
    def _behind_all(self, behind: bool, batch: Batch) -> Iterator[None]:
        """While ``behind``, the batch queues for its host behind every request waiting for it, whatever their
        batch's rank: it let them go, and ahead of another batch's request it would only take the connection back
        before that one had it (two batches ranked ahead of the request would hand it to each other for ever)."""
        rank = getattr(self.ctx.client, "rank_thread", None)
        if not behind or rank is None:
            yield
            return
        rank(LAST_RANK)
        try:
            yield
        finally:
            self._rank_as(batch)

    def _rank_as(self, batch: Batch) -> None:
        """The leader's thread ranked by its batch again (as the flow ranks it: its later requests keep their
        place)."""
        rank = getattr(self.ctx.client, "rank_thread", None)
        if rank is not None:
            rank(self._flow_of.get(id(batch.states[0]), 0))

    def _others_waiting(self, url: str, host: str) -> bool:
        """Whether requests other than batches' wait for the URL's host: then its connection is what the run waits on,
        and a batch holding back its request while they go costs the host no time. Batches waiting for the host are
        left out: two batches yielding to each other would only hand the connection back and forth."""
        slots = getattr(self.ctx.client, "slots", None)
        if slots is None:
            return False
        with self._cond:
            return slots.waiting(url) > self._leaders_queued[host]

    def _settle(self, batch: Batch, same_flows: bool = False) -> None:
        """Wait until the batch is full or no publication is on its way to a step: before queueing for the host (so
        that the host serves others meanwhile), and once it has the host, for those of the batch's own batches of
        the run (one just out of the request before, on the same host, may be coming here; the publications of
        other batches are elsewhere in the chain, and the host would idle while waiting for them)."""
        deadline = time.monotonic() + self.settle_s
        with self._cond:
            while not batch.closed and self._on_their_way(batch, same_flows):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self._cond.wait(remaining)

    def _on_their_way(self, batch: Batch, same_flows: bool) -> bool:
        if not same_flows:
            return bool(self._transit)
        flows = {self._flow_of.get(id(state)) for state in batch.states}
        return any(self._flow_of.get(state_id) in flows for state_id in self._transit)

    def _close(self, step: Step, batch: Batch) -> None:
        """No newcomers join the batch (under the lock): it goes, and counts as moving until it is answered."""
        batch.closed = True
        self._going.add(id(batch))
        if self._open.get(step) is batch:
            del self._open[step]


@contextlib.contextmanager
def _no_turn() -> Iterator[Callable[[], None]]:
    """For a client without host turns (a test's stand-in): the request waits for its host itself."""
    yield lambda: None
