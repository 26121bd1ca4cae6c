"""Throughput on one machine, with real ``python -m pubfetch`` processes against synthetic services on 127.0.0.1.

Three promises of the batch fetcher are checked here: processes sharing one ``--rate-db`` file together stay under a
service's limit (no 429) while still using all of it; a run killed with SIGKILL and started again finishes without
asking any service again for what was already complete; and IDs are consumed lazily, one batch at a time, so memory
does not grow with the length of the ID file (the benchmark in ``benchmarks/`` measures the peak RSS of a 100,000-line
file).
"""

from __future__ import annotations

import itertools
import re
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from pubfetch.config import FetchConfig
from pubfetch.fetcher import fetch_many
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.store import open_store
from support.dbwait import stored_count, wait_while_running
from support.fetchrun import run_context
from support.pubfetch_processes import init_db, pubfetch_cmd, service_env, write_ids
from support.synthetic import (
    PMC_BASE,
    PMID_BASE,
    SCHOLARLY_OFF,
    Article,
    SyntheticServices,
    assert_efetch_asked_each_once,
    ncbi_requests,
)

NCBI_RATE = 3.0


# ---------------------------------------------------------------------------------------------- (a) shared rate limit


@pytest.mark.timing
def test_two_processes_share_the_ncbi_limit_without_a_429_and_use_all_of_it(tmp_path: Path) -> None:
    # batches of two (one open-access, one closed-access article) and efetch requests of at most two IDs: one or two
    # efetch per batch, and the other services' requests per batch stay well below their limits, so NCBI's 3 req/s is
    # what bounds the run (with efetch's 200 a request gathers several batches, NCBI has time to spare and the run is
    # bound by the batches' own pace: whether NCBI was all used would then say nothing)
    per_process, batch = 30, 2
    with SyntheticServices(2 * per_process, latency=0.02, limits={"ncbi": NCBI_RATE}) as services:
        env = service_env(services)
        rate_db = tmp_path / "rates.sqlite"
        config = tmp_path / "efetch-pairs.yaml"
        config.write_text("batching:\n  efetch_batch: 2\n")
        pmids = services.pmids()
        runs = []
        for k in range(2):
            ids = write_ids(tmp_path / f"ids{k}.txt", pmids[k * per_process:(k + 1) * per_process])
            db = init_db(tmp_path / f"pubs{k}.db", env)
            runs.append((ids, db))
        started = time.monotonic()
        procs = [subprocess.Popen(pubfetch_cmd("-pub-file", ids, "-db-fetch-end", db, "--batch-size", batch,
                                               "--rate-db", rate_db, "--config", config,
                                               "--allow-private-addresses", "--quiet"),
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for ids, db in runs]
        outputs = [p.communicate(timeout=120) for p in procs]
        elapsed = time.monotonic() - started
        ncbi = ncbi_requests(services)
        too_many = dict(services.too_many)
    for proc, (_out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err  # the closed-access half is partial only in the full text no service had
        assert f"pubfetch: {per_process} publications: " in err and f"; {per_process - per_process // 2} final, " in err
    assert too_many == {}
    assert_efetch_asked_each_once(ncbi, pmids, batch)  # and nothing else counted as NCBI
    # the limit allows one request per 1/3 s; the run takes about that long, not less (no 429) and not much more
    expected = len(ncbi) / NCBI_RATE
    assert expected * 0.75 <= elapsed <= expected * 2.0, (elapsed, expected)  # generous: a loaded machine is slower
    by_time = sorted(ncbi, key=lambda r: r.started)
    owners = [(int(r.param("id").split(",")[0]) - PMID_BASE) // per_process for r in by_time]
    assert set(owners[:6]) == {0, 1}  # the two processes ran at the same time, taking turns
    starts = [r.started for r in by_time]
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert min(gaps) > 0.8 / NCBI_RATE, gaps  # spaced by the shared schedule, not in bursts
    assert (starts[-1] - starts[0]) <= (len(ncbi) - 1) / NCBI_RATE * 1.6  # and the spacing is not wasted (generous bound)


# ---------------------------------------------------------------------------------------------- (b) SIGKILL and resume

KILL_IDS = 2000


def article_index(token: str) -> int | None:
    """The synthetic article an ID seen by a service belongs to (PMID, PMCID with or without "PMC", DOI, or
    "MED:"/"PMC:" article IDs of the annotations API)."""
    m = re.search(r"synth\.(\d+)", token, re.IGNORECASE)
    if m:
        return int(m.group(1))
    m = re.search(r"(\d+)$", token)
    if not m:
        return None
    number = int(m.group(1))
    for base in (PMID_BASE, PMC_BASE):
        if 0 <= number - base < KILL_IDS:
            return number - base
    return None


def asked_per_article(services: SyntheticServices) -> dict[str, Counter[int]]:
    """How often each service was asked about each article, over every run so far."""
    out: dict[str, Counter[int]] = {}
    for service, asked in services.ids_asked.items():
        counter = out.setdefault(service, Counter())
        for token, times in asked.items():
            if (i := article_index(token)) is not None:
                counter[i] += times
    for req in services.server.requests:  # doi.org and Unpaywall are asked one DOI per request, in the path
        service = req.path.split("/")[1]
        if service in ("doi", "unpaywall") and (i := article_index(req.path)) is not None:
            out.setdefault(service, Counter())[i] += 1
    return out


@pytest.mark.slow
def test_sigkill_then_the_same_command_finishes_without_asking_again_for_completed_entries(tmp_path: Path) -> None:
    args = FetcherArgs()
    with SyntheticServices(KILL_IDS, latency=0.002) as services:
        env = service_env(services)
        ids = write_ids(tmp_path / "ids.txt", services.pmids())
        db = init_db(tmp_path / "pubs.db", env)
        command = pubfetch_cmd("-pub-file", ids, "-db-fetch", db, "--no-rate-limit", "--allow-private-addresses",
                               "--quiet")
        first = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # a ceiling for a hung run only: a loaded machine may need minutes
        wait_while_running(first, lambda: stored_count(db) >= 400, ceiling_s=600, every_s=0.02)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        assert first.returncode == -signal.SIGKILL, "the first run ended before it could be killed"
        with open_store(db) as store:
            before = [store.get_publication(i) for i in store.publication_ids()]
        assert 400 <= len(before) < KILL_IDS, len(before)
        # complete = what the re-run must skip (can_fetch says no): the final, open-access entries; closed-access ones
        # are not final (no full text anywhere) and are retried while retryLimit allows, as PubFetcher does
        complete = {int(p.pmid.content) - PMID_BASE for p in before if not p.state.can_fetch(p, args)}
        assert complete and all(i % 2 == 0 for i in complete)
        asked_before = asked_per_article(services)

        second = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=600)
        asked = asked_per_article(services)

    # the closed-access half cannot be final (no full text anywhere) but failed nothing: exit 0 with the summary line
    assert second.returncode == 0, second.stderr
    assert f"pubfetch: {KILL_IDS} publications: " in second.stderr
    assert f"; {KILL_IDS - KILL_IDS // 2} final, " in second.stderr
    assert "transient" not in second.stderr
    for service, counter in asked.items():
        again = {i: counter[i] for i in complete if counter[i] > 1}
        assert again == {}, f"{service} asked again for completed articles"
        assert all(counter[i] == asked_before.get(service, Counter())[i] for i in complete), service
    assert set(asked) >= {"europepmc_search", "europepmc_fulltext", "efetch_pubmed", "doi", "unpaywall"}

    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    with open_store(db, readonly=True) as store:
        pubs = {int(p.pmid.content) - PMID_BASE: p
                for p in (store.get_publication(i) for i in store.publication_ids()) if p is not None}
    assert sorted(pubs) == list(range(KILL_IDS))
    for i, pub in pubs.items():
        a = Article(i)
        assert pub.title.content == a.title and pub.abstract.content == a.abstract, i
        assert not pub.state.fetch_exception, i
        if a.oa:
            assert pub.is_final(args) and pub.pmcid.content == a.pmcid, i
        else:  # as good as the services allow: everything but a full text
            assert pub.fulltext.is_empty() and [m.term for m in pub.mesh.items][1] == "Software", i


# ---------------------------------------------------------------------------------------------- (c) lazy ID stream


@pytest.mark.parametrize("carry", [0, 4])
def test_fetch_many_reads_ids_one_batch_at_a_time(tmp_path: Path, carry: int) -> None:
    """An endless ID stream: fetch_many pulls only the batches it works on (the one it yields and the next, fetched
    at the same time, and at most ``carry_batches`` more whose publications wait for company), so a 10^6-line file
    costs two batches, or 2 + carry_batches."""
    batch = 10
    consumed = 0

    def endless(pmids: list[str]) -> Iterator[str]:
        nonlocal consumed
        k = 0
        while True:
            consumed += 1
            yield pmids[k % len(pmids)]
            k += 1

    with SyntheticServices(3 * batch) as services:
        cfg = FetchConfig().with_changes(**SCHOLARLY_OFF, endpoints=services.endpoints(), allow_private_addresses=True, javascript=False,
                          batch_size=batch, carry_batches=carry)
        seen_at: list[int] = []
        with run_context(cfg) as ctx:
            stream = fetch_many(endless(services.pmids()), config=cfg, context=ctx)
            for pub in stream:
                seen_at.append(consumed)
                assert pub.title.content
                if len(seen_at) == 3 * batch:
                    break
            stream.close()
    if carry == 0:  # every publication of batch k is yielded after exactly (k + 2) * batch IDs were read
        assert seen_at == [(n // batch + 2) * batch for n in range(3 * batch)]
    else:  # never more than the carried batches ahead of it, and whole batches only
        assert all(at % batch == 0 and (n // batch + 2) * batch <= at <= (n // batch + 2 + carry) * batch
                   for n, at in enumerate(seen_at)), seen_at
    # one search per batch of 10 read at most (the three yielded, and those begun after them before the stream was
    # closed: one without carried batches, up to 1 + carry_batches with them); batches that reach the search
    # together share one request
    assert 2 <= services.counts["europepmc_search"] <= min(consumed // batch, 3 + 1 + carry)
