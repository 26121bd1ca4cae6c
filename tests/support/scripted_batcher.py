"""A service batcher driven by a clock the test sets, for the tests of holding batched requests for company
(tests/test_engine_slack.py) and of carrying batches of the run (tests/test_engine_carry.py): its search step records
the batches it is asked for, and another batch's publications waiting for Unpaywall make the run's bound."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from types import SimpleNamespace

from pubfetch.engine.service_batcher import BatchedService, Batcher
from pubfetch.model.publication import Publication
from pubfetch.resources.pubstate import PubState

#: Ceiling of every wait for an event (only a batcher that never sends reaches it: the test then fails).
GUARD_S = 30.0
SEARCH = "http://ebi.test/search"
UNPAYWALL = "http://unpaywall.test/v2/"


class ScriptedBatcher:
    """A batcher with a clock the test sets, whose search step records the batches it is asked for."""

    def __init__(self, margin_s: float = 1.0) -> None:
        self.now = 0.0
        self.batcher = Batcher(SimpleNamespace(client=None), settle_s=GUARD_S,  # type: ignore[arg-type]
                               margin_s=margin_s, clock=lambda: self.now)
        self.service = BatchedService(lambda ctx: SEARCH, lambda ctx: 10)
        self.served: list[list[int]] = []
        self.threads: list[threading.Thread] = []
        self.released: list[int] = []

    def step(self, ctx: object, states: Sequence[PubState]) -> None:
        self.served.append([id(state) for state in states])

    def serve(self, state: PubState) -> None:
        self.threads.append(threading.Thread(target=self.batcher.serve, args=(self.step, self.service, state)))
        self.threads[-1].start()

    def start(self, flow: int, count: int) -> list[PubState]:
        """Batch ``flow`` of the run with ``count`` publications, its release recorded."""
        states = [PubState(Publication()) for _ in range(count)]
        self.batcher.start(states, flow, lambda: self.released.append(flow))
        return states

    def busy_unpaywall(self, queued: int, flow: int = 2) -> list[PubState]:
        """``queued`` publications of batch ``flow`` waiting for Unpaywall, which answered two of them 0.1 s apart."""
        states = [PubState(Publication()) for _ in range(queued + 2)]
        self.batcher.start(states, flow)
        for state in states:
            self.batcher.requesting(state, True, UNPAYWALL)
        for state in states[:2]:
            self.now += 0.1
            self.batcher.requesting(state, False, UNPAYWALL)
            self.batcher.finished(state)
        return states[2:]

    def answer(self, states: list[PubState]) -> None:
        """Unpaywall answers ``states``, 0.1 s apart."""
        for state in states:
            self.now += 0.1
            self.batcher.requesting(state, False, UNPAYWALL)
            self.batcher.finished(state)

    def join(self) -> None:
        for thread in self.threads:
            thread.join(GUARD_S)
