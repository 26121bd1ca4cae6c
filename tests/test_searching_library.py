"""``pubfetch.search``: a query's hits as a lazy stream of IDs, through the run a library call assembles."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import pubfetch
from pubfetch.searching import SearchIncomplete
from support.loopback import LoopbackServer
from support.search_services import SearchServices


@pytest.fixture
def served(corpus_dir: Path, env: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SearchServices]:
    services = SearchServices(corpus_dir, 2500, per_day=100)
    with LoopbackServer({"/*": services.handle}) as server:
        monkeypatch.setenv("PUBFETCH_EUROPEPMC_URL", server.base + "/europepmc/webservices/rest/")
        monkeypatch.setenv("PUBFETCH_EUTILS_URL", server.base + "/entrez/eutils/")
        yield services


def test_the_ids_come_lazily_page_by_page(served: SearchServices) -> None:
    hits = pubfetch.search("cancer")
    first = next(hits)
    assert (first.pmid, first.pmcid, first.doi) == ("30000000", "PMC9000000", "10.5555/SYNTH.0")
    assert len(served.seen("europepmc")) == 1
    assert 1 + sum(1 for _ in hits) == 2500 and len(served.seen("europepmc")) == 3


def test_since_keeps_the_records_from_that_day_on_both_services(served: SearchServices) -> None:
    for source in ("europepmc", "pubmed"):
        found = list(pubfetch.search("cancer", source=source, since="2021-01-25"))
        assert len(found) == 100, source  # the last of 25 days
    assert served.seen("esearch")[-1].params["mindate"] == "2021/01/25"


def test_a_search_that_stops_short_raises_after_the_ids_got(served: SearchServices) -> None:
    served.fail_offsets = {2000}
    got = []
    with pytest.raises(SearchIncomplete) as e:
        for ids in pubfetch.search("cancer", busy_retries=0):
            got.append(ids)
    assert len(got) == 2000 and e.value.identified.hit_count == 2500


@pytest.mark.parametrize("call, words", [
    (lambda: pubfetch.search("x", source="scopus"), "source must be one of europepmc, pubmed"),
    (lambda: pubfetch.search(" "), "the search query is empty"),
    (lambda: pubfetch.search("x", since="last week"), "since must be a date such as 2024-03-01"),
])
def test_a_search_asked_wrongly_is_a_value_error_at_once(env: Path, call, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        call()
