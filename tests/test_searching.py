"""Every hit of a query, at Europe PMC (cursor paging) and PubMed (esearch with the history server, split by date),
against services built from the recorded answers (tests/support/search_services.py)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from pubfetch.net.ratelimit import SharedRateLimiter, default_limits
from pubfetch.searching import (
    DayOverLimit,
    EuropePmcSearch,
    PubMedSearch,
    SearchIncomplete,
    SearchShortfall,
    open_search,
)
from support.limiters import FakeTime, most_in_any_span
from support.search_services import SearchServices, search_context

TODAY = date(2026, 11, 28)


def services(corpus: Path, hits: int, **kwargs: object) -> SearchServices:
    return SearchServices(corpus, hits, **kwargs)  # type: ignore[arg-type]


def test_a_europepmc_query_of_50000_hits_returns_every_hit_at_1000_a_page(corpus_dir: Path) -> None:
    s = services(corpus_dir, 50_000, per_day=40)
    search = EuropePmcSearch(search_context(s), "cancer")
    assert search.count() == 50_000
    found = list(search)
    assert len(found) == 50_000 and len(set(found)) == 50_000
    assert {i.pmid for i in found} == {h.pmid for h in s.all}
    pages = s.seen("europepmc")
    assert len(pages) == 50  # the last page brings the count to hitCount: no empty page asked after it
    assert {(p.params["pageSize"], p.params["resultType"]) for p in pages} == {("1000", "idlist")}
    assert search.identified.complete and search.identified.retrieved == 50_000


def test_a_pubmed_query_of_50000_hits_returns_every_hit_by_splitting_dates(corpus_dir: Path) -> None:
    s = services(corpus_dir, 50_000, per_day=40)
    search = PubMedSearch(search_context(s), "cancer", today=TODAY)
    assert search.count() == 50_000
    found = list(search)
    assert len(found) == 50_000 and len(set(found)) == 50_000
    assert {i.pmid for i in found} == {h.pmid for h in s.all}
    assert all(i.doi for i in found) and sum(bool(i.pmcid) for i in found) == 25_000  # esummary's ArticleIds
    esearches = s.seen("esearch")
    assert {(r.params["retmax"], r.params["usehistory"]) for r in esearches} == {("9999", "y")}
    ranged = [r for r in esearches if "mindate" in r.params]
    assert ranged and all(r.params["datetype"] == "edat" for r in ranged)
    assert all(int(r.params["retmax"]) <= 500 for r in s.seen("esummary"))
    assert search.identified.complete


def test_the_hits_keep_their_ids_together_and_preprints_are_kept_or_left_out(corpus_dir: Path) -> None:
    s = services(corpus_dir, 30, preprint_every=10)
    ctx = search_context(s)
    with_preprints = list(open_search(ctx, "europepmc", "x"))
    assert len(with_preprints) == 30
    preprint = next(i for i in with_preprints if not i.pmid)
    assert preprint.doi == "10.5555/SYNTH.9" and not preprint.pmcid
    first = with_preprints[0]
    assert (first.pmid, first.pmcid, first.doi) == ("30000000", "PMC9000000", "10.5555/SYNTH.0")
    without = open_search(ctx, "europepmc", "x", preprints=False)
    assert len(list(without)) == 27 and "NOT SRC:PPR" in without.identified.query


def test_a_cursor_failing_mid_way_is_retried_and_the_search_goes_on(corpus_dir: Path) -> None:
    s = services(corpus_dir, 5000, fail_offsets={3000}, fail_times=1)
    search = EuropePmcSearch(search_context(s, sleep=lambda _s: None), "x")
    assert len(list(search)) == 5000
    assert [r.status for r in s.seen("europepmc")].count(503) == 1


def test_a_cursor_still_failing_stops_the_search_loudly_keeping_what_was_got(corpus_dir: Path) -> None:
    s = services(corpus_dir, 5000, fail_offsets={3000})
    search = EuropePmcSearch(search_context(s, sleep=lambda _s: None), "x")
    got = []
    with pytest.raises(SearchIncomplete) as e:
        for ids in search:
            got.append(ids)
    assert len(got) == 3000 and e.value.identified.retrieved == 3000 and not e.value.identified.complete
    assert "stopped after 3,000 of 5,000 hits" in str(e.value)
    assert [r.status for r in s.seen("europepmc")].count(503) > 1  # retried before giving up


@pytest.mark.parametrize("source", ["europepmc", "pubmed"])
def test_fewer_hits_than_announced_is_an_error(corpus_dir: Path, source: str) -> None:
    s = services(corpus_dir, 1200, phantom=5)
    search = open_search(search_context(s), source, "x")
    with pytest.raises(SearchShortfall) as e:
        list(search)
    assert e.value.identified.retrieved == 1200 and e.value.identified.hit_count == 1205


def test_a_single_day_over_9999_hits_fails_naming_the_day_and_the_count(corpus_dir: Path) -> None:
    s = services(corpus_dir, 10_500, per_day=12_000)
    search = PubMedSearch(search_context(s), "x", today=TODAY)
    with pytest.raises(DayOverLimit) as e:
        list(search)
    assert e.value.day == s.start and e.value.count == 10_500
    assert "2021-01-01" in str(e.value) and "10,500" in str(e.value)


def test_since_asks_only_for_the_records_created_or_entered_from_that_day(corpus_dir: Path) -> None:
    s = services(corpus_dir, 100, per_day=10)  # 2021-01-01 .. 2021-01-10
    ctx = search_context(s)
    since = date(2021, 1, 9)
    for source in ("europepmc", "pubmed"):
        found = list(open_search(ctx, source, "x", since=since))
        assert sorted(i.pmid for i in found) == sorted(h.pmid for h in s.all if h.day >= since), source
    assert "CREATION_DATE:[2021-01-09 TO" in s.seen("europepmc")[-1].params["query"]
    assert s.seen("esearch")[-1].params["mindate"] == "2021/01/09"


@pytest.mark.parametrize("source, key, windows", [("europepmc", "europepmc", ((10, 1.0), (500, 60.0))),
                                                  ("pubmed", "ncbi", ((3, 1.0),))])
def test_the_requests_keep_to_the_documented_rates(corpus_dir: Path, tmp_path: Path, source: str, key: str,
                                                   windows: tuple[tuple[int, float], ...]) -> None:
    """On a simulated clock shared by the limiter and the services: no span of a window's length holds more requests
    than the service allows."""
    fake = FakeTime()
    s = services(corpus_dir, 12_000, per_day=40, clock=fake.clock)
    limiter = SharedRateLimiter(tmp_path / "rates.sqlite", default_limits(), clock=fake.clock, sleep=fake.sleep)
    ctx = search_context(s, limiter=limiter, sleep=fake.sleep)
    assert len(list(open_search(ctx, source, "x"))) == 12_000
    times = sorted(r.at for r in s.requests)
    assert len(times) >= 12
    for count, seconds in windows:
        assert most_in_any_span(times, seconds) <= count
