"""A call's options as one frozen, typed object (pubfetch/engine/options.py), checked where the call is made, and the
one definition of ``fetch_many`` that makes it."""

from __future__ import annotations

import ast
import dataclasses
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

import pubfetch
import pubfetch.fetcher
from pubfetch.engine.options import ERRORS, FetchOptions, checked_errors
from support.fetchrun import fetch_run
from support.synthetic import Article

PACKAGE = Path(pubfetch.__file__).parent


def test_the_options_are_frozen_and_default_to_what_the_command_line_does() -> None:
    options = FetchOptions()
    assert (options.errors, options.use_stored, options.retry_exceptions) == ("skip", True, True)
    assert options.progress is options.summary is options.deferred is options.edges is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.errors = "raise"  # type: ignore[misc]
    with pytest.raises(TypeError):  # keyword-only: no option is taken for another by its position
        FetchOptions(None)  # type: ignore[misc]


def test_errors_is_a_literal_type_in_the_options_and_in_fetch_many() -> None:
    errors = typing.Literal["skip", "raise"]
    assert typing.get_type_hints(FetchOptions)["errors"] == errors
    assert typing.get_type_hints(pubfetch.fetcher.fetch_many)["errors"] == errors
    assert typing.get_type_hints(pubfetch.fetcher.fetch_retries)["errors"] == errors
    assert ERRORS == ("skip", "raise")


def test_a_bad_errors_value_is_refused_with_one_line() -> None:
    assert checked_errors("raise") == "raise"
    for made in (lambda: FetchOptions(errors="ignore"), lambda: checked_errors("ignore")):  # type: ignore[arg-type]
        with pytest.raises(ValueError) as refused:
            made()
        assert str(refused.value) == "errors must be 'skip' or 'raise', not 'ignore'"


def test_fetch_many_refuses_a_bad_errors_value_when_called_before_reading_an_id() -> None:
    read: list[str] = []

    def ids() -> Iterator[str]:
        read.append("read")
        yield Article(0).pmid

    with pytest.raises(ValueError, match=r"^errors must be 'skip' or 'raise', not 'ignore'$"):
        pubfetch.fetch_many(ids(), errors="ignore")  # type: ignore[arg-type]  # not iterated: refused at the call
    with pytest.raises(ValueError, match="deferred= cannot be given with citations="):
        pubfetch.fetch_many(ids(), citations=True, deferred=[])
    assert read == []


def test_the_options_reach_the_batches_as_given() -> None:
    """progress, summary and errors given to fetch_many do their work down in the run's batches."""
    run = fetch_run(2)
    done: list[int] = []
    pubs = run.fetch([Article(0).pmid, "not-an-id", Article(1).pmid], progress=lambda n, pub: done.append(n))
    assert [p.pmid.content for p in pubs] == [Article(0).pmid, Article(1).pmid]
    assert sorted(done) == [1, 2]


def test_fetch_many_is_defined_once() -> None:
    assert pubfetch.fetch_many is pubfetch.fetcher.fetch_many
    defined = [str(path.relative_to(PACKAGE)) for path in sorted(PACKAGE.rglob("*.py"))
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.FunctionDef) and node.name == "fetch_many"]
    assert defined == ["fetcher.py"]
