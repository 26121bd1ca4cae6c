"""The Redis limiter under real processes: four ``pubfetch`` runs sharing ``--rate-db redis://...`` stay under a
service's 3 requests/s together (the synthetic NCBI answers 429 beyond that); and through outages of Redis, cut by a
forwarder between the limiter and the machine's Redis: a permit waits for Redis to answer again instead of failing
its request, up to the limiter's bound.

The 3 requests/s test is marked ``timing`` like its SQLite twin in test_throughput.py: a permit is a booked slot, and
a process that a loaded machine delays by more than the limiter's 50 ms slack between booking and sending lands in its
neighbour's second. .ci/run runs the timing tests apart from the rest of the suite."""

from __future__ import annotations

import logging
import subprocess
import threading
from pathlib import Path

import pytest

from pubfetch.net.ratelimit_redis import RedisAway, RedisRateLimiter
from support.pubfetch_processes import init_db, pubfetch_cmd, service_env, write_ids
from support.synthetic import PMID_BASE, SyntheticServices, assert_efetch_asked_each_once, ncbi_requests
from support.tcpcut import CuttableForwarder
from support.waits import wait_until


def _through(forwarder: CuttableForwarder, redis_url: str) -> str:
    return redis_url.replace("127.0.0.1:6379", f"127.0.0.1:{forwarder.port}")


def _lines(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if text in r.getMessage()]


def test_a_permit_waits_through_an_outage_and_is_granted(redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """Redis cut while permits are asked from two threads: both wait (one warning), and get their permits once it
    answers again (one warning); before, each raised redis-py's ConnectionError at once, which failed its request."""
    caplog.set_level(logging.WARNING, logger="pubfetch.net.ratelimit_redis")
    with CuttableForwarder(6379) as forwarder:
        limiter = RedisRateLimiter(_through(forwarder, redis_url))
        assert limiter.acquire("host:a.example") == 0.0
        forwarder.cut()
        granted: list[float] = []
        threads = [threading.Thread(target=lambda key=key: granted.append(limiter.acquire(key)))
                   for key in ("host:a.example", "host:b.example")]
        for t in threads:
            t.start()
        wait_until(lambda: _lines(caplog, "does not answer"), 60, "the outage to be noticed")
        assert all(t.is_alive() for t in threads) and granted == []  # waiting, not failed
        forwarder.restore()
        for t in threads:
            t.join(60)
        limiter.close()
    assert len(granted) == 2
    assert len(_lines(caplog, "does not answer")) == 1 and len(_lines(caplog, "answers again")) == 1


def test_an_outage_longer_than_the_bound_fails_in_one_line(redis_url: str) -> None:
    with CuttableForwarder(6379) as forwarder:
        limiter = RedisRateLimiter(_through(forwarder, redis_url), outage_s=1.0)
        forwarder.cut()
        with pytest.raises(RedisAway) as away:
            limiter.acquire("host:a.example")
        limiter.close()
    message = str(away.value)
    assert len(message.splitlines()) == 1
    assert message.startswith(f"the rate limits' Redis at redis://127.0.0.1:{forwarder.port}/13 has not answered")


def test_opening_fails_at_once_unless_told_to_wait(redis_url: str) -> None:
    """A command line opening the limiter against a Redis that is away says so at once; a worker (``open_wait_s``)
    waits for it, as it waits during its batches."""
    with CuttableForwarder(6379) as forwarder:
        url = _through(forwarder, redis_url)
        forwarder.cut()
        with pytest.raises(ValueError, match="does not answer"):
            RedisRateLimiter(url)
        opened: list[RedisRateLimiter] = []
        waiting = threading.Thread(target=lambda: opened.append(RedisRateLimiter(url, open_wait_s=120)))
        waiting.start()
        wait_until(lambda: forwarder.refused, 60, "the limiter to try to connect")
        assert opened == []
        forwarder.restore()
        waiting.join(60)
        assert len(opened) == 1 and opened[0].acquire("host:a.example") == 0.0
        opened[0].close()


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
        assert proc.returncode == 0, err  # the closed-access half is partial only in the full text no service had
        assert f"{per_process} publications: {per_process} fetched, 0 skipped; {per_process // 2} final, {per_process // 2} partial, 0 failed" in err
    assert too_many == {}
    assert_efetch_asked_each_once(ncbi, pmids, batch)
    owners = {(int(r.param("id").split(",")[0]) - PMID_BASE) // per_process for r in ncbi[:8]}
    assert len(owners) >= 3  # the processes ran at the same time, taking turns in the shared schedule
