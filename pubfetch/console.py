"""pubfetch's log lines on stderr for a program that set up no logging of its own (``pubfetch: warning: ...``), and
the words that depend on who reads them.

A library leaves logging to the program that uses it; but in a program that configured none, Python's last-resort
handler prints a warning's bare words, which do not say they came from pubfetch (``www.ebi.ac.uk: GET ...: could not
connect``). :data:`CONSOLE`, on the ``pubfetch`` logger from the first run on (:func:`install`), prints warnings and
errors as the command line does, and only while the program has no logging of its own (no handler on the root logger):
once it has, the records are shown there, its way. The command line shows them with its own handlers and words them
for its runs: it marks the console as its own for a command (:mod:`pubfetch.cli.logsetup`).
"""

from __future__ import annotations

import logging
import sys

__all__ = ["CONSOLE", "LOGGER", "install", "line", "retry_note"]

LOGGER = "pubfetch"

#: What the line of a failed request ends with when the entry is asked again later (fetchException): a library
#: caller's next fetch of it asks again, a command's next run does.
LATER_FETCH = "a later fetch retries it"
LATER_RUN = "a later run retries it"
#: ... and when the entry is marked but PubFetcher's retry rules let the failure bring no later fetch (no retry left
#: under retryLimit and a negative fetchExceptionCooldown); an entry left empty or non-final is still fetched again
#: once emptyCooldown or nonFinalCooldown has passed, which is not known yet when the failure is told
NEVER_LATER = "marked failed, but the failure brings no retry (no retry left under retryLimit, negative " \
              "fetchExceptionCooldown)"


def line(record: logging.LogRecord) -> str:
    """A record as one console line: ``pubfetch: <level>: <message>``."""
    return f"pubfetch: {record.levelname.lower()}: {record.getMessage()}"


class _LibraryConsole(logging.Handler):
    """Warnings and errors on the stderr of the moment (``sys.stderr`` when each is written, as Python's last-resort
    handler does), while the program has no logging configured and no command runs."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        #: a command of the command line runs: its handlers show the records, in its words
        self.command_line = False

    def emit(self, record: logging.LogRecord) -> None:
        if self.command_line or logging.getLogger().handlers:  # the command's or the program's logging shows it
            return
        try:
            sys.stderr.write(line(record) + "\n")
        except Exception:  # logging must never raise into the run (logging's own rule)
            self.handleError(record)


CONSOLE = _LibraryConsole()


def install() -> None:
    """Put :data:`CONSOLE` on the ``pubfetch`` logger (once, whatever the number of runs)."""
    logger = logging.getLogger(LOGGER)
    if CONSOLE not in logger.handlers:
        logger.addHandler(CONSOLE)


def retry_note(later: bool = True) -> str:
    """The words for a failure that marked its entry for a later fetch (fetchException), for whoever reads them now;
    ``later``: whether the retry rules let a later fetch come (:meth:`pubfetch.model.entry.FetchState.retried_later`).
    Only the code that marked the entry says them (:class:`pubfetch.net.outcome.EntryPolicy`,
    :meth:`pubfetch.model.entry.FetchState.retry_words`)."""
    if not later:
        return NEVER_LATER
    return LATER_RUN if CONSOLE.command_line else LATER_FETCH
