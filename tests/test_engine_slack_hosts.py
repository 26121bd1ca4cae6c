"""A request a held batch waits for is late only once it took longer than both its host's pace and its host's usual
time per request by the margin (between the two it is due any moment), its own time counted from the host's last
answer; a host that has worked about as long as the busiest other is not the one the run waits on. The
hosts' work is driven with a clock the test sets; the batcher's decisions are read when it has looked at the clock
again, never after a sleep."""

from __future__ import annotations

import pytest

from pubfetch.engine.company import Batch
from pubfetch.engine.slack import HostLoad
from pubfetch.net.urls import host_key
from support.scripted_batcher import GUARD_S, SEARCH, UNPAYWALL, ScriptedBatcher
from support.waits import wait_until

PAGES = "http://pages.test/article"


def test_a_request_to_a_host_serving_several_at_once_is_not_late_before_its_usual_time():
    """Three pages asked together and answered 10 ms apart: the host's pace is far shorter than a page's 0.1 s. A page
    asked alone later is still being served 80 ms after it went, due any moment once past its usual time (a loaded
    machine makes a page a few times slower), and late once past it by the margin."""
    load = HostLoad()
    for _ in range(3):
        load.sent("pages.test")
    for now in (0.10, 0.11, 0.12):
        load.answered("pages.test", started=0.0, now=now)
    assert load.gap_s("pages.test") < 0.08
    load.sent("pages.test")
    assert load.remaining_s("pages.test", now=1.08) == 0.0  # by the pace alone it would be late already
    assert load.serving_s("pages.test", started=1.0, now=1.08, fresh_s=2.0) == pytest.approx(0.024, abs=0.01)
    assert load.serving_s("pages.test", started=1.0, now=1.4, fresh_s=2.0, grace_s=2.0) == 0.0
    assert load.serving_s("pages.test", started=1.0, now=3.2, fresh_s=2.0, grace_s=2.0) is None


def test_a_place_in_a_queue_does_not_count_as_a_requests_own_time():
    """Five requests queued for one connection, answered 0.1 s apart: the last waited 0.5 s, but a request's own time
    there is 0.1 s, so one asked alone later is due any moment once past that and late once past it by the margin,
    not by half a second more."""
    load = HostLoad()
    for _ in range(5):
        load.sent("unpaywall.test")
    for index in range(5):
        load.answered("unpaywall.test", started=0.0, now=0.1 * (index + 1))
    load.sent("unpaywall.test")
    assert load.serving_s("unpaywall.test", started=1.0, now=1.05, fresh_s=2.0) == pytest.approx(0.05)
    assert load.serving_s("unpaywall.test", started=1.0, now=1.3, fresh_s=2.0, grace_s=2.0) == 0.0
    assert load.serving_s("unpaywall.test", started=1.0, now=3.2, fresh_s=2.0, grace_s=2.0) is None


def test_a_request_queued_behind_another_counts_its_own_time_from_the_hosts_last_answer():
    """Two requests sent together to a host with a request's own time of 0.1 s: the second waited for its connection
    while the first was served, so it is not late 2.15 s after it went (2.05 s after the first's answer, within its own
    time and the margin), and late 0.1 s later."""
    load = HostLoad()
    load.sent("unpaywall.test")
    load.answered("unpaywall.test", started=0.0, now=0.1)
    load.sent("unpaywall.test")
    load.sent("unpaywall.test")
    load.answered("unpaywall.test", started=1.0, now=1.1)
    assert load.serving_s("unpaywall.test", started=1.0, now=3.15, fresh_s=2.0, grace_s=2.0) == 0.0
    assert load.serving_s("unpaywall.test", started=1.0, now=3.25, fresh_s=2.0, grace_s=2.0) is None


def _counting_clock(run: ScriptedBatcher) -> list[int]:
    """Make the batcher count its looks at the clock, so a test knows it has decided again after the clock moved."""
    reads = [0]

    def clock() -> float:
        reads[0] += 1
        return run.now

    run.batcher._clock = clock
    return reads


def _looked_again(run: ScriptedBatcher, reads: list[int], what: str) -> None:
    """Wait until the held batch has read the clock twice more: one whole decision made at the clock's new time."""
    with run.batcher._cond:
        seen = reads[0]
        run.batcher._cond.notify_all()
    wait_until(lambda: reads[0] >= seen + 2, GUARD_S, what)


def test_a_held_batch_waits_for_its_batchs_last_publication_at_a_page_host_faster_than_one_page():
    """The batch's own batch of the run has one publication left, at a publisher's host whose answers come closer
    together than one page takes: the batch waits for it (its request is not late yet) and both ride together."""
    run = ScriptedBatcher(margin_s=1.0)
    reads = _counting_clock(run)
    warm = run.start(9, 3)  # another batch's pages, asked together, answered 10 ms apart
    for state in warm:
        run.batcher.requesting(state, True, PAGES)
    run.now = 0.1
    for state in warm:
        run.batcher.requesting(state, False, PAGES)
        run.batcher.finished(state)
        run.now += 0.01
    first, last = run.start(1, 2)
    run.now = 1.0
    run.batcher.requesting(last, True, PAGES)
    run.serve(first)
    wait_until(lambda: run.batcher.holding == 1, GUARD_S, "the partial batch held")
    run.now = 1.08
    _looked_again(run, reads, "the held batch's look at 80 ms")
    assert run.served == [] and run.batcher.holding == 1
    run.now = 1.1
    run.batcher.requesting(last, False, PAGES)
    run.serve(last)
    wait_until(lambda: run.served, GUARD_S, "the batch sent")
    run.join()
    assert run.served == [[id(first), id(last)]]


def test_a_host_that_worked_about_as_long_as_the_bound_counts_as_the_lighter_one():
    """Europe PMC's host and Unpaywall's, both busy since the run's start, have worked about as long: a fraction of a
    second more on the search's host does not make it the one the run waits on (a held second pass then went without
    its company, six searches where two would do); more than the margin does."""
    run = ScriptedBatcher(margin_s=1.0)
    load, search_host = run.batcher._load, host_key(SEARCH)
    batch = Batch()
    batch.states.extend(run.start(1, 1))

    def works(url: str, started: float, until: float) -> None:
        load.sent(host_key(url))
        load.answered(host_key(url), started, until)

    works(UNPAYWALL, 0.0, 10.0)
    works(SEARCH, 0.0, 10.5)
    assert load.bound(other_than=search_host) == host_key(UNPAYWALL)
    assert run.batcher._slack(run.step, batch, search_host).lighter
    works(SEARCH, 10.5, 11.2)  # 11.2 s against 10: more than the margin
    assert not run.batcher._slack(run.step, batch, search_host).lighter
    works(UNPAYWALL, 10.0, 12.0)
    assert run.batcher._slack(run.step, batch, search_host).lighter
