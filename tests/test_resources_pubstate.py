"""One publication's state in a fetch run (pubfetch/resources/pubstate.py): its flags, which failures make an entry
retryable and which are asked again in the run, the words failures are told in."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.net.outcome import EntryPolicy, FetchResult, OutcomeKind
from pubfetch.resources.pubstate import PubFlag, PubState, entry_policy, failure_word, worth_asking_again
from support.fetchrun import fetch_run
from support.synthetic import Article

URL = "https://service.example/x"


def result(kind: OutcomeKind, status: int | None = None, *, fetch_exception: bool = True,
           retry_after: float | None = None) -> FetchResult:
    return FetchResult(url=URL, final_url=URL, kind=kind, status=status, fetch_exception=fetch_exception,
                       retry_after=retry_after)


def test_a_flag_is_set_by_its_value_and_a_misspelt_one_is_refused() -> None:
    state = PubState(Publication())
    state.set("europepmc", PubFlag.DOI)
    assert state.has(PubFlag.EUROPEPMC) and state.has("doi") and not state.has(PubFlag.OADOI)
    with pytest.raises(ValueError):
        state.set("europmc")


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
    state = PubState(Publication())
    state.fail(result(OutcomeKind.HTTP_ERROR, 503, retry_after=120), PubFlag.OADOI)
    assert state.pub.state.fetch_exception and state.again_flags == {PubFlag.OADOI}
    assert state.not_before > 0
    quiet = PubState(Publication())
    quiet.fail(result(OutcomeKind.NOT_FOUND, 404, fetch_exception=False), PubFlag.OADOI)
    assert not quiet.pub.state.fetch_exception and not quiet.again_flags


def test_an_answer_lost_on_the_way_from_a_service_is_a_failure_though_not_from_a_publisher() -> None:
    """The request's entry policy decides, and the state is marked from its verdict alone."""
    lost = result(OutcomeKind.TOO_LARGE, 200, fetch_exception=False)
    publisher, service = EntryPolicy(), EntryPolicy(service=True)
    assert not publisher.marks_entry(lost) and service.marks_entry(lost)
    page = PubState(Publication())
    page.fail(replace(lost, fetch_exception=publisher.marks_entry(lost)), PubFlag.DOI)  # an answer about the page
    assert not page.pub.state.fetch_exception
    asked = PubState(Publication())
    asked.fail(replace(lost, fetch_exception=service.marks_entry(lost)), PubFlag.EPMC_PMID)  # retried later
    assert asked.pub.state.fetch_exception and not asked.again_flags


def test_the_policy_of_a_batch_promises_a_later_fetch_while_the_retry_rules_allow_one() -> None:
    args = FetcherArgs(fetch_exception_cooldown=-1, retry_limit=2)
    spent, fresh = PubState(Publication()), PubState(Publication())
    spent.pub.state.retry_counter = 2
    assert not entry_policy(args, [spent]).later
    assert entry_policy(args, [spent, fresh]).later  # the fresh one is fetched again
    assert entry_policy(FetcherArgs(), [spent]).later  # a cooldown lets a later run in
    assert not entry_policy(args, []).marks and not entry_policy(args, [fresh], marks=False).marks


def test_restart_keeps_nothing_but_the_ids() -> None:
    state = fetch_run(1).pub_state(Article(0).pmid)
    state.pub.set_title("A title", PartType.europepmc, URL, fetch_run(1).config.fetching)
    state.set(PubFlag.EUROPEPMC)
    state.id_count = 2
    state.restart()
    assert state.flags == set() and state.id_count == 0 and not state.again_flags
    assert state.pub.title.is_empty()


def test_a_blocked_page_and_an_unreadable_answer_make_the_entry_retryable_under_their_words() -> None:
    """Nothing is taken from a bot gate or a garbled service answer; the entry is fetched again in a later run."""
    blocked = PubState(Publication())
    blocked.blocked("https://journal.example/article/1", "a browser challenge", FetcherArgs())
    unreadable = PubState(Publication())
    unreadable.unreadable()
    assert blocked.pub.state.fetch_exception and blocked.pub.state.failures == {"blocked": 1}
    assert unreadable.pub.state.fetch_exception and unreadable.pub.state.failures == {"transient": 1}
    assert not blocked.again_flags and not unreadable.again_flags  # nothing to ask again within the run


def test_the_words_for_a_failure_with_no_retry_left_stay_true_when_a_cooldown_fetches_the_entry_again() -> None:
    """No retry left under retryLimit and a negative fetchExceptionCooldown: the failure brings no later fetch, but a
    non-final (or empty) entry is still fetched again once nonFinalCooldown (emptyCooldown) has passed, so the line
    must not say that no later fetch comes."""
    args = FetcherArgs(retry_limit=0, fetch_exception_cooldown=-1, non_final_cooldown=0, empty_cooldown=0)
    state = PubState(Publication())
    state.pub.title.set("A title", PartType.pubmed_xml, "u")  # partial: no abstract, no full text
    state.pub.state.fetch_time = 1
    state.pub.state.failed("transient")
    words = state.pub.state.retry_words(args)
    assert not state.pub.state.retried_later(args)
    assert state.pub.state.can_fetch(state.pub, args, clock=lambda: 10**12)  # a later fetch does come
    assert "no later fetch" not in words and "retryLimit" in words and "fetchExceptionCooldown" in words, words
