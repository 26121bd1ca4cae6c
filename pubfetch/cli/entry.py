"""The ``pubfetch`` command's entry point (the console script and ``python -m pubfetch``), cheap to import.

Loading the command's modules takes seconds on a loaded machine, and a Ctrl-C meanwhile would end in the traceback of
whichever import it cut. So until those modules are loaded, a Ctrl-C ends the process at once with the command's one
line and exit status 130; from then on the command's own handling (:mod:`pubfetch.interrupts`, ``KeyboardInterrupt``
caught around the run) decides. Once the command has returned, a Ctrl-C again ends the process at once, so that the
interpreter's shutdown (thread joins, weakref callbacks) is never cut into an "Exception ignored" traceback.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from types import FrameType

from pubfetch.cli.errors import EXIT_INTERRUPTED

#: what the command says when interrupted (as pubfetch.cli.main logs it)
INTERRUPTED_LINE = "pubfetch: error: interrupted\n"

__all__ = ["main"]


def _stop_now(signum: int, frame: FrameType | None) -> None:
    """Outside the command's own handling there is nothing to keep: say so and end, without unwinding."""
    os.write(2, INTERRUPTED_LINE.encode())
    os._exit(EXIT_INTERRUPTED)


def main() -> int:
    """Run the command line of ``sys.argv`` and return its exit status."""
    signal.signal(signal.SIGINT, _stop_now)
    try:
        from pubfetch.cli.main import main as run_command
        from pubfetch.interrupts import raise_keyboard_interrupt

        signal.signal(signal.SIGINT, raise_keyboard_interrupt)
        status = run_command()
    except KeyboardInterrupt:  # between the handlers, before the command catches it itself
        sys.stderr.write(INTERRUPTED_LINE)
        status = EXIT_INTERRUPTED
    with contextlib.suppress(OSError, ValueError):  # a reader gone away was the command's to report
        sys.stdout.flush()
        sys.stderr.flush()
    signal.signal(signal.SIGINT, _stop_now)
    return status
