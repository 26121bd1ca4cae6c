"""The suite's own conftest: without the recorded-response corpus, or one of the machine's services, the tests that
need it are skipped with one line that says why, even under ``pytest -q`` (which prints no skip reasons) and on
pytest-xdist workers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("workers", [["-n", "0"], ["-n", "1"]], ids=["one-process", "xdist-worker"])
def test_the_missing_corpus_and_an_unreachable_service_are_named_in_one_line_each_under_q(
        tmp_path: Path, workers: list[str]) -> None:
    tests = tmp_path / "checkout" / "tests"  # no ../shared beside this checkout
    tests.mkdir(parents=True)
    conftest = (HERE / "conftest.py").read_text(encoding="utf-8")
    assert 'REDIS_TEST_URL = "redis://127.0.0.1:6379/13"' in conftest
    # a Redis at a port nothing listens on
    (tests / "conftest.py").write_text(conftest.replace("127.0.0.1:6379/13", "127.0.0.1:1/13"), encoding="utf-8")
    (tests / "test_uses_corpus.py").write_text(
        "def test_one(corpus_dir):\n    assert corpus_dir.is_dir()\n\n"
        "def test_two(corpus_dir):\n    assert corpus_dir.is_dir()\n\n"
        "def test_redis(redis_url):\n    assert redis_url\n\n"
        "def test_without():\n    assert True\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *workers, "tests"],
                          cwd=tests.parent, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    missing = tmp_path / "shared" / "corpus"
    lines = [line for line in done.stdout.splitlines() if " tests skipped: " in line]
    assert len(lines) == 2, done.stdout
    assert lines[0] == (f"2 tests skipped: recorded-response corpus not found at {missing} (clone ../shared beside the "
                        "repository to run these)")
    assert lines[1].startswith("1 tests skipped: Redis not reachable at 127.0.0.1:1: "), done.stdout
    assert "1 passed, 3 skipped" in done.stdout
