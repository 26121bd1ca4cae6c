"""Running pubfetch's command line inside the test process, as a user would call it.

In-process (not a subprocess) so a test sees its monkeypatched environment and costs no interpreter start; the
``cli`` fixture of tests/conftest.py hands one of these to a test.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from pubfetch.cli.main import main


class CliRun(NamedTuple):
    """What one command printed and returned; compares equal to the tuple ``(code, out, err)``."""

    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        """Standard error as its lines: most messages are asserted line by line."""
        return self.err.splitlines()


class Cli:
    """``cli(*argv)`` runs ``pubfetch *argv`` (every argument through ``str``, so paths can be passed as they are).

    No command may end in a traceback, whatever its exit status: a user is owed a one-line message, so every run
    checks that on the way.
    """

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self._capsys = capsys

    def __call__(self, *argv: object) -> CliRun:
        code = main([str(a) for a in argv])
        captured = self._capsys.readouterr()
        assert "Traceback" not in captured.err, captured.err
        return CliRun(code, captured.out, captured.err)

    def lines(self, *argv: object) -> tuple[int, str, list[str]]:
        """As calling it, with standard error as its lines."""
        run = self(*argv)
        return run.code, run.out, run.lines


def usage_error(cli: Cli, *argv: object) -> str:
    """Run a command that must fail with exit status 2 and exactly one line on stderr; return that line."""
    code, out, err = cli(*argv)
    assert code == 2, (code, out, err)
    assert err.count("\n") == 1 and err.endswith("\n"), err
    return err.rstrip("\n")
