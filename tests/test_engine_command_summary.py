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
