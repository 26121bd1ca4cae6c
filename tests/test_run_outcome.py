"""How a fetching run ends: the exit statuses of docs/command-line.md's table, and the summary line in the wording
that section gives, quoted here. Status 75 (network down) is tested by test_network_down.py, 130 (interrupted) by
test_interrupts.py; the job statuses (4, and 0, 3 and 130 for jobs) by test_cli_job_exit.py."""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

import pubfetch.cli.errors as errors
from pubfetch.cli import main as cli_main
from pubfetch.engine.summary import BatchSummary, merged_count
from pubfetch.fetcher_args import FetcherArgs
from support.cli import Cli
from support.loopback import Reply
from support.summaries import ARGS, MINUTE_MS, final_publication, utc
from support.synthetic import Article, SyntheticServices, serve_doi_page

DOCS = Path(__file__).resolve().parents[1] / "docs" / "command-line.md"


def docs_section(title: str) -> str:
    """The paragraph of docs/command-line.md that starts with the bold ``title``, up to the next bold heading."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(f"**{title}.**")
    end = text.find("\n**", start + 1)
    return text[start:end if end > 0 else None]


def fetch(cli: Cli, ids: Path, db: Path, *extra: object) -> tuple[int, list[str]]:
    code, _, err = cli.lines("-pub-file", ids, "-db-fetch-end", db, "--allow-private-addresses", "--no-javascript",
                             *extra)
    return code, err


def id_file(tmp_path: Path, pmids: list[str]) -> Path:
    ids = tmp_path / "ids.txt"
    ids.write_text("".join(p + "\n" for p in pmids))
    return ids


# ---------------------------------------------------------------------------------------------------- exit statuses


def test_the_docs_table_of_exit_statuses_is_the_constants_of_the_code() -> None:
    rows = re.findall(r"(?m)^\| (\d+) \| `(EXIT_\w+)` \|", docs_section("Exit statuses"))
    constants = {name: value for name, value in vars(errors).items() if name.startswith("EXIT_")}
    # every constant but the alias a cancelled job uses (named in the interrupted row) has its row
    assert {name: int(status) for status, name in rows} == {
        name: value for name, value in constants.items() if name != "EXIT_JOB_CANCELLED"}
    assert "`EXIT_JOB_CANCELLED`" in docs_section("Exit statuses")
    assert errors.EXIT_JOB_CANCELLED == errors.EXIT_INTERRUPTED == cli_main.EXIT_INTERRUPTED == 130
    assert len(set(constants.values())) == len(constants) - 1  # codes of their own, the alias apart


def test_exit_0_when_every_publication_is_final_or_partial_only_in_what_no_service_had(
        services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    code, err = fetch(cli, id_file(tmp_path, services.pmids()), tmp_path / "pubs.db")
    # the closed-access one (index 1) has no open full text anywhere: partial, which is what was there to fetch
    assert (code, err[-1]) == (errors.EXIT_OK, "pubfetch: 3 publications: 3 fetched, 0 skipped; 2 final, 1 partial, "
                                               "0 failed")


def test_exit_3_when_some_publication_failed(services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    services.failing = {"unpaywall"}  # the closed-access one asks Unpaywall, and gets 503s
    code, err = fetch(cli, id_file(tmp_path, services.pmids()), tmp_path / "pubs.db", "--retryLimit", "0")
    assert code == errors.EXIT_SOME_FAILED == 3
    assert err[-1].startswith("pubfetch: 3 publications: 3 fetched, 0 skipped; 2 final, 0 partial, 1 failed; "), err


def test_exit_2_for_usage_and_1_for_an_internal_error(env: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli("-pub", "1", "-fetch", "--no-such-option").code == errors.EXIT_USAGE == 2

    def broken(*args: object, **kwargs: object) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli_main, "run", broken)
    run = cli("-pub", "1", "-fetch")
    assert run.code == errors.EXIT_INTERNAL == 1
    assert run.lines == ["pubfetch: error: internal error: RuntimeError: a bug (please report it; run with --log FILE "
                         "to record the details)"]


# ---------------------------------------------------------------------------------------------------- the summary line


def test_the_docs_example_of_the_summary_line_is_the_summary_s_own_wording() -> None:
    (example,) = re.findall(r"(?m)^pubfetch: \d+ publications: .*$", docs_section("The summary line"))
    at = int(datetime(2026, 11, 26, 1, 44, tzinfo=UTC).timestamp() * 1000)
    summary = BatchSummary(total=37, fetched=13, skipped=24, final=24, not_final=13, failed=1, retry_limited=1,
                           rejected_sites=2, eligible_at=at, eligible_options={"--fetchExceptionCooldown"},
                           final_retried=5, final_retries_left=2, final_retried_at=at)
    assert f"pubfetch: {summary.line()}" == example


def test_final_publications_holding_a_failed_request_are_counted_with_when_they_are_fetched_again() -> None:
    fresh = final_publication("1", failed_request=True, retries=1)
    used_up = final_publication("2", failed_request=True, retries=3, fetched_minutes_ago=60)
    clean = final_publication("3", failed_request=False)
    summary = BatchSummary()
    for pub in (fresh, used_up, clean):
        summary.count(pub, ARGS, fetched=True)
    assert (summary.final, summary.failed, summary.final_retried) == (3, 0, 2)
    after = utc(used_up.state.fetch_time + 1440 * MINUTE_MS)  # the earliest of their cooldowns
    assert summary.line() == ("3 publications: 3 fetched, 0 skipped; 3 final, 0 partial, 0 failed; 2 final with a "
                              f"failed request: later runs fetch them again, up to 2 more times and after {after} "
                              "(--retryLimit, --fetchExceptionCooldown)")


@pytest.mark.parametrize(("retries", "args", "clause"), [
    (3, ARGS, "1 final with a failed request: later runs fetch them again after {after} (--fetchExceptionCooldown)"),
    (2, FetcherArgs(fetch_exception_cooldown=-1),
     "1 final with a failed request: later runs fetch them again, once more (--retryLimit)"),
    (0, FetcherArgs(retry_limit=-1), "1 final with a failed request: every later run fetches them again (--retryLimit "
                                     "is negative)"),
    (3, FetcherArgs(fetch_exception_cooldown=-1), None),  # no run fetches it again: not counted
])
def test_the_clause_of_final_publications_says_what_pubfetchers_rules_do(retries, args, clause) -> None:
    pub = final_publication("1", failed_request=True, retries=retries)
    summary = BatchSummary()
    summary.count(pub, args, fetched=False)
    head = "1 publication: 0 fetched, 1 skipped; 1 final, 0 partial, 0 failed"
    after = utc(pub.state.fetch_time + 1440 * MINUTE_MS)
    assert summary.line() == (head if clause is None else f"{head}; {clause.format(after=after)}")


def test_a_distributed_job_s_summary_keeps_the_most_retries_left_and_the_earliest_time() -> None:
    fields = {f.name: f for f in BatchSummary.__dataclass_fields__.values()}
    assert merged_count(fields["final_retried"], 2, 3) == 5
    assert merged_count(fields["final_retries_left"], 2, 1) == 2
    assert merged_count(fields["final_retries_left"], 2, -1) == -1  # one batch's entries are retried on every run
    assert merged_count(fields["final_retried_at"], 0, 500) == 500
    assert merged_count(fields["final_retried_at"], 700, 500) == 500


def test_a_second_run_over_final_publications_holding_a_failed_request_says_so_and_exits_0(
        services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    # asked for the open-access (final) papers' EFO and GO terms, the annotations service answers 404, which marks a
    # publication for retry as PubFetcher's rules say (fetchException)
    services.extra["/epmc/annotations/annotationsByArticleIds"] = Reply(404, "not found", "text/plain")
    ids, db = id_file(tmp_path, [Article(0).pmid, Article(2).pmid]), tmp_path / "pubs.db"
    code, err = fetch(cli, ids, db)
    with sqlite3.connect(db) as conn:
        (fetched_at,) = conn.execute("SELECT min(json_extract(json, '$.fetchTime')) FROM publications").fetchone()
    after = utc(fetched_at + 1440 * MINUTE_MS)
    head = "pubfetch: 2 publications: 2 fetched, 0 skipped; 2 final, 0 partial, 0 failed"
    # a first fetch: --retryLimit's three retries are still to come (a 404 is not worth the end-of-run retry)
    assert (code, err[-1]) == (0, f"{head}; 2 final with a failed request: later runs fetch them again, up to 3 more "
                                  f"times and after {after} (--retryLimit, --fetchExceptionCooldown)")
    asked = services.counts["europepmc_search"]

    code, err = fetch(cli, ids, db)  # fetched again, as PubFetcher's rules say: one retry used
    assert services.counts["europepmc_search"] > asked
    assert (code, err[-1]) == (0, f"{head}; 2 final with a failed request: later runs fetch them again, up to 2 more "
                                  f"times and after {after} (--retryLimit, --fetchExceptionCooldown)")
    asked = sum(services.counts.values())

    code, err = fetch(cli, ids, db, "--retryLimit", "1")  # retries used up: skipped until the cooldown has passed
    assert sum(services.counts.values()) == asked  # nothing asked
    assert (code, err[-1]) == (0, "pubfetch: 2 publications: 0 fetched, 2 skipped; 2 final, 0 partial, 0 failed; "
                                  f"2 final with a failed request: later runs fetch them again after {after} "
                                  "(--fetchExceptionCooldown)")


# ---------------------------------------------------------------------------------------------------- --fetch-part


def test_a_fetch_part_run_is_judged_by_the_parts_it_asks_for(
        services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    ids, db = id_file(tmp_path, services.pmids()), tmp_path / "pubs.db"
    code, err = fetch(cli, ids, db, "--fetch-part", "title", "abstract")
    # the closed-access paper (no full text anywhere) has a final title and abstract: done
    assert (code, err[-1]) == (0, "pubfetch: 3 publications: 3 fetched, 0 skipped; 3 final, 0 partial, 0 failed")
    asked = sum(services.counts.values())

    code, err = fetch(cli, ids, db, "--fetch-part", "title", "abstract")
    assert sum(services.counts.values()) == asked  # nothing to fetch again for the parts asked for
    assert (code, err[-1]) == (0, "pubfetch: 3 publications: 0 fetched, 3 skipped; 3 final, 0 partial, 0 failed")

    code, err = fetch(cli, ids, db)  # every part asked for: the full texts are missing
    assert code == 0 and err[-1].startswith("pubfetch: 3 publications: 3 fetched, 0 skipped; 2 final, 1 partial, "
                                            "0 failed"), err



@pytest.mark.parametrize("part", ["pmid", "doi", "keywords"])
def test_an_ids_only_fetch_part_run_skips_what_it_has_got(
        part: str, services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    """A run asking for no deciding part is judged by the parts it asks for: once they are final, a re-run skips."""
    ids, db = id_file(tmp_path, services.pmids()), tmp_path / "pubs.db"
    code, err = fetch(cli, ids, db, "--fetch-part", part)
    assert (code, err[-1]) == (0, "pubfetch: 3 publications: 3 fetched, 0 skipped; 3 final, 0 partial, 0 failed")
    asked = sum(services.counts.values())

    code, err = fetch(cli, ids, db, "--fetch-part", part)
    assert sum(services.counts.values()) == asked
    assert (code, err[-1]) == (0, "pubfetch: 3 publications: 0 fetched, 3 skipped; 3 final, 0 partial, 0 failed")


#: a publisher's page of a paper behind a paywall: its title and abstract, no full text
PAYWALLED_PAGE = """<html><head><title>{title}</title><meta name="citation_title" content="{title}">
<meta name="citation_doi" content="10.5555/synth.1"><meta name="citation_abstract" content="An abstract of this
synthetic study, given away by its publisher while the full text is sold."></head><body>
</body></html>"""


@pytest.mark.parametrize("parts", [["fulltext"], ["title", "abstract", "fulltext"]])
def test_a_full_text_run_counts_a_paywalled_paper_partial_and_exits_0(
        parts: list[str], services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    """The closed-access paper (index 1): its publisher's page is reached and gives its title and abstract but no full
    text, nor does any other service. That is the partial of the exit-status table (a part no service had), not a
    failure, whether the run asks for the full text alone or for it with the title and abstract."""
    article = Article(1)
    page = serve_doi_page(services, article, PAYWALLED_PAGE.format(title=article.title))
    ids, db = id_file(tmp_path, [article.pmid]), tmp_path / "pubs.db"
    code, err = fetch(cli, ids, db, "--fetch-part", *parts)
    assert services.counts["extra:" + page] == 1  # the publisher's page was read
    assert (code, err[-1]) == (0, "pubfetch: 1 publication: 1 fetched, 0 skipped; 0 final, 1 partial, 0 failed")
    with sqlite3.connect(db) as conn:  # no failed request that a later run retries
        assert conn.execute("SELECT json_extract(json, '$.fetchException') FROM publications").fetchall() == [(0,)]


def test_a_full_text_run_fails_for_an_id_no_service_knows(services: SyntheticServices, tmp_path: Path,
                                                          cli: Cli) -> None:
    ids, db = id_file(tmp_path, ["39999999"]), tmp_path / "pubs.db"  # not among the services' papers
    code, err = fetch(cli, ids, db, "--fetch-part", "fulltext")
    assert (code, err[-1]) == (3, "pubfetch: 1 publication: 1 fetched, 0 skipped; 0 final, 0 partial, 1 failed")


@pytest.mark.parametrize("parts", [["fulltext"], ["title", "abstract", "fulltext"]])
def test_a_full_text_run_whose_service_failed_still_fails_with_its_retry(
        parts: list[str], services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    services.failing = {"unpaywall"}  # the closed-access paper's Unpaywall request gets 503s: a later run retries it
    ids, db = id_file(tmp_path, [Article(1).pmid]), tmp_path / "pubs.db"
    code, err = fetch(cli, ids, db, "--fetch-part", *parts, "--retryLimit", "0")
    assert code == errors.EXIT_SOME_FAILED
    assert err[-1].startswith("pubfetch: 1 publication: 1 fetched, 0 skipped; 0 final, 0 partial, 1 failed"), err


# ------------------------------------------------------------------------------------------ one count per publication


@pytest.mark.parametrize("steps", [("-fetch", "-db-fetch-end"), ("-fetch", "-db-fetch"), ("-fetch-put", "-db-fetch"),
                                   ("-fetch", "-fetch-put", "-db-fetch-end")])
def test_a_command_of_several_fetching_steps_counts_each_publication_once(
        services: SyntheticServices, tmp_path: Path, cli: Cli, steps: tuple[str, ...]) -> None:
    pmids = services.pmids()
    given = tmp_path / "pubs.json"  # the publications a JSON input gives, as a command of one step would read them
    run = cli("-pub", *pmids, "-fetch", "-out", "--format", "json", "--allow-private-addresses", "--no-javascript")
    assert run.code == errors.EXIT_OK, run.err
    given.write_text(run.out)
    command: list[object] = ["-pub-json", given]
    for step in steps:
        command += [step] if step == "-fetch" else [step, tmp_path / f"{step}.db"]
    code, _, err = cli.lines(*command, "--allow-private-addresses", "--no-javascript")
    # the closed-access one (index 1) is partial; each step asked the services of the three (no database had them)
    assert (code, err[-1]) == (errors.EXIT_OK, "pubfetch: 3 publications: 3 fetched, 0 skipped; 2 final, 1 partial, "
                                               "0 failed")
