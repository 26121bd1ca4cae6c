"""A batch held for company counts as moving what is between two places the batcher sees: a batch of the run read and
not yet started, a released batch of the run and the one its release lets begin, a batch of another step that left its
hold and has not sent its request. Nothing else moving, the held batch would go alone a moment before those
publications reach it. Driven as in tests/test_engine_slack.py: the batcher called directly, Unpaywall the bound."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from pubfetch.engine.overlap import _begin, _Reader
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


def _search_held_while_streaming() -> tuple[ScriptedBatcher, list[PubState], list[PubState]]:
    """A run whose input has more to come, Unpaywall its bound with 3 s of work, and a search of one publication of
    batch 1 held for company: the run, the bound's publications, the search's."""
    run = ScriptedBatcher(margin_s=1.0)
    run.batcher.streaming(True)
    bound = run.busy_unpaywall(30)
    first = run.start(1, 1)
    run.serve(first[0])
    wait_until(lambda: _held(run), GUARD_S, "the search held")
    return run, bound, first


def test_a_held_batch_waits_for_a_batch_of_the_run_read_until_its_publications_have_started(monkeypatch):
    """The run reads its next batch (``coming`` under its number) while the bound answers its last publications: the
    held search does not go alone in that moment; the batch's publication, once started, rides with it."""
    run, bound, first = _search_held_while_streaming()
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
    run, bound, first = _search_held_while_streaming()
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


@pytest.mark.parametrize("streaming", [True, False], ids=["more input to come", "input read"])
def test_a_batch_that_left_its_hold_counts_as_moving_until_its_request_is_answered(monkeypatch, streaming):
    """Efetch's full batch has left its hold and waits for its host's turn (here: its step has not sent the request
    yet) when the bound answers its last publications: the held search, whose second passes efetch brings, does not go
    alone in that moment, and takes them once efetch has answered: with more input to come, while anything moves;
    with the input read, because efetch's batch is an earlier step's that brings it publications."""
    run = ScriptedBatcher(margin_s=1.0)
    run.batcher.streaming(streaming)
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
    run.batcher.streaming(False)
    wait_until(lambda: run.served, GUARD_S, "the search sent")
    for thread in threads:
        thread.join(GUARD_S)
    run.join()
    assert run.served == [[id(state) for state in mine]]


def _failing_input() -> Iterator[list[Publication]]:
    raise ValueError("line 3: not an ID")
    yield []  # pragma: no cover - a generator that fails at its first batch


@pytest.mark.parametrize("batches", [iter(()), _failing_input()], ids=["input over", "reading failed"])
def test_a_batch_of_the_run_that_is_not_read_is_not_left_announced(batches: Iterator[list[Publication]]):
    """The input's end or a bad line where the next batch would be: it is withdrawn as soon as it is known not to
    come, so that the batches held for company do not count on it for the rest of the run."""
    run = ScriptedBatcher(margin_s=1.0)
    ended: list[int] = []
    shared = SimpleNamespace(batcher=run.batcher, begin=lambda scope: 4, end=ended.append)
    with ThreadPoolExecutor(1) as pool:
        try:
            begun = _begin(SimpleNamespace(scope=""), batches, shared, pool,  # type: ignore[arg-type]
                           threading.Event(), lambda number: None)
        except ValueError:
            begun = None
    assert begun is None and ended == [4]
    assert not run.batcher._moving()


def test_a_batch_of_the_run_that_could_not_start_is_not_left_announced():
    """Read, but its fetch could not be handed to a thread (the run's pool shut down under an interrupt): withdrawn
    too, and ended."""
    run = ScriptedBatcher(margin_s=1.0)
    ended: list[int] = []
    shared = SimpleNamespace(batcher=run.batcher, begin=lambda scope: 5, end=ended.append)
    walk = SimpleNamespace(scope="", tally=SimpleNamespace(next_batch=lambda number: number))
    pool = ThreadPoolExecutor(1)
    pool.shutdown()
    with pytest.raises(RuntimeError):
        _begin(walk, iter([[Publication()]]), shared, pool, threading.Event(), lambda number: None)  # type: ignore[arg-type]
    assert ended == [5]
    assert not run.batcher._moving()
