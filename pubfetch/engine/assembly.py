"""One fetching run assembled from its :class:`~pubfetch.config.FetchConfig` (in the spirit of Scrapy's ``Crawler``):
the HTTP client and its layers, the shared rate limiter, the WARC recorder, the run's
:class:`~pubfetch.resources.base.Context` and the makers of what it starts on first need (the scraping rules, the
renderer, the PDF and page workers, the worker threads), the store and its writer, and their closing in one place.
The command line, the library calls (publications and webpages), the Celery task and the tests all build their run
here, so a setting means the same thing whichever of them runs it; nothing else builds a client or a context, or reads
a rule file (:func:`scraping_rules`).
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import TYPE_CHECKING, Self

from pubfetch.config import FetchConfig, rate_db_default
from pubfetch.engine.flow import InFlight
from pubfetch.engine.options import Errors, FetchOptions
from pubfetch.engine.overlap import retried, run_batches
from pubfetch.engine.resume import RetryEntry
from pubfetch.engine.run_batch import IdsLike, Tally, Walk
from pubfetch.engine.summary import BatchSummary
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.publication import Publication
from pubfetch.net.answers import AnswerMemory
from pubfetch.net.client import HttpClient
from pubfetch.net.config import RateLimiter, http_config
from pubfetch.net.ratelimit import ServiceMap, configured_limits
from pubfetch.resources.base import Context, Renderer, RunMakers
from pubfetch.store import Store, open_or_init_store
from pubfetch.store.writer import StoreWriter

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from pubfetch.extract.workerpool import WorkerPool
    from pubfetch.net.transport import Transport
    from pubfetch.net.warc import WarcRecorder
    from pubfetch.rules import ScrapingRules

DbLike = str | os.PathLike[str] | Store | None
#: A call that asks nothing particular.
DEFAULT_OPTIONS = FetchOptions()


class FetchRun:
    """Everything one fetching run uses, built from its configuration and closed together.

    The configuration holds values only; what has state is given beside it, as httpx takes ``transport=``.

    Args:
        config: the run's settings; with ``rate_limits`` (its ``run`` record) its requests wait for the services'
            documented rates shared with every other pubfetch process (:func:`shared_rate_limiter`).
        recorder: record every exchange with this WARC recorder (closed with the run; its ``error`` says whether it
            could be written to the end).
        transport: the network under the client's layers (tests give an in-process one).
        rate_limiter: the shared limiter to wait on instead of one opened for the run (a worker keeps one for all its
            batches); used as it is, not closed.
        sleep: how the client's retries wait (a test's clock; default: :func:`time.sleep`, cut short when the run
            stops).
        context: a caller's context to run in instead (not closed): the run's parts (``config``'s ``parts``) are
            asked for with its machinery (:meth:`~pubfetch.resources.base.Context.step`).
        rules: the scraping rules to read pages with instead of the configuration's (a test's own).

    Raises what building a part raises: ``OSError``, ``sqlite3.Error`` or ``ValueError`` (rate-limit database),
    :class:`~pubfetch.rules.RuleError` (the user's rule files); what was built by then is closed.
    """

    def __init__(self, config: FetchConfig, *, recorder: WarcRecorder | None = None,
                 transport: Transport | None = None, rate_limiter: RateLimiter | None = None,
                 sleep: Callable[[float], None] | None = None, context: Context | None = None,
                 rules: ScrapingRules | None = None) -> None:
        self.config = config
        self.recorder = recorder
        self._stack = ExitStack()
        if recorder is not None:
            self._stack.callback(recorder.close)
        self._owns_context = context is None
        if context is not None:
            self.context = context.step(config.run.parts)
            return
        try:
            self.context = self._stack.enter_context(self._build(config, transport, rate_limiter, rules, sleep))
        except BaseException:
            self._stack.close()
            raise

    def _build(self, config: FetchConfig, transport: Transport | None, limiter: RateLimiter | None,
               rules: ScrapingRules | None, sleep: Callable[[float], None] | None) -> Context:
        own_limiter = limiter is None and config.run.rate_limits
        if own_limiter:
            limiter = shared_rate_limiter(config)
            close = getattr(limiter, "close", None)
            if close is not None:
                self._stack.callback(close)
        rate_key = ServiceMap.for_endpoints(config.endpoints).key if limiter is not None else None
        if rules is None:  # a bad rule file is an error before anything is fetched
            rules = _user_rules(config.fetching)
        client = HttpClient(http_config(config), transport=transport, answers=AnswerMemory(),
                            response_hook=self.recorder, rate_limiter=limiter, rate_key=rate_key,
                            sleep=sleep or time.sleep)
        if own_limiter and getattr(limiter, "sleep", None) is time.sleep:
            # the run's own limiter: a wait for a permit ends (and its request is not sent) when the run stops
            limiter.sleep = client.watch.pause  # type: ignore[union-attr]
        return Context(config, client, _makers(config, client, rules))

    def fetch(self, ids: Iterable[IdsLike], db: DbLike = None, options: FetchOptions = DEFAULT_OPTIONS, *,
              batch_size: int | None = None, shared: InFlight | None = None,
              scope: str = "") -> Iterator[Publication]:
        """The publications of ``ids``, batch by batch, as ``options`` ask (see :func:`pubfetch.fetcher.fetch_many`);
        ``batch_size`` instead of the configuration's; ``shared``: the batches in flight of other fetches of this run
        at the same time, to gather with (claims within ``scope``; :mod:`pubfetch.distributed.sharedrun`)."""
        with ExitStack() as stack:
            store, writer = self._writing(stack, db, options.summary)
            tally = Tally(self.context.args, options.summary, options.progress, options.retry_exceptions,
                          follow_published=self.config.run.follow_published)
            stack.callback(tally.retry.close)
            walk = Walk(self.context, store if options.use_stored else None, writer, tally,
                        batch_size or self.config.batching.batch_size, options, own_context=self._owns_context,
                        shared=shared, scope=scope)
            yield from run_batches(walk, iter(ids))

    def fetch_retries(self, entries: Iterable[RetryEntry], db: DbLike = None, *,
                      summary: BatchSummary | None = None, errors: Errors = "skip") -> Iterator[Publication]:
        """The end-of-run retry of publications a :meth:`fetch` deferred (``deferred=``), in the order given, each
        asked only what failed; yields them as they are done."""
        entries = list(entries)
        size = self.config.batching.batch_size
        options = FetchOptions(summary=summary, retry_exceptions=False, errors=errors)
        with ExitStack() as stack:
            _, writer = self._writing(stack, db, summary)
            tally = Tally(self.context.args, summary, None, retry_exceptions=False)
            walk = Walk(self.context, None, writer, tally, size, options, own_context=self._owns_context)
            chunks = (entries[i:i + size] for i in range(0, len(entries), size))
            yield from retried(walk, chunks, len(entries))

    def _writing(self, stack: ExitStack, db: DbLike,
                 summary: BatchSummary | None) -> tuple[Store | None, StoreWriter | None]:
        """The store and its writer of one fetch (closed with ``stack``), the network watch on, the summary counting
        this run's requests (and judging finality by the parts asked for)."""
        store = _open(stack, db)
        writer = stack.enter_context(StoreWriter(store)) if store is not None else None
        if writer is not None:  # DOI registration agencies are kept in the database between runs
            self.context.agency_cache = writer
            stack.callback(setattr, self.context, "agency_cache", None)
        watch = getattr(self.context.client, "watch", None)
        if watch is not None:  # this run stops when the network is down: before the first answer, one try per host
            stack.enter_context(watch.watching())
        if summary is not None:
            summary.parts = self.context.parts  # finality is judged by the parts this fetch asks for
            if summary.requests is None:
                summary.requests = self.context.client.counts
        return store, writer

    def close(self) -> None:
        """Close what this run built (the context: thread pool, PDF workers, renderer, client) and the WARC recorder."""
        self._stack.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def shared_rate_limiter(config: FetchConfig, *, open_wait_s: float = 0.0) -> RateLimiter:
    """The limiter of the services' documented rates shared with every other pubfetch process of the user, kept where
    ``rate_db`` says (a SQLite file or a ``redis://`` URL), else :func:`~pubfetch.config.rate_db_default`.
    ``open_wait_s``: how long opening a Redis limiter waits for Redis to answer (0: a command says at once that it
    does not)."""
    from pubfetch.net.ratelimit_redis import shared_limiter

    where = config.run.rate_db or rate_db_default()
    return shared_limiter(where, configured_limits(config.run), open_wait_s=open_wait_s)


def scraping_rules(fetching: FetcherArgs) -> ScrapingRules:
    """The rules pages are read with under ``fetching``'s parameters: the built-in files followed by the user's
    (journalsYaml, webpagesYaml); the built-in ones alone are loaded once per process, whatever the number of runs.
    Raises :class:`~pubfetch.rules.RuleError` or ``OSError`` for a user's file that cannot be read."""
    return _user_rules(fetching) or builtin_rules()


def _user_rules(fetching: FetcherArgs) -> ScrapingRules | None:
    if not (fetching.journals_yaml or fetching.webpages_yaml):
        return None
    return _loaded(fetching.journals_yaml or None, fetching.webpages_yaml or None)


@functools.cache
def builtin_rules() -> ScrapingRules:
    """The rules of the files shipped with pubfetch, loaded once per process (:func:`scraping_rules`)."""
    return _loaded(None, None)


def _loaded(journals: str | None, webpages: str | None) -> ScrapingRules:
    from pubfetch.rules import ScrapingRules

    return ScrapingRules.load(journals, webpages)


def _makers(config: FetchConfig, client: HttpClient, rules: ScrapingRules | None) -> RunMakers:
    """What the run's context starts on first need; the libraries behind them (Chromium's driver, pdfminer.six)
    are imported only by runs that need them."""
    threads = config.run.threads

    def run_rules() -> ScrapingRules:
        return rules if rules is not None else scraping_rules(config.fetching)

    def renderer() -> Renderer:
        from pubfetch.net.browser import BrowserRenderer, page_timeout_ms

        return BrowserRenderer(user_agent=config.fetching.user_agent,
                               timeout_ms=page_timeout_ms(config.fetching.timeout), max_bytes=client.config.max_bytes,
                               executable=config.run.chromium,
                               allow_private_addresses=config.http.allow_private_addresses, counts=client.counts)

    def pdf_workers() -> WorkerPool:
        from pubfetch.extract.pdf import pdf_workers

        return pdf_workers(threads)

    def page_workers(page_rules: ScrapingRules) -> WorkerPool:
        from pubfetch.extract.reader_workers import page_workers

        return page_workers(min(threads, os.cpu_count() or 1), page_rules)  # reading is CPU work: one per CPU

    return RunMakers(
        rules=run_rules, renderer=renderer, pdf_workers=pdf_workers, page_workers=page_workers,
        pool=lambda: ThreadPoolExecutor(threads, thread_name_prefix="pubfetch"))


def _open(stack: ExitStack, db: DbLike) -> Store | None:
    """The store of ``db``; one the run opens itself is held for the run (:meth:`Store.fetch_run`), so that two
    processes fetching into one SQLite file do not both fetch everything. A Store given open is the caller's to hold
    (the command line holds it for all of its steps)."""
    if db is None or isinstance(db, Store):
        return db
    store = open_or_init_store(db)
    stack.callback(store.close)
    stack.enter_context(store.fetch_run(lambda: _waiting_for(db)))
    return store


def _waiting_for(db: object) -> None:
    logger.warning("another fetching run is using database %s: waiting for it to end (what it stores is then not "
                   "fetched again)", db)
