"""A command of several fetching steps counts each publication once (engine/command_summary.py): by what its last
step found, fetched when any step fetched it, its retries those of its last count."""

from __future__ import annotations

from pubfetch.engine.command_summary import CommandSummary
from pubfetch.model.part_type import PartType
from support.summaries import ARGS, MINUTE_MS, final_publication, utc


def test_a_command_s_summary_counts_a_paper_by_its_last_step_and_fetched_when_any_step_fetched_it() -> None:
    summary = CommandSummary()
    first = final_publication("1", failed_request=True, retries=1)  # the first step: a request failed
    summary.count(first, ARGS, fetched=True)
    summary.count(final_publication("2", failed_request=False), ARGS, fetched=True)
    assert summary.line().startswith("2 publications: 2 fetched, 0 skipped; 2 final, 0 partial, 0 failed; 1 final "
                                     "with a failed request")
    again = final_publication("1", failed_request=False)  # the next step read it back, clean, and learnt its DOI
    again.set_doi("10.5555/one", PartType.europepmc, "https://www.ebi.ac.uk/europepmc/", ARGS)
    summary.count(again, ARGS, fetched=False)
    assert summary.line() == "2 publications: 2 fetched, 0 skipped; 2 final, 0 partial, 0 failed"
    summary.count(final_publication("3", failed_request=False), ARGS, fetched=False)
    assert summary.line() == "3 publications: 2 fetched, 1 skipped; 3 final, 0 partial, 0 failed"


def test_a_command_s_summary_says_the_retries_of_a_paper_s_last_count() -> None:
    summary = CommandSummary()
    summary.count(final_publication("1", failed_request=True, retries=1), ARGS, fetched=True)  # 2 retries left
    used_up = final_publication("1", failed_request=True, retries=3, fetched_minutes_ago=60)  # the next step's
    summary.count(used_up, ARGS, fetched=True)
    after = utc(used_up.state.fetch_time + 1440 * MINUTE_MS)
    assert summary.line() == ("1 publication: 1 fetched, 0 skipped; 1 final, 0 partial, 0 failed; 1 final with a "
                              f"failed request: later runs fetch them again after {after} (--fetchExceptionCooldown)")


def test_a_queued_job_s_papers_replace_what_an_earlier_step_counted_of_them() -> None:
    """``-fetch -db-fetch DB --queue URL``: the workers' papers (listed by their IDs, as a job's results give them) are
    the same papers as the local step's, and are counted once, by the job's counts, fetched as the local step did."""
    from pubfetch.distributed.counts import decode_summary, encode_summary, papers_of
    from pubfetch.distributed.jobretry import EachCounted
    from pubfetch.engine.command_summary import paper_keys

    summary = CommandSummary()
    local = final_publication("1", failed_request=False)
    local.set_doi("10.5555/one", PartType.europepmc, "https://www.ebi.ac.uk/europepmc/", ARGS)
    summary.count(local, ARGS, fetched=True)
    summary.count(final_publication("2", failed_request=False), ARGS, fetched=True)
    workers = EachCounted()
    workers.count(final_publication("1", failed_request=True), ARGS, fetched=False)  # read back, its mark kept
    workers.count(final_publication("2", failed_request=False), ARGS, fetched=False)
    workers.count(final_publication("3", failed_request=False), ARGS, fetched=True)  # only the job got it
    papers = papers_of(encode_summary(workers))
    assert papers is not None
    for ids, counts in papers:
        summary.count_paper(paper_keys(ids), decode_summary(counts))
    # (the job's counts added as a whole would say "5 publications: 3 fetched, 2 skipped; 5 final")
    assert summary.line().startswith("3 publications: 3 fetched, 0 skipped; 3 final, 0 partial, 0 failed; 1 final "
                                     "with a failed request: later runs fetch them again"), summary.line()
    assert paper_keys(["PMC7", "10.5555/ONE", "12", "not an ID"]) == ["pmcid:pmc7", "doi:10.5555/one", "pmid:12"]
