"""Logging for one command-line run: warnings and errors on stderr, everything (with debug messages) in ``--log FILE``.

The console shows only what a user must act on (skipped IDs, missing entries, failures) so that stdout stays clean
for pipes and stderr stays short; ``--verbose`` adds the informational step-by-step messages PubFetcher prints.
The library's warnings (a service's 404s, a record missing from a batch answer) come by the hundred in a long run, so
the console gathers them by kind (a service's 404s are one kind, whichever host gave them) and prints one line per
kind, with the count and the hosts, when the run's results are reported (or before an error); each one is in the log
file as it happens.
The log file gets timestamps and the logger names, as PubFetcher's does, and is appended to so that repeated runs of
a long job keep one history.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from pubfetch import console as library_console
from pubfetch._version import __version__
from pubfetch.cli.errors import InputError
from pubfetch.console import LOGGER
from pubfetch.textutil import counted


class _ConsoleFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return library_console.line(record)


#: Loggers of libraries pubfetch drives whose complaints are about its own internals, not the user's run (asyncio's
#: "Future exception was never retrieved" from Playwright's driver after a Ctrl-C): the log file only.
LIBRARY_INTERNALS = ("asyncio",)

#: Loggers whose warnings are printed as they come: the command's own (what it read, what it skipped).
_LIVE = ("pubfetch.cli",)


def warning_kind(record: logging.LogRecord) -> tuple[str, ...]:
    """What makes two warnings the same kind of problem: the ``kind`` a logger gave (``extra={"kind": ...}``), else
    the logger and the message's format string (the same sentence about other IDs or URLs)."""
    kind = getattr(record, "kind", None)
    return (record.name, str(kind)) if kind is not None else (record.name, str(record.msg))


@dataclass
class _Kind:
    first: str
    count: int = 0
    #: how many of them each host gave, for the kinds a logger names a host of (``extra={"host": ...}``)
    hosts: Counter[str] = field(default_factory=Counter)

    def line(self, where: str) -> str:
        """The first one's words, and how many more there were (from which hosts, when they name one)."""
        if self.count == 1:
            return self.first
        hosts = ""
        if len(self.hosts) > 1:
            common = self.hosts.most_common()
            named = ", ".join(f"{host} {n}" for host, n in common[:_HOSTS_NAMED])
            rest = common[_HOSTS_NAMED:]
            others = f", {counted(len(rest), 'other host')} {sum(n for _, n in rest)}" if rest else ""
            hosts = f": {named}{others}"
        return f"{self.first} (and {self.count - 1} more like it{hosts}; {where})"


#: How many hosts a gathered line names with their counts (the rest are counted together).
_HOSTS_NAMED = 5


class RunWarnings(logging.Filter):
    """Keeps the library's warnings off the console as they come (the filter of the console handler) and prints them
    by kind on :meth:`flush`: the first one's words, and how many more of its kind there were."""

    def __init__(self, log_file: str | None) -> None:
        super().__init__()
        self.log_file = log_file
        self.kinds: dict[tuple[str, ...], _Kind] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR:
            self.flush()  # what led to the error is said before it
            return True
        if record.levelno != logging.WARNING or record.name.startswith(_LIVE):
            return True
        kind = self.kinds.setdefault(warning_kind(record), _Kind(record.getMessage()))
        kind.count += 1
        host = getattr(record, "host", None)
        if host is not None:
            kind.hosts[str(host)] += 1
        return False

    def flush(self) -> None:
        """Print one line per kind of warning gathered since the last flush."""
        kinds, self.kinds = self.kinds, {}
        where = ("all in the log on standard output" if self.log_file == "-" else f"all in {self.log_file}") \
            if self.log_file else "--log FILE keeps them all"
        for kind in kinds.values():
            print(f"pubfetch: warning: {kind.line(where)}", file=sys.stderr)


_SECRET_OPTIONS = frozenset({"--ncbi-api-key", "--openalex-api-key"})


def _redacted(argv: Sequence[str]) -> list[str]:
    """The command line with the values of secret options (the NCBI and OpenAlex API keys) replaced, for the log."""
    out = list(argv)
    for i, word in enumerate(out[:-1]):
        if word in _SECRET_OPTIONS:
            out[i + 1] = "***"
    return out


class _LogSink(logging.Handler):
    """What the ``--log`` handlers share. When a write fails (a full disk, a removed mount, a reader of standard
    output gone), logging's default prints a traceback for EVERY later record; this handler says so once on stderr and
    stops writing, and the run goes on (its exit status tells, see :attr:`LogSetup.failed`)."""

    failed: str | None = None

    def where(self) -> str:
        """The log's destination, in the words of the error line."""
        raise NotImplementedError

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        if self.failed is not None:
            return
        error = sys.exc_info()[1]
        self.failed = f"cannot write {self.where()}: {getattr(error, 'strerror', None) or error}"
        print(f"pubfetch: error: {self.failed}; no more is written to it", file=sys.stderr)
        self.setLevel(logging.CRITICAL + 1)


class _LogFile(_LogSink, logging.FileHandler):
    """The ``--log`` file."""

    def where(self) -> str:
        return f"log file '{self.baseFilename}'"

    def close(self) -> None:
        with contextlib.suppress(OSError):  # the final flush of a full disk; already reported
            super().close()


class _LogStdout(_LogSink, logging.StreamHandler):
    """``--log -``: the log on standard output (nothing else writes there: pubfetch.cli.preflight). A reader that went
    away ends the log quietly, as it ends ``-out``; a failed write (a full disk) is told as for a file."""

    def __init__(self) -> None:
        super().__init__(sys.stdout)

    def where(self) -> str:
        return "the log to standard output"

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        if isinstance(sys.exc_info()[1], BrokenPipeError):  # its reader went away (``| head``): as for -out, no error
            self.setLevel(logging.CRITICAL + 1)
            return
        super().handleError(record)


#: the handlers of ``--log``, which also take the library internals' records
_LOG_HANDLERS = (_LogFile, _LogStdout)


@dataclass
class LogSetup:
    """The handlers added for this run, removed again by :meth:`close` (main() may be called many times in tests)."""

    handlers: list[logging.Handler] = field(default_factory=list)
    old_level: int = logging.NOTSET
    old_propagate: bool = True
    warnings: RunWarnings = field(default_factory=lambda: RunWarnings(None))
    #: the warning filters and ``showwarning`` as they were before the command (restored by :meth:`close`)
    python_warnings: contextlib.AbstractContextManager[object] | None = None

    def flush_warnings(self) -> None:
        """The gathered warnings, one line per kind (before the run's summary line)."""
        self.warnings.flush()

    @property
    def failed(self) -> str | None:
        """Why the log file could not be written to (``None``: it could, or there is none)."""
        return next((h.failed for h in self.handlers if isinstance(h, _LOG_HANDLERS) and h.failed), None)

    def close(self) -> None:
        self.warnings.flush()
        library_console.CONSOLE.command_line = False
        if self.python_warnings is not None:
            self.python_warnings.__exit__(None, None, None)
            self.python_warnings = None
        logger = logging.getLogger(LOGGER)
        for h in self.handlers:
            logger.removeHandler(h)
            h.close()
        logger.setLevel(self.old_level)
        logger.propagate = self.old_propagate
        for name in LIBRARY_INTERNALS:
            inner = logging.getLogger(name)
            for h in inner.handlers[:]:
                if h in self.handlers or isinstance(h, logging.NullHandler):
                    inner.removeHandler(h)
            inner.propagate = True


def _log_format(handler: logging.Handler) -> logging.Handler:
    """The ``--log`` handler's level and format: everything, with timestamps and the loggers' names."""
    handler.setLevel(logging.DEBUG)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
    return handler


def configure(log_file: str | None, verbose: bool, argv: Sequence[str]) -> LogSetup:
    """Attach a stderr handler and, with ``--log``, an appending file handler (``-``: standard output) to the
    ``pubfetch`` logger."""
    logger = logging.getLogger(LOGGER)
    setup = LogSetup(old_level=logger.level, old_propagate=logger.propagate, warnings=RunWarnings(log_file))
    library_console.CONSOLE.command_line = True  # this command's handlers show the records, in its words
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.INFO if verbose else logging.WARNING)
    console.setFormatter(_ConsoleFormatter())
    console.addFilter(setup.warnings)
    setup.handlers.append(console)
    if log_file == "-":
        setup.handlers.append(_log_format(_LogStdout()))
    elif log_file is not None:
        from pubfetch.cli.preflight import why_not_writable

        why = why_not_writable(log_file)  # the rule and the words of every output file option
        if why:
            raise InputError(f"cannot write log file '{log_file}' (--log): {why}")
        try:
            parent = os.path.dirname(log_file)
            if parent:
                os.makedirs(parent, exist_ok=True)
            file_handler = _LogFile(log_file, mode="a", encoding="utf-8")
        except OSError as e:
            raise InputError(f"cannot open log file '{log_file}': {e.strerror or e}") from None
        setup.handlers.append(_log_format(file_handler))
    for h in setup.handlers:
        logger.addHandler(h)
    for name in LIBRARY_INTERNALS:
        inner = logging.getLogger(name)
        inner.addHandler(logging.NullHandler())
        inner.handlers.extend(h for h in setup.handlers if isinstance(h, _LOG_HANDLERS))
        inner.propagate = False
    logger.setLevel(logging.DEBUG if log_file is not None else console.level)
    logger.propagate = False
    _show_settings_warnings(setup)
    log = logging.getLogger(__name__)
    log.debug("pubfetch %s", " ".join(_redacted(argv)))
    log.info("This is pubfetch %s", __version__)
    return setup


def _show_settings_warnings(setup: LogSetup) -> None:
    """The library's :class:`~pubfetch.resources.base.PubfetchWarning` (an e-mail address missing) as a console line
    once per command: a fresh filter forgets what earlier commands of this process showed."""
    from pubfetch.resources.base import PubfetchWarning

    setup.python_warnings = warnings.catch_warnings()
    setup.python_warnings.__enter__()
    warnings.simplefilter("default", PubfetchWarning)
    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: TextIO | None = None,
             line: str | None = None) -> None:
        if issubclass(category, PubfetchWarning):
            logging.getLogger("pubfetch.settings").warning("%s", message, extra={"kind": str(message)})
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show
