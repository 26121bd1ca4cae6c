"""When an entry may be fetched again (PubFetcher's rules): the first time, after the cooldown its state calls for
(empty, non-final, failed), or within a cooldown while retries are left; how a fetch moves the counters, when a spent
entry becomes eligible again, and the JSON form of the state."""

import dataclasses

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import FetchState, PartType, Publication, Webpage
from support.clock import FixedClock

ARGS = FetcherArgs()
T = PartType
ABSTRACT = "A" * 250
FULLTEXT = "F" * 2500


def pub() -> Publication:
    return Publication(clock=FixedClock())


MIN = 60_000


def final_pub() -> Publication:
    p = pub()
    p.set_title("Title", T.europepmc, "u", ARGS)
    p.set_abstract(ABSTRACT, T.europepmc, "u", ARGS)
    p.set_fulltext(FULLTEXT, T.europepmc_xml, "u", ARGS)
    return p


def nonfinal_pub() -> Publication:
    p = pub()
    p.set_title("Title", T.europepmc, "u", ARGS)
    return p


def test_can_fetch_first_time_and_counters_reset():
    p = final_pub()
    clock = FixedClock(10 * MIN)
    assert p.state.can_fetch(p, ARGS, clock)
    assert p.state.update_counters(p, ARGS, clock)
    assert (p.state.fetch_time, p.state.retry_counter) == (10 * MIN, 0)
    assert not p.state.can_fetch(p, ARGS, FixedClock(10 * MIN + 10**12))  # final: never again


def test_empty_cooldown():
    p = pub()
    st = FetchState(fetch_time=1_000 * MIN, retry_counter=3)
    assert not st.can_fetch(p, ARGS, FixedClock(1_000 * MIN + 719 * MIN))
    assert st.can_fetch(p, ARGS, FixedClock(1_000 * MIN + 720 * MIN))
    assert st.update_counters(p, ARGS, FixedClock(1_000 * MIN + 720 * MIN))
    assert (st.fetch_time, st.retry_counter) == (1_720 * MIN, 0)
    never = dataclasses.replace(ARGS, empty_cooldown=-1)
    assert not FetchState(fetch_time=1, retry_counter=3).can_fetch(p, never, FixedClock(10**15))
    always = dataclasses.replace(ARGS, empty_cooldown=0)
    assert FetchState(fetch_time=5, retry_counter=3).can_fetch(p, always, FixedClock(5))


def test_non_final_cooldown():
    p = nonfinal_pub()
    st = FetchState(fetch_time=MIN, retry_counter=3)
    assert not st.can_fetch(p, ARGS, FixedClock(MIN + 10079 * MIN))
    assert st.can_fetch(p, ARGS, FixedClock(MIN + 10080 * MIN))
    # the empty cooldown does not apply to a non-empty entry
    assert not st.can_fetch(p, ARGS, FixedClock(MIN + 720 * MIN))


def test_fetch_exception_cooldown():
    p = final_pub()
    st = FetchState(fetch_time=MIN, retry_counter=3, fetch_exception=True)
    assert not st.can_fetch(p, ARGS, FixedClock(MIN + 1439 * MIN))
    assert st.can_fetch(p, ARGS, FixedClock(MIN + 1440 * MIN))


def test_retry_limit_within_cooldown():
    p = nonfinal_pub()
    st = FetchState(fetch_time=MIN, retry_counter=0)
    now = FixedClock(2 * MIN)
    for expected in (1, 2, 3):
        assert st.can_fetch(p, ARGS, now)
        assert st.update_counters(p, ARGS, now)
        assert st.retry_counter == expected and st.fetch_time == MIN
    assert not st.can_fetch(p, ARGS, now)
    assert not st.update_counters(p, ARGS, now)
    unlimited = dataclasses.replace(ARGS, retry_limit=-1)
    assert st.can_fetch(p, unlimited, now)
    none = dataclasses.replace(ARGS, retry_limit=0)
    assert not FetchState(fetch_time=MIN).can_fetch(p, none, now)


def test_retry_applies_to_final_entries_with_fetch_exception_only():
    p = final_pub()
    assert not FetchState(fetch_time=MIN).can_fetch(p, ARGS, FixedClock(2 * MIN))
    assert FetchState(fetch_time=MIN, fetch_exception=True).can_fetch(p, ARGS, FixedClock(2 * MIN))


def test_webpage_can_fetch_uses_same_rules():
    w = Webpage(status_code=200, final_url="x")
    assert FetchState(fetch_time=MIN, retry_counter=3).can_fetch(w, ARGS, FixedClock(MIN + 720 * MIN))
    assert not FetchState(fetch_time=MIN, retry_counter=3).can_fetch(w, ARGS, FixedClock(MIN + 700 * MIN))


def test_failures_set_the_fetch_exception_and_are_counted_by_kind() -> None:
    st = FetchState()
    st.failed("timed out")
    st.failed("timed out")
    st.failed("refused")
    assert st.fetch_exception and st.failures == {"timed out": 2, "refused": 1}
    assert st == FetchState(fetch_exception=True)  # the failures are not part of what is stored


def test_a_spent_entry_is_eligible_again_at_its_earliest_cooldown() -> None:
    st = FetchState(fetch_time=MIN, retry_counter=3, fetch_exception=True)
    assert st.eligible_again(nonfinal_pub(), ARGS) == (MIN + 1440 * MIN, "--fetchExceptionCooldown")
    assert st.eligible_again(pub(), ARGS) == (MIN + 720 * MIN, "--emptyCooldown")
    never = dataclasses.replace(ARGS, empty_cooldown=-1, fetch_exception_cooldown=-1)
    assert st.eligible_again(pub(), never) is None
    assert FetchState(fetch_time=MIN).eligible_again(final_pub(), ARGS) is None


def test_json_round_trip() -> None:
    st = FetchState(fetch_time=1_600_000_000_123, retry_counter=2, fetch_exception=True)
    d = st.to_json()
    assert d == {"fetchTime": 1_600_000_000_123, "fetchTimeHuman": "2020-09-13T12:26:40.123Z", "retryCounter": 2,
                 "fetchException": True}
    assert FetchState.from_json(d) == st
    assert FetchState.from_json({}) == FetchState()
