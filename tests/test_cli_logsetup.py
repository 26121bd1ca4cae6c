"""The command's logging: the library's warnings gathered by kind (one console line per kind, with the count; each
one in the log file as it happens), the command's own warnings and errors at once, and asyncio's complaints about
Playwright's internals kept off the console."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pubfetch.cli.logsetup import configure


def test_library_warnings_are_one_line_per_kind_with_the_count(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    log_file = tmp_path / "run.log"
    setup = configure(str(log_file), verbose=False, argv=["-pub", "1"])
    try:
        client = logging.getLogger("pubfetch.net.client")
        for pmid in ("1", "2", "3"):
            client.warning("%s: %s %s: %s", "api.example", "GET", f"/v2/{pmid}", "not found (HTTP 404)")
        logging.getLogger("pubfetch.resources.site").warning("DOI %s did not redirect (%s)", "10.1/x", "NOT_FOUND")
        logging.getLogger("pubfetch.cli").warning("skipping line %d: not an ID", 7)
        assert capsys.readouterr().err == "pubfetch: warning: skipping line 7: not an ID\n"  # the command's: at once
        setup.flush_warnings()
        assert capsys.readouterr().err.splitlines() == [
            f"pubfetch: warning: api.example: GET /v2/1: not found (HTTP 404) (and 2 more like it; all in {log_file})",
            "pubfetch: warning: DOI 10.1/x did not redirect (NOT_FOUND)"]
        setup.flush_warnings()
        assert capsys.readouterr().err == ""  # each said once
    finally:
        setup.close()
    logged = log_file.read_text()
    assert all(f"GET /v2/{pmid}: not found" in logged for pmid in ("1", "2", "3"))


def test_one_kind_from_many_hosts_is_one_line_counting_the_hosts(capsys: pytest.CaptureFixture[str]) -> None:
    """A service's 404s are one kind of problem whichever host gave them: one line, the hosts with their counts (the
    five most frequent named); what a later run retries is a kind apart, as its sentence differs."""
    setup = configure(None, verbose=False, argv=["-pub", "1"])
    client = logging.getLogger("pubfetch.net.client")
    hosts = {"a.test": 3, "b.test": 2, "c.test": 1, "d.test": 1, "e.test": 1, "f.test": 1, "g.test": 1}
    try:
        for host, n in hosts.items():
            for i in range(n):
                client.warning("%s: GET /%d: not found (HTTP 404)", host, i, extra={"kind": "NOT_FOUND 404 False",
                                                                                   "host": host})
        client.warning("h.test: GET /x: not found (HTTP 404); a later run retries it",
                       extra={"kind": "NOT_FOUND 404 True", "host": "h.test"})
        client.warning("a.test: GET /t: timed out", extra={"kind": "TIMEOUT  False", "host": "a.test"})
        client.warning("a.test: GET /u: timed out", extra={"kind": "TIMEOUT  False", "host": "a.test"})
        setup.flush_warnings()
    finally:
        setup.close()
    assert capsys.readouterr().err.splitlines() == [
        "pubfetch: warning: a.test: GET /0: not found (HTTP 404) (and 9 more like it: a.test 3, b.test 2, c.test 1, "
        "d.test 1, e.test 1, 2 other hosts 2; --log FILE keeps them all)",
        "pubfetch: warning: h.test: GET /x: not found (HTTP 404); a later run retries it",
        "pubfetch: warning: a.test: GET /t: timed out (and 1 more like it; --log FILE keeps them all)"]


def test_an_error_comes_after_the_warnings_that_led_to_it(capsys: pytest.CaptureFixture[str]) -> None:
    setup = configure(None, verbose=False, argv=["-pub", "1"])
    try:
        for path in ("/x", "/y"):
            logging.getLogger("pubfetch.net.client").warning("a.test: GET %s: timed out", path)
        logging.getLogger("pubfetch.cli").error("network unreachable")
    finally:
        setup.close()
    assert capsys.readouterr().err.splitlines() == [
        "pubfetch: warning: a.test: GET /x: timed out (and 1 more like it; --log FILE keeps them all)",
        "pubfetch: error: network unreachable"]


def test_asyncio_complaints_go_to_the_log_file_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log_file = tmp_path / "run.log"
    setup = configure(str(log_file), verbose=False, argv=["-pub", "1"])
    try:
        logging.getLogger("asyncio").error("Future exception was never retrieved")
    finally:
        setup.close()
    assert capsys.readouterr().err == ""
    assert "Future exception was never retrieved" in log_file.read_text()
    assert logging.getLogger("asyncio").propagate and not logging.getLogger("asyncio").handlers  # as it was
