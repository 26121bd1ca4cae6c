"""A partial batch waits for company only while waiting is free: while another host has more work before it than the
batch's own host needs, something else in the run moves, and the batch is not full. The decision and the hosts' work
are driven with a clock the test sets; the batcher is driven directly, its step recording what it was asked."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from types import SimpleNamespace

import pytest

from pubfetch.engine import service_batcher
from pubfetch.engine.service_batcher import BatchedService
from pubfetch.engine.slack import RARELY, HostLoad, LaterHosts, Slack, holds
from pubfetch.model.publication import Publication
from pubfetch.net.urls import host_key
from pubfetch.resources.pubstate import PubState
from support.scripted_batcher import GUARD_S, SEARCH, UNPAYWALL, ScriptedBatcher
from support.waits import wait_until


def test_a_partial_batch_waits_only_while_another_host_has_more_work_and_something_moves():
    assert holds(Slack(moving=True, feeding_s=None, own_s=0.5, bound_s=10.0, margin_s=2.0))
    assert not holds(Slack(moving=False, feeding_s=None, own_s=0.5, bound_s=10.0, margin_s=2.0))  # nothing would come
    assert not holds(Slack(moving=True, feeding_s=None, own_s=0.5, bound_s=1.9, margin_s=2.0))  # bound almost done
    assert holds(Slack(moving=True, feeding_s=None, own_s=11.5, bound_s=10.0, margin_s=2.0))  # ends within the margin
    assert not holds(Slack(moving=True, feeding_s=None, own_s=12.5, bound_s=10.0, margin_s=2.0))  # ends after it


def test_the_bound_counts_the_batches_to_come_and_a_batch_that_will_not_ask_it_may_hold_it_to_its_end():
    # while more input comes, what the batches a held request may span bring the bound counts against the own host
    assert holds(Slack(moving=True, feeding_s=None, own_s=15.0, bound_s=9.0, margin_s=2.0, ahead_s=30.0))
    assert not holds(Slack(moving=True, feeding_s=None, own_s=15.0, bound_s=9.0, margin_s=2.0))
    # a host that has worked less than the bound holds while the bound has more than the margin before it
    assert holds(Slack(moving=True, feeding_s=None, own_s=15.0, bound_s=9.0, margin_s=2.0, lighter=True))
    assert not holds(Slack(moving=True, feeding_s=None, own_s=0.5, bound_s=1.5, margin_s=2.0, lighter=True))
    # within the margin of the bound's end a batch holds only if its publications will not ask the bound for anything
    assert holds(Slack(moving=True, feeding_s=None, own_s=0.5, bound_s=1.5, margin_s=2.0, feeds=0.2))
    assert not holds(Slack(moving=True, feeding_s=None, own_s=0.5, bound_s=1.5, margin_s=2.0, feeds=3.0))
    assert not holds(Slack(moving=True, feeding_s=None, own_s=0.5, bound_s=0.0, margin_s=2.0, feeds=0.0))  # no bound
    assert not holds(Slack(moving=False, feeding_s=None, own_s=0.5, bound_s=9.0, margin_s=2.0, lighter=True))


def test_the_hosts_a_steps_publications_ask_afterwards_are_learned_per_pass_from_those_done():
    later = LaterHosts()
    assert later.share(("search", 1), "unpaywall.test") == 1.0  # nothing done yet: the cautious guess
    for state in (1, 2, 3, 4):
        later.served(state, "search")
    later.sent(1, "unpaywall.test")
    later.sent(2, "unpaywall.test")
    later.sent(2, "unpaywall.test")  # one publication, counted once
    later.served(1, "search")  # publication 1's second pass
    assert later.key(1, "search") == ("search", 3) and later.key(3, "search") == ("search", 2)
    for state in (1, 2, 3):
        later.finished(state)
    assert later.share(("search", 1), "unpaywall.test") == pytest.approx(2 / 3)
    assert later.share(("search", 2), "unpaywall.test") == 0.0  # the second pass asked nothing of it after
    later.finished(3)  # twice: counted once
    assert later.share(("search", 1), "unpaywall.test") == pytest.approx(2 / 3)
    # a pass no publication is done with yet: one that asked the host already will not ask it again, others may
    later.served(4, "search")
    later.sent(4, "unpaywall.test")
    assert later.expects(4, "search", "unpaywall.test") == 0.0 and later.expects(4, "search", "doi.test") == 1.0
    # its first pass: learned, publication 4 (not done, asked it after its first pass) counted too
    assert later.expects(5, "search", "unpaywall.test") == pytest.approx(3 / 4)


def test_publications_a_later_step_holds_count_for_it_before_they_are_done():
    """One publication in ten that PubMed's efetch served comes to PMC's efetch, which holds it for company while the
    other nine finish: the step is one in ten's, not none's, so that a batch before it expects the company it
    brings (a share under RARELY is not waited for)."""
    later = LaterHosts()
    pmc_step = ("step", "efetch pmc")
    for state in range(10):
        later.served(state, "efetch pubmed")
    later.sent(0, pmc_step)
    later.sent(0, pmc_step)  # one publication, counted once
    for state in range(1, 10):
        later.finished(state)
    assert later.share(("efetch pubmed", 1), pmc_step) == pytest.approx(1 / 10)
    assert later.share(("efetch pubmed", 1), pmc_step) >= RARELY
    later.served(10, "efetch pubmed")
    assert later.coming(10, pmc_step) == pytest.approx(1 / 10)
    later.finished(0)  # done at last: counted once, as one of the done
    assert later.share(("efetch pubmed", 1), pmc_step) == pytest.approx(1 / 10)
    assert later.share(("efetch pubmed", 1), "unpaywall.test") == 0.0


def test_near_the_bounds_end_a_batch_waits_for_its_own_batches_publications_while_its_work_fits_the_margin():
    assert holds(Slack(moving=True, feeding_s=1.5, own_s=0.5, bound_s=1.0, margin_s=2.0))
    assert holds(Slack(moving=True, feeding_s=0.0, own_s=0.5, bound_s=0.0, margin_s=2.0))  # about to arrive
    assert not holds(Slack(moving=True, feeding_s=1.5, own_s=2.5, bound_s=1.0, margin_s=2.0))  # too much work after
    assert not holds(Slack(moving=True, feeding_s=5.0, own_s=0.5, bound_s=1.0, margin_s=2.0))  # they come too late
    assert not holds(Slack(moving=True, feeding_s=None, own_s=0.5, bound_s=1.0, margin_s=2.0))  # no one else to come


def test_a_hosts_work_is_its_requests_out_times_the_time_between_its_answers():
    load = HostLoad()
    for _ in range(5):
        load.sent("unpaywall.test")
    load.answered("unpaywall.test", started=0.0, now=0.1)  # queued together: each answer 0.1 after the one before
    load.answered("unpaywall.test", started=0.0, now=0.2)
    assert load.gap_s("unpaywall.test") == pytest.approx(0.1)
    assert load.out("unpaywall.test") == 3
    assert load.remaining_s("unpaywall.test", now=0.2) == pytest.approx(0.3)
    assert load.remaining_s("unpaywall.test", now=0.25) == pytest.approx(0.25)  # half an answer's time already spent
    assert load.remaining_s("unpaywall.test", now=5.0) == 0.0  # overdue: no longer counted as work ahead
    load.sent("ebi.test")
    load.answered("ebi.test", started=1.0, now=1.5)  # a lone request: its own time
    assert load.gap_s("ebi.test") == 0.5
    assert load.remaining_s("ebi.test", now=1.5, extra=2) == pytest.approx(1.0)
    assert load.bound_s(now=0.2, other_than="ebi.test") == pytest.approx(0.3)  # unpaywall.test: worked 0.2 s
    assert load.bound_s(now=1.5, other_than="unpaywall.test") == 0.0  # ebi.test has nothing out
    for _ in range(10):
        load.sent("doi.test")
    load.answered("doi.test", started=1.0, now=1.05)
    load.answered("doi.test", started=1.0, now=1.1)  # 8 left at 0.05 s: busy, but it has worked less than unpaywall
    assert load.bound_s(now=1.1, other_than="ebi.test") == 0.0  # unpaywall.test's 3 left are overdue by then


def test_second_passes_trickling_out_of_a_busy_host_ride_together_and_go_when_it_is_nearly_done():
    """Unpaywall has 5 s of work before it (the other batch in flight's publications); the first second-pass search
    is held, the next joins it, and both go in one request once Unpaywall is within the margin of done."""
    run = ScriptedBatcher(margin_s=1.0)
    queued = run.busy_unpaywall(50)
    first, second = PubState(Publication()), PubState(Publication())
    run.batcher.start([first, second], 1)
    run.batcher.requesting(second, True, UNPAYWALL)
    run.serve(first)
    wait_until(lambda: run.batcher.holding == 1, GUARD_S, "the partial batch held")
    run.now += 0.1
    run.batcher.requesting(second, False, UNPAYWALL)
    run.serve(second)
    wait_until(lambda: len(next(iter(run.batcher._open.values())).states) == 2, GUARD_S, "the second joined")
    assert run.served == []
    for index, other in enumerate(queued[:-5]):  # Unpaywall answers all but five: half a second left
        run.now += 0.1
        run.batcher.requesting(other, False, UNPAYWALL)
        run.batcher.finished(other)
        if index == 0:
            assert run.served == [] and run.batcher.holding == 1
    wait_until(lambda: run.served, GUARD_S, "the batch sent")
    run.join()
    assert run.served == [[id(first), id(second)]]


def test_a_batch_does_not_wait_for_a_request_overdue_by_its_hosts_pace():
    """The publications the batch could wait for (of its own batch) are at a host whose answers are later than its
    pace promised (they may be waiting for this very batch): once the time their host was expected to need has passed,
    the batch goes."""
    run = ScriptedBatcher(margin_s=1.0)
    queued = run.busy_unpaywall(30, flow=1)  # 3 s of work at 0.1 s per answer
    first = PubState(Publication())
    run.batcher.start([first], 1)
    run.serve(first)
    wait_until(lambda: run.batcher.holding == 1, GUARD_S, "the partial batch held")
    assert run.served == []
    run.now += 2.5  # no answer for 2.5 s: what is left of the 3 s is within the margin, but they may still come
    assert run.served == [] and run.batcher.holding == 1
    run.now += 1.0  # overdue
    wait_until(lambda: run.served, GUARD_S, "the batch sent")
    run.join()
    assert run.served == [[id(first)]]
    assert all(id(other) not in run.served[0] for other in queued)


def test_near_the_bounds_end_the_last_publications_of_the_batchs_own_batch_ride_together():
    """Unpaywall has only its last three publications before it, all of the held publication's batch: the batch
    waits for them (its batch ends with the last of them anyway) and carries those that come."""
    run = ScriptedBatcher(margin_s=1.0)
    last = run.busy_unpaywall(3, flow=1)
    first = PubState(Publication())
    run.batcher.start([first], 1)
    run.serve(first)
    wait_until(lambda: run.batcher.holding == 1, GUARD_S, "the partial batch held")
    for other in last:
        run.now += 0.1
        run.batcher.requesting(other, False, UNPAYWALL)
        run.serve(other)
    wait_until(lambda: run.served, GUARD_S, "the batch sent")
    run.join()
    assert run.served == [[id(first), *map(id, last)]]


def test_a_batch_goes_at_once_when_nothing_else_moves_or_its_own_host_has_the_most_work():
    run = ScriptedBatcher(margin_s=1.0)
    alone = PubState(Publication())
    run.batcher.start([alone], 1)
    run.serve(alone)  # no other publication: nothing could join
    wait_until(lambda: run.served, GUARD_S, "the lone publication's request")
    run.join()
    assert run.served == [[id(alone)]]

    run = ScriptedBatcher(margin_s=1.0)
    run.busy_unpaywall(10)  # 1 s of work
    fulltexts = [PubState(Publication()) for _ in range(40)]  # 4 s of work for the batch's own host
    run.batcher.start(fulltexts, 2)
    for index, fulltext in enumerate(fulltexts):
        run.batcher.requesting(fulltext, True, SEARCH)
        if index < 2:
            run.now += 0.1
            run.batcher.requesting(fulltext, False, SEARCH)
            run.batcher.finished(fulltext)
    mine = PubState(Publication())
    run.batcher.start([mine], 3)
    run.serve(mine)
    wait_until(lambda: run.served, GUARD_S, "the request of the busiest host's batch")
    run.join()
    assert run.served == [[id(mine)]]


def test_a_full_batch_goes_at_once_and_no_margin_means_no_holding():
    run = ScriptedBatcher(margin_s=1.0)
    run.busy_unpaywall(100)
    members = [PubState(Publication()) for _ in range(10)]
    run.batcher.start(members, 1)
    for member in members:
        run.serve(member)
    wait_until(lambda: run.served, GUARD_S, "the full batch's request")
    run.join()
    assert [len(batch) for batch in run.served] == [10]

    run = ScriptedBatcher(margin_s=-1.0)
    run.busy_unpaywall(100)
    lone = PubState(Publication())
    run.batcher.start([lone], 1)
    run.serve(lone)
    wait_until(lambda: run.served, GUARD_S, "the request without holding")
    run.join()
    assert run.served == [[id(lone)]]


def test_a_batched_request_counts_as_asked_by_every_member_not_its_leader_alone():
    """The client reports a batched request as its leader's (one thread sends it): every member of the batch asked
    the host all the same, so the hosts learned for the step before (:class:`LaterHosts`) count it for each."""
    run = ScriptedBatcher(margin_s=-1.0)
    efetch = BatchedService(lambda ctx: "http://eutils.test/efetch", lambda ctx: 10)
    states = run.start(1, 3)
    own: dict[int, PubState] = {}  # thread -> its publication (the client's on_request is per thread)

    def fetch(ctx: object, batch: Sequence[PubState]) -> None:
        leader = own[threading.get_ident()]  # the leader's thread sends the request
        run.batcher.requesting(leader, True, "http://eutils.test/efetch")
        run.batcher.requesting(leader, False, "http://eutils.test/efetch")
        run.served.append([id(state) for state in batch])

    def walk(state: PubState) -> None:
        own[threading.get_ident()] = state
        run.batcher.serve(run.step, run.service, state)
        run.batcher.serve(fetch, efetch, state)
        run.batcher.finished(state)

    threads = [threading.Thread(target=walk, args=(state,)) for state in states]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(GUARD_S)
    assert [sorted(batch) for batch in run.served] == [sorted(map(id, states))] * 2  # released together: one each
    assert run.batcher._later.share((run.step, 1), "eutils.test") == 1.0


def test_a_batch_does_not_wait_for_its_batchs_publications_that_will_not_come_to_its_step():
    """A publication of the batch's own batch of the run that PubMed's efetch served already is at Unpaywall: the
    publications efetch served so far never came to it again, so the efetch of the next one does not wait for it."""
    run = ScriptedBatcher(margin_s=1.0)
    efetch = BatchedService(lambda ctx: "http://eutils.test/efetch", lambda ctx: 10)
    fetched: list[list[int]] = []

    def fetch(ctx: object, states: Sequence[PubState]) -> None:
        fetched.append([id(state) for state in states])

    learned = run.start(1, 1)[0]
    run.batcher.serve(fetch, efetch, learned)  # alone in the run: asked at once
    run.batcher.finished(learned)  # and never came to efetch again
    gone = run.start(2, 1)[0]
    run.batcher.serve(fetch, efetch, gone)
    run.batcher.requesting(gone, True, UNPAYWALL)  # then at Unpaywall, answered within the margin
    late = run.start(2, 1)[0]
    thread = threading.Thread(target=lambda: (run.batcher.serve(fetch, efetch, late), run.batcher.finished(late)))
    thread.start()
    wait_until(lambda: len(fetched) == 3, GUARD_S, "the late one's efetch sent")
    run.batcher.requesting(gone, False, UNPAYWALL)
    run.batcher.finished(gone)
    thread.join(GUARD_S)
    assert fetched == [[id(learned)], [id(gone)], [id(late)]]


def test_a_held_batch_reads_the_hosts_work_once_a_look_not_at_each_request_the_run_sends(monkeypatch):
    """Reading the hosts' work goes over every publication in flight: a held batch does it every ``HOLD_POLL_S`` (its
    clock frozen here), not each time another publication sends a request, and still sees at once that nothing else
    moves."""
    clock = [100.0]
    monkeypatch.setattr(service_batcher, "time", SimpleNamespace(monotonic=lambda: clock[0], time=time.time))
    run = ScriptedBatcher(margin_s=1.0)
    queued = run.busy_unpaywall(50)  # 5 s of work: the batch holds
    looks: list[int] = []
    wakes: list[int] = []
    slack, moving = run.batcher._slack, run.batcher._moving
    monkeypatch.setattr(run.batcher, "_slack", lambda *args, **kwargs: looks.append(1) or slack(*args, **kwargs))
    monkeypatch.setattr(run.batcher, "_moving", lambda *args: wakes.append(1) or moving(*args))
    mine = PubState(Publication())
    run.batcher.start([mine], 1)
    run.serve(mine)
    wait_until(lambda: any(batch.held for batch in run.batcher._open.values()), GUARD_S, "the batch held")
    assert looks == [1]
    others = run.start(3, 20)
    for other in others:  # each request sent wakes the held batch, which looks only at what is cheap to see
        woken = len(wakes)
        run.batcher.requesting(other, True, "http://pages.test/page")
        wait_until(lambda: len(wakes) > woken, GUARD_S, "the held batch woken")
    assert looks == [1] and run.served == []
    clock[0] += service_batcher.HOLD_POLL_S
    run.batcher.requesting(others[0], False, "http://pages.test/page")
    run.batcher.requesting(others[0], True, "http://pages.test/page")
    wait_until(lambda: len(looks) == 2, GUARD_S, "the next look")
    assert run.served == []
    for state in queued + others:  # the clock stands still: nothing else moving is seen without a look being due
        run.batcher.finished(state)
    wait_until(lambda: run.served, GUARD_S, "the batch sent")
    run.join()
    assert run.served == [[id(mine)]]


def test_near_the_bounds_end_a_batch_goes_while_the_bound_still_has_the_work_it_brings_besides_the_margin():
    # the batch's publications will bring the bound 5 s of work: it goes before the bound is within that and the margin
    assert holds(Slack(moving=True, feeding_s=None, own_s=0.5, bound_s=8.0, margin_s=2.0, feeds=50, feeds_s=5.0))
    assert not holds(Slack(moving=True, feeding_s=None, own_s=0.5, bound_s=6.0, margin_s=2.0, feeds=50, feeds_s=5.0))
    assert not holds(Slack(moving=True, feeding_s=None, own_s=0.5, bound_s=6.0, margin_s=2.0, feeds=50, feeds_s=5.0,
                           lighter=True))
    # a host that has worked less than the bound holds while the bound's work to come outlasts them too
    assert holds(Slack(moving=True, feeding_s=None, own_s=0.5, bound_s=1.0, margin_s=2.0, ahead_s=30.0, feeds=50,
                       feeds_s=5.0, lighter=True))


def test_once_the_input_is_read_a_batch_counts_what_it_brings_the_bound():
    """Unpaywall has 1.5 s of work out; nine publications that will ask it (0.9 s) wait for company in a search
    batch. While the run's input has more batches, the bound's end is not near and the batch holds; once the input is
    read it goes, though the bound is still more than the margin from its end: held to the margin, its nine requests
    would come after everything else the bound had."""
    run = ScriptedBatcher(margin_s=1.0)
    queued = run.busy_unpaywall(15)
    run.batcher.streaming(True)
    batch = run.start(1, 9)
    for state in batch:
        run.serve(state)
    wait_until(lambda: run.batcher.holding == 1 and len(next(iter(run.batcher._open.values())).states) == 9, GUARD_S,
               "the nine held together")
    assert run.served == []
    run.batcher.streaming(False)
    wait_until(lambda: run.served, GUARD_S, "the batch sent")
    assert run.batcher._load.out(host_key(UNPAYWALL)) == 15  # the bound had not answered any of its queue yet
    run.answer(queued)
    run.join()
    assert sorted(run.served[0]) == sorted(id(state) for state in batch)


def test_near_the_bounds_end_a_lighter_batch_waits_for_an_earlier_steps_batch_going_and_a_pulled_one_goes():
    # an earlier step's batch is going with publications that will come: a host lighter than the bound waits for it
    assert holds(Slack(moving=True, feeding_s=None, own_s=8.0, bound_s=1.0, margin_s=2.0, lighter=True, upstream_s=0.3))
    assert not holds(Slack(moving=True, feeding_s=None, own_s=8.0, bound_s=1.0, margin_s=2.0, upstream_s=0.3))
    assert not holds(Slack(moving=True, feeding_s=None, own_s=8.0, bound_s=1.0, margin_s=2.0, lighter=True,
                           upstream_s=2.5))  # it would come too late
    # a batch that a later step's batch about to go pulls goes, however much work the bound has
    assert not holds(Slack(moving=True, feeding_s=None, own_s=0.5, bound_s=10.0, margin_s=2.0, pulled=True))
    assert holds(Slack(moving=True, feeding_s=0.5, own_s=0.5, bound_s=10.0, margin_s=2.0, pulled=True))  # stragglers
