"""The batches a worker holds at the same time: tasks of equal settings join one run (one context, one batcher), so
their E-utilities requests are gathered as one process's two batches in flight are; each keeps its own counts; tasks
of other settings run apart; a run is closed when its last task leaves and is not joined once halted or old."""

from __future__ import annotations

import threading
from typing import Any

import pytest

import pubfetch.distributed.sharedrun as sharedrun
from pubfetch.config import FetchConfig
from pubfetch.distributed.sharedrun import SharedRuns
from pubfetch.engine.assembly import FetchRun
from pubfetch.engine.options import FetchOptions
from pubfetch.engine.summary import BatchSummary
from support.fetchrun import chain_config
from support.synthetic import SyntheticServices


class CountedRun(FetchRun):
    closed: list[FetchRun] = []

    def close(self) -> None:
        CountedRun.closed.append(self)
        super().close()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[FetchRun]:
    CountedRun.closed = []
    monkeypatch.setattr(sharedrun, "FetchRun", CountedRun)
    return CountedRun.closed


def test_tasks_of_equal_settings_share_a_run_and_others_get_their_own(counted: list[FetchRun]) -> None:
    runs = SharedRuns()
    config = FetchConfig().with_changes(rate_limits=False)
    with runs.joined(config, "job") as (run, in_flight), \
            runs.joined(FetchConfig().with_changes(rate_limits=False), "job") as same:
        assert same == (run, in_flight)
        with runs.joined(config.with_changes(quick=True), "job") as other:
            assert other[0] is not run and other[1] is not in_flight
            assert runs.open_runs() == 2
        assert counted == [other[0]]  # its only task left
        assert not in_flight.alone  # a batch failing in it does not stop the others' sending
    assert counted == [other[0], run] and runs.open_runs() == 0
    with runs.joined(config, "job") as again:
        assert again[0] is not run  # a new run once the last task left


def test_a_task_of_another_job_gets_a_run_of_its_own(counted: list[FetchRun]) -> None:
    """Equal settings are not enough: a run remembers its answers (a failure one job was told a later run retries) and
    holds its batches' claims, which another job must not be served or kept waiting on."""
    runs = SharedRuns()
    config = FetchConfig().with_changes(rate_limits=False)
    with runs.joined(config, "job-1") as (run, in_flight):
        with runs.joined(config, "job-2") as (other, other_in_flight):
            assert other is not run and other_in_flight is not in_flight
            assert other.context.client is not run.context.client
            assert runs.open_runs() == 2
        with runs.joined(config, "job-1") as (same, _):
            assert same is run
    assert counted == [other, run] and runs.open_runs() == 0


def test_a_halted_run_is_not_joined_again(counted: list[FetchRun]) -> None:
    runs = SharedRuns()
    config = FetchConfig().with_changes(rate_limits=False)
    with runs.joined(config, "job") as (run, _):
        run.context.client.watch.stopped = True
        with runs.joined(config, "job") as (fresh, _):
            assert fresh is not run
        assert counted == [fresh]
    assert counted == [fresh, run] and runs.open_runs() == 0


def test_a_run_older_than_its_age_is_not_joined(counted: list[FetchRun], monkeypatch: pytest.MonkeyPatch) -> None:
    runs = SharedRuns()
    config = FetchConfig().with_changes(rate_limits=False)
    with runs.joined(config, "job") as (run, _):
        monkeypatch.setattr(sharedrun, "MAX_AGE_S", 0.0)
        with runs.joined(config, "job") as (fresh, _):
            assert fresh is not run
        assert counted == [fresh]  # the old one still serves its task
    assert counted == [fresh, run] and runs.open_runs() == 0


def fetched_apart_and_together(services: SyntheticServices, config: FetchConfig, batches: list[list[str]],
                               monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, list[int]]:
    """The E-utilities requests of ``batches`` fetched each alone, then at the same time by tasks that joined one
    run; and the publications each of those tasks counted.

    Together, the batcher gathers the publications on their way when the first of them reaches a step, so every task's
    batch is held until all of them have started: a task the machine schedules late would otherwise find the others'
    requests already sent (a loaded machine's doing, not the run's)."""
    for batch in batches:
        with SharedRuns().joined(config, "job") as (run, in_flight):
            list(run.fetch(batch, shared=in_flight, scope="job", batch_size=len(batch)))
    apart = services.counts["ncbi"]
    services.counts.clear()
    runs = SharedRuns()
    totals: list[int] = [0] * len(batches)
    errors: list[BaseException] = []

    def task(k: int) -> None:
        try:
            with runs.joined(config, "job") as (run, in_flight):
                summary = BatchSummary()
                list(run.fetch(batches[k], None, FetchOptions(summary=summary), shared=in_flight, scope="job",
                               batch_size=len(batches[k])))
                totals[k] = summary.total
        except BaseException as e:  # noqa: BLE001 - re-raised below, in the test's thread
            errors.append(e)

    with runs.joined(config, "job") as (_, in_flight):  # the run every task joins, open until they are all done
        start = in_flight.batcher.start
        started = threading.Barrier(len(batches))
        starts = iter(range(len(batches)))  # the tasks' first batches (a later start of a batch does not wait)

        def start_together(pubs: Any, flow: int, on_release: Any = None) -> None:
            start(pubs, flow, on_release)
            if next(starts, None) is not None:
                started.wait(60)

        monkeypatch.setattr(in_flight.batcher, "start", start_together)
        threads = [threading.Thread(target=task, args=(k,)) for k in range(len(batches))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    assert not errors, errors
    return apart, services.counts["ncbi"], totals


def test_batches_held_together_ask_the_e_utilities_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two batches fetched at once through one run ask efetch together, as one process's two batches in flight do;
    fetched each alone they ask it once per batch and step. Each task counts its own publications."""
    with SyntheticServices(8) as services:
        config: Any = chain_config(services, rate_limits=False)
        pmids = services.pmids()
        apart, together, totals = fetched_apart_and_together(services, config, [pmids[:4], pmids[4:]], monkeypatch)
        asked = services.ids_asked["efetch_pubmed"]
    print(f"E-utilities requests: apart {apart}, together {together}")
    assert totals == [4, 4]
    assert together < apart
    assert set(asked) == set(pmids)
