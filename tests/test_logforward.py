"""A pool's worker processes log through the parent (pubfetch/logforward.py): each record reaches the parent's logger
of its name, with its level, message and exception text, and only records of the level the parent logs go."""

from __future__ import annotations

import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

from pubfetch.logforward import forwarded_logs


def _say(level: int) -> int:
    """In a worker: a record of ``level`` and one with an exception, on a pubfetch logger."""
    log = logging.getLogger("pubfetch.tests.worker")
    log.log(level, "record %d of a worker", level)
    try:
        raise ValueError("what went wrong")
    except ValueError:
        log.exception("failed in a worker")
    return level


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def kept():
    """What the parent's pubfetch logger receives, at the level it is set to (INFO)."""
    handler = _Kept()
    logger = logging.getLogger("pubfetch")
    before = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(before)


def test_a_workers_records_reach_the_parents_loggers(kept) -> None:
    context = multiprocessing.get_context("spawn")
    with forwarded_logs(context) as (initializer, initargs), ProcessPoolExecutor(
            max_workers=2, mp_context=context, initializer=initializer, initargs=initargs) as pool:
        assert sorted(pool.map(_say, [logging.DEBUG, logging.WARNING])) == [logging.DEBUG, logging.WARNING]
    said = [(r.name, r.levelname, r.getMessage()) for r in kept.records]
    # the DEBUG record stays in its worker: the parent's pubfetch logger is at INFO
    assert sorted(said) == sorted([("pubfetch.tests.worker", "ERROR", "failed in a worker"),
                                   ("pubfetch.tests.worker", "ERROR", "failed in a worker"),
                                   ("pubfetch.tests.worker", "WARNING", f"record {logging.WARNING} of a worker")])
    failures = [r for r in kept.records if r.levelname == "ERROR"]
    assert all("ValueError: what went wrong" in (r.exc_text or "") for r in failures)
    assert {r.process for r in kept.records} - {multiprocessing.current_process().pid}  # from the workers
