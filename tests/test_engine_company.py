"""A held batch goes with the batches around it: it waits for an earlier step's batch that carries publications for
it (of its own batch of the run or another), and near the bound's end a batch about to go pulls the held batches
before it along. Driven as in tests/test_engine_slack.py: a clock the test sets, the batcher called directly."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from types import SimpleNamespace

from pubfetch.engine.service_batcher import BatchedService, Batcher, Step
from pubfetch.model.publication import Publication
from pubfetch.resources.pubstate import PubState
from support.scripted_batcher import GUARD_S, SEARCH, UNPAYWALL, ScriptedBatcher
from support.waits import wait_until


def test_a_batch_waits_for_its_own_batchs_publications_in_another_steps_request_that_will_bring_them():
    """A search that went with one batch's second passes and a publication of the next batch (the held search mixes
    them) still carries a first pass of the batch whose other first pass reached efetch already: the efetch waits for
    it, although the search's leader and its request are another batch's, and both ride in one efetch request."""
    _efetch_beside_a_search_out(efetch_first=False)


def test_the_steps_are_ordered_as_in_the_chain_not_as_first_reached():
    """Efetch was reached before any search (a publication the search missed goes straight to it): it still comes
    after the search in the chain, and waits for the search that carries the rest of its batch."""
    _efetch_beside_a_search_out(efetch_first=True)


def _efetch_beside_a_search_out(efetch_first: bool) -> None:
    run = ScriptedBatcher(margin_s=1.0)
    efetch = BatchedService(lambda ctx: "http://eutils.test/efetch", lambda ctx: 10)
    fetched: list[list[int]] = []
    asking, answer = threading.Event(), threading.Event()

    def search(ctx: object, states: Sequence[PubState]) -> None:
        run.batcher.requesting(second_pass, True, SEARCH)
        asking.set()
        answer.wait(GUARD_S)
        run.batcher.requesting(second_pass, False, SEARCH)
        run.served.append([id(state) for state in states])

    def fetch(ctx: object, states: Sequence[PubState]) -> None:
        fetched.append([id(state) for state in states])

    def walk(state: PubState, then_efetch: bool) -> None:  # the chain: the search, then efetch for a first pass
        run.batcher.serve(search, run.service, state)
        if then_efetch:
            run.batcher.serve(fetch, efetch, state)
        run.batcher.finished(state)

    early = []
    if efetch_first:
        run.batcher = Batcher(SimpleNamespace(client=None), settle_s=GUARD_S,  # type: ignore[arg-type]
                              margin_s=1.0, clock=lambda: run.now, order=[search, fetch])
        early = run.start(3, 1)
        run.batcher.serve(fetch, efetch, early[0])  # alone in the run: asked at once
        run.batcher.finished(early[0])
    ahead, behind = run.start(2, 2)  # two first passes of one batch of the run
    second_pass = PubState(Publication())
    run.batcher.start([second_pass], 1)  # an older batch's second pass leads the search
    run.batcher.requesting(ahead, True, "http://pages.test/")  # the first, elsewhere meanwhile
    threads = [threading.Thread(target=walk, args=(second_pass, False)),
               threading.Thread(target=walk, args=(behind, True))]
    threads[0].start()
    wait_until(lambda: run.batcher._open, GUARD_S, "the search batch opened")
    threads[1].start()
    wait_until(lambda: sum(len(batch.states) for batch in run.batcher._open.values()) == 2, GUARD_S, "both searching")
    run.now += 2.0  # the page is late: the search does not wait for it
    wait_until(asking.is_set, GUARD_S, "the search asked")
    run.batcher.requesting(ahead, False, "http://pages.test/")
    threads.append(threading.Thread(target=lambda: (run.batcher.serve(fetch, efetch, ahead),
                                                    run.batcher.finished(ahead))))
    threads[-1].start()
    wait_until(lambda: fetched[len(early):] or any(batch.held for batch in run.batcher._open.values()), GUARD_S,
               "the efetch sent or held while the search is out")
    answer.set()
    for thread in threads:
        thread.join(GUARD_S)
    assert run.served == [[id(second_pass), id(behind)]]
    assert [sorted(batch) for batch in fetched] == [[id(state)] for state in early] + [sorted([id(ahead), id(behind)])]


def test_an_efetch_waits_for_a_held_search_that_goes_with_it_and_carries_its_batchs_other_publications():
    """Unpaywall bounds the run; a search held for company carries a first pass of the batch whose other first pass
    waits in a held efetch. When Unpaywall comes within the margin of done both would go at once, the efetch with
    half the batch; it waits for the search instead and takes the other half along."""
    run = ScriptedBatcher(margin_s=1.0)
    efetch = BatchedService(lambda ctx: "http://eutils.test/efetch", lambda ctx: 10)
    fetched: list[list[int]] = []
    answer = threading.Event()

    def search(ctx: object, states: Sequence[PubState]) -> None:
        answer.wait(GUARD_S)
        run.served.append([id(state) for state in states])

    def fetch(ctx: object, states: Sequence[PubState]) -> None:
        fetched.append([id(state) for state in states])

    def walk(state: PubState, first: Step, then: Step | None) -> None:
        run.batcher.serve(first, efetch if first is fetch else run.service, state)
        if then is not None:
            run.batcher.serve(then, efetch, state)
        run.batcher.finished(state)

    queued = run.busy_unpaywall(20, flow=3)  # 2 s of work
    second_pass = PubState(Publication())
    run.batcher.start([second_pass], 1)
    ahead, behind = run.start(2, 2)
    threads = [threading.Thread(target=walk, args=(second_pass, search, None))]
    threads[0].start()
    wait_until(lambda: run.batcher._open, GUARD_S, "the search batch opened")
    threads.append(threading.Thread(target=walk, args=(behind, search, fetch)))
    threads.append(threading.Thread(target=walk, args=(ahead, fetch, None)))
    for thread in threads[1:]:
        thread.start()
    wait_until(lambda: len(run.batcher._open) == 2 and all(batch.held for batch in run.batcher._open.values()),
               GUARD_S, "the search and the efetch held")
    run.answer(queued[:-5])  # Unpaywall within the margin of done: both would go
    wait_until(lambda: fetched or len(run.batcher._open) == 1 and next(iter(run.batcher._open.values())).held,
               GUARD_S, "the search gone, the efetch sent or held")
    answer.set()
    run.answer(queued[-5:])
    for thread in threads:
        thread.join(GUARD_S)
    assert run.served == [[id(second_pass), id(behind)]]
    assert [sorted(batch) for batch in fetched] == [sorted([id(ahead), id(behind)])]


def test_a_later_steps_batch_about_to_go_pulls_a_held_search_carrying_another_batchs_publication_for_it():
    """Once the input is read, a held efetch (three publications of batch 1, each to ask Unpaywall after it) and a
    held search (a first pass of batch 2 that will come to the efetch, and a second pass that will not ask Unpaywall)
    wait while Unpaywall bounds the run. The efetch's publications bring Unpaywall more work than the search's, so it
    would go first, at 1.2 s of Unpaywall's work left: it pulls the search along and waits for it, and the first pass
    rides in its request instead of going alone after the bound's end."""
    run = ScriptedBatcher(margin_s=1.0)
    efetch = BatchedService(lambda ctx: "http://eutils.test/efetch", lambda ctx: 10)
    fetched: list[list[int]] = []

    def fetch(ctx: object, states: Sequence[PubState]) -> None:
        fetched.append([id(state) for state in states])

    def walk(state: PubState, steps: Sequence[tuple[Step, BatchedService]]) -> None:
        for step, service in steps:
            run.batcher.serve(step, service, state)
        run.batcher.finished(state)

    queued = run.busy_unpaywall(20, flow=3)  # 2 s of work
    early = run.start(1, 3)
    first_pass, second_pass = run.start(2, 2)
    run.batcher.requesting(second_pass, True, UNPAYWALL)  # it asked Unpaywall in its first pass
    run.now += 0.1
    run.batcher.requesting(second_pass, False, UNPAYWALL)
    threads = [threading.Thread(target=walk, args=(state, [(run.step, run.service)]))
               for state in (first_pass, second_pass)]
    threads[0] = threading.Thread(target=walk, args=(first_pass, [(run.step, run.service), (fetch, efetch)]))
    threads += [threading.Thread(target=walk, args=(state, [(fetch, efetch)])) for state in early]
    threads[0].start()
    wait_until(lambda: run.batcher._open, GUARD_S, "the search batch opened")  # the search comes first in the chain
    for thread in threads[1:]:
        thread.start()
    wait_until(lambda: run.batcher.holding == 2 and sum(len(b.states) for b in run.batcher._open.values()) == 5,
               GUARD_S, "the search and the efetch held")
    assert run.served == [] and fetched == []
    run.answer(queued[:8])  # 1.2 s left: the efetch's three (0.3 s) and the margin no longer fit, the search's one does
    wait_until(lambda: fetched, GUARD_S, "the efetch sent")
    run.answer(queued[8:])
    for thread in threads:
        thread.join(GUARD_S)
    assert [sorted(batch) for batch in run.served] == [sorted([id(first_pass), id(second_pass)])]
    assert [sorted(batch) for batch in fetched] == [sorted(id(state) for state in [*early, first_pass])]
