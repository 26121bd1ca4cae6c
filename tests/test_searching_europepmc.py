"""Every hit of a Europe PMC query by cursor paging, against services built from the recorded answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.searching import EuropePmcSearch, SearchIncomplete, open_search
from support.search_services import SearchServices, search_context


@pytest.mark.slow
def test_a_europepmc_query_of_50000_hits_returns_every_hit_at_1000_a_page(corpus_dir: Path) -> None:
    s = SearchServices(corpus_dir, 50_000, per_day=40)
    search = EuropePmcSearch(search_context(s), "cancer")
    assert search.count() == 50_000
    found = list(search)
    assert len(found) == 50_000 and len(set(found)) == 50_000
    assert {i.pmid for i in found} == {h.pmid for h in s.all}
    pages = s.seen("europepmc")
    assert len(pages) == 50  # the last page brings the count to hitCount: no empty page asked after it
    assert {(p.params["pageSize"], p.params["resultType"]) for p in pages} == {("1000", "idlist")}
    assert search.identified.complete and search.identified.retrieved == 50_000


def test_the_hits_keep_their_ids_together_and_preprints_are_kept_or_left_out(corpus_dir: Path) -> None:
    s = SearchServices(corpus_dir, 30, preprint_every=10)
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
    s = SearchServices(corpus_dir, 5000, fail_offsets={3000}, fail_times=1)
    search = EuropePmcSearch(search_context(s, sleep=lambda _s: None), "x")
    assert len(list(search)) == 5000
    assert [r.status for r in s.seen("europepmc")].count(503) == 1


def test_a_cursor_still_failing_stops_the_search_loudly_keeping_what_was_got(corpus_dir: Path) -> None:
    s = SearchServices(corpus_dir, 5000, fail_offsets={3000})
    search = EuropePmcSearch(search_context(s, sleep=lambda _s: None), "x")
    got = []
    with pytest.raises(SearchIncomplete) as e:
        for ids in search:
            got.append(ids)
    assert len(got) == 3000 and e.value.identified.retrieved == 3000 and not e.value.identified.complete
    assert "stopped after 3,000 of 5,000 hits" in str(e.value)
    assert [r.status for r in s.seen("europepmc")].count(503) > 1  # retried before giving up


def test_a_long_query_goes_by_searchpost(corpus_dir: Path) -> None:
    s = SearchServices(corpus_dir, 1500)
    query = " OR ".join(f'TITLE:"term {k}"' for k in range(120))
    assert len(list(EuropePmcSearch(search_context(s), query))) == 1500
    pages = s.seen("europepmc")
    assert len(pages) == 2 and all(p.params["query"] == query for p in pages)
    assert s.posted == 2
