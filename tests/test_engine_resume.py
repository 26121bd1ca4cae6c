"""Where a publication's fetch stopped (pubfetch/engine/resume.py): the end-of-run retry starts from the flags of
what answered and asks only what failed in a way worth asking again, and the state survives JSON on disk."""

from __future__ import annotations

import json

from pubfetch.engine.resume import Resume
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.net.outcome import FetchResult, OutcomeKind
from pubfetch.resources.links import QueuedLink
from pubfetch.resources.pubstate import PubFlag, PubState, mark_unreadable

PAGE = "https://journal.example/article"


def busy() -> FetchResult:
    return FetchResult(url=PAGE, final_url=PAGE, kind=OutcomeKind.HTTP_ERROR, status=503, fetch_exception=True)


def test_the_retry_starts_from_what_answered_minus_what_failed() -> None:
    state = PubState(Publication())
    state.set(PubFlag.EPMC_PMID, PubFlag.EUROPEPMC, PubFlag.OADOI)
    state.fail(busy(), PubFlag.OADOI)
    resume = Resume.of(state)
    assert resume.worth_retrying and resume.again == ("oadoi",)
    again = resume.state_for(Publication())
    assert again.flags == {PubFlag.EPMC_PMID, PubFlag.EUROPEPMC}  # Unpaywall is asked again, Europe PMC is not


def test_a_failed_link_is_queued_again_for_the_retry() -> None:
    state = PubState(Publication())
    link = QueuedLink(PAGE, PartType.link, "https://doi.org/10.1/x")
    state.links.add(PAGE, PartType.link, "https://doi.org/10.1/x", None, FetcherArgs())
    assert state.links.pop() == link  # tried
    state.fail(busy(), link)
    again = Resume.of(state).state_for(Publication())
    assert again.links.pop() == link


def test_an_answer_is_not_asked_again_in_the_same_run() -> None:
    state = PubState(Publication())
    state.set(PubFlag.EPMC_FULLTEXT_PMCID)
    not_found = FetchResult(url=PAGE, final_url=PAGE, kind=OutcomeKind.NOT_FOUND, status=404, fetch_exception=True)
    state.fail(not_found, PubFlag.EPMC_FULLTEXT_PMCID)
    resume = Resume.of(state)
    assert not resume.worth_retrying
    assert PubFlag.EPMC_FULLTEXT_PMCID in resume.flags


def test_the_marks_the_retry_does_not_ask_again_go_with_it() -> None:
    """A 404 (an answer) and an unreadable answer mark the entry but are not asked again: the retry's state carries
    them, so that the retry's fetch keeps fetchException whatever it gets; a busy server's failure is asked again and
    is not carried."""
    state = PubState(Publication())
    state.set(PubFlag.EPMC_FULLTEXT_PMCID, PubFlag.EFO_PMCID, PubFlag.OADOI)
    not_found = FetchResult(url=PAGE, final_url=PAGE, kind=OutcomeKind.NOT_FOUND, status=404, fetch_exception=True)
    state.fail(not_found, PubFlag.EPMC_FULLTEXT_PMCID)
    mark_unreadable(FetcherArgs(), [state])
    state.fail(busy(), PubFlag.OADOI)
    assert state.pub.state.fetch_exception
    resume = Resume.of(state)
    assert resume.again == ("oadoi",) and resume.lasting == ("not found", "transient")
    assert resume.state_for(Publication()).lasting == ["not found", "transient"]


def test_a_resume_survives_json() -> None:
    state = PubState(Publication())
    state.set(PubFlag.EUROPEPMC, PubFlag.DOI)
    state.fail(busy(), PubFlag.DOI)
    mark_unreadable(FetcherArgs(), [state])
    state.not_before = 1_700_000_000.5
    resume = Resume.of(state)
    back = Resume.from_json(json.loads(json.dumps(resume.to_json())))
    assert back == resume and back.lasting == ("transient",)
