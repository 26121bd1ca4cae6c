"""The log records of worker processes handled by the parent's logging, as if they had been logged there.

A spawned worker starts with logging unconfigured, so its warnings went to stderr bare (logging's last resort): past
the console's one line per kind of warning, and missing from the ``--log`` file that is meant to hold the whole
story. Each worker is given a queue instead; a listener thread of the parent hands every record to the logger of its
name in the parent, whose filters and handlers then treat it as one of its own.
"""

from __future__ import annotations

import copy
import logging
import logging.handlers
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.context import BaseContext
from typing import Any

__all__ = ["forwarded_logs"]

#: The logger whose level a worker takes (the command line sets pubfetch's: DEBUG when there is a log file).
_LEVEL_OF = "pubfetch"


class _ToTheParentsLoggers(logging.Handler):
    """Hands a record from a worker to the parent's logger of the same name (its propagation, filters, handlers)."""

    def emit(self, record: logging.LogRecord) -> None:
        logging.getLogger(record.name).handle(record)


class _ToTheQueue(logging.handlers.QueueHandler):
    """A record made ready to cross to the parent: its message merged with its arguments (which may not pickle), its
    exception as text, kept apart from the message so that the parent's formatters place it as they place their own
    (the standard QueueHandler writes it into the message)."""

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        ready = copy.copy(record)
        if ready.exc_info and not ready.exc_text:
            ready.exc_text = logging.Formatter().formatException(ready.exc_info)
        ready.msg, ready.args, ready.exc_info = ready.getMessage(), None, None
        return ready


def _log_to(queue: Any, level: int) -> None:
    """A worker's logging: every record of ``level`` and above into ``queue``, nothing printed by the worker itself."""
    root = logging.getLogger()
    for handler in root.handlers[:]:
        root.removeHandler(handler)
    root.addHandler(_ToTheQueue(queue))
    root.setLevel(level)


@contextmanager
def forwarded_logs(context: BaseContext) -> Iterator[tuple[Any, tuple[Any, ...]]]:
    """The ``initializer`` and ``initargs`` that make a pool's workers (of ``context``) log through this process; the
    records still in the queue are handled when the block ends."""
    queue = context.Queue()
    listener = logging.handlers.QueueListener(queue, _ToTheParentsLoggers())
    listener.start()
    try:
        yield _log_to, (queue, logging.getLogger(_LEVEL_OF).getEffectiveLevel())
    finally:
        listener.stop()
        queue.close()
        queue.join_thread()
