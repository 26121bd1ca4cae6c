"""What every search promises: what it identified is counted (and said in one line), a shortfall is an error carrying
it, since ranges select the records by their first date, the requests keep to the documented rates."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from pubfetch.net.ratelimit import SharedRateLimiter, default_limits
from pubfetch.searching import (
    Identified,
    SearchShortfall,
    open_search,
)
from support.limiters import FakeTime, most_in_any_span
from support.search_services import SearchServices, search_context


@pytest.mark.parametrize("source", ["europepmc", "pubmed"])
def test_fewer_hits_than_announced_is_an_error(corpus_dir: Path, source: str) -> None:
    s = SearchServices(corpus_dir, 1200, phantom=5)
    search = open_search(search_context(s), source, "x")
    with pytest.raises(SearchShortfall) as e:
        list(search)
    assert e.value.identified.retrieved == 1200 and e.value.identified.hit_count == 1205


def test_since_asks_only_for_the_records_created_or_entered_from_that_day(corpus_dir: Path) -> None:
    s = SearchServices(corpus_dir, 100, per_day=10)  # 2021-01-01 .. 2021-01-10
    ctx = search_context(s)
    since = date(2021, 1, 9)
    for source in ("europepmc", "pubmed"):
        found = list(open_search(ctx, source, "x", since=since))
        assert sorted(i.pmid for i in found) == sorted(h.pmid for h in s.all if h.day >= since), source
    assert "CREATION_DATE:[2021-01-09 TO" in s.seen("europepmc")[-1].params["query"]
    assert s.seen("esearch")[-1].params["mindate"] == "2021/01/09"


@pytest.mark.slow
@pytest.mark.parametrize("source, key, windows", [("europepmc", "europepmc", ((10, 1.0), (500, 60.0))),
                                                  ("pubmed", "ncbi", ((3, 1.0),))])
def test_the_requests_keep_to_the_documented_rates(corpus_dir: Path, tmp_path: Path, source: str, key: str,
                                                   windows: tuple[tuple[int, float], ...]) -> None:
    """On a simulated clock shared by the limiter and the services: no span of a window's length holds more requests
    than the service allows."""
    fake = FakeTime()
    s = SearchServices(corpus_dir, 12_000, per_day=40, clock=fake.clock)
    limiter = SharedRateLimiter(tmp_path / "rates.sqlite", default_limits(), clock=fake.clock, sleep=fake.sleep)
    ctx = search_context(s, limiter=limiter, sleep=fake.sleep)
    assert len(list(open_search(ctx, source, "x"))) == 12_000
    times = sorted(r.at for r in s.requests)
    assert len(times) >= 12
    for count, seconds in windows:
        assert most_in_any_span(times, seconds) <= count


def test_what_a_search_identified_is_said_in_one_line() -> None:
    done = Identified("pubmed", "x[au]", hit_count=12_000, retrieved=12_000, publications=12_000, complete=True)
    assert done.line() == "PubMed search: 12,000 hits (x[au])"
    short = Identified("europepmc", "y", hit_count=5000, retrieved=3000, publications=2998, without_ids=["PPR:1", "PPR:2"])
    assert short.line() == "Europe PMC search: 5,000 hits, stopped after 3,000, 2 without a PMID, PMCID or DOI (y)"
