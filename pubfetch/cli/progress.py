"""The progress bar of fetching runs: tqdm on stderr, advancing as each entry completes, with rate, ETA and the counts
of final, partial and failed publications; warnings print above it, never glued to it."""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pubfetch.cli.logsetup import LIBRARY_INTERNALS, LOGGER


class _AboveTheBar(logging.Handler):
    """Writes log lines through tqdm, which clears the bar, prints the line and draws the bar again below it: the
    console's lines on stderr, and ``--log -``'s on stdout (the same terminal, or the same file with ``2>&1``)."""

    def __init__(self, replaced: logging.StreamHandler) -> None:
        super().__init__(replaced.level)
        self.replaced = replaced
        self.stream = replaced.stream
        self.setFormatter(replaced.formatter)
        self.filters = list(replaced.filters)  # the run's warnings are still gathered by kind

    def emit(self, record: logging.LogRecord) -> None:
        from tqdm import tqdm

        if record.levelno < self.replaced.level:  # the replaced handler stopped writing (its stream failed)
            return
        try:
            tqdm.write(self.format(record), file=self.stream)
        except Exception:  # a log line must never break the run; the replaced handler says what failed
            self.replaced.handleError(record)


class Progress:
    """Called with (number done, entry) as entries complete; shown only when enabled (a terminal, or --progress, and
    not --quiet). ``counts`` gives the figures shown after the bar (final, partial, failed)."""

    def __init__(self, label: str, total: int, enabled: bool,
                 counts: Callable[[], dict[str, int]] | None = None) -> None:
        self.enabled = enabled
        self.counts = counts
        self._bar: Any = None
        self._lock = threading.Lock()
        self._swapped: list[tuple[logging.Logger, logging.Handler, logging.Handler]] = []
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(total=total or None, desc=label, unit="", file=sys.stderr, dynamic_ncols=True,
                             mininterval=0.2, smoothing=0.1, leave=True)
            self._log_above_the_bar()

    def _log_above_the_bar(self) -> None:
        standard = (sys.stderr, sys.__stderr__, sys.stdout, sys.__stdout__)
        for logger in map(logging.getLogger, (LOGGER, *LIBRARY_INTERNALS)):
            for handler in list(logger.handlers):
                if isinstance(handler, logging.StreamHandler) and getattr(handler, "stream", None) in standard:
                    above = _AboveTheBar(handler)
                    logger.removeHandler(handler)
                    logger.addHandler(above)
                    self._swapped.append((logger, handler, above))

    def __call__(self, done: int, entry: object) -> None:
        with self._lock:  # entries complete on worker threads, also while the bar is being finished
            if self._bar is None:
                return
            self._bar.n = done
            if self.counts is not None:
                self._bar.set_postfix(self.counts(), refresh=False)
            self._bar.refresh()

    def finish(self) -> None:
        """Close the bar for good: entries completing later (after an interrupt) do not draw it again below the run's
        last lines."""
        with self._lock:
            bar, self._bar = self._bar, None
        if bar is not None:
            bar.close()
        for logger, handler, above in self._swapped:
            logger.removeHandler(above)
            logger.addHandler(handler)
        self._swapped.clear()


    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()


class CountedIds:
    """IDs read lazily with a total known beforehand (the non-comment lines of ID files), for the bar's ETA."""

    def __init__(self, ids: Iterable[Any], total: int) -> None:
        self._ids = ids
        self.total = total

    def __iter__(self) -> Iterator[Any]:
        return iter(self._ids)

    def __len__(self) -> int:
        return self.total


def count_id_lines(paths: Iterable[str]) -> int:
    """The lines of ID files that may hold an ID (not empty, not a # comment): a cheap first pass for the total."""
    total = 0
    for path in paths:
        try:
            with open(path, "rb") as f:
                total += sum(1 for line in f if line.strip() and not line.lstrip().startswith(b"#"))
        except OSError:
            pass  # reading the IDs reports it
    return total
