"""The run context every resource works in (pubfetch/resources/base.py): the parts asked for, finality, warnings
once per run, work on the worker threads; and the small helpers resources share (e-mail addresses, chunks)."""

from __future__ import annotations

import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

from pubfetch.model.part_type import PartName
from pubfetch.model.publication import Publication
from pubfetch.resources.base import PubfetchWarning, chunks, email_address
from support.fetchrun import fetch_run


@pytest.mark.parametrize(("value", "address"), [
    ("curator@example.org", "curator@example.org"), ("  curator@example.org ", "curator@example.org"),
    ("@", ""), ("curator@", ""), ("@example.org", ""), ("a@b@c", ""), ("cur ator@example.org", ""), ("", "")])
def test_an_email_address_is_text_on_both_sides_of_one_at(value: str, address: str) -> None:
    assert email_address(value) == address


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
    # only PubfetchWarnings: "always" also records what another thread or a garbage collection warns meanwhile
    assert [str(w.message) for w in caught if w.category is PubfetchWarning] == ["something is missing"]


#: Three runs, each warning about the same setting and parsing pages that BeautifulSoup warns about (a page that is
#: only a URL, XML served as HTML), in a program that leaves Python's warning filters as they are.
_THREE_RUNS = """
from pubfetch.config import FetchConfig
from pubfetch.extract.clean import parse_html
from pubfetch.extract.webpage_read import text_length
from pubfetch.engine.assembly import FetchRun
for _ in range(3):
    with FetchRun(FetchConfig().with_changes(rate_limits=False)) as run:
        run.context.warn_once("ncbi-email", "NCBI E-utilities are asked without an e-mail address")
    parse_html("https://example.org/a-page-that-is-only-a-url")
    text_length('<?xml version="1.0"?><root><a>b</a></root>')
"""


def test_a_settings_warning_is_shown_once_per_process_however_many_pages_are_parsed() -> None:
    """Python's default filter shows a warning once per place; parsing a page must not make it forget (a
    ``catch_warnings`` around each parse did), and BeautifulSoup's own warnings about the pages are not shown."""
    done = subprocess.run([sys.executable, "-c", _THREE_RUNS], cwd=Path(__file__).resolve().parent.parent,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("PubfetchWarning: NCBI E-utilities are asked without an e-mail address") == 1, \
        done.stderr
    assert "Warning" not in done.stderr.replace("PubfetchWarning", ""), done.stderr


def test_the_context_maps_work_over_its_worker_threads_in_order() -> None:
    run = fetch_run(1, threads=3)
    with run.context() as ctx:
        names = ctx.map(lambda i: (i, threading.current_thread().name), list(range(6)))
        assert [i for i, _ in names] == list(range(6))
        assert all(name.startswith("pubfetch") for _, name in names)
        assert ctx.map(lambda i: threading.current_thread().name, [0]) == [threading.current_thread().name]
