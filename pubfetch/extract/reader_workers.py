"""The page-reading worker processes: every door that reads a fetched page (a publisher's page, a webpage or doc, a
rule test's page) reads it in one of them, under the run's page time and memory limits.

A page is whatever its server sent, and reading one (lxml's parse, the rules' selectors, the generic reader's passes,
the automatic cleaning) runs in C and in Python that holds the interpreter lock: a page built to make any of it slow
would stop every thread of the process, the Celery worker's heartbeat and signal handlers included, and a tag-dense
page takes about a hundred bytes of memory per byte of HTML. So pages are read as PDFs are extracted, in worker
processes reused from page to page (:class:`~pubfetch.extract.workerpool.WorkerPool`) that are killed at the page's
time limit and capped in memory; the waiting thread holds no lock and gets the job's value, or why the page was
abandoned.

A reading job is a module-level function ``job(*args, rules=...)`` whose arguments and value pickle (the page's HTML as
one string, a dataclass back). Compiled rules do not pickle, so each worker builds the run's scraping rules once, from
the texts the run's rules were made of, and hands them to every job it runs; the job's log records come back with its
value and are told again in the run's process as if the page had been read there.
"""

from __future__ import annotations

import functools
import gc
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pubfetch.extract.workerpool import Outcome, WorkerPool
from pubfetch.rules import RuleSource, ScrapingRules

__all__ = ["PAGES_PER_WORKER", "Abandoned", "PRELOAD", "PageReaders", "page_workers", "read_isolated"]

T = TypeVar("T")

#: What the workers' fork server imports: the page readers, the PDF extractor, and the warm-up that parses the built-in
#: rules and compiles what a first page needs once for every worker (one server serves both pools of a process, and
#: the first pool to start it decides).
PRELOAD = ("pubfetch.extract.page_read", "pubfetch.extract.webpage_read", "pubfetch.extract.pdf",
           "pubfetch.extract.reader_preload")
#: Pages a worker reads before it is replaced: a new worker compiles again the selectors of the user's rule files and
#: any the warm-up did not use, which the pool's default of 200 jobs would make a few per cent of a page's time; the
#: memory cap still holds per page.
PAGES_PER_WORKER = 2000
#: The logger whose records a worker sends back with a job's value (the package's).
_PACKAGE_LOGGER = "pubfetch"

Records = list[tuple[str, int, str]]


# ---------------------------------------------------------------------------------------------------------------------
# The worker side
# ---------------------------------------------------------------------------------------------------------------------

#: The worker's rules, built once by :func:`_install_rules` when the worker starts.
_worker_rules: ScrapingRules | None = None


def _install_rules(sources: tuple[RuleSource, ...]) -> None:
    """Run once in each worker: the run's rules, rebuilt from their texts (the built-in files' found parsed by the
    fork server, :mod:`pubfetch.extract.reader_preload`)."""
    global _worker_rules  # noqa: PLW0603 - one worker process, one set of rules
    _worker_rules = ScrapingRules.from_sources(sources)
    logging.getLogger(_PACKAGE_LOGGER).propagate = False  # its records go back to the run, not to this stderr
    gc.freeze()  # the libraries and rules stay for the worker's life: the collections a page's tree sets off skip them


class _Collect(logging.Handler):
    """The records of one job, kept to be sent back with its value."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: Records = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.exc_info:
            message += "\n" + logging.Formatter().formatException(record.exc_info)
        self.records.append((record.name, record.levelno, message))


def _run_job(job: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any], level: int
             ) -> tuple[Any, Records]:
    """What a worker runs: ``job`` with the worker's rules, and its log records at the run's level."""
    if _worker_rules is None:
        raise RuntimeError("page worker started without its rules")
    logger = logging.getLogger(_PACKAGE_LOGGER)
    logger.setLevel(level)
    collect = _Collect()
    logger.addHandler(collect)
    try:
        value = job(*args, rules=_worker_rules, **kwargs)
    finally:
        logger.removeHandler(collect)
    return value, collect.records


# ---------------------------------------------------------------------------------------------------------------------
# The run's side
# ---------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PageReaders:
    """Page workers and the budget of each page they read (``page_time_limit`` seconds, ``page_memory_limit`` bytes):
    what a caller without a run's ``Context`` (the rule tests) hands to the code that reads its pages."""

    workers: WorkerPool
    time_limit: float
    memory_limit: int


def page_workers(size: int, rules: ScrapingRules) -> WorkerPool:
    """Worker processes that read pages with ``rules``, reused from page to page: at most ``size`` of them, each
    started on first need from a fork server that has the readers (lxml, BeautifulSoup, trafilatura) imported. The
    owner closes the pool (``Context.close`` for a fetch run)."""
    return WorkerPool(size, setup=functools.partial(_install_rules, rules.sources), preload=PRELOAD,
                      max_jobs=PAGES_PER_WORKER, name="pubfetch-page")


def _level() -> int:
    """The lowest level the run's process would show of the package's records: the worker keeps only those."""
    logger = logging.getLogger(_PACKAGE_LOGGER)
    return next((level for level in (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR)
                 if logger.isEnabledFor(level)), logging.CRITICAL)


def _tell(records: Sequence[tuple[str, int, str]]) -> None:
    for name, level, message in records:
        logger = logging.getLogger(name)
        if logger.isEnabledFor(level):
            logger.log(level, "%s", message)


def read_isolated(job: Callable[..., T], args: tuple[Any, ...], rules: ScrapingRules, workers: WorkerPool | None,
                  *, time_limit: float, memory_limit: int, **kwargs: Any) -> T | Abandoned:
    """``job(*args, rules=rules, **kwargs)`` in one of ``workers`` (with the worker's copy of ``rules``), killed after
    ``time_limit`` seconds, its address space capped at ``memory_limit`` bytes (0: no cap): the job's value (never a
    string), or why the page was abandoned (over its time or memory, or the reader failed on it), in the words of the
    warning its caller gives. Without ``workers`` (a caller with no run to own them) the job runs here, unprotected;
    a daemonic process (a Celery ``--pool prefork`` child) starts its workers too (``pubfetch.extract.workerpool``)."""
    if workers is None:
        return job(*args, rules=rules, **kwargs)
    outcome = workers.run(_run_job, job, args, kwargs, _level(), time_limit=time_limit, memory_limit=memory_limit)
    if outcome.kind == "ok" and isinstance(outcome.value, tuple):
        value, records = outcome.value
        _tell(records)
        return value
    return _abandoned(outcome, time_limit, memory_limit)


class Abandoned(str):
    """Why a page's reading gave nothing (the text, naming the setting that would let it through), with how it ended
    (``kind``: the worker's outcome, ``timeout``, ``memory``, ``died``, ``raised``, ``closed``...), so that a caller
    records a slow page, a page too large and a reader's failure each in its own words."""

    kind: str

    def __new__(cls, text: str, kind: str) -> Abandoned:
        value = super().__new__(cls, text)
        value.kind = kind
        return value

    @property
    def is_bug(self) -> bool:
        """The reader raised on the page: pubfetch's failure, not the page's (not worth retrying it)."""
        return self.kind == "raised"

    @property
    def what_next(self) -> str:
        """The end of the warning when the page's entry is not marked for a later fetch: whom to tell about a reader
        that raised; else that the page is not retried (the caller that marks the entry says so itself, from the
        entry's state)."""
        if self.is_bug:
            return "this is a bug in pubfetch: please report it with the page's URL"
        return "not retried"


def _abandoned(outcome: Outcome, time_limit: float, memory_limit: int) -> Abandoned:
    """Why a page's reading gave nothing, naming the setting that would let it through."""
    if outcome.kind == "timeout":
        text = (f"not read within the page time limit of {time_limit:g} s (page_time_limit; raise it to give pages "
                "longer)")
    elif outcome.kind == "memory":
        text = (f"needed more than the page memory limit of {memory_limit:,} bytes (page_memory_limit; raise it to "
                "give pages more)")
    elif outcome.kind == "died":
        cap = f"; the page memory limit is {memory_limit:,} bytes (page_memory_limit)" if memory_limit > 0 else ""
        text = f"its reader process died (exit code {outcome.exitcode}{cap})"
    elif outcome.kind == "closed":
        text = "the run was closing"
    else:
        text = f"its reader failed: {outcome.message}"
    return Abandoned(text, outcome.kind)
