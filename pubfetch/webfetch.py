"""Webpages and docs (tool homepages, documentation): fetch, scrape or clean, and keep the better of old and new.

PubFetcher's getWebpage: the start URL's rule says whether to use JavaScript; a page fetched plainly whose text is
shorter than ``webpageMinLengthJavascript`` (or that has a ``<noscript>``) is fetched again with JavaScript unless the
final URL's rule says otherwise; the final URL's rule gives title, content, license and language selectors
(``title: ''`` forces an empty title, ``content: ''`` discards the content), and a page without rules gets its
``<title>`` and automatically cleaned body. A PDF is read as one. A fresh fetch replaces the stored entry only when it
is not worse (:meth:`Webpage.should_replace`). Pages are read in the run's page workers under the page time and memory
limits (``pubfetch.extract.webpage_read``): a page abandoned there counts as a failed fetch of its URL.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack
from functools import partial
from itertools import islice
from typing import Final

from pubfetch import interrupts
from pubfetch.config import FetchConfig
from pubfetch.console import retry_note
from pubfetch.engine.assembly import FetchRun
from pubfetch.engine.run_batch import warn_caps
from pubfetch.extract.pdf import extract_pdf
from pubfetch.extract.webpage_read import Selectors, WebpageReading, read_webpage_isolated
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.caps import fit_page
from pubfetch.model.timefmt import now_ms
from pubfetch.model.webpage import Webpage
from pubfetch.net.outcome import EntryPolicy, FetchResult, OutcomeKind
from pubfetch.resources.base import Context
from pubfetch.rules import compile_selector
from pubfetch.store import Store, open_store
from pubfetch.store.writer import StoreWriter

log = logging.getLogger(__name__)

__all__ = ["Selectors", "fetch_doc", "fetch_page_content", "fetch_pages", "fetch_webpage", "get_webpage", "put_pages",
           "remove_pages"]

DbLike = str | os.PathLike[str] | Store | None


def page_policy(later: bool = True) -> EntryPolicy:
    """A webpage's or doc's request: PubFetcher's rule for them (only transient failures mark the entry); ``later``:
    whether the stored entry's retry rules let a later fetch come
    (:meth:`~pubfetch.model.entry.FetchState.retried_later`)."""
    return _PAGE if later else _PAGE_NEVER_LATER


_PAGE: Final = EntryPolicy(publication=False)
_PAGE_NEVER_LATER: Final = EntryPolicy(publication=False, later=False)


def _get(ctx: Context, url: str, javascript: bool, entry: EntryPolicy) -> FetchResult:
    renderer = ctx.renderer if javascript else None
    if renderer is not None:
        rule = ctx.rules.webpage_rule(url)
        result = renderer.render(url, wait_until=getattr(rule, "wait_until", None) if rule is not None else None,
                                 entry=entry)
        if result.ok or result.kind not in (OutcomeKind.OTHER, OutcomeKind.UNSUPPORTED_TYPE):
            return result
        log.info("JavaScript fetch of %s gave %s; fetching without", url, result.kind.name)
    return ctx.client.get(url, entry=entry)


def _fill_http(page: Webpage, result: FetchResult) -> None:
    page.final_url = result.final_url or page.start_url
    page.content_type = result.content_type or ""
    page.status_code = result.status or 0
    if result.fetch_exception:
        page.state.fetch_exception = True


def fetch_page_content(ctx: Context, start_url: str, selectors: Selectors | None = None,
                       clock: Callable[[], int] | None = None, *, later: bool = True) -> Webpage:
    """A freshly fetched Webpage for a URL (state not touched: the caller merges it with the stored one, whose retry
    rules say whether a failure is fetched again by a later run: ``later``, what the failure's lines say)."""
    page = Webpage(start_url=start_url)
    entry = page_policy(later)
    javascript = _javascript_wanted(ctx, start_url, selectors)
    result = _first_fetch(ctx, start_url, javascript, entry)
    _fill_http(page, result)
    if not result.ok:
        # a request the stopping run did not send, or cut, is the stop's consequence, not news
        log.log(logging.INFO if _stopping(ctx) else logging.WARNING, "fetching %s failed: %s %s", start_url,
                result.kind.name, result.message)
        return page
    if result.is_pdf:
        content = extract_pdf(result.body, workers=ctx.pdf_workers)
        page.title = content.title or content.xmp_title
        page.content = content.text
    else:
        _check_selectors(selectors)
        html = result.text or ""
        measure = javascript is None and ctx.renderer is not None and _may_render(ctx, page, selectors is None)
        reading = _read(ctx, page, html, selectors, measure, entry)
        if reading is not None and measure:
            page, reading = _rendered_if_thin(ctx, page, reading, selectors, entry)
        if reading is None:
            return page
        _fill_content(ctx, page, reading, selectors)
    page.content_time = _now(clock)
    return page


def _check_selectors(selectors: Selectors | None) -> None:
    """Raise ValueError for an explicit selector that is not valid CSS, before the page is read."""
    if selectors is not None:
        for selector in (selectors.title, selectors.content):
            if selector:
                compile_selector(selector)


def _read(ctx: Context, page: Webpage, html: str, selectors: Selectors | None, measure: bool, entry: EntryPolicy
          ) -> WebpageReading | None:
    """The page read in a page worker under the run's page limits, or ``None`` when it was abandoned: one warning, and
    the page's fetch counts as failed (tried again under the retry limit, as after any failed request)."""
    limits = ctx.config.run
    reading = read_webpage_isolated(html, page.final_url, ctx.rules, ctx.page_workers, selectors=selectors,
                                    measure=measure, time_limit=limits.page_time_limit,
                                    memory_limit=limits.page_memory_limit)
    if isinstance(reading, WebpageReading):
        return reading
    page.state.fetch_exception = page.state.fetch_exception or not reading.is_bug
    if not ctx.halted:
        log.warning("webpage %s abandoned: %s; nothing taken from it, %s", page.final_url, reading,
                    reading.what_next if reading.is_bug else retry_note(entry.later))
    return None


def _javascript_wanted(ctx: Context, start_url: str, selectors: Selectors | None) -> bool | None:
    """Whether the start URL's rule (or the explicit selectors) asks for JavaScript; ``None``: nobody said."""
    if selectors is not None:
        return selectors.javascript
    return ctx.rules.webpage_javascript(start_url)


def _first_fetch(ctx: Context, start_url: str, javascript: bool | None, entry: EntryPolicy) -> FetchResult:
    """The page as the rule says to fetch it; a TLS failure of a plain fetch is tried once more in the browser."""
    result = _get(ctx, start_url, bool(javascript), entry)
    if result.kind is OutcomeKind.SSL and not javascript and ctx.renderer is not None:
        log.info("TLS failure for %s, trying with JavaScript", start_url)
        retry = _get(ctx, start_url, True, entry)
        if retry.ok:
            return retry
    return result


def _may_render(ctx: Context, page: Webpage, use_rules: bool) -> bool:
    """Whether a plain page may be fetched again with JavaScript: unless the final URL's rule forbids it."""
    final_rule = ctx.rules.webpage_rule(page.final_url) if use_rules else None
    return not (use_rules and final_rule is not None and not bool(getattr(final_rule, "javascript", False)))


def _rendered_if_thin(ctx: Context, page: Webpage, reading: WebpageReading, selectors: Selectors | None,
                      entry: EntryPolicy) -> tuple[Webpage, WebpageReading | None]:
    """PubFetcher's second try: a plain page whose text is short (or that has a ``<noscript>``) is fetched again with
    JavaScript. Returns the page and its reading (``None``: the rendered page was abandoned)."""
    args = ctx.args
    length, noscript = reading.text_length, reading.noscript
    short = length < args.webpage_min_length_javascript
    if not short and not noscript:
        return page, reading
    log.info("refetching %s with JavaScript (%s)", page.start_url,
             f"length {length} < {args.webpage_min_length_javascript}" if short else "page has noscript")
    rendered = _get(ctx, page.start_url, True, entry)
    if not rendered.ok or rendered.is_pdf:
        (log.info if ctx.halted else log.warning)("discarding failed JavaScript fetch of %s (%s)", page.start_url,
                                                  rendered.message)
        return page, reading
    fresh = Webpage(start_url=page.start_url)
    _fill_http(fresh, rendered)
    return fresh, _read(ctx, fresh, rendered.text or "", selectors, False, entry)


def _now(clock: Callable[[], int] | None) -> int:
    return (clock or now_ms)()


def _fill_content(ctx: Context, page: Webpage, reading: WebpageReading, selectors: Selectors | None) -> None:
    content = reading.content
    if selectors is not None:
        if selectors.title:
            page.title = content.title
        page.content = content.content
        return
    if ctx.rules.webpage_rule(page.final_url) is None:
        log.info("no scraping rules for webpage %s: read by the generic reader", page.final_url)
    page.title = content.title
    page.content = content.content
    page.license = content.license
    page.language = content.language


def get_webpage(ctx: Context, old: Webpage | None, url: str,
                selectors: Selectors | None = None) -> tuple[Webpage, bool]:
    """PubFetcher's getWebpage: (entry to keep, whether it was fetched). The stored entry is kept when can_fetch
    says no, and also when the fresh fetch is worse than it (its fetch state still records the attempt)."""
    args = ctx.args
    entry = old or Webpage(start_url=url)
    if not entry.state.can_fetch(entry, args):
        return entry, False
    entry.state.update_counters(entry, args)
    entry.state.fetch_exception = False
    fresh = fetch_page_content(ctx, url, selectors, later=entry.state.retried_later(args))
    exception = fresh.state.fetch_exception
    fresh.state = entry.state
    fresh.state.fetch_exception = exception
    if old is None or fresh.should_replace(old, args):
        return fresh, True
    old.state = fresh.state
    log.warning("keeping the stored %s: the new fetch is worse (%s)", url, fresh.status(args))
    return old, True


def fetch_pages(urls: Iterable[str], kind: str = "webpages", db: DbLike = None, args: FetcherArgs | None = None,
                *, config: FetchConfig | None = None, context: Context | None = None,
                progress: Callable[[int, Webpage], None] | None = None, use_stored: bool = True,
                **options: object) -> Iterator[Webpage]:
    """Fetch webpages or docs for a stream of URLs, consulting and updating a database when given (``use_stored``
    off: every page is fetched afresh and written to the database, as PubFetcher's -fetch-put does). Without
    ``context`` the call assembles its own run (:class:`~pubfetch.engine.assembly.FetchRun`), whose requests wait for
    the rate limits shared with every other pubfetch process unless ``rate_limits=False``."""
    if kind not in ("webpages", "docs"):
        raise ValueError(f"kind must be 'webpages' or 'docs', got {kind!r}")
    cfg = _config(config, args, options, "fetch_pages")
    with ExitStack() as stack:
        store: Store | None
        if db is None or isinstance(db, Store):
            store = db
        else:
            store = open_store(db)
            stack.callback(store.close)
        # without a caller's context, the call's own run: its requests wait for the rate limits shared with every
        # other pubfetch process (``rate_limits=False`` to opt out), as fetch_many's do
        ctx = context or stack.enter_context(FetchRun(cfg)).context
        writer = stack.enter_context(StoreWriter(store)) if store is not None else None
        batches = _PageBatches(ctx, kind, writer, progress)
        iterator = iter(urls)
        while True:
            batch = list(islice(iterator, cfg.batching.batch_size))
            if not batch:
                return
            olds = [store.get_page(kind, url) if store is not None and use_stored else None for url in batch]
            yield from batches.run(list(zip(olds, batch, strict=True)))


class _PageBatches:
    """The batches of one :func:`fetch_pages` call: each page stored and counted as it completes, so an interrupted
    batch keeps (and reports) the pages it got, and neither stores nor counts those whose fetch ended after the
    interrupt (cut, or not sent), however long they take to end."""

    def __init__(self, ctx: Context, kind: str, writer: StoreWriter | None,
                 progress: Callable[[int, Webpage], None] | None) -> None:
        self.ctx, self.kind, self.writer, self.progress = ctx, kind, writer, progress
        self.done = 0  # pages got
        self.finished = 0  # pages of the batch whose fetch ended (got or not)
        self.keeping: set[int] = set()  # the threads storing and counting a page now
        self.cut = False  # the batch was interrupted: no page is kept from then on
        self.ended = threading.Condition()

    def run(self, pairs: list[tuple[Webpage | None, str]]) -> list[Webpage]:
        with self.ended:
            self.finished = 0
        try:
            pages = self.ctx.map(self._fetch_one, pairs)
        except KeyboardInterrupt:
            with self.ended:
                # from now on a page whose fetch ends is dropped, and one being stored is counted before the run's
                # summary (a database write, no request: no time bound needed); not this thread's own, which the
                # interrupt ended (a batch of one runs inline)
                self.cut = True
                me = threading.get_ident()
                self.ended.wait_for(lambda: not self.keeping - {me})
            _interrupted(self.ctx, partial(self._drained, len(pairs)))
            raise
        if self.writer is not None:
            self.writer.commit()
        return pages

    def _fetch_one(self, pair: tuple[Webpage | None, str]) -> Webpage:
        try:
            page, fetched = get_webpage(self.ctx, pair[0], pair[1])
            with self.ended:
                if self.cut or _stopping(self.ctx):
                    return page
                self.keeping.add(threading.get_ident())
            try:
                self._keep(page, fetched)
            finally:
                with self.ended:
                    self.keeping.discard(threading.get_ident())
                    self.ended.notify_all()
            return page
        finally:
            with self.ended:
                self.finished += 1
                self.ended.notify_all()

    def _keep(self, page: Webpage, fetched: bool) -> None:
        storable = not fetched or _fit_to_cap(self.ctx, page)
        if self.writer is not None and fetched and storable:
            self.writer.put_page(self.kind, page)
        with self.ended:
            self.done += 1
            if self.progress is not None:
                self.progress(self.done, page)

    def _drained(self, count: int) -> None:
        with self.ended:  # a page rendered with JavaScript is not cut: its browser is killed at close
            self.ended.wait_for(lambda: self.finished >= count, timeout=_DRAIN_S)


#: How long an interrupted batch of pages waits for its cut fetches to end before the interrupt goes on.
_DRAIN_S = 2.0


def _fit_to_cap(ctx: Context, page: Webpage) -> bool:
    """Cut a fetched page to ``max_entry_bytes`` (:func:`~pubfetch.model.caps.fit_page`), saying so; whether it may
    be stored."""
    fitting = fit_page(page, ctx.config.run.max_entry_bytes)
    warn_caps(fitting, page.start_url, ctx.config.run.max_entry_bytes)
    return not fitting.still_over


def _stopping(ctx: Context) -> bool:
    """Whether the run is stopping: its context was interrupted, or (the command line) Ctrl-C came, which stays true
    after an interrupted batch gives the context back, so a fetch cut then is not reported as a failure."""
    watch = getattr(ctx.client, "watch", None)
    return bool(watch is not None and watch.stopped) or interrupts.interrupted()


def _interrupted(ctx: Context, drained: Callable[[], object]) -> None:
    """After Ctrl-C: nothing more is sent, and the exchanges in flight are cut instead of waited for (a page that
    never answers would hold the interrupt until its deadline), as a publication run does; once the batch's fetches
    have ended (``drained`` waits for them), the context serves its owner as before."""
    resume = ctx.interrupt()
    drained()
    resume()


def fetch_webpage(url: str, db: DbLike = None, args: FetcherArgs | None = None, *, config: FetchConfig | None = None,
                  **options: object) -> Webpage:
    """Fetch one webpage (a tool's homepage, say), through the database when given."""
    return next(iter(fetch_pages([url], "webpages", db, config=_config(config, args, options, "fetch_webpage"))))


def fetch_doc(url: str, db: DbLike = None, args: FetcherArgs | None = None, *, config: FetchConfig | None = None,
              **options: object) -> Webpage:
    """Fetch one documentation page, kept in the database's docs table."""
    return next(iter(fetch_pages([url], "docs", db, config=_config(config, args, options, "fetch_doc"))))


def _config(config: FetchConfig | None, args: FetcherArgs | None, options: Mapping[str, object],
            caller: str) -> FetchConfig:
    """The call's configuration: ``config`` (default: from the environment and the config file), then ``args`` and
    the keyword options (settings by name; ``None`` leaves one as it is)."""
    changes = {**options, "fetching": args}
    return (config or FetchConfig.from_env()).with_options(changes, caller, none_keeps=True)


# --- writing pages: this module is the only one that does (fetcher writes publications) -----------------------------


def put_pages(store: Store, kind: str, pages: Iterable[Webpage]) -> int:
    """Put webpages or docs into a database as they are (PubFetcher's -put); return how many could not be put."""
    failed = sum(1 for page in pages if not store.put_page(kind, page))
    store.commit()
    return failed


def remove_pages(store: Store, kind: str, urls: Iterable[str]) -> list[str]:
    """Remove webpages or docs from a database by start URL; return the URLs that were not there."""
    missing = [url for url in urls if not store.remove_page(kind, url)]
    store.commit()
    return missing
