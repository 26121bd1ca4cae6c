"""Whether a partial batch may wait for company: the hosts' outstanding work, and the rule that reads it.

Waiting is free for a service that is not what the run waits on: while another host still has more work before it
than the batch's own host needs to serve the batch and what follows it, holding the batch back ends no sooner than
that host would anyway, and every publication that joins it meanwhile is a request saved. :class:`HostLoad` keeps, per
host, the requests the run's publications have out (queued for a connection or a permit, or in flight) and how fast the
host answers them when busy (the gap between its answers); :func:`holds` is the decision, a pure function of what
:class:`Slack` says, so that it can be tested without a clock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field

#: Weight of the newest gap in a host's running estimate of its time per answer.
GAP_WEIGHT = 0.2
#: Hosts with nothing out are forgotten once this long idle and more than ``KEEP_HOSTS`` are known (a long run meets
#: thousands of publishers' hosts).
IDLE_FORGET_S = 60.0
KEEP_HOSTS = 256
#: A publication whose like came to a step less often than this after the step that served it last is not waited for
#: there (the closed-access half at Unpaywall after PubMed's efetch does not come to efetch again).
RARELY = 0.05


@dataclass(frozen=True)
class Slack:
    """What the decision to hold a partial batch looks at.

    Attributes:
        moving: some publication of the run, outside the batches that are being held, is on its way, has a request
            out or is in a batch that left its hold and is not answered yet, or a batch of the run is on its way in
            (it may still join; and if none does, holding would wait for nothing: the run would stop).
        feeding_s: when the publications of the batch's own batches of the run (those whose end the held ones
            delay) that are on their way or have a request out still being served at their host's pace will be done
            with it at the latest, by those hosts' work (0: only some on their way; ``None``: none).
        own_s: seconds the batch's host needs for the work before it, the batch's request and what its members ask
            of the same host after it (the full texts that follow a search), at the share the step's members have
            asked so far.
        bound_s: seconds the run's bound still needs for the requests out for it: the other host that has worked
            longest in the run so far (a host that is merely busy now may be feeding publications to that one, which a
            held batch would starve).
        margin_s: how long before that host is done the batch goes anyway: the time its publications need to reach
            the next requests (for the busiest host, the next batch of the run, which starts when this one ends).
        ahead_s: the work the bound will get from the batches of the run still to come that a held batch may span,
            beyond ``bound_s``: what a batch of the run has brought it so far, times those batches, while more input
            is to be read and the batch's own host is the lighter one (``lighter``; 0 otherwise).
        feeds: the requests the batch's publications are expected to make of the bound afterwards (by what the
            publications served by the same step in the same pass did: :class:`LaterHosts`); under one, holding the
            batch cannot starve the bound.
        lighter: the batch's host has worked less in the run than the bound, or about as long (within the margin:
            two hosts busy since the run's start have worked about as long, and which is ahead says nothing of which
            one the run waits on).
        feeds_s: the bound's time for those requests, once the run's input is read (0 before: more batches will
            bring the bound work, so its end is not near): held until the bound was within the margin of its end,
            the batch would add them after everything else the bound had (PMC's efetch of the publications the
            search missed, each of which asks Unpaywall next).
        upstream_s: when the batches of earlier steps that carry publications of its own batches of the run expected
            to come to this one and are going will have been answered, by their hosts' work (``None``: none); once
            this batch would go by the bound, of any batch of the run, held ones too (it pulls them).
        pulled: a batch of a later step that its publications are expected to reach would go now by the bound, the
            run's input read: this batch goes with it, so that what it carries for that step is not left to a
            request of its own after the bound's end (PMC's efetch at the end of a run, and a held search carrying
            the last first passes the efetch's share would otherwise leave behind).
    """

    moving: bool
    feeding_s: float | None
    own_s: float
    bound_s: float
    margin_s: float
    ahead_s: float = 0.0
    feeds: float = 1.0
    lighter: bool = False
    feeds_s: float = 0.0
    upstream_s: float | None = None
    pulled: bool = False


def holds(slack: Slack) -> bool:
    """Whether a partial batch keeps waiting for company: only while something else moves, and either the run's bound
    has more than the margin of work before it and the batch's own host would be done with the batch and what follows
    it at most the margin after the bound (with the work the batches still to come bring the bound, ``ahead_s``), or
    the last publications of its own batches that may still join will be done within the margin and the work the
    batch brings its host fits in it too (going together costs at most the margin). The bound's requests out must
    outlast the margin and what the batch's publications will ask of the bound (``feeds_s``), unless they will not
    ask it for anything (``feeds``): a batch never holds back what the bound is about to need, nor leaves its own
    share of the bound's work to the bound's end. A ``lighter`` host (it has worked less than the bound, or about as
    long) holds while the bound's work, now and from the batches still to come, outlasts the two, and while an
    earlier step's batch that brings it publications is on its way within the margin (``upstream_s``). A batch
    ``pulled`` by a later step's batch goes as soon as its own stragglers allow. A full batch, a run where nothing
    else moves, or a host that would end a margin after the bound: it goes."""
    if not slack.moving:
        return False
    if slack.lighter and slack.upstream_s is not None and slack.upstream_s <= slack.margin_s:
        return True
    before_end = slack.margin_s + slack.feeds_s  # the bound's work the batch must go before, its own included
    if not slack.pulled and slack.lighter and slack.bound_s + slack.ahead_s > before_end:
        return True
    if (not slack.pulled and (slack.bound_s > before_end or (slack.feeds < 1 and slack.bound_s > 0))
            and slack.bound_s + slack.ahead_s + slack.margin_s > slack.own_s):
        return True
    return slack.feeding_s is not None and slack.feeding_s <= slack.margin_s and slack.own_s < slack.margin_s


#: What a publication was served by: a batched step and the pass (the publication's first, second ... time at it).
Served = tuple[Hashable, int]


class LaterHosts:
    """Which hosts the publications served by a batched step in a given pass asked afterwards, counted over the
    publications that are done: the share of them that asked a host says what a held batch's publications will bring
    it (a second pass of the search asks nothing of Unpaywall, which its first pass asked). A "host" is any hashable
    mark: the batcher marks the batched steps a publication reaches too, so that which steps come after which is
    learned the same way (a first pass of the search comes to PubMed's efetch, a second pass does not). The caller
    serialises the calls."""

    def __init__(self) -> None:
        self._done: Counter[Served] = Counter()  # publications done after being served so
        self._asked: dict[Served, Counter[Hashable]] = {}  # of those, how many asked each host afterwards
        self._live: dict[Served, Counter[Hashable]] = {}  # publications not done yet that asked each host afterwards
        self._states: dict[int, dict[Served, set[Hashable]]] = {}  # publication -> what served it, hosts asked since
        self._asked_by: dict[int, set[Hashable]] = {}  # publication -> every host it asked

    def key(self, state: int, step: Hashable) -> Served:
        """What serving ``state`` by ``step`` now would be."""
        return step, 1 + sum(1 for served, _ in self._states.get(state, {}) if served == step)

    def served(self, state: int, step: Hashable) -> None:
        self._states.setdefault(state, {})[self.key(state, step)] = set()

    def sent(self, state: int, host: Hashable) -> None:
        self._asked_by.setdefault(state, set()).add(host)
        for served, hosts in self._states.get(state, {}).items():
            if host not in hosts:
                hosts.add(host)
                self._live.setdefault(served, Counter())[host] += 1

    def finished(self, state: int) -> None:
        self._asked_by.pop(state, None)
        for served, hosts in self._states.pop(state, {}).items():
            self._done[served] += 1
            self._asked.setdefault(served, Counter()).update(hosts)
            if served in self._live:
                self._live[served].subtract(hosts)

    def share(self, served: Served, host: Hashable) -> float:
        """The share of the publications served so that asked ``host`` afterwards: those done, and those not done
        that asked it already (1 until there is either: the cautious guess). Counted over the done alone, a later
        step holding publications for company would look rare to the steps before it for as long as it holds
        them: those it holds are not done, and of the done few came to it (the search's second pass held while
        Unpaywall bounds the run, PMC's efetch of the publications the search missed)."""
        live = self._live[served][host] if served in self._live else 0
        seen = self._done[served] + live
        asked = self._asked[served][host] if served in self._asked else 0
        return (asked + live) / seen if seen else 1.0

    def coming(self, state: int, host: Hashable) -> float:
        """How likely publication ``state`` asks ``host`` after what it does now: the share learned for the batched
        step and pass that served it last (1 until any such publication is done, or if no batched step served it)."""
        served = self._states.get(state)
        return self.share(next(reversed(served)), host) if served else 1.0

    def expects(self, state: int, step: Hashable, host: Hashable) -> float:
        """How likely publication ``state``, served by ``step`` now, asks ``host`` afterwards: the share learned for
        the step and pass, and until any such publication is done, 0 for one that asked the host already (a run asks
        nothing twice) and 1 for one that did not."""
        served = self.key(state, step)
        if self._done[served]:
            return self.share(served, host)
        return 0.0 if host in self._asked_by.get(state, ()) else 1.0


@dataclass
class _Host:
    out: int = 0  # requests out (queued or in flight)
    worked_s: float = 0.0  # the sum of its answers' shares of its time: how much of the run it has been busy
    gap_s: float | None = None  # running estimate of the time between its answers while it is busy
    last_answer: float = 0.0
    alone_s: float | None = None  # running estimate of a request's own time: sent after the host's last answer


@dataclass
class HostLoad:
    """The requests out per host and each host's time per answer, from the publications' requests as they start and
    end (the caller serialises the calls and gives the clock's times)."""

    _hosts: dict[str, _Host] = field(default_factory=dict)

    def sent(self, host: str) -> None:
        self._hosts.setdefault(host, _Host()).out += 1

    def answered(self, host: str, started: float, now: float) -> None:
        """A request to ``host`` sent at ``started`` ended at ``now``: its share of the host's time is from the later of
        its start and the host's previous answer (requests queued behind each other: the time between answers; a lone
        request: its own time)."""
        state = self._hosts.setdefault(host, _Host())
        state.out = max(0, state.out - 1)
        gap = max(0.0, now - max(started, state.last_answer))
        if started >= state.last_answer:  # nothing answered while it was out: its own time, not a place in a queue
            state.alone_s = gap if state.alone_s is None else (1 - GAP_WEIGHT) * state.alone_s + GAP_WEIGHT * gap
        state.worked_s += gap
        state.gap_s = gap if state.gap_s is None else (1 - GAP_WEIGHT) * state.gap_s + GAP_WEIGHT * gap
        state.last_answer = now
        if len(self._hosts) > KEEP_HOSTS:
            self._hosts = {key: kept for key, kept in self._hosts.items()
                           if kept.out or now - kept.last_answer < IDLE_FORGET_S}

    def out(self, host: str) -> int:
        state = self._hosts.get(host)
        return state.out if state is not None else 0

    def gap_s(self, host: str) -> float:
        """The host's time per answer (0 until it answered once)."""
        state = self._hosts.get(host)
        return (state.gap_s or 0.0) if state is not None else 0.0

    def remaining_s(self, host: str, now: float, extra: float = 0) -> float:
        """Seconds the host still needs for its requests out and ``extra`` more: the estimate, less the time already
        spent since its last answer (a request taking longer than the estimate is not counted as work for ever)."""
        state = self._hosts.get(host)
        if state is None or not state.gap_s:
            return 0.0
        work = (state.out + extra) * state.gap_s
        busy_since = max(0.0, now - state.last_answer) if state.out else 0.0
        return max(0.0, work - busy_since)

    def serving_s(self, host: str, started: float, now: float, fresh_s: float, grace_s: float = 0.0) -> float | None:
        """How long a request to ``host`` sent at ``started`` may still take by the host's pace, and at least a
        request's own time there (measured on requests sent after the host's last answer, so not waiting in a queue;
        this one's counted from the later of its start and that answer, as :meth:`answered` counts it); past that, 0
        (due any moment: a page taking a few times its usual time on a loaded machine is still coming) until
        ``grace_s`` more have passed; for a host that never answered yet, ``fresh_s`` from its start; ``None`` once
        that is past (it is late, perhaps waiting for what the caller holds: holding for it costs ``grace_s`` at
        most). The pace alone is the time between answers, which on a host serving several requests at once
        (publishers' pages, doi.org at 20 a second) is shorter than one request's own time: by the pace alone, a lone
        request there would look late before it could have been answered. A queued request's whole time is not the
        floor: behind a one-connection host's queue it is seconds, which would count a publication in that queue as
        farther off than the queue's pace says."""
        state = self._hosts.get(host)
        if state is None or not state.gap_s:
            left = fresh_s - (now - started)
        else:
            alone, own_s = state.alone_s or 0.0, now - max(started, state.last_answer)
            left = max(self.remaining_s(host, now), alone - own_s)
            if left <= 0 and own_s < alone + grace_s:
                return 0.0
        return left if left > 0 else None

    def bound(self, other_than: str) -> str | None:
        """The host but ``other_than`` that has worked longest in the run (None: no other host known)."""
        hosts = [(state.worked_s, host) for host, state in self._hosts.items() if host != other_than]
        return max(hosts)[1] if hosts else None

    def worked_s(self, host: str) -> float:
        state = self._hosts.get(host)
        return state.worked_s if state is not None else 0.0

    def bound_s(self, now: float, other_than: str) -> float:
        """What the host but ``other_than`` that has worked longest in the run still needs for its requests out."""
        bound = self.bound(other_than)
        return self.remaining_s(bound, now) if bound is not None else 0.0
