"""The suite's compiled modules written once, by the pytest-xdist controller, before its workers start (see
``pytest_configure`` in tests/conftest.py).

On a fresh clone every worker would otherwise rewrite the assertions of all the test modules and compile them, and
compile pubfetch, each for itself at the same moment. Written here once, the workers read them. The files are
pytest's own and Python's: the rewritten test modules where and as pytest's import hook writes them
(``__pycache__/<name>.<python>-pytest-<version>.pyc``), the others by :mod:`compileall`. Only an optimisation: what
this pytest does not offer is left to the workers.
"""

from __future__ import annotations

import compileall
from pathlib import Path

import pytest


def write_all(config: pytest.Config, tests: Path) -> None:
    """Compile ``tests``' test modules as pytest's assertion rewriting does, and pubfetch and the support modules as
    Python does, where no up-to-date compiled file exists yet."""
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        rewrite_test, write_pyc, read_pyc = rewrite._rewrite_test, rewrite._write_pyc, rewrite._read_pyc
    except (ImportError, AttributeError, KeyError):
        return  # another pytest: the workers rewrite their modules themselves
    for source in sorted(tests.glob("test_*.py")):
        cache = rewrite.get_cache_dir(source)
        pyc = cache / (source.name[:-3] + rewrite.PYC_TAIL)
        if read_pyc(source, pyc) is not None or not rewrite.try_makedirs(cache):
            continue
        try:
            source_stat, code = rewrite_test(source, config)
        except SyntaxError:
            continue  # the worker's collection reports it
        write_pyc(state, code, source_stat, pyc)
    for directory in (tests / "support", tests.parent / "pubfetch"):
        compileall.compile_dir(directory, quiet=2)
