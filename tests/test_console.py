"""pubfetch's lines on stderr in a program that set up no logging (pubfetch/console.py): each says it is pubfetch's,
and a failed request's line says what the library caller's next fetch does; a program with its own logging gets the
records its way, once. Each case runs a fresh interpreter: what is shown depends on the process's logging as a program
leaves it, which the test process's own (pytest's) would hide."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.loopback import LoopbackServer

REPO = Path(__file__).resolve().parent.parent

#: A library call whose every request gets a 404 (the services of ``_unknown_everywhere``).
FETCH = """
import pubfetch
try:
    pubfetch.fetch("22338609", allow_private_addresses=True, rate_limits=False)
except pubfetch.FetchError as e:
    print("FetchError")
"""


def _stderr(script: str, env: dict[str, str]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0 and done.stdout == "FetchError\n", (done.stdout, done.stderr)
    return done.stderr.splitlines()


@pytest.fixture
def unknown_everywhere(env: Path) -> Iterator[dict[str, str]]:
    """The environment of a program whose services answer every request with 404."""
    with LoopbackServer({}) as server:
        variables = dict(os.environ, PUBFETCH_NCBI_EMAIL="curator@example.org",
                         PUBFETCH_UNPAYWALL_EMAIL="curator@example.org")
        for name in ("EUROPEPMC", "EUROPEPMC_ANNOTATIONS", "EUTILS", "PUBMED", "DOI", "UNPAYWALL"):
            variables[f"PUBFETCH_{name}_URL"] = server.url(f"/{name.lower()}/")
        yield variables


def test_without_logging_each_line_says_it_is_pubfetchs_in_a_library_callers_words(
        unknown_everywhere: dict[str, str]) -> None:
    lines = _stderr(FETCH, unknown_everywhere)
    assert lines, "the failed requests are told"
    assert all(line.startswith("pubfetch: warning: 127.0.0.1: ") for line in lines), lines
    assert "pubfetch: warning: 127.0.0.1: GET /europepmc/search: not found (HTTP 404); a later fetch retries it" \
        in lines
    assert not any("a later run" in line for line in lines)


def test_a_program_with_its_own_logging_gets_each_record_once_its_way(unknown_everywhere: dict[str, str]) -> None:
    lines = _stderr("import logging; logging.basicConfig(format='%(levelname)s %(name)s %(message)s')\n" + FETCH,
                    unknown_everywhere)
    assert "WARNING pubfetch.net.client 127.0.0.1: GET /europepmc/search: not found (HTTP 404); a later fetch " \
           "retries it" in lines
    assert not any(line.startswith("pubfetch: ") for line in lines), lines
