"""Logging for one command-line run: warnings and errors on stderr, everything (with debug messages) in ``--log FILE``.

The console shows only what a user must act on (skipped IDs, missing entries, failures) so that stdout stays clean
for pipes and stderr stays short; ``--verbose`` adds the informational step-by-step messages PubFetcher prints.
The log file gets timestamps and the logger names, as PubFetcher's does, and is appended to so that repeated runs of
a long job keep one history.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from pubfetch._version import __version__
from pubfetch.cli.errors import InputError

LOGGER = "pubfetch"


class _ConsoleFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"pubfetch: {record.levelname.lower()}: {record.getMessage()}"


_SECRET_OPTIONS = frozenset({"--ncbi-api-key"})


def _redacted(argv: Sequence[str]) -> list[str]:
    """The command line with the values of secret options (the NCBI API key) replaced, for the log file."""
    out = list(argv)
    for i, word in enumerate(out[:-1]):
        if word in _SECRET_OPTIONS:
            out[i + 1] = "***"
    return out


class _LogFile(logging.FileHandler):
    """The ``--log`` file. When a write fails (a full disk, a removed mount), logging's default prints a traceback for
    EVERY later record; this handler says so once on stderr and stops writing to the file, and the run goes on (its
    exit status tells, see :attr:`LogSetup.failed`)."""

    failed: str | None = None

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        if self.failed is not None:
            return
        error = sys.exc_info()[1]
        self.failed = f"cannot write log file '{self.baseFilename}': {getattr(error, 'strerror', None) or error}"
        print(f"pubfetch: error: {self.failed}; no more is written to it", file=sys.stderr)
        self.setLevel(logging.CRITICAL + 1)

    def close(self) -> None:
        with contextlib.suppress(OSError):  # the final flush of a full disk; already reported
            super().close()


@dataclass
class LogSetup:
    """The handlers added for this run, removed again by :meth:`close` (main() may be called many times in tests)."""

    handlers: list[logging.Handler] = field(default_factory=list)
    old_level: int = logging.NOTSET
    old_propagate: bool = True

    @property
    def failed(self) -> str | None:
        """Why the log file could not be written to (``None``: it could, or there is none)."""
        return next((h.failed for h in self.handlers if isinstance(h, _LogFile) and h.failed), None)

    def close(self) -> None:
        logger = logging.getLogger(LOGGER)
        for h in self.handlers:
            logger.removeHandler(h)
            h.close()
        logger.setLevel(self.old_level)
        logger.propagate = self.old_propagate


def configure(log_file: str | None, verbose: bool, argv: Sequence[str]) -> LogSetup:
    """Attach a stderr handler and, with ``--log``, an appending file handler to the ``pubfetch`` logger."""
    logger = logging.getLogger(LOGGER)
    setup = LogSetup(old_level=logger.level, old_propagate=logger.propagate)
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.INFO if verbose else logging.WARNING)
    console.setFormatter(_ConsoleFormatter())
    setup.handlers.append(console)
    if log_file is not None:
        try:
            parent = os.path.dirname(log_file)
            if parent:
                os.makedirs(parent, exist_ok=True)
            file_handler = _LogFile(log_file, mode="a", encoding="utf-8")
        except OSError as e:
            raise InputError(f"cannot open log file '{log_file}': {e.strerror or e}") from None
        file_handler.setLevel(logging.DEBUG)
        file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
        setup.handlers.append(file_handler)
    for h in setup.handlers:
        logger.addHandler(h)
    logger.setLevel(logging.DEBUG if log_file is not None else console.level)
    logger.propagate = False
    log = logging.getLogger(__name__)
    log.debug("pubfetch %s", " ".join(_redacted(argv)))
    log.info("This is pubfetch %s", __version__)
    return setup
