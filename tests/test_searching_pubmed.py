"""Every hit of a PubMed query: esearch with the history server, split by Entrez date beyond 9,999 hits."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from pubfetch.searching import (
    DayOverLimit,
    PubMedSearch,
)
from support.search_services import SearchServices, search_context

TODAY = date(2026, 11, 28)


@pytest.mark.slow
def test_a_pubmed_query_of_50000_hits_returns_every_hit_by_splitting_dates(corpus_dir: Path) -> None:
    s = SearchServices(corpus_dir, 50_000, per_day=40)
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


def test_a_single_day_over_9999_hits_fails_naming_the_day_and_the_count(corpus_dir: Path) -> None:
    s = SearchServices(corpus_dir, 10_500, per_day=12_000)
    search = PubMedSearch(search_context(s), "x", today=TODAY)
    with pytest.raises(DayOverLimit) as e:
        list(search)
    assert e.value.day == s.start and e.value.count == 10_500
    assert "2021-01-01" in str(e.value) and "10,500" in str(e.value)


def test_with_an_api_key_every_request_is_posted_with_ncbis_parameters(corpus_dir: Path) -> None:
    s = SearchServices(corpus_dir, 700)
    found = list(PubMedSearch(search_context(s, ncbi_api_key="k3y"), "x", today=TODAY))
    assert len(found) == 700 and s.posted == len(s.requests) == 3  # esearch, then esummary 500 + 200
    assert all(r.params["api_key"] == "k3y" and r.params["email"] == "curator@example.org" for r in s.requests)


def test_the_split_does_not_ask_the_parts_its_counts_show_empty(corpus_dir: Path) -> None:
    """Hits in 2021 only: once the newer half of 1700-2026 holds the whole count, the older half is not asked."""
    s = SearchServices(corpus_dir, 12_000, per_day=40)
    assert len(list(PubMedSearch(search_context(s), "x", today=TODAY))) == 12_000
    ranged = [r.params for r in s.seen("esearch") if "mindate" in r.params]
    assert ranged and all(r["maxdate"] >= "2021/01/01" for r in ranged)
    assert ranged[0]["maxdate"] == "2026/11/28"  # newest first
