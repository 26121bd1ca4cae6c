"""A batch held for company counts as moving what is between two places the batcher sees: a batch of the run read and
not yet started, a released batch of the run and the one its release lets begin, a batch of another step that left its
hold and has not sent its request. Nothing else moving, the held batch would go alone a moment before those
publications reach it. Driven as in tests/test_engine_slack.py: the batcher called directly, Unpaywall the bound."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from types import SimpleNamespace

from pubfetch.engine.overlap import _Reader
from pubfetch.engine.service_batcher import BatchedService
from pubfetch.model.publication import Publication
from pubfetch.resources.pubstate import PubState
from support.scripted_batcher import GUARD_S, ScriptedBatcher
from support.waits import wait_until


def _held(run: ScriptedBatcher) -> bool:
    return any(batch.held for batch in run.batcher._open.values())


def _looks_counted(run: ScriptedBatcher, monkeypatch) -> list[int]:
    """The held batches' looks at the run, counted as they are taken."""
    looks: list[int] = []
    slack = run.batcher._slack
    monkeypatch.setattr(run.batcher, "_slack", lambda *args, **kwargs: looks.append(1) or slack(*args, **kwargs))
    return looks


def _bound_done_and_looked_at(run: ScriptedBatcher, bound: list[PubState], looks: list[int]) -> None:
    """Unpaywall answers the rest of its work, and the held batch takes a look at the run after that."""
    run.answer(bound)
    seen = len(looks)
    wait_until(lambda: len(looks) > seen, GUARD_S, "a look at the run after the bound's answers")


def test_a_held_batch_waits_for_a_batch_of_the_run_read_until_its_publications_have_started(monkeypatch):
    """The run reads its next batch (``coming`` under its number) while the bound answers its last publications: the
    held search does not go alone in that moment; the batch's publication, once started, rides with it."""
    run = ScriptedBatcher(margin_s=1.0)
    run.batcher.streaming(True)
    bound = run.busy_unpaywall(30)
    first = run.start(1, 1)
    run.serve(first[0])
    wait_until(lambda: _held(run), GUARD_S, "the search held")
    looks = _looks_counted(run, monkeypatch)
    run.batcher.coming(2)  # read from the database, its fetch not begun yet
    _bound_done_and_looked_at(run, bound, looks)
    assert run.served == []
    second = run.start(2, 1)  # its publications start: the announcement ends with them
    run.serve(second[0])
    run.batcher.streaming(False)
    wait_until(lambda: run.served, GUARD_S, "the search sent")
    run.join()
    assert run.served == [[id(first[0]), id(second[0])]]


def test_a_batch_of_the_run_that_did_not_come_lets_the_held_batch_go():
    """An announced batch of the run that ends without starting anything (all its papers in the database, the input
    over) is withdrawn, and the held batch goes: nothing else moves."""
    run = ScriptedBatcher(margin_s=1.0)
    run.batcher.streaming(True)
    bound = run.busy_unpaywall(30)
    first = run.start(1, 1)
    run.serve(first[0])
    wait_until(lambda: _held(run), GUARD_S, "the search held")
    run.batcher.coming(2)
    run.answer(bound)
    run.batcher.arrived(2)
    wait_until(lambda: run.served, GUARD_S, "the search sent")
    run.join()
    assert run.served == [[id(first[0])]]


def test_a_release_announces_the_batch_of_the_run_it_lets_begin_until_the_run_has_begun_it(monkeypatch):
    """A batch of the run whose last publication parks in the held search is released: from that moment the next
    batch counts as coming (the run's loop has yet to read it), so the search waits for it rather than going alone
    when the bound's last answer comes first; the loop's decision withdraws the announcement."""
    run = ScriptedBatcher(margin_s=1.0)
    changed = threading.Event()
    reader = _Reader(SimpleNamespace(), iter(()), SimpleNamespace(batcher=run.batcher), changed)  # type: ignore[arg-type]
    bound = run.busy_unpaywall(30)
    first = [PubState(Publication())]
    run.batcher.start(first, 1, lambda: reader.released(1))
    run.serve(first[0])
    wait_until(changed.is_set, GUARD_S, "the batch of the run released")
    looks = _looks_counted(run, monkeypatch)
    _bound_done_and_looked_at(run, bound, looks)
    assert run.served == []
    promised = reader.promised()
    assert promised == [("after", 1)]
    second = run.start(2, 1)  # the loop began the next batch (announced under its own number)...
    reader.keep(promised)  # ...and takes the release up
    run.serve(second[0])
    reader.stop()
    wait_until(lambda: run.served, GUARD_S, "the search sent")
    run.join()
    assert run.served == [[id(first[0]), id(second[0])]]


def test_a_batch_that_left_its_hold_counts_as_moving_until_its_request_is_answered(monkeypatch):
    """Efetch's full batch has left its hold and waits for its host's turn (here: its step has not sent the request
    yet) when the bound answers its last publications: the held search, whose second passes efetch brings, does not go
    alone in that moment, and takes them once efetch has answered."""
    run = ScriptedBatcher(margin_s=1.0)
    efetch = BatchedService(lambda ctx: "http://eutils.test/efetch", lambda ctx: 2)
    turn, sent = threading.Event(), threading.Event()

    def fetch(ctx: object, states: Sequence[PubState]) -> None:
        turn.wait(GUARD_S)  # queued for its host: no request out yet
        run.batcher.requesting(states[0], True, "http://eutils.test/efetch")
        run.batcher.requesting(states[0], False, "http://eutils.test/efetch")
        sent.set()

    def second_pass(state: PubState) -> None:
        run.batcher.serve(fetch, efetch, state)
        run.batcher.serve(run.step, run.service, state)  # PubMed gave its PMCID: the search again

    bound = run.busy_unpaywall(30)
    mine = run.start(1, 3)
    threads = [threading.Thread(target=second_pass, args=(state,)) for state in mine[1:]]
    for thread in threads:
        thread.start()
    wait_until(lambda: run.batcher._going, GUARD_S, "efetch's full batch going")
    run.serve(mine[0])
    wait_until(lambda: _held(run), GUARD_S, "the search held")
    looks = _looks_counted(run, monkeypatch)
    _bound_done_and_looked_at(run, bound, looks)
    assert run.served == []
    turn.set()
    wait_until(sent.is_set, GUARD_S, "efetch answered")
    wait_until(lambda: run.served, GUARD_S, "the search sent")
    for thread in threads:
        thread.join(GUARD_S)
    run.join()
    assert run.served == [[id(state) for state in mine]]
