"""The page workers' fork server warms up once for all of them (pubfetch/extract/reader_preload.py): a worker starts
with the built-in rule files parsed and what a first page compiles already compiled."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.extract.page_read import read_page
from pubfetch.extract.reader_workers import PRELOAD
from pubfetch.rules import RuleError, ScrapingRules, ruleset

TESTS = Path(__file__).resolve().parent


def test_a_worker_starts_with_the_built_in_rules_parsed_by_its_fork_server() -> None:
    """In a process of its own, so that a page worker pool starts the fork server (the first pool of a process
    decides what the server imports): the worker's rules are rebuilt from their texts without parsing them again."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS.parent), str(TESTS), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "support.warm_workers"], cwd=TESTS.parent, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    # one parse of each built-in file, in the fork server; the worker's rules found both parsed
    assert seen == {"journals": [1, 1], "webpages": [1, 1]}, seen


def test_the_warm_up_leaves_the_rules_parsed_and_a_page_read_as_without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "pubfetch.extract.reader_preload" in PRELOAD
    ruleset._journals_layer.cache_clear()
    ruleset._webpages_layer.cache_clear()
    preload = importlib.import_module("pubfetch.extract.reader_preload")
    importlib.reload(preload)  # as the fork server imports it: into a process where nothing was parsed yet

    def no_parse(text: str, file: str) -> object:
        raise AssertionError(f"{file} parsed again")

    monkeypatch.setattr(ruleset, "yaml_documents", no_parse)
    rules = ScrapingRules.from_sources(ScrapingRules.load().sources)
    assert rules.site("https://www.frontiersin.org/articles/10.3389/fmicb.2019.00001/full") is not None
    page = "<html><head><title>Marsh</title></head><body><h1>Sediment and marshes</h1></body></html>"
    monkeypatch.undo()
    assert read_page(page, "https://marsh.example/a", rules, meta=True) == read_page(
        page, "https://marsh.example/a", ScrapingRules.load(), meta=True)


def test_built_in_rules_that_do_not_load_leave_the_fork_server_starting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The run that starts the workers loads the same files and says what is wrong with them; the server only skips
    its warm-up."""

    def broken(*args: object) -> ScrapingRules:
        raise RuleError("YAML syntax error: not YAML", file="journals.yaml", line=3)

    monkeypatch.setattr(ScrapingRules, "load", broken)
    importlib.reload(importlib.import_module("pubfetch.extract.reader_preload"))
