"""The Redis limiter under real processes: four ``pubfetch`` runs sharing ``--rate-db redis://...`` stay under a
service's 3 requests/s together (the synthetic NCBI answers 429 beyond that).

Marked ``timing`` like its SQLite twin in test_throughput.py: a permit is a booked slot, and a process that a loaded
machine delays by more than the limiter's 50 ms slack between booking and sending lands in its neighbour's second.
.ci/run runs the timing tests apart from the rest of the suite."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.pubfetch_processes import init_db, pubfetch_cmd, service_env, write_ids
from support.synthetic import PMID_BASE, SyntheticServices, assert_efetch_asked_each_once, ncbi_requests


@pytest.mark.timing
def test_four_processes_under_a_3_per_second_limit_get_no_429(tmp_path: Path, redis_url: str) -> None:
    per_process, batch, processes = 8, 2, 4
    with SyntheticServices(processes * per_process, latency=0.02, limits={"ncbi": 3.0}) as services:
        env = service_env(services)
        pmids = services.pmids()
        runs = []
        for k in range(processes):
            ids = write_ids(tmp_path / f"ids{k}.txt", pmids[k * per_process:(k + 1) * per_process])
            runs.append((ids, init_db(tmp_path / f"pubs{k}.db", env)))
        procs = [subprocess.Popen(pubfetch_cmd("-pub-file", ids, "-db-fetch-end", db, "--batch-size", batch,
                                               "--rate-db", redis_url, "--allow-private-addresses", "--quiet"),
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for ids, db in runs]
        outputs = [p.communicate(timeout=180) for p in procs]
        ncbi = sorted(ncbi_requests(services), key=lambda r: r.started)
        too_many = dict(services.too_many)
    for proc, (_out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 1, err  # the closed-access half has no full text: not final
        assert f"{per_process} publications: {per_process} fetched, 0 skipped; {per_process // 2} final, {per_process // 2} partial, 0 failed" in err
    assert too_many == {}
    assert_efetch_asked_each_once(ncbi, pmids, batch)
    owners = {(int(r.param("id").split(",")[0]) - PMID_BASE) // per_process for r in ncbi[:8]}
    assert len(owners) >= 3  # the processes ran at the same time, taking turns in the shared schedule
