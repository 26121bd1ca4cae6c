"""The shared rate limiter: GCRA spacing, bursts, Retry-After penalties, daily quotas, and sharing across processes."""

from __future__ import annotations

import itertools
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from pubfetch.config import Endpoints, FetchConfig
from pubfetch.engine.assembly import shared_rate_limiter
from pubfetch.net.ratelimit import MAX_AHEAD_S, Limit, QuotaExceeded, ServiceMap, SharedRateLimiter, default_limits
from pubfetch.net.ratelimit_redis import RedisRateLimiter
from support.limiters import FakeTime


@pytest.fixture(params=["sqlite", "redis"])
def limiter(request, tmp_path):
    """A limiter factory on each backend: the SQLite file of one machine, and Redis shared by all machines."""

    def make(limits, fake: FakeTime):
        if request.param == "sqlite":
            return SharedRateLimiter(tmp_path / "rl.sqlite", limits, clock=fake.clock, sleep=fake.sleep)
        return RedisRateLimiter(request.getfixturevalue("redis_url"), limits, clock=fake.clock, sleep=fake.sleep)

    return make


def test_requests_are_spaced_by_the_rate(limiter, tmp_path):
    fake = FakeTime()
    rl = limiter({"ncbi": Limit(3.0)}, fake)
    start = fake.now
    waits = [rl.acquire("ncbi") for _ in range(7)]
    assert waits[0] == 0.0
    assert fake.now - start == pytest.approx(2.0)  # 7 requests at 3/s: the 7th goes out 6/3 s after the first
    assert all(w == pytest.approx(1 / 3) for w in waits[1:])


def test_burst_lets_the_first_requests_through_at_once(limiter, tmp_path):
    fake = FakeTime()
    rl = limiter({"doi": Limit(2.0, burst=3)}, fake)
    assert [rl.acquire("doi") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert rl.acquire("doi") == pytest.approx(0.5)


def test_services_do_not_wait_for_each_other(limiter, tmp_path):
    fake = FakeTime()
    rl = limiter({"ncbi": Limit(1.0), "europepmc": Limit(1.0)}, fake)
    assert rl.acquire("ncbi") == 0.0
    assert rl.acquire("europepmc") == 0.0
    assert rl.acquire("ncbi") == pytest.approx(1.0)


def test_unknown_keys_use_the_per_host_limit(limiter, tmp_path):
    fake = FakeTime()
    rl = limiter({"host": Limit(2.0)}, fake)
    rl.acquire("host:example.org")
    assert rl.acquire("host:example.org") == pytest.approx(0.5)
    assert rl.acquire("host:other.org") == 0.0


def test_retry_after_holds_back_the_service(limiter, tmp_path):
    fake = FakeTime()
    rl = limiter({"ncbi": Limit(3.0)}, fake)
    rl.acquire("ncbi")
    rl.penalize("ncbi", 5.0)
    assert rl.acquire("ncbi") == pytest.approx(5.0)


def test_daily_quota_is_counted_and_enforced(limiter, tmp_path, caplog):
    fake = FakeTime()
    rl = limiter({"unpaywall": Limit(100.0, daily=10)}, fake)
    for _ in range(10):
        rl.acquire("unpaywall")
    assert rl.calls_today("unpaywall") == 10
    assert "9 of the 10 daily calls to unpaywall used today" in caplog.text
    with pytest.raises(QuotaExceeded, match="daily quota of 10 calls to unpaywall used up"):
        rl.acquire("unpaywall")
    fake.now += 86_400  # the next UTC day
    assert rl.acquire("unpaywall") >= 0.0


def test_limits_are_validated():
    with pytest.raises(ValueError, match="rate must be > 0"):
        Limit(0)
    with pytest.raises(ValueError, match="burst must be >= 1"):
        Limit(1, burst=0)


def test_ncbi_limit_follows_the_api_key():
    assert default_limits(False)["ncbi"].rate == 3.0
    assert default_limits(True)["ncbi"].rate == 10.0
    assert default_limits()["unpaywall"].daily == 100_000


def test_service_map_uses_configured_endpoints():
    endpoints = Endpoints(eutils="http://127.0.0.1:9/eutils/", europepmc="http://127.0.0.1:9/rest/")
    services = ServiceMap.for_endpoints(endpoints)
    assert services.key("http://127.0.0.1:9/eutils/efetch.fcgi?db=pubmed") == "ncbi"
    assert services.key("http://127.0.0.1:9/rest/search?query=x") == "europepmc"
    assert services.key("https://www.ebi.ac.uk/europepmc/annotations_api/annotationsByArticleIds") == (
        "europepmc_annotations")
    assert services.key("https://doi.org/10.1/x") == "doi"
    assert services.key("https://www.Example.org/a") == "host:example.org"


@pytest.mark.timing  # wall-clock gaps: a loaded machine delays a process between its permit and its print
def test_two_processes_share_one_schedule(tmp_path):
    """Two processes booking 6 permits each at 1/s at the same moment: 12 slots one second apart in total, not two
    interleaved schedules of their own.

    The processes book without waiting for their slots and print the slots the shared schedule granted (not when they
    got round to anything), and they start booking together (each waits for the parent's word once it is ready), so
    neither a loaded machine's delays nor a late start can make the test fail or hide a schedule that is not shared:
    two schedules of their own would both begin at about the same moment, far less than a second apart.
    """
    db = tmp_path / "shared.sqlite"
    script = textwrap.dedent(f"""
        import sys
        from pubfetch.net.ratelimit import Limit, SharedRateLimiter
        rl = SharedRateLimiter({str(db)!r}, {{"ncbi": Limit(1.0)}})
        print("ready", flush=True)
        sys.stdin.readline()
        print(" ".join(repr(rl.reserve("ncbi")) for _ in range(6)), flush=True)
    """)
    SharedRateLimiter(db, {"ncbi": Limit(1.0)})  # create the file before both start
    procs = [subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline() == "ready\n"
    outs = [p.communicate("go\n", timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    slots = sorted(float(word) for out in outs for word in out.split())
    assert len(slots) == 12
    gaps = [b - a for a, b in itertools.pairwise(slots)]
    assert min(gaps) >= 1.0 - 1e-6, gaps  # one schedule: never two slots closer than the limit allows


def test_wall_clock_is_the_default_clock(tmp_path):
    """The schedule is kept in wall-clock (epoch) time, the one clock every process shares: the first slot booked is
    the time.time() of the booking, whatever a loaded machine makes the booking cost."""
    waits: list[float] = []
    rl = SharedRateLimiter(tmp_path / "rl.sqlite", {"x": Limit(1000.0)}, sleep=waits.append)
    before = time.time()
    slot = rl.reserve("x")
    after = time.time()
    assert before <= slot <= after
    # acquire measures its wait on the same clock: the next slot is at most the 1 ms interval away (a wait measured on
    # another clock would be years off)
    rl.acquire("x")
    assert all(0.0 < w <= 0.001 for w in waits) and len(waits) <= 1


def test_client_waits_for_the_shared_limit_and_honours_retry_after(limiter, tmp_path):
    from pubfetch.net.client import HttpClient
    from pubfetch.net.config import HttpConfig
    from support.loopback import LoopbackServer, Reply

    fake = FakeTime()
    rl = limiter({"host": Limit(2.0)}, fake)
    answers = iter([Reply(429, "slow down", "text/plain", {"Retry-After": "7"}), Reply(200, "ok", "text/plain")])
    with LoopbackServer({"/a": Reply(200, "a", "text/plain"), "/busy": lambda req: next(answers)}) as server:
        client = HttpClient(HttpConfig(allow_private_addresses=True), rate_limiter=rl, sleep=lambda s: None)
        start = fake.now
        assert client.get(server.url("/a")).ok
        assert client.get(server.url("/a")).ok
        assert fake.now - start == pytest.approx(0.5)  # the second request waited for its slot
        result = client.get(server.url("/busy"))
        assert result.ok and result.attempts == 2
        # the 429 asked for 7 s: the retry (and every other process) waited for it
        assert fake.now - start == pytest.approx(0.5 + 0.5 + 7.0, abs=0.01)


def test_processes_started_together_all_open_a_new_limiter_file(tmp_path):
    """Workers started at once (a Celery worker's pool processes) create the same new limiter file together. Switching
    it to WAL needs the file to itself, and SQLite refuses that at once ("database is locked", without waiting its
    busy timeout) while another connection holds it: measured, 9 of 180 processes failed without the wait for the
    switch. Each round is a fresh file and six processes released by one event (forked from a small process of their
    own: support/limiter_race.py)."""
    import json
    import os
    from pathlib import Path

    tests = Path(__file__).resolve().parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tests.parent), str(tests), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "support.limiter_race", str(tmp_path), "30", "6"], cwd=tests.parent,
                          env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["ok"] * 180


def test_the_wal_switch_waits_only_for_a_lock(tmp_path):
    """Another error is not waited out: a file that is no database says so at once."""
    import sqlite3

    path = tmp_path / "rl.sqlite"
    path.write_bytes(b"this is not a database file, just text" * 100)
    with pytest.raises(sqlite3.DatabaseError, match="not a database"):
        SharedRateLimiter(path, sleep=lambda s: pytest.fail("waited for an error that is not a lock"))


# ------------------------------------------------------------------ a shared store others can write


def write_schedule(rl, key: str, value: object) -> None:
    """Write a service's schedule behind the limiter's back, as another program with access to the store could."""
    if isinstance(rl, SharedRateLimiter):
        with sqlite3.connect(rl.path) as conn:
            conn.execute("INSERT OR REPLACE INTO schedule (key, tat) VALUES (?, ?)", (key, value))
    else:
        rl.redis.set(f"{rl.prefix}rate:{key}", value)


def write_count(rl, key: str, calls: object) -> None:
    if isinstance(rl, SharedRateLimiter):
        day = time.strftime("%Y-%m-%d", time.gmtime(rl.clock()))
        with sqlite3.connect(rl.path) as conn:
            conn.execute("INSERT OR REPLACE INTO quota (key, day, calls) VALUES (?, ?, ?)", (key, day, calls))
    else:
        rl.redis.set(rl._quota_key(key), calls)


@pytest.mark.parametrize("schedule", [11 * 86_400, "11 days", float("inf")], ids=["11 days ahead", "text", "inf"])
def test_a_far_future_or_garbled_schedule_is_reset_once_not_slept(limiter, caplog, schedule):
    fake = FakeTime()
    rl = limiter({"ncbi": Limit(3.0)}, fake)
    rl.acquire("ncbi")
    for _ in range(2):
        write_schedule(rl, "ncbi", fake.now + schedule if isinstance(schedule, int) else str(schedule))
        before = fake.now
        assert rl.acquire("ncbi") <= 1.0  # not 11 days
        assert fake.now - before <= 1.0
    resets = [r for r in caplog.records if "rate limits of ncbi" in r.getMessage()]
    assert len(resets) == 1, caplog.text  # one warning per service, however often it is found
    assert resets[0].levelname == "WARNING" and "reset" in resets[0].getMessage()
    # the limiter works on: the next permits are spaced by the rate again
    assert rl.acquire("ncbi") == pytest.approx(1 / 3, rel=0.01)


def test_a_quota_count_over_the_quota_is_reset(limiter, caplog):
    fake = FakeTime()
    rl = limiter({"unpaywall": Limit(100.0, daily=10)}, fake)
    rl.acquire("unpaywall")
    write_count(rl, "unpaywall", 10**12)
    assert rl.acquire("unpaywall") >= 0.0  # not "quota used up" for the rest of the day
    assert rl.calls_today("unpaywall") == 1
    assert "daily call count" in caplog.text and "reset" in caplog.text
    write_count(rl, "unpaywall", 10)  # a count the quota allows is believed
    with pytest.raises(QuotaExceeded):
        rl.acquire("unpaywall")


def test_a_wait_is_capped_whatever_retry_after_asked(limiter):
    fake = FakeTime()
    rl = limiter({"ncbi": Limit(3.0)}, fake)
    rl.acquire("ncbi")
    rl.penalize("ncbi", 950_400.0)
    assert rl.acquire("ncbi") == pytest.approx(MAX_AHEAD_S)


def test_a_redis_url_in_the_environment_is_the_redis_limiter(redis_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PUBFETCH_RATE_DB", redis_url)
    assert FetchConfig.from_env(config_file="").run.rate_db == redis_url  # the configuration reads the variable
    limiter = shared_rate_limiter(FetchConfig.from_env(config_file=""))
    assert isinstance(limiter, RedisRateLimiter)
    limiter.close()
    assert list(tmp_path.iterdir()) == []  # no directory "redis:" made for a file path
