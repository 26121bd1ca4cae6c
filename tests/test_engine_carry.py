"""Batches of the run that end before their second passes: a batch whose unfinished publications all wait for company
in held batched requests is released (the next batch of the run starts and its publications join those requests), the
held request carries the second passes of several batches of the run in one request, the memory's bound makes the
oldest batch's company go at once, and a run killed while publications were carried resumes to a complete database.
The batcher is driven with a clock the test sets (no duration is asserted); the run-level tests use the synthetic
services."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.model.part_type import PartType
from pubfetch.store import init_db
from support.dbwait import check_database, stored_count, wait_while_running
from support.pubfetch_processes import service_env
from support.scripted_batcher import GUARD_S, UNPAYWALL, ScriptedBatcher
from support.synthetic import Article, SyntheticServices
from support.waits import wait_until

REPO = Path(__file__).resolve().parents[1]


def test_the_second_passes_of_three_batches_of_the_run_go_in_one_request():
    """Unpaywall bounds the run. Each batch of the run ends with two publications done and the rest in their second
    pass at the search, held for company: the batch is released then (not before), the next one starts and its second
    passes join the same held request, which goes once Unpaywall is within the margin of done: one search request for
    the three batches' second passes, where a batch that ended only with its last publication made one each."""
    run = ScriptedBatcher(margin_s=1.0)
    queued = run.busy_unpaywall(60, flow=99)  # 6 s of work before the bound
    expected: list[int] = []
    for flow in (1, 2, 3):
        done, *second = run.start(flow, 3)
        for state in second:
            run.serve(state)
            expected.append(id(state))
        wait_until(lambda: sum(len(b.states) for b in run.batcher._open.values()) == len(expected), GUARD_S,
                   f"batch {flow}'s second passes joined")
        assert flow not in run.released  # one publication of it is still on its way
        run.batcher.finished(done)
        wait_until(lambda: flow in run.released, GUARD_S, f"batch {flow} released")  # noqa: B023
        assert run.served == [] and run.batcher.holding == 1
    run.answer(queued[:-5])  # half a second left: within the margin
    wait_until(lambda: run.served, GUARD_S, "the held request sent")
    run.join()
    assert [sorted(batch) for batch in run.served] == [sorted(expected)]
    assert run.released == [1, 2, 3]


def test_the_oldest_batchs_held_request_goes_when_it_is_urged():
    """At the memory's bound (the most batches of the run begun and not reported) the requests holding the oldest
    batch's publications go at once, with whatever joined them, though the bound still has work."""
    run = ScriptedBatcher(margin_s=1.0)
    run.busy_unpaywall(60, flow=99)
    (first,) = run.start(1, 1)
    run.serve(first)
    wait_until(lambda: run.released == [1], GUARD_S, "batch 1 released")
    (second,) = run.start(2, 1)
    run.serve(second)
    wait_until(lambda: run.released == [1, 2], GUARD_S, "batch 2 released")
    run.batcher.urge(0)  # no batch that old: nothing goes
    assert run.served == [] and run.batcher.holding == 1
    run.batcher.urge(1)
    wait_until(lambda: run.served, GUARD_S, "the urged request")
    run.join()
    assert run.served == [[id(first), id(second)]]


def test_a_batch_with_a_publication_still_at_a_host_is_not_released():
    """Release needs every unfinished publication parked in a held request: one still asking a host keeps its batch in
    flight (the held one waits for it within the margin, as its batch's last), and the batch is released only as
    that one is done."""
    run = ScriptedBatcher(margin_s=1.0)
    first, other = run.start(1, 2)
    run.batcher.requesting(other, True, UNPAYWALL)
    run.serve(first)
    wait_until(lambda: run.batcher.holding == 1, GUARD_S, "held for its batch's last publication")
    assert run.released == []
    run.now += 1.5  # the other's request is overdue by the margin: the held one goes
    wait_until(lambda: run.served, GUARD_S, "the request")
    run.join()
    run.batcher.finished(first)
    assert run.released == []
    run.batcher.requesting(other, False, UNPAYWALL)
    run.batcher.finished(other)
    assert run.released == [1]
    assert run.served == [[id(first)]]


@pytest.mark.slow
def test_a_run_killed_while_second_passes_are_carried_resumes_to_a_complete_database(tmp_path: Path):
    """A third of the PMIDs are found by Europe PMC's search only by PMCID and DOI (second passes), batches of 20,
    Unpaywall answering slowly: the run is killed (SIGKILL) once part of the input is stored, with batches of the run
    released and their second passes held; the rerun on the same database fetches what was not stored, and every
    publication ends complete, the open-access ones with their full text, each stored once."""
    n = 120
    db = tmp_path / "pubs.db"
    init_db(db).close()
    with SyntheticServices(n, latency=0.02) as services:
        services.search_misses_pmid = lambda a: a.index % 3 == 1
        ids = tmp_path / "ids.txt"
        ids.write_text("".join(p + "\n" for p in services.pmids()))
        env = service_env(services, PUBFETCH_RATE_DB=str(tmp_path / "rates.sqlite"))
        argv = [sys.executable, "-m", "pubfetch", "-pub-file", str(ids), "-db-fetch", str(db),
                "--allow-private-addresses", "--no-javascript", "--batch-size", "20", "--threads", "4",
                "--retryLimit", "0", "--log", str(tmp_path / "first.log")]
        proc = subprocess.Popen(argv, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_while_running(proc, lambda: stored_count(db) >= 30, ceiling_s=300.0, every_s=0.05)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        before = check_database(db)
        rerun = subprocess.run(argv[:-2] + ["--log", str(tmp_path / "second.log")], env=env, cwd=REPO,
                               capture_output=True, text=True, timeout=600)
    assert rerun.returncode in (0, 1), rerun.stderr  # 1: the closed-access half has no full text anywhere
    if proc.returncode == -signal.SIGKILL:  # (a fast machine may have finished first: then there is nothing to resume)
        assert len(before) < n
    after = check_database(db)
    assert sorted(after) == sorted(services.pmids())
    for pmid, entry in after.items():
        article = Article(int(pmid) - 30_000_000)
        assert entry["pmcid"]["content"] == article.pmcid and entry["doi"]["content"].lower() == article.doi.lower()
        if article.oa:
            assert entry["fulltext"]["type"] in (PartType.europepmc_xml.value, PartType.pmc_xml.value)
            assert entry["final"] is True
        assert entry["fetchException"] is False
        if pmid in before and before[pmid]["final"]:
            assert entry == before[pmid]  # stored before the kill: not fetched again
