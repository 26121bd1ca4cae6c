"""The command's entry point: the command's own exit status passed on; a Ctrl-C while the command's modules load
(tested on a real process in test_interrupts.py) ends with one line and status 130."""

from __future__ import annotations

import signal

import pytest

from pubfetch.cli import entry
from pubfetch.cli.errors import EXIT_INTERRUPTED


def test_the_command_s_status_is_returned_and_ctrl_c_after_it_ends_at_once(monkeypatch: pytest.MonkeyPatch,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    previous = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr("sys.argv", ["pubfetch", "--version"])
    try:
        assert entry.main() == 0
        assert signal.getsignal(signal.SIGINT) is entry._stop_now
    finally:
        signal.signal(signal.SIGINT, previous)
    assert capsys.readouterr().out.startswith("pubfetch ")


def test_a_keyboard_interrupt_between_the_handlers_is_one_line_and_130(monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted() -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr("pubfetch.cli.main.main", interrupted)
    previous = signal.getsignal(signal.SIGINT)
    try:
        assert entry.main() == EXIT_INTERRUPTED
    finally:
        signal.signal(signal.SIGINT, previous)
    assert capsys.readouterr().err == entry.INTERRUPTED_LINE
