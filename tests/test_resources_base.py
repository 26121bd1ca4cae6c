"""What every resource shares: one publication's pass (pubfetch/resources/pubrun.py: its run flags, which failures
make an entry retryable and which are asked again in the run, the words failures are told in) and the run context
(pubfetch/resources/base.py: parts asked for, finality, warnings once per run, work on the worker threads)."""

from __future__ import annotations

import threading
import warnings

import pytest

from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.net.outcome import FetchResult, OutcomeKind
from pubfetch.resources.base import PubfetchWarning, chunks, email_address
from pubfetch.resources.pubrun import PubRun, RunFlag, failure_word, worth_asking_again
from support.fetchrun import fetch_run
from support.synthetic import Article

URL = "https://service.example/x"


def result(kind: OutcomeKind, status: int | None = None, *, fetch_exception: bool = True,
           retry_after: float | None = None) -> FetchResult:
    return FetchResult(url=URL, final_url=URL, kind=kind, status=status, fetch_exception=fetch_exception,
                       retry_after=retry_after)


@pytest.mark.parametrize(("value", "address"), [
    ("curator@example.org", "curator@example.org"), ("  curator@example.org ", "curator@example.org"),
    ("@", ""), ("curator@", ""), ("@example.org", ""), ("a@b@c", ""), ("cur ator@example.org", ""), ("", "")])
def test_an_email_address_is_text_on_both_sides_of_one_at(value: str, address: str) -> None:
    assert email_address(value) == address


def test_a_flag_is_set_by_its_value_and_a_misspelt_one_is_refused() -> None:
    run = PubRun(Publication())
    run.set("europepmc", RunFlag.DOI)
    assert run.has(RunFlag.EUROPEPMC) and run.has("doi") and not run.has(RunFlag.OADOI)
    with pytest.raises(ValueError):
        run.set("europmc")


def test_what_is_asked_again_in_the_run_is_what_may_pass_within_minutes() -> None:
    assert worth_asking_again(result(OutcomeKind.HTTP_ERROR, 503))
    assert worth_asking_again(result(OutcomeKind.TIMEOUT))
    assert worth_asking_again(result(OutcomeKind.IO_ERROR))
    assert not worth_asking_again(result(OutcomeKind.NOT_FOUND, 404))
    assert not worth_asking_again(result(OutcomeKind.HTTP_ERROR, 403))
    assert not worth_asking_again(result(OutcomeKind.TOO_LARGE, 200))


def test_failures_are_told_in_words_a_user_can_act_on() -> None:
    assert failure_word(OutcomeKind.NOT_FOUND) == "not found"
    assert failure_word(OutcomeKind.TIMEOUT) == "timed out"
    assert failure_word(OutcomeKind.FORBIDDEN_ADDRESS) == "blocked"
    assert failure_word(OutcomeKind.IO_ERROR) == "transient"


def test_a_failure_marks_the_entry_and_the_retry_waits_for_retry_after() -> None:
    run = PubRun(Publication())
    run.fail(result(OutcomeKind.HTTP_ERROR, 503, retry_after=120), RunFlag.OADOI)
    assert run.pub.state.fetch_exception and run.again_flags == {RunFlag.OADOI}
    assert run.not_before > 0
    quiet = PubRun(Publication())
    quiet.fail(result(OutcomeKind.NOT_FOUND, 404, fetch_exception=False), RunFlag.OADOI)
    assert not quiet.pub.state.fetch_exception and not quiet.again_flags


def test_an_answer_lost_on_the_way_from_a_service_is_a_failure_though_no_fetch_exception() -> None:
    lost = result(OutcomeKind.TOO_LARGE, 200, fetch_exception=False)
    page = PubRun(Publication())
    page.fail(lost, RunFlag.DOI)  # from a publisher: an answer about the page
    assert not page.pub.state.fetch_exception
    service = PubRun(Publication())
    service.fail_service(lost, RunFlag.EPMC_PMID)  # from a configured service: retried later
    assert service.pub.state.fetch_exception and not service.again_flags


def test_restart_keeps_nothing_but_the_ids() -> None:
    run = fetch_run(1).pub_run(Article(0).pmid)
    run.pub.set_title("A title", PartType.europepmc, URL, fetch_run(1).config.fetching)
    run.set(RunFlag.EUROPEPMC)
    run.id_count = 2
    run.restart()
    assert run.flags == set() and run.id_count == 0 and not run.again_flags
    assert run.pub.title.is_empty()


def test_chunks_are_consecutive_slices() -> None:
    assert [list(c) for c in chunks([1, 2, 3, 4, 5], 2)] == [[1, 2], [3, 4], [5]]
    assert list(chunks([], 3)) == []


def test_the_context_knows_the_parts_asked_for_and_when_only_ids_are() -> None:
    everything = fetch_run(1)
    ids_only = fetch_run(1, parts=frozenset({PartName.pmid, PartName.doi}))
    with everything.context() as ctx, ids_only.context() as only:
        assert ctx.wants(PartName.fulltext) and not ctx.id_only()
        assert not only.wants(PartName.fulltext) and only.id_only()
        pub = Publication()
        assert not ctx.is_final(pub, (PartName.title,))
        assert only.is_final(pub, (PartName.title,))  # not asked for: nothing to wait for


def test_a_settings_warning_is_given_once_per_run() -> None:
    run = fetch_run(1)
    with run.context() as ctx, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            ctx.warn_once("key", "something is missing")
    assert [(w.category, str(w.message)) for w in caught] == [(PubfetchWarning, "something is missing")]


def test_the_context_maps_work_over_its_worker_threads_in_order() -> None:
    run = fetch_run(1, threads=3)
    with run.context() as ctx:
        names = ctx.map(lambda i: (i, threading.current_thread().name), list(range(6)))
        assert [i for i, _ in names] == list(range(6))
        assert all(name.startswith("pubfetch") for _, name in names)
        assert ctx.map(lambda i: threading.current_thread().name, [0]) == [threading.current_thread().name]
