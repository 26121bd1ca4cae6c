"""Every window of a service held at once, on the SQLite file and on Redis, under a clock the test sets: per second
(spacing), rolling windows (Europe PMC's 500 a minute, DataCite's per 5 minutes), per UTC day (a quota); shared by
threads and processes; and the documented windows chosen by a run's settings."""

from __future__ import annotations

import logging
import multiprocessing
import sqlite3
import threading

import pytest

from pubfetch.config import FetchConfig
from pubfetch.config.limits import DAY, DOCUMENTED
from pubfetch.net.ratelimit import Limit, QuotaExceeded, configured_limits, default_limits
from support.limiters import START, FakeTime, FrozenClock, book, earliest_schedule, most_in_any_span, open_limiter
from support.synthetic import ServiceLimit

EUROPE_PMC = Limit.of([(10, 1), (500, 60)])


@pytest.fixture(params=["sqlite", "redis"])
def where(request, tmp_path):
    """(backend, place): a limiter file of this test, or the machine's Redis under this test's own key prefix."""
    if request.param == "sqlite":
        return "sqlite", tmp_path / "rl.sqlite"
    return "redis", request.getfixturevalue("redis_url")


def _times(where, limit: Limit, n: int, key: str = "europepmc") -> list[float]:
    """When ``n`` requests asked one after another went, each waiting for its permit on a fake clock."""
    fake = FakeTime()
    rl = open_limiter(*where, {key: limit}, fake.clock, fake.sleep)
    times = []
    for _ in range(n):
        rl.acquire(key)
        times.append(fake.now)
    return times


def test_a_burst_at_ten_a_second_for_minutes_holds_to_500_per_rolling_minute(where):
    """1,300 requests asked at once at Europe PMC's limits: the first 500 go at 10/s (50 s), then none until the first
    is a minute (and the 50 ms slack) old, and so on: never more than 500 in any rolling minute, and no later than the
    windows require (the schedule is the earliest the reference allows)."""
    times = _times(where, EUROPE_PMC, 1300)
    assert times == pytest.approx(earliest_schedule(1300, EUROPE_PMC), abs=1e-6)
    assert most_in_any_span(times, 60.0) == 500
    assert most_in_any_span(times, 1.0) == 10
    assert times[499] - times[0] == pytest.approx(499 * 0.105)  # the first 500 at 10/s, 5 % slack
    assert times[500] - times[0] == pytest.approx(60.05)  # the 501st waits for the first to leave the window
    # 10 requests a second for a whole minute would have been 571: the minute window, not the spacing, held them
    assert len([t for t in times if t < times[0] + 60]) == 500


def test_the_per_second_spacing_alone_would_break_the_minute_window(where):
    """The limits before the minute window was declared: 10/s alone puts 572 requests into the first minute."""
    times = _times(where, Limit.of([(10, 1)]), 700)
    assert most_in_any_span(times, 60.0) > 500


def test_windows_combined_each_hold_and_the_schedule_is_the_earliest_they_allow(where):
    limit = Limit.of([(4, 1), (10, 10), (25, 60)])
    times = _times(where, limit, 80, key="crossref")
    assert times == pytest.approx(earliest_schedule(80, limit), abs=1e-6)
    assert most_in_any_span(times, 1.0) == 4
    assert most_in_any_span(times, 10.0) == 10
    assert most_in_any_span(times, 60.0) == 25


def test_a_rolling_window_without_a_per_second_window_lets_its_count_go_at_once(where):
    """DataCite documents only 1,000 requests per 5 minutes: its count goes at once, the next a window later."""
    limit = Limit.of([(5, 300)])
    times = _times(where, limit, 11, key="datacite")
    assert [t - times[0] for t in times] == pytest.approx([0.0] * 5 + [300.05] * 5 + [600.1])


def test_the_day_window_is_a_quota_per_utc_day_beside_the_rolling_ones(where):
    fake = FakeTime(START_OF_DAY := 11_575 * DAY)  # 00:00 UTC
    rl = open_limiter(*where, {"openalex": Limit.of([(100, 1), (3, 60), (7, DAY)])}, fake.clock, fake.sleep)
    waits = [rl.acquire("openalex") for _ in range(7)]
    assert waits[:3] == pytest.approx([0.0, 0.0105, 0.0105], abs=1e-6)
    assert waits[3] == pytest.approx(60.05 - 0.021, abs=1e-6)  # the minute window, with 7 allowed today
    with pytest.raises(QuotaExceeded, match="daily quota of 7 calls to openalex used up"):
        rl.acquire("openalex")
    assert rl.calls_today("openalex") == 7
    fake.now = START_OF_DAY + DAY  # the next UTC day: the quota is new, the minute window still holds
    assert rl.acquire("openalex") == 0.0


def test_a_refused_request_books_no_slot_in_the_windows(where):
    """Over the day's quota nothing is booked: the next day's first request does not wait for refused ones."""
    fake = FakeTime()
    rl = open_limiter(*where, {"x": Limit.of([(1, 60), (2, DAY)])}, fake.clock, fake.sleep)
    rl.acquire("x")
    rl.acquire("x")
    for _ in range(5):
        with pytest.raises(QuotaExceeded):
            rl.acquire("x")
    fake.now += DAY
    assert rl.acquire("x") == 0.0


def test_retry_after_holds_back_a_windowed_service_and_the_windows_hold_after_it(where):
    fake = FakeTime()
    rl = open_limiter(*where, {"europepmc": Limit.of([(10, 1), (3, 60)])}, fake.clock, fake.sleep)
    first = fake.now
    for _ in range(2):
        rl.acquire("europepmc")
    rl.penalize("europepmc", 30.0)
    assert rl.acquire("europepmc") == pytest.approx(30.0)  # the penalty, as without windows
    due = first + 60.05 - fake.now
    assert rl.acquire("europepmc") == pytest.approx(due)  # then the minute window: 3 a minute, counted from the first


def _slots_booked(backend: str, where, limit: Limit, count: int) -> list[float]:
    """``count`` slots booked by one process or thread of its own limiter, on a clock stopped for everybody."""
    rl = open_limiter(backend, where, {"europepmc": limit}, FrozenClock())
    return [book(rl, "europepmc") for _ in range(count)]


def _book_in_a_process(backend: str, where, limit: Limit, count: int, go, out) -> None:
    go.wait()
    try:
        out.put(_slots_booked(backend, where, limit, count))
    except Exception as e:  # the answer is the test's evidence, whatever went wrong
        out.put(repr(e))


def _assert_one_schedule(slots: list[float], limit: Limit, expected: int) -> None:
    """Slots booked by several bookers on one store: one schedule between them, each window held over them all."""
    slots = sorted(slots)
    assert len(slots) == expected
    assert slots == pytest.approx(earliest_schedule(expected, limit), abs=1e-6)
    for count, seconds in limit.windows:
        assert most_in_any_span(slots, seconds) <= count


def test_threads_sharing_one_limiter_book_one_schedule(where):
    limit = Limit.of([(10, 1), (50, 60)])
    shared = open_limiter(*where, {"europepmc": limit}, FrozenClock())
    booked: list[float] = []
    lock = threading.Lock()

    def book_some(rl) -> None:
        slots = [book(rl, "europepmc") for _ in range(40)]
        with lock:
            booked.extend(slots)

    # four threads on one limiter (one connection each), four with limiters of their own on the same store
    threads = [threading.Thread(target=book_some, args=(shared,)) for _ in range(4)]
    threads += [threading.Thread(target=book_some, args=(open_limiter(*where, {"europepmc": limit}, FrozenClock()),))
                for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    _assert_one_schedule(booked, limit, 320)


def test_processes_sharing_one_limiter_book_one_schedule(where):
    limit = Limit.of([(10, 1), (50, 60)])
    open_limiter(*where, {"europepmc": limit}, FrozenClock())  # the store exists before they start
    context = multiprocessing.get_context("fork")
    go, out = context.Event(), context.Queue()
    procs = [context.Process(target=_book_in_a_process, args=(*where, limit, 60, go, out)) for _ in range(4)]
    for p in procs:
        p.start()
    go.set()
    answers = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(60)
    assert all(isinstance(a, list) for a in answers), answers
    _assert_one_schedule([slot for a in answers for slot in a], limit, 240)


def _write_window_slot(backend: str, where, ring_key: str, value: object, whole: bool) -> None:
    """Write a rolling window's oldest slot (or, ``whole``, replace its whole ring by a text) behind the limiter's
    back, as another program with access to the store could."""
    if backend == "sqlite":  # whole: the newest slot's number is a text
        column, end = ("seq", "MAX") if whole else ("at", "MIN")
        with sqlite3.connect(where) as conn:
            conn.execute(f"UPDATE window_slot SET {column} = ? WHERE ring = ? AND seq = "
                         f"(SELECT {end}(seq) FROM window_slot WHERE ring = ?)", (value, ring_key, ring_key))
    else:
        import redis

        url, prefix = where.split("?prefix=")
        client = redis.Redis.from_url(url)
        key = f"{prefix}window:{ring_key.replace(' ', ':')}"
        if whole:
            client.delete(key)
            client.set(key, str(value))
        else:
            client.lset(key, 0, value)
        client.close()


@pytest.mark.parametrize("slot", ["12 days", 12 * DAY, "the whole ring"], ids=["text", "12 days ahead", "ring"])
def test_a_garbled_window_slot_is_reset_once_not_slept(where, caplog, slot):
    caplog.set_level(logging.WARNING)
    fake = FakeTime()
    rl = open_limiter(*where, {"europepmc": Limit.of([(10, 1), (3, 60)])}, fake.clock, fake.sleep)
    for _ in range(3):
        rl.acquire("europepmc")
    _write_window_slot(*where, "europepmc 3/60", slot if isinstance(slot, str) else fake.now + slot,
                       whole=slot == "the whole ring")
    before = fake.now
    assert rl.acquire("europepmc") <= 1.0  # not 12 days
    assert fake.now - before <= 1.0
    resets = [r.getMessage() for r in caplog.records if "rate limits of europepmc" in r.getMessage()]
    assert len(resets) == 1 and "rolling window" in resets[0] and "reset" in resets[0], caplog.text
    # the window works on from the reset: 3 in a minute again
    waits = [rl.acquire("europepmc") for _ in range(3)]
    assert waits[-1] > 50


# ------------------------------------------------------------------ the documented windows and the settings


def test_the_documented_windows_are_the_limiters_defaults():
    limits = default_limits()
    assert (limits["europepmc"].rate, limits["europepmc"].windows) == (10.0, ((500, 60.0),))
    assert limits["europepmc_annotations"].windows == ((500, 60.0),)
    assert (limits["unpaywall"].rate, limits["unpaywall"].daily) == (10.0, 100_000)
    assert (limits["openalex"].rate, limits["openalex"].daily) == (100.0, 100_000)
    assert limits["datacite"].windows == ((500, 300.0),) and limits["datacite"].interval == 0.0
    assert limits["crossref"].rate == 5.0 and limits["biorxiv"].rate == 1.0
    assert (limits["doi"].burst, limits["host"].burst) == (4, 2)
    assert all(limit.jitter == 0.05 for limit in limits.values())
    assert set(limits) == set(DOCUMENTED)


def test_keys_and_contact_addresses_choose_the_windows_they_earn():
    plain = configured_limits(FetchConfig().run)
    assert (plain["ncbi"].rate, plain["crossref"].rate, plain["datacite"].windows) == (3.0, 5.0, ((500, 300.0),))
    run = FetchConfig().with_changes(ncbi_api_key="k", crossref_mailto="me@example.org",
                                     datacite_mailto="me@example.org").run
    earned = configured_limits(run)
    assert (earned["ncbi"].rate, earned["crossref"].rate, earned["datacite"].windows) == (10.0, 10.0,
                                                                                          ((1000, 300.0),))
    assert configured_limits(FetchConfig().with_changes(crossref_mailto="  ").run)["crossref"].rate == 5.0


def test_rate_windows_replace_a_services_windows_from_a_config_file(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text('rate_windows:\n  europepmc: "5/s, 200/min"\n  datacite: 3000/5min\n'
                      '  "host:www.Example.org": "1/s, burst 3"\n')
    limits = configured_limits(FetchConfig.from_env({}, config_file=config).run)
    assert (limits["europepmc"].rate, limits["europepmc"].windows) == (5.0, ((200, 60.0),))
    assert limits["datacite"].windows == ((3000, 300.0),)
    assert (limits["host:example.org"].rate, limits["host:example.org"].burst) == (1.0, 3)  # a host as keys name it
    assert limits["ncbi"].rate == 3.0  # the others keep their documented windows


def test_a_limit_refuses_a_window_it_cannot_hold():
    with pytest.raises(ValueError, match="neither up to an hour"):
        Limit.of([(10, 7200)])
    with pytest.raises(ValueError, match="the daily quota"):
        Limit(10.0, windows=((5, DAY),))


def test_the_synthetic_service_refuses_beyond_each_rolling_window():
    """The synthetic services count as a server with rolling windows would: 2 a second and 3 a minute here."""
    service = ServiceLimit.of([(2, 1.0), (3, 60.0)])
    arrivals = [0.0, 0.1, 0.2, 1.1, 1.2, 60.05, 60.06, 61.15]
    assert [service.admit(t) for t in arrivals] == [True, True, False, True, False, True, False, True]


@pytest.mark.parametrize(("windows", "refused"), [([(10, 1), (50, 60)], False), ([(10, 1)], True)],
                         ids=["every window", "per second only"])
def test_the_client_at_a_service_enforcing_its_minute_window_gets_no_429(where, windows, refused):
    """120 requests through the HTTP client and its shared limiter to a synthetic Europe PMC that counts 10 a second
    and 50 a minute on the same fake clock: none refused with both windows declared; the per-second window alone
    draws 429s, whose Retry-After the client honours (every request still answered in the end)."""
    from pubfetch.net.client import HttpClient
    from pubfetch.net.config import HttpConfig
    from support.synthetic import SyntheticServices

    fake = FakeTime()
    rl = open_limiter(*where, {"host": Limit.of(windows)}, fake.clock, fake.sleep)
    with SyntheticServices(1, limits={"europepmc_search": [(10, 1), (50, 60)]}) as services:
        services.clock = fake.clock
        client = HttpClient(HttpConfig(allow_private_addresses=True, busy_retries=100), rate_limiter=rl,
                            sleep=fake.sleep)
        results = [client.get(f"{services.base}/epmc/rest/search?query=EXT_ID:{i}") for i in range(120)]
    assert all(r.ok for r in results)
    assert services.counts["europepmc_search"] - services.too_many["europepmc_search"] == 120
    assert (services.too_many["europepmc_search"] > 0) == refused
    if not refused:
        assert fake.now - START >= 2 * 60.05  # 120 requests at 50 a minute: the third minute had begun


def test_every_service_the_requests_are_mapped_to_has_documented_windows():
    """A service key without its own windows would silently take any host's 4/s."""
    from pubfetch.config import Endpoints
    from pubfetch.net.ratelimit import ServiceMap

    keys = {key for _, key in ServiceMap.for_endpoints(Endpoints()).prefixes}
    assert keys <= set(DOCUMENTED) - {"host"}


def test_a_burst_after_a_pause_keeps_a_second_to_its_count(where):
    """doi.org's own limit, 20 a second with bursts of 4: requests that come in groups with short pauses between
    (publications leaving a batched step together) go in a burst after each pause, and a burst on top of the
    spacing put up to 23 requests into a second, which a server counting 20 per rolling second refuses (HTTP 429).
    The burst is taken only where the last second has room for it."""
    limit = Limit.of(DOCUMENTED["doi"].windows, burst=DOCUMENTED["doi"].burst)
    fake = FakeTime()
    rl = open_limiter(*where, {"doi": limit}, fake.clock, fake.sleep)
    times = []
    for _ in range(40):
        for _ in range(6):
            rl.acquire("doi")
            times.append(fake.now)
        fake.now += 0.12  # a pause: the schedule has slack for a burst
    assert most_in_any_span(times, 1.0) <= 20
    server = ServiceLimit.of(20)
    assert all(server.admit(t) for t in times)  # as the benchmark's doi.org counts them: none refused
    # the burst is still there after a real pause, and the requests still go at 20 a second when they can
    fake.now += 5
    first = fake.now
    assert [rl.acquire("doi") for _ in range(4)] == [0.0] * 4
    assert fake.now == first
    assert rl.acquire("doi") == pytest.approx(1.05 / 20)
