"""How a run ended: entries counted by outcome into the summary line, and the error of a publication that got
nothing because of transient failures, naming what failed and what to do."""

from __future__ import annotations

import time

from pubfetch.engine.run_batch import init_publication
from pubfetch.engine.summary import BatchSummary, FetchError, failed_transiently
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from pubfetch.model.publication import Publication
from support.fetchrun import fetch_run
from support.publications import checked_publication
from support.synthetic import Article

ARGS = FetcherArgs()


def unfetched(pmid: str = "123", *failures: str) -> Publication:
    pub = init_publication(PublicationIds(pmid), ARGS)
    for word in failures:
        pub.state.failed(word)
    return pub


def test_fetched_skipped_final_and_partial_entries_are_counted() -> None:
    oa, closed = fetch_run(2).fetch([Article(0).pmid, Article(1).pmid])
    assert oa.is_final(ARGS) and not closed.is_final(ARGS) and not closed.is_empty()
    summary = BatchSummary()
    summary.count(oa, ARGS, fetched=True)
    summary.count(closed, ARGS, fetched=False)
    assert (summary.total, summary.fetched, summary.skipped, summary.final, summary.partial, summary.failed) == \
        (2, 1, 1, 1, 1, 0)
    assert summary.line() == "2 publications: 1 fetched, 1 skipped; 1 final, 1 partial, 0 failed"


def test_an_empty_entry_with_a_transient_failure_is_failed() -> None:
    summary = BatchSummary()
    summary.count(unfetched("1", "transient"), ARGS, fetched=True)
    summary.count(unfetched("2"), ARGS, fetched=True)
    assert (summary.failed, summary.fetch_exception, summary.empty, summary.partial) == (2, 1, 2, 0)


def test_entries_out_of_retries_say_when_they_are_eligible_again() -> None:
    pub = unfetched("1", "transient")
    pub.state.fetch_time = int(time.time() * 1000)
    pub.state.retry_counter = ARGS.retry_limit
    summary = BatchSummary()
    summary.count(pub, ARGS, fetched=False)
    assert summary.retry_limited == 1
    assert summary.eligible_at == pub.state.fetch_time + ARGS.empty_cooldown * 60_000  # the earliest cooldown
    assert summary.eligible_options == {"--emptyCooldown"}
    line = summary.line()
    assert line.startswith("1 publication: 0 fetched, 1 skipped; 0 final, 0 partial, 1 failed; "
                           "1 reached the retry limit; eligible again after ")
    assert line.endswith(" UTC or with --emptyCooldown 0")


def test_fetch_error_names_the_ids_the_failures_and_what_to_do() -> None:
    pub = init_publication(PublicationIds("123", doi="10.1/X"), ARGS)
    for word in ("timed out", "transient", "timed out"):
        pub.state.failed(word)
    error = FetchError(pub)
    assert error.publication is pub
    assert error.failures == {"timed out": 2, "transient": 1}
    message = str(error)
    assert message.startswith("nothing could be fetched for 123, 10.1/X: the requests failed: timed out (2), "
                              "transient (1); ")
    assert "fetching again later may work" in message and "--timeout" in message


def test_fetch_error_without_failures_says_it_stopped_before_an_answer() -> None:
    message = str(FetchError(unfetched("7")))
    assert "the requests failed: stopped before an answer" in message
    assert "blocked" not in FetchError(unfetched("7", "not found")).args[0]
    assert "refused by the guard" in str(FetchError(unfetched("7", "blocked")))
    assert "check it" in str(FetchError(unfetched("7", "not found")))


def test_failed_transiently_means_empty_with_a_fetch_exception() -> None:
    assert failed_transiently(unfetched("1", "transient"))
    assert not failed_transiently(unfetched("1"))
    fetched = unfetched("1", "transient")
    fetched.title.content = "Something"
    assert not failed_transiently(fetched)


def test_pages_rejected_in_the_run_are_counted_in_the_line() -> None:
    checked, again = checked_publication(), checked_publication()
    again.new_rejections = 0  # read from the database: rejected in an earlier run
    summary = BatchSummary()
    summary.count(checked, ARGS, fetched=True)
    summary.count(again, ARGS, fetched=False)
    assert summary.rejected_sites == 1
    assert summary.line().endswith("; 1 page or PDF rejected as another paper's (see rejectedSites)")
    summary.count(checked, ARGS, fetched=True)
    assert "; 2 pages and PDFs rejected as another paper's" in summary.line()
