"""The public renderer: :class:`BrowserRenderer` queues pages for its worker thread and gives classified results.

Callers on many threads share one renderer; it starts a worker on first use and a new one when the watchdog
abandons a stuck worker, and every renderer still open at exit is closed so that no Chromium outlives the process.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
import time
from typing import TYPE_CHECKING, Final, Self

from pubfetch import interrupts
from pubfetch.config.defaults import FetcherArgs
from pubfetch.net import addresses
from pubfetch.net.browser.chromium import UNAVAILABLE_MESSAGE, BrowserUnavailable
from pubfetch.net.browser.jobs import RenderJob, RenderSettings
from pubfetch.net.browser.outcome import outcome
from pubfetch.net.browser.worker import UNBLOCK_S, Worker
from pubfetch.net.config import DEFAULT_MAX_BYTES
from pubfetch.net.outcome import EntryPolicy, FetchResult, OutcomeKind, sets_fetch_exception
from pubfetch.net.urls import HTTP_SCHEMES, hostname, scheme

if TYPE_CHECKING:
    from pubfetch.net.counts import RequestCounts

logger = logging.getLogger(__name__)

#: PubFetcher 1.1.1 caps a JavaScript fetch at 2 minutes.
DEFAULT_PAGE_TIMEOUT_MS: Final = 120_000
#: Longest wait for the network to fall quiet after the load event when no ``wait_until`` selector is given.
DEFAULT_SETTLE_MS: Final = 2_000
#: How long after a page's limit the watchdog waits before killing the browser.
DEFAULT_KILL_GRACE_MS: Final = 5_000


class BrowserRenderer:
    """Renders pages with JavaScript in a shared headless Chromium; thread-safe, one page at a time.

    Args:
        user_agent: the User-Agent of every request (PubFetcher's ``userAgent``).
        timeout_ms: hard limit on one page, from the start of its navigation to its HTML being read (PubFetcher: 2
            minutes). A page over it is closed (the browser killed if need be) and reported as TIMEOUT.
        max_bytes: cap on the rendered HTML (UTF-8 bytes); over it the result is TOO_LARGE.
        executable: Chromium binary; default ``PUBFETCH_CHROMIUM``, Playwright's browser, a system Chromium
            (:func:`~pubfetch.net.browser.chromium.find_chromium`).
        allow_private_addresses: allow pages and their requests to reach loopback/private/metadata addresses (tests,
            intranets).
        settle_ms: after the load event, how long to wait at most for the network to go quiet (pages filling
            themselves from XHR), when no ``wait_until`` selector is given; 0 to read at once.
        kill_grace_ms: how long past ``timeout_ms`` a stuck page may take before the browser is killed.
    """

    def __init__(
        self,
        user_agent: str = FetcherArgs().user_agent,
        timeout_ms: int = DEFAULT_PAGE_TIMEOUT_MS,
        max_bytes: int = DEFAULT_MAX_BYTES,
        executable: str | None = None,
        allow_private_addresses: bool = False,
        *,
        settle_ms: int = DEFAULT_SETTLE_MS,
        kill_grace_ms: int = DEFAULT_KILL_GRACE_MS,
        counts: RequestCounts | None = None,
    ) -> None:
        if timeout_ms <= 0:
            raise ValueError(f"timeout_ms must be > 0, got {timeout_ms}")
        if max_bytes <= 0:
            raise ValueError(f"max_bytes must be > 0, got {max_bytes}")
        if settle_ms < 0 or kill_grace_ms < 0:
            raise ValueError("settle_ms and kill_grace_ms must be >= 0")
        self._settings = RenderSettings(user_agent, timeout_ms, max_bytes, executable or None, allow_private_addresses,
                                   settle_ms, kill_grace_ms)
        self._jobs: queue.Queue[RenderJob | None] = queue.Queue()
        self._lock = threading.Lock()
        self._worker: Worker | None = None
        self._retired: list[Worker] = []
        self._closed = False
        #: set while the run is stopping (:meth:`halt`): no page is rendered and no browser started
        self._halted = threading.Event()
        interrupts.wake_on_interrupt(self._halted)
        #: where each page loaded is counted with the client's requests (the run report's requests per host)
        self._counts = counts
        _LIVE.add(self)

    @property
    def timeout_ms(self) -> int:
        return self._settings.timeout_ms

    @property
    def user_agent(self) -> str:
        return self._settings.user_agent

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def executable(self) -> str | None:
        """The Chromium binary in use (``None`` until the browser started)."""
        worker = self._worker
        return worker.executable if worker is not None else None

    def render(self, url: str, wait_until: str | None = None, *, publication: bool = False,
               entry: EntryPolicy | None = None) -> FetchResult:
        """Load ``url`` in the browser, let its scripts run, and return the resulting HTML as a classified result.

        Args:
            url: http(s) URL; treated as untrusted (see ``allow_private_addresses``).
            wait_until: a CSS selector to wait for before reading the page (scraping rules' ``wait_until``); when it
                does not appear within the limit, the page is read as it is, as PubFetcher does.
            publication: fetching for a publication (only changes ``result.fetch_exception``, PubFetcher's rule).
            entry: what a failure means for the database entry asked for (:class:`EntryPolicy`): it decides
                ``result.fetch_exception`` and the promise of the failure's line, as for the HTTP client's requests
                (``None``: PubFetcher's rule for ``publication``, and the line names the mark).

        Never raises for network or browser trouble: a missing browser is an OTHER failure whose message says how to
        install one (:meth:`ensure_browser` raises :class:`BrowserUnavailable` instead, for a CLI to report).
        """
        if not isinstance(url, str):
            raise TypeError(f"url must be a str, got {type(url).__name__}")
        url = url.strip()
        started = time.monotonic()
        if self.halting:
            return outcome(url, OutcomeKind.OTHER, "not rendered: the run is stopping")
        result = self._refuse(url)
        unavailable = False  # no browser: said once per process by the worker (each page falls back to a plain fetch)
        if result is None:
            logger.info("GET %s (with JavaScript)", url)
            job = RenderJob(url, wait_until.strip() if wait_until and wait_until.strip() else None)
            self._run(job)
            result = job.result or outcome(url, OutcomeKind.OTHER, "the renderer gave no result")
            unavailable = job.error is not None
            if self._counts is not None and job.error is None:
                self._counts.record(result.final_url or url, result.status,
                                    not result.ok and result.kind is not OutcomeKind.UNSUPPORTED_TYPE)
        if entry is not None:
            result.fetch_exception = entry.marks_entry(result)
            marked = entry.retry_words(result)
        else:
            result.fetch_exception = sets_fetch_exception(result, publication=publication)
            marked = " -> fetchException" if result.fetch_exception else ""
        elapsed = time.monotonic() - started
        if result.ok:
            logger.info("GOT %s (with JavaScript, %d bytes, %.2f s)", result.final_url, len(result.body), elapsed)
        else:  # a render the stop cut (or a browser the same Ctrl-C ended) is the stop's consequence, not news
            say = logger.info if self.halting or unavailable else logger.warning
            say("GET %s with JavaScript failed: %s%s (%s)%s", url, result.kind.name,
                f" {result.status}" if result.status else "", result.message, marked)
        return result

    @property
    def halting(self) -> bool:
        """Whether the run is stopping: halted by its owner, or the process interrupted."""
        return self._halted.is_set()

    def halt(self) -> None:
        """The run is stopping (an interrupt): no page is rendered from now on and no browser started; the page being
        rendered ends now (its browser is killed, and started again for a later page after :meth:`resume`)."""
        self._halted.set()
        with self._lock:
            worker = self._worker
        if worker is not None and worker.busy:
            worker.kill_browser()

    def resume(self) -> None:
        """Render again after :meth:`halt` (an owner that goes on using the renderer after an interrupt)."""
        if not interrupts.interrupted():
            self._halted.clear()

    def ensure_browser(self) -> str:
        """Start the browser now; the path of the Chromium in use. Raises :class:`BrowserUnavailable` if none."""
        job = RenderJob(None)
        self._run(job)
        if job.error is not None:
            raise job.error
        if job.executable is None:
            raise BrowserUnavailable(UNAVAILABLE_MESSAGE)
        return job.executable

    def close(self) -> None:
        """Shut the browser and the worker down; pending renders fail. The renderer cannot be used afterwards."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            worker, self._worker = self._worker, None
        _LIVE.discard(self)
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                self._cancel(job)
        if worker is None:
            return
        self._jobs.put(None)
        if self.halting and worker.busy:
            # a Ctrl-C: the page being rendered is abandoned, so its browser goes at once, not after the grace a
            # closing owner gives a page that may still finish
            worker.kill_browser()
        if not worker.join(DEFAULT_KILL_GRACE_MS / 1000):
            # the owner closes mid-render (a Ctrl-C, the end of a run): killing is what it asked for, not news
            logger.info("browser worker busy at close: killing the browser")
            worker.kill_browser()
            worker.join(UNBLOCK_S)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ---------------------------------------------------------------- plumbing

    def _refuse(self, url: str) -> FetchResult | None:
        sch = scheme(url)
        if sch not in HTTP_SCHEMES:
            kind = OutcomeKind.BAD_URL if not sch else OutcomeKind.BAD_SCHEME
            return outcome(url, kind, f"only http and https URLs are rendered: {url}")
        host = hostname(url)
        if host is None:
            return outcome(url, OutcomeKind.BAD_URL, f"no host in {url}")
        if not self._settings.allow_private_addresses:
            reason = addresses.forbidden_host_reason(host)
            if reason:
                return outcome(url, OutcomeKind.FORBIDDEN_ADDRESS, f"{host} is a {reason}")
        return None

    def _run(self, job: RenderJob) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("BrowserRenderer is closed")
            self._ensure_worker()
            self._jobs.put(job)
        while not job.done.wait(0.5):
            with self._lock:
                if self._closed:
                    self._cancel(job)
                    break
                self._ensure_worker()

    def _cancel(self, job: RenderJob) -> None:
        if job.url is not None:
            job.finish(outcome(job.url, OutcomeKind.OTHER, "the renderer was closed"))
        else:
            job.finish(error=BrowserUnavailable("the renderer was closed"))

    def _ensure_worker(self) -> None:
        """Start a worker if there is no live one (first use, or the last one was abandoned). Holds ``_lock``."""
        if self._worker is not None and self._worker.alive:
            return
        self._worker = Worker(self._settings, self._jobs, self._worker_retired, halted=self._halted)
        self._worker.start()

    def _worker_retired(self, worker: Worker) -> None:
        with self._lock:
            self._retired.append(worker)
            if self._worker is worker and not self._closed:
                self._ensure_worker()


#: Renderers not closed yet, closed at exit.
_LIVE: set[BrowserRenderer] = set()


def page_timeout_ms(timeout_ms: int) -> int:
    """The per-page limit for PubFetcher's ``timeout`` parameter: 8 x the socket timeout, at least 30 s."""
    return max(timeout_ms * 8, 30_000)


@atexit.register
def _close_all() -> None:
    """Close every open renderer at exit, so that no Chromium outlives the process."""
    for renderer in list(_LIVE):
        try:
            renderer.close()
        except Exception as e:  # noqa: BLE001 - exiting anyway
            logger.debug("closing a renderer at exit: %s", e)
