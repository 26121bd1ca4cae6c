"""The searches on the command line: IDs printed or fetched, the hit count said first, --max-hits, exit statuses,
saved searches and update runs that fetch only what is new."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from pubfetch.store import open_store
from pubfetch.store.saved import SavedSearch
from support.cli import Cli, usage_error
from support.loopback import Reply, Request
from support.search_services import SearchServices
from support.synthetic import SyntheticServices


@pytest.fixture
def search(services: SyntheticServices, corpus_dir: Path) -> Iterator[SearchServices]:
    """Search services on the synthetic services' server: idlist searches, esearch and esummary are answered by the
    search services, everything else (the fetching) by the synthetic services, whose articles the hits are."""
    found = SearchServices(corpus_dir, 3, per_day=1, start=date.today() - timedelta(days=1))
    fetching = services.handle

    def route(req: Request) -> Reply:
        if req.path.endswith(("esearch.fcgi", "esummary.fcgi")) or req.param("resultType") == "idlist":
            return found.handle(req)
        return fetching(req)

    services.server.routes["/*"] = route
    yield found


@pytest.fixture
def no_retries(tmp_path: Path) -> Path:
    config = tmp_path / "no-retries.yaml"
    config.write_text("http:\n  busy_retries: 0\n", encoding="utf-8")
    return config


@pytest.mark.services(10)
def test_a_search_alone_prints_each_publication_as_a_line_after_its_hit_count(cli: Cli, search: SearchServices) -> None:
    code, out, err = cli("-search-europepmc", "cancer")
    assert code == 0, err
    assert out.splitlines() == ["30000000\tPMC9000000\t10.5555/SYNTH.0", "30000001\t\t10.5555/SYNTH.1",
                                "30000002\tPMC9000002\t10.5555/SYNTH.2"]
    assert "Europe PMC: 3 hits for cancer" in err


@pytest.mark.services(10)
def test_a_fetched_search_counts_its_hits_as_identified_in_the_summary_line(cli: Cli, search: SearchServices,
                                                                          tmp_path: Path) -> None:
    code, _, lines = cli.lines("-search-europepmc", "cancer", "-db-fetch-end", tmp_path / "p.db",
                               "--allow-private-addresses", "--no-javascript")
    assert code == 0, lines
    assert lines[-1] == ("pubfetch: 3 publications: 3 fetched, 0 skipped; 2 final, 1 partial, 0 failed; identified 3 "
                         "(3 Europe PMC search cancer), 0 duplicates removed, 0 already in the database; 2 with full "
                         "text")


@pytest.mark.services(10)
def test_a_query_file_stands_for_the_query(cli: Cli, search: SearchServices, tmp_path: Path) -> None:
    query = tmp_path / "query.txt"
    query.write_text("# the review's query\ncancer\nAND therapy\n", encoding="utf-8")
    code, out, err = cli("-search-pubmed", "--query-file", query)
    assert code == 0, err
    assert len(out.splitlines()) == 3 and search.seen("esearch")[0].params["term"] == "cancer AND therapy"


@pytest.mark.services(10)
def test_max_hits_refuses_before_anything_is_fetched_naming_the_count(cli: Cli, search: SearchServices,
                                                                     tmp_path: Path) -> None:
    code, _, lines = cli.lines("-search-pubmed", "cancer", "--max-hits", "2", "-db-fetch-end", tmp_path / "p.db")
    assert code == 2 and "3 hits, more than --max-hits 2" in lines[-1]
    assert [r.service for r in search.requests] == ["esearch"]


@pytest.mark.services(10)
def test_a_search_that_stops_short_keeps_its_ids_and_exits_3(cli: Cli, search: SearchServices,
                                                             no_retries: Path) -> None:
    search.grow(1200)
    search.fail_offsets = {1000}
    code, out, err = cli("-search-europepmc", "cancer", "--config", no_retries)
    assert code == 3
    assert len(out.splitlines()) == 1000 and "stopped after 1,000 of 1,203 hits" in err


@pytest.mark.services(10)
def test_an_update_run_fetches_only_the_new_hits_and_moves_the_saved_day(cli: Cli, search: SearchServices,
                                                                        services: SyntheticServices,
                                                                        tmp_path: Path) -> None:
    db = tmp_path / "pubs.db"
    first = cli("-search-europepmc", "cancer", "--save-search", "weekly", "-db-fetch-end", db)
    assert first.code == 0, first.err  # a closed-access article of the services is partial: still 0
    with open_store(db) as store:
        assert store.publications_size() == 3
        assert store.saved_search("weekly") == SavedSearch("weekly", "europepmc", "cancer", True, date.today())
    asked_before = sum(services.ids_asked["europepmc_search"].values())
    search.grow(2, day=date.today())
    code, _, err = cli("-search-update", "weekly", "-db-fetch-end", db)
    assert code == 0, err
    assert "saved search weekly: 5 hits since" in err and ", 2 new" in err
    assert f"CREATION_DATE:[{date.today() - timedelta(days=2)} TO" in search.seen("europepmc")[-1].params["query"]
    asked = services.ids_asked["europepmc_search"]
    assert sum(asked.values()) - asked_before == 2 and asked["30000003"] == 1 and asked["30000004"] == 1
    with open_store(db) as store:
        assert store.publications_size() == 5


@pytest.mark.services(10)
def test_an_update_run_that_stops_short_does_not_move_the_saved_day(cli: Cli, search: SearchServices,
                                                                   tmp_path: Path, no_retries: Path) -> None:
    db = tmp_path / "pubs.db"
    assert cli("-search-europepmc", "cancer", "--save-search", "w", "-db-fetch-end", db).code == 0
    old = date(2026, 1, 1)
    with open_store(db) as store:
        store.put_saved_search(SavedSearch("w", "europepmc", "cancer", True, old))
    search.fail_offsets = {0}
    code, _, err = cli("-search-update", "w", "-db-fetch-end", db, "--config", no_retries)
    assert code == 3, err
    listed = cli("-search-list", db)
    assert listed.out == "w\teuropepmc\t2026-01-01\tcancer\n"


@pytest.mark.services(10)
def test_saved_searches_are_listed_and_removed(cli: Cli, search: SearchServices, tmp_path: Path) -> None:
    db = tmp_path / "pubs.db"
    assert cli("-search-pubmed", "cancer", "--save-search", "p", "-db-fetch-end", db).code == 0
    assert cli("-search-list", db).out.startswith("p\tpubmed\t")
    assert "no saved search named 'q'" in usage_error(cli, "-search-remove", "q", db)
    assert cli("-search-remove", "p", db).code == 0
    assert cli("-search-list", db).out == ""
    assert "no saved search named 'p'" in usage_error(cli, "-search-update", "p", "-db-fetch-end", db)


@pytest.mark.parametrize("argv, words", [
    (["-search-europepmc"], "needs a query"),
    (["-search-europepmc", "x", "--save-search", "n"], "needs the database"),
    (["-search-pubmed", "x", "--no-preprints"], "--no-preprints needs -search-europepmc"),
    (["-search-pubmed", "x", "--synonyms"], "--synonyms needs -search-europepmc"),
    (["-search-pubmed", "x", "--max-hits", "lots"], "expected a whole number"),
])
def test_searches_asked_wrongly_are_one_line_and_exit_2(cli: Cli, env: Path, argv: list[str], words: str) -> None:
    assert words in usage_error(cli, *argv)


@pytest.mark.services(10)
def test_an_interrupted_update_run_does_not_move_the_saved_day(cli: Cli, search: SearchServices, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "pubs.db"
    assert cli("-search-europepmc", "cancer", "--save-search", "w", "-db-fetch-end", db).code == 0
    with open_store(db) as store:
        store.put_saved_search(SavedSearch("w", "europepmc", "cancer", True, date(2026, 1, 1)))

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("pubfetch.cli.fetching.get_publications", interrupted)
    search.grow(2, day=date.today())
    assert cli("-search-update", "w", "-db-fetch-end", db).code == 130
    assert cli("-search-list", db).out == "w\teuropepmc\t2026-01-01\tcancer\n"


@pytest.mark.services(10)
def test_hits_without_any_id_are_counted_and_said_not_added(cli: Cli, search: SearchServices) -> None:
    search.preprint_every, search.preprint_dois = 2, False
    search.grow(4)  # hits 3 and 5 are preprints known by their PPR id alone
    code, out, err = cli("-search-europepmc", "cancer")
    assert code == 0
    assert [line.split("\t")[0] for line in out.splitlines()] == [f"3000000{i}" for i in (0, 1, 2, 4, 6)]
    assert "2 hits have no PMID, PMCID or DOI and are not added (PPR:PPR3, PPR:PPR5)" in err


@pytest.mark.services(10)
def test_synonyms_are_asked_for_and_kept_with_the_saved_search(cli: Cli, search: SearchServices,
                                                              tmp_path: Path) -> None:
    db = tmp_path / "pubs.db"
    assert cli("-search-europepmc", "cancer", "--synonyms", "--no-preprints", "--save-search", "s",
               "-db-fetch-end", db).code == 0
    assert search.seen("europepmc")[-1].params["synonym"] == "TRUE"
    assert cli("-search-list", db).out.endswith("\tcancer (no preprints, synonyms)\n")
    assert cli("-search-update", "s", "-db-fetch-end", db).code == 0
    update = search.seen("europepmc")[-1].params
    assert update["synonym"] == "TRUE" and "NOT SRC:PPR" in update["query"]


@pytest.mark.services(10)
def test_fewer_hits_than_announced_exits_3(cli: Cli, search: SearchServices) -> None:
    search.phantom = 2
    code, out, err = cli("-search-europepmc", "cancer")
    assert code == 3 and len(out.splitlines()) == 3
    assert "Europe PMC handed out 3 of the 5 hits it announced for 'cancer'" in err


@pytest.mark.services(10)
def test_a_pubmed_day_over_9999_hits_exits_3_naming_the_day_and_the_count(cli: Cli, search: SearchServices) -> None:
    search.grow(10_001, day=date(2024, 2, 29))
    code, _, err = cli("-search-pubmed", "cancer")
    assert code == 3
    assert "PubMed holds 10,001 hits entered on 2024-02-29" in err
