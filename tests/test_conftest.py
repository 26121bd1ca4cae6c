"""The suite's own conftest: without the recorded-response corpus, the conformance tests are skipped with one line
that says why, even under ``pytest -q`` (which prints no skip reasons)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_the_missing_corpus_is_named_in_one_line_under_q(tmp_path: Path) -> None:
    tests = tmp_path / "checkout" / "tests"  # no ../shared beside this checkout
    tests.mkdir(parents=True)
    shutil.copy(HERE / "conftest.py", tests / "conftest.py")
    (tests / "test_uses_corpus.py").write_text(
        "def test_one(corpus_dir):\n    assert corpus_dir.is_dir()\n\n"
        "def test_two(corpus_dir):\n    assert corpus_dir.is_dir()\n\n"
        "def test_without():\n    assert True\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                          cwd=tests.parent, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    missing = tmp_path / "shared" / "corpus"
    lines = [line for line in done.stdout.splitlines() if "corpus not found" in line]
    assert lines == [f"2 tests skipped: recorded-response corpus not found at {missing} (clone ../shared beside the "
                     "repository to run these)"], done.stdout
    assert "1 passed, 2 skipped" in done.stdout
