"""The library's fetch loop (pubfetch/fetcher.py) over the in-process services: IDs read and checked, publications
yielded in input order with progress as each completes, a run's summary, stored entries used or fetched afresh,
the end-of-run retry, and the two error modes (skip and report, or raise)."""

from __future__ import annotations

import logging

import pytest

from pubfetch.fetcher import BatchSummary, FetchError, init_publication, to_ids
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import InvalidId, PublicationIds
from pubfetch.model.part_type import PartType
from pubfetch.store import init_db
from support.fetchrun import fetch_run
from support.synthetic import Article

#: every service of the synthetic set, for a run in which nothing answers
ALL_SERVICES = {"europepmc_search", "europepmc_fulltext", "annotations", "ncbi", "doi", "unpaywall"}


def test_ids_are_read_from_strings_links_and_publication_ids() -> None:
    assert to_ids("31114920") == PublicationIds(pmid="31114920")
    assert to_ids("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6198355/") == PublicationIds(pmcid="PMC6198355")
    given = PublicationIds(doi="10.1093/nar/gkz369")
    assert to_ids(given) is given
    with pytest.raises(InvalidId, match="unknown publication ID 'nonsense'"):
        to_ids("nonsense")


def test_a_new_publication_holds_its_ids_as_external_parts() -> None:
    pub = init_publication(PublicationIds(pmid="31114920", doi="10.1093/nar/gkz369"), FetcherArgs())
    assert (pub.pmid.content, pub.doi.content) == ("31114920", "10.1093/NAR/GKZ369")
    assert pub.pmid.type is PartType.external and pub.pmcid.is_empty()
    with pytest.raises(ValueError, match="no valid ID"):
        init_publication(PublicationIds(), FetcherArgs())


def test_publications_come_in_input_order_with_progress_as_each_completes() -> None:
    run = fetch_run(6)
    ids = [Article(i).pmid for i in (4, 1, 5, 0, 3, 2)]
    reports: list[tuple[int, str]] = []
    pubs = run.fetch(ids, progress=lambda done, pub: reports.append((done, pub.pmid.content)))
    assert [p.pmid.content for p in pubs] == ids
    assert sorted(done for done, _ in reports) == list(range(1, 7))
    assert sorted(pmid for _, pmid in reports) == sorted(ids)


def test_blank_lines_and_comments_are_passed_over_and_invalid_ids_skipped_or_raised(caplog) -> None:
    run = fetch_run(2)
    with caplog.at_level(logging.WARNING, logger="pubfetch.fetcher"):
        pubs = run.fetch(["", "# a comment", "not-an-id", Article(0).pmid])
    assert [p.pmid.content for p in pubs] == [Article(0).pmid]
    assert any("skipping 'not-an-id'" in r.getMessage() for r in caplog.records)
    with pytest.raises(InvalidId):
        run.fetch(["not-an-id"], errors="raise")
    with pytest.raises(ValueError, match="errors must be 'skip' or 'raise'"):
        run.fetch([Article(0).pmid], errors="ignore")


def test_a_publication_nothing_answered_for_is_yielded_or_raised_with_what_failed() -> None:
    run = fetch_run(1)
    run.services.failing.update(ALL_SERVICES)
    [pub] = run.fetch([Article(0).pmid])
    assert pub.state.fetch_exception and pub.title.is_empty()
    with pytest.raises(FetchError, match="transient") as raised:
        run.fetch([Article(0).pmid], errors="raise")
    assert raised.value.publication.pmid.content == Article(0).pmid
    assert raised.value.failures.get("transient", 0) > 0


def test_the_summary_counts_the_run() -> None:
    run = fetch_run(4)
    summary = BatchSummary()
    run.fetch(run.services.pmids(), summary=summary)
    # the open-access ones (0, 2) have their full text; the closed ones cannot be final
    assert (summary.total, summary.fetched, summary.final, summary.not_final, summary.failed) == (4, 4, 2, 2, 0)
    assert summary.requests is not None


def test_the_end_of_run_retry_asks_a_failed_service_again_unless_switched_off() -> None:
    searches = {}
    for retry in (True, False):
        run = fetch_run(2)
        run.services.failing.add("europepmc_search")
        pubs = run.fetch(run.services.pmids(), retry_exceptions=retry)
        searches[retry] = run.services.counts["europepmc_search"]
        assert all(p.state.fetch_exception for p in pubs)
        assert run.services.counts["unpaywall"] == 2  # what answered is not asked again
    assert searches[True] > searches[False] > 0


def test_stored_entries_are_used_unless_told_to_fetch_afresh(tmp_path) -> None:
    db = tmp_path / "pubs.db"
    init_db(db).close()
    run = fetch_run(2)
    oa = [Article(0).pmid]
    run.fetch(oa, db=str(db))
    run.services.counts.clear()
    [stored] = run.fetch(oa, db=str(db))
    assert sum(run.services.counts.values()) == 0 and stored.title.content == Article(0).title
    [fresh] = run.fetch(oa, db=str(db), use_stored=False)
    assert run.services.counts["europepmc_search"] == 1 and fresh.title.content == Article(0).title
