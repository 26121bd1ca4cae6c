"""A failed request's line promises a retry exactly when the publication's entry is marked for one (issue 33): the
line of the request (pubfetch/net/client.py) and the entry's state (pubfetch/resources/pubstate.py) come from one
verdict, the request's ``EntryPolicy`` (pubfetch/net/outcome.py). Each case goes through a resource over the
in-process transport and reads both: what the line says, and whether the entry is marked and would be fetched again
by a later run under PubFetcher's retry rules."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pubfetch.console import LATER_FETCH, LATER_RUN, NEVER_LATER
from pubfetch.net.mapping_transport import Canned
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.retry import ExchangeFailed
from pubfetch.net.transport import Request
from pubfetch.resources import europepmc, site, unpaywall
from pubfetch.resources.pubstate import PubState
from support.fetchrun import InProcessRun, fetch_run
from support.synthetic import Article

DOI = "10.1234/example.2019.001"
CLOSED = Article(1)


def timeout(_request: Request) -> Canned:
    raise ExchangeFailed(OutcomeKind.TIMEOUT, "read timed out")


def unpaywall_run(answer: Canned | type[Exception] | object, **changes) -> InProcessRun:
    run = fetch_run(1, **changes)
    run.transport.answers[run.services.base + "/unpaywall/*"] = answer  # type: ignore[assignment]
    return run


def failure_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "pubfetch.net.client" and ": GET " in r.getMessage()]


def promises(line: str) -> bool:
    return line.endswith((LATER_FETCH, LATER_RUN))


def agree(state: PubState, run: InProcessRun, line: str) -> bool:
    """The line promises a later fetch exactly when the entry is marked and the retry rules let a later run in."""
    marked = state.pub.state.fetch_exception
    return promises(line) == (marked and state.pub.state.retried_later(run.config.fetching))


def ask_unpaywall(run: InProcessRun, caplog: pytest.LogCaptureFixture) -> tuple[PubState, logging.LogRecord]:
    caplog.set_level(logging.DEBUG, logger="pubfetch")
    state = run.pub_state(DOI)
    with run.context() as ctx:
        unpaywall.fetch_unpaywall(ctx, [state])
    [line] = failure_lines(caplog)
    return state, line


def test_an_unknown_doi_at_unpaywall_is_an_answer_told_at_info_and_promises_nothing(
        caplog: pytest.LogCaptureFixture) -> None:
    run = unpaywall_run(Canned(404, '{"error": true}', "application/json"))
    state, line = ask_unpaywall(run, caplog)
    assert not state.pub.state.fetch_exception and not state.again_flags
    assert line.levelno == logging.INFO
    assert line.getMessage().endswith(f": GET /unpaywall/{DOI.upper()}: not found (HTTP 404): Unpaywall does not "
                                      "know this DOI: no open-access copy from Unpaywall")
    assert "retries" not in line.getMessage() and agree(state, run, line.getMessage())


def test_a_busy_service_marks_the_entry_and_its_warning_promises_the_retry(caplog: pytest.LogCaptureFixture) -> None:
    run = unpaywall_run(Canned(503, "busy", "text/plain"))
    state, line = ask_unpaywall(run, caplog)
    assert state.pub.state.fetch_exception and state.pub.state.failures == {"transient": 1}
    assert line.levelno == logging.WARNING and "server busy (HTTP 503)" in line.getMessage()
    assert promises(line.getMessage()) and agree(state, run, line.getMessage())


def test_a_timeout_marks_the_entry_and_its_warning_promises_the_retry(caplog: pytest.LogCaptureFixture) -> None:
    run = unpaywall_run(timeout)
    state, line = ask_unpaywall(run, caplog)
    assert state.pub.state.fetch_exception and state.pub.state.failures == {"timed out": 1}
    assert line.levelno == logging.WARNING and ": timed out; " in line.getMessage()
    assert promises(line.getMessage()) and agree(state, run, line.getMessage())


def test_with_no_retry_left_and_no_cooldown_the_marked_entry_is_told_no_later_fetch_comes(
        caplog: pytest.LogCaptureFixture) -> None:
    """PubFetcher's retry rules: a negative fetchExceptionCooldown and a retry limit of 0 mean no run fetches the
    entry again, fetchException or not; the line says so instead of promising."""
    run = unpaywall_run(Canned(503, "busy", "text/plain"), fetch_exception_cooldown=-1, retry_limit=0)
    state, line = ask_unpaywall(run, caplog)
    assert state.pub.state.fetch_exception and not state.pub.state.retried_later(run.config.fetching)
    assert line.getMessage().endswith("; " + NEVER_LATER)
    assert not promises(line.getMessage()) and agree(state, run, line.getMessage())


def test_a_publisher_page_404_marks_the_entry_and_its_warning_promises_the_retry(
        caplog: pytest.LogCaptureFixture) -> None:
    """PubFetcher: an HTTP error of a publication's page (not doi.org, not a file) sets fetchException."""
    run = fetch_run(2)
    page = run.services.base + "/publisher/1"
    run.transport.answers[run.services.base + "/doi/" + CLOSED.doi.upper()] = Canned(
        302, "", "text/plain", {"Location": page})
    run.transport.answers[page] = Canned(404, "gone", "text/html")
    caplog.set_level(logging.DEBUG, logger="pubfetch")
    state = run.pub_state(CLOSED.doi)
    with run.context() as ctx:
        site.fetch_doi(ctx, state)
    [line] = failure_lines(caplog)
    assert state.pub.state.fetch_exception and state.pub.state.failures == {"not found": 1}
    assert line.levelno == logging.WARNING and ": GET /publisher/1: not found (HTTP 404); " in line.getMessage()
    assert promises(line.getMessage()) and agree(state, run, line.getMessage())


def test_a_fulltext_404_is_an_answer_unless_the_search_announced_one(caplog: pytest.LogCaptureFixture) -> None:
    """Europe PMC's fullTextXML asked without the search's word: its 404 says there is none (info, no mark); after
    the search announced one, the same 404 is a failure that marks the entry and says so."""
    from pubfetch.resources.pubstate import PubFlag

    caplog.set_level(logging.DEBUG, logger="pubfetch")
    for announced in (False, True):
        caplog.clear()
        run = fetch_run(1)
        run.transport.answers[run.config.endpoints.europepmc + "*"] = Canned(404, "none", "text/plain")
        state = run.pub_state("PMC1234567")
        if announced:
            state.set(PubFlag.EUROPEPMC, PubFlag.EPMC_HAS_FULLTEXT_XML)
        with run.context() as ctx:
            europepmc._fulltext_one(ctx, state)
        [line] = failure_lines(caplog)
        assert state.pub.state.fetch_exception is announced
        assert (line.levelno == logging.WARNING) is announced
        assert ("Europe PMC has no full text of this PMCID" in line.getMessage()) is not announced
        assert agree(state, run, line.getMessage())


def test_a_request_for_no_entry_promises_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """Citation counts refreshed from Europe PMC mark no entry: a busy search is warned about, with no promise."""
    run = fetch_run(1)
    run.transport.answers[run.config.endpoints.europepmc + "*"] = Canned(503, "busy", "text/plain")
    caplog.set_level(logging.DEBUG, logger="pubfetch")
    pub = run.pub_state(CLOSED.doi).pub
    with run.context() as ctx:
        europepmc.update_citations(ctx, [pub])
    lines = failure_lines(caplog)
    assert lines and all(line.levelno == logging.WARNING for line in lines)
    assert not any(promises(line.getMessage()) for line in lines) and not pub.state.fetch_exception


def test_a_supplementary_file_that_failed_promises_nothing(caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    """A supplement is a file beside the entry, not part of it: a busy server marks nothing, and its line says so."""
    from pubfetch.model.part_type import PartType
    from pubfetch.model.rich import RichName
    from pubfetch.model.structure import Supplement
    from pubfetch.resources.supplements import download_supplements

    run = fetch_run(1)
    url = run.services.base + "/files/s1.csv"
    run.transport.answers[url] = Canned(503, "busy", "text/plain")
    pub = run.pub_state(CLOSED.doi).pub
    pub.set_rich(RichName.supplements, [Supplement("S1", url=url)], PartType.europepmc_xml, "u")
    caplog.set_level(logging.DEBUG, logger="pubfetch")
    with run.context() as ctx:
        done = download_supplements(ctx, [pub], tmp_path)
    [line] = failure_lines(caplog)
    assert (done.written, done.failed) == (0, 1)
    assert line.levelno == logging.WARNING and "server busy (HTTP 503)" in line.getMessage()
    assert not promises(line.getMessage()) and not pub.state.fetch_exception


def unreadable_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "unreadable" in r.getMessage()]


@pytest.mark.parametrize(("changes", "words"), [({}, (LATER_FETCH, LATER_RUN)),
                                                ({"fetch_exception_cooldown": -1, "retry_limit": 0}, (NEVER_LATER,))])
def test_an_unreadable_answer_marks_the_entry_and_its_warning_says_what_the_retry_rules_make_of_it(
        caplog: pytest.LogCaptureFixture, changes: dict[str, int], words: tuple[str, ...]) -> None:
    """A service's 200 that is not what it serves marks the entry like a failed request; its line says so too."""
    run = unpaywall_run(Canned(200, "<html>maintenance</html>", "application/json"), **changes)
    caplog.set_level(logging.DEBUG, logger="pubfetch")
    state = run.pub_state(DOI)
    with run.context() as ctx:
        unpaywall.fetch_unpaywall(ctx, [state])
    [line] = unreadable_lines(caplog)
    assert state.pub.state.fetch_exception and state.pub.state.failures == {"transient": 1}
    assert line.endswith(words), line


def test_a_fulltext_that_is_not_an_article_marks_the_entry_and_its_warning_promises_the_retry(
        caplog: pytest.LogCaptureFixture) -> None:
    run = fetch_run(1)
    caplog.set_level(logging.DEBUG, logger="pubfetch")
    run.transport.answers[run.config.endpoints.europepmc + "*"] = Canned(200, "<html>maintenance</html>",
                                                                         "application/xml")
    state = run.pub_state("PMC1234567")
    with run.context() as ctx:
        europepmc._fulltext_one(ctx, state)
    [line] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert state.pub.state.fetch_exception
    assert promises(line), line
