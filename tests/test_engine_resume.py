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
from pubfetch.resources.pubrun import PubRun, RunFlag

PAGE = "https://journal.example/article"


def busy() -> FetchResult:
    return FetchResult(url=PAGE, final_url=PAGE, kind=OutcomeKind.HTTP_ERROR, status=503, fetch_exception=True)


def test_the_retry_starts_from_what_answered_minus_what_failed() -> None:
    run = PubRun(Publication())
    run.set(RunFlag.EPMC_PMID, RunFlag.EUROPEPMC, RunFlag.OADOI)
    run.fail_service(busy(), RunFlag.OADOI)
    resume = Resume.of(run)
    assert resume.worth_retrying and resume.again == ("oadoi",)
    again = resume.run_for(Publication())
    assert again.flags == {RunFlag.EPMC_PMID, RunFlag.EUROPEPMC}  # Unpaywall is asked again, Europe PMC is not


def test_a_failed_link_is_queued_again_for_the_retry() -> None:
    run = PubRun(Publication())
    link = QueuedLink(PAGE, PartType.link, "https://doi.org/10.1/x")
    run.links.add(PAGE, PartType.link, "https://doi.org/10.1/x", None, FetcherArgs())
    assert run.links.pop() == link  # tried
    run.fail(busy(), link)
    again = Resume.of(run).run_for(Publication())
    assert again.links.pop() == link


def test_an_answer_is_not_asked_again_in_the_same_run() -> None:
    run = PubRun(Publication())
    run.set(RunFlag.EPMC_FULLTEXT_PMCID)
    run.fail_service(FetchResult(url=PAGE, final_url=PAGE, kind=OutcomeKind.NOT_FOUND, status=404, fetch_exception=True),
                     RunFlag.EPMC_FULLTEXT_PMCID)
    resume = Resume.of(run)
    assert not resume.worth_retrying
    assert RunFlag.EPMC_FULLTEXT_PMCID in resume.flags


def test_a_resume_survives_json() -> None:
    run = PubRun(Publication())
    run.set(RunFlag.EUROPEPMC, RunFlag.DOI)
    run.fail_service(busy(), RunFlag.DOI)
    run.not_before = 1_700_000_000.5
    resume = Resume.of(run)
    back = Resume.from_json(json.loads(json.dumps(resume.to_json())))
    assert back == resume
