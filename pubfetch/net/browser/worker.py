"""The worker thread that owns Playwright and one browser, and its watchdog (see :mod:`pubfetch.net.browser`).

Playwright's sync API is bound to the thread that started it, so one thread renders the queued pages one at a time;
the watchdog kills the browser when a page outlives its limit, and abandons the worker when even that does not free
it.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import re
import threading
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from pubfetch.net.browser import chromium, processes, reaping
from pubfetch.net.browser.chromium import NOT_STARTED, UNAVAILABLE_MESSAGE, BrowserUnavailable
from pubfetch.net.browser.jobs import RenderJob, RenderSettings
from pubfetch.net.browser.outcome import classify, first_line, outcome
from pubfetch.net.browser.pageguard import PageWatch
from pubfetch.net.guardproxy import GuardProxy
from pubfetch.net.outcome import FetchResult, OutcomeKind, kind_for_status
from pubfetch.net.sniff import is_pdf_media, media_type
from pubfetch.net.urls import origin

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright, Response

logger = logging.getLogger(__name__)


class _DriverGoneFilter(logging.Filter):
    """Playwright's driver connection closing under a future nobody awaits any more (a Ctrl-C that reached the driver
    with the process group, a browser killed at a stop) is an expected end, not an error: asyncio would print it at
    exit as "Future exception was never retrieved" with a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not (str(record.msg).startswith("Future exception was never retrieved") and exc is not None
                    and "Connection closed while reading from the driver" in str(exc))


_DRIVER_GONE = _DriverGoneFilter()

DEFAULT_SETTLE_MS: Final = 2_000
LAUNCH_TIMEOUT_MS: Final = 30_000
#: After killing the browser, how long the worker may stay stuck before it is abandoned for a new one.
UNBLOCK_S: Final = 10.0
#: How long "no browser" is believed before looking again (pages meanwhile fail at once).
RECHECK_UNAVAILABLE_S: Final = 60.0
#: Time kept back from a ``wait_until`` wait so that the page can still be read before its limit.
READ_RESERVE_MS: Final = 1_000

_HTML_MEDIA: Final = frozenset({"", "text/html", "application/xhtml+xml"})
_NAVIGATING: Final = re.compile(r"(?i)navigat|execution context was destroyed")
_INTERRUPTED: Final = re.compile(r"(?i)interrupted by another navigation")


class Worker:
    """Owns Playwright and one browser; renders queued jobs one at a time. See the module docstring."""

    def __init__(self, settings: RenderSettings, jobs: queue.Queue[RenderJob | None],
                 on_retire: Callable[[Worker], None], *, halted: threading.Event | None = None) -> None:
        self.settings = settings
        #: set while the run is stopping: a browser that fails to start then is the stop's doing, not news
        self._halted = halted or threading.Event()
        self._jobs = jobs
        self._on_retire = on_retire
        self._lock = threading.Lock()
        self._armed_until: float | None = None
        self._killed_at: float | None = None
        self._current: RenderJob | None = None
        self._marker: str | None = None
        self._stopped = threading.Event()
        self.retired = False
        self.executable: str | None = None
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._unavailable: tuple[BrowserUnavailable, float] | None = None  # and when it was found out
        self._page_watch: PageWatch | None = None
        #: all of Chromium's connections go through it unless private addresses are allowed
        self.proxy: GuardProxy | None = None
        self._thread = threading.Thread(target=self._run, name="pubfetch-browser", daemon=True)
        self._watchdog = threading.Thread(target=self._watch, name="pubfetch-browser-watchdog", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._watchdog.start()

    @property
    def busy(self) -> bool:
        """Whether a job is being served (a page rendered, or the browser started)."""
        return self._current is not None

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self.retired

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    # ---------------------------------------------------------------- watchdog

    def _arm(self, until: float) -> None:
        with self._lock:
            self._armed_until, self._killed_at = until, None

    def _disarm(self) -> None:
        with self._lock:
            self._armed_until = None

    def _was_killed(self) -> bool:
        with self._lock:
            return self._killed_at is not None

    def kill_browser(self) -> list[int]:
        """Kill this worker's browser processes (any thread may call this)."""
        marker = self._marker
        return processes.kill(processes.marked_pids(marker)) if marker else []

    def _watch(self) -> None:
        while not self._stopped.wait(0.1):
            with self._lock:
                until, killed_at = self._armed_until, self._killed_at
            now = time.monotonic()
            if until is None or now < until:
                continue
            if killed_at is None:
                killed = self.kill_browser()
                with self._lock:
                    self._killed_at = now
                logger.error("browser page still busy %.1f s past its limit: killed the browser (pids %s)",
                             self.settings.kill_grace_ms / 1000, killed or "not found")
                if killed:
                    continue
            elif now - killed_at < UNBLOCK_S:
                continue
            if self._current is None:  # it got free just now
                continue
            self._retire()
            return

    def _retire(self) -> None:
        """Give up on a worker that even killing the browser did not free: finish its job, hand over the queue."""
        self.retired = True
        job = self._current
        logger.error("browser worker is stuck; abandoning it and starting a new one")
        if job is not None and job.url is not None:
            job.finish(outcome(job.url, OutcomeKind.TIMEOUT,
                                f"page did not finish within {self.settings.limit_s:g} s (browser worker abandoned)"))
        elif job is not None:
            job.finish(error=BrowserUnavailable(f"{NOT_STARTED} the browser did not start"))
        self._on_retire(self)

    # ---------------------------------------------------------------- the loop

    def _run(self) -> None:
        try:
            while not self.retired:
                job = self._jobs.get()
                if job is None:
                    return
                if self.retired:  # abandoned while waiting: the job belongs to the new worker
                    self._jobs.put(job)
                    return
                if not job.begin():
                    continue
                self._current = job
                try:
                    self._serve(job)
                except BaseException as e:  # the worker must outlive any one page
                    logger.exception("browser worker failed on %s", job.url)
                    if job.url is not None:
                        job.finish(outcome(job.url, OutcomeKind.OTHER, first_line(e)))
                    else:
                        job.finish(error=BrowserUnavailable(f"{NOT_STARTED} {first_line(e)}"))
                    self._drop_browser()
                finally:
                    self._current = None
                    self._disarm()
        finally:
            self._shutdown()
            self._stopped.set()

    def _serve(self, job: RenderJob) -> None:
        if self._halted.is_set():  # queued before the run stopped: no browser is started for it
            stopped = BrowserUnavailable("not rendered: the run is stopping")
            job.finish(outcome(job.url, OutcomeKind.OTHER, str(stopped)) if job.url else None, stopped)
            return
        self._arm(time.monotonic() + (LAUNCH_TIMEOUT_MS + self.settings.kill_grace_ms) / 1000)
        try:
            self._ensure_browser()
        except BrowserUnavailable as e:
            job.executable = None
            job.finish(outcome(job.url, OutcomeKind.OTHER, str(e)) if job.url else None, e)
            return
        job.executable = self.executable
        if job.url is None:
            job.finish()
            return
        job.deadline = time.monotonic() + self.settings.limit_s
        self._arm(job.deadline + self.settings.kill_grace_ms / 1000)
        started = time.monotonic()
        try:
            result = self._render(job)
        except Exception as e:  # noqa: BLE001 - the browser died under the page (killed, crashed, closed)
            result = outcome(job.url, classify(e), first_line(e))
        killed = self._was_killed()
        if killed:
            main = self._page_watch.main if self._page_watch is not None else None
            result = outcome(job.url, OutcomeKind.TIMEOUT, f"page did not finish within {self.settings.limit_s:g} s "
                              "(browser killed; it is restarted for the next page)", response=main)
        self._page_watch = None
        job.finish(result)
        if killed or self._browser is None or not self._browser.is_connected():
            self._drop_browser()
        logger.debug("rendered %s in %.2f s", job.url, time.monotonic() - started)

    # ---------------------------------------------------------------- browser lifecycle

    def _ensure_browser(self) -> None:
        if self._browser is not None and self._browser.is_connected():
            return
        if self._unavailable is not None:
            failed, at = self._unavailable
            if time.monotonic() - at < RECHECK_UNAVAILABLE_S:
                raise failed
            self._unavailable = None  # maybe installed meanwhile, or the launch failure was passing
        try:
            if self._pw is None:
                try:
                    from playwright.sync_api import sync_playwright
                except ImportError as e:
                    raise BrowserUnavailable(f"{UNAVAILABLE_MESSAGE} (and Playwright: pip install playwright)") from e
                asyncio_log = logging.getLogger("asyncio")
                if _DRIVER_GONE not in asyncio_log.filters:
                    asyncio_log.addFilter(_DRIVER_GONE)
                try:
                    self._pw = sync_playwright().start()
                except Exception as e:
                    raise BrowserUnavailable(f"{NOT_STARTED} Playwright did not start ({first_line(e)})") from e
            try:
                bundled: str | None = self._pw.chromium.executable_path
            except Exception:  # noqa: BLE001 - no browsers registered for this platform
                bundled = None
            path = chromium.choose_chromium(self.settings.executable, bundled)
            if path is None:
                raise BrowserUnavailable(UNAVAILABLE_MESSAGE)
            self._marker = f"{processes.MARKER_PREFIX}{uuid.uuid4().hex}"
            try:
                self._browser = self._pw.chromium.launch(
                    executable_path=path, headless=True,
                    args=[*chromium.LAUNCH_ARGS, *self._proxy_args(), self._marker], timeout=LAUNCH_TIMEOUT_MS,
                )
            except Exception as e:
                raise BrowserUnavailable(f"{NOT_STARTED} Chromium at {path} did not start ({first_line(e)})") from e
        except BrowserUnavailable as e:
            self._unavailable = (e, time.monotonic())
            _report_unavailable(e, self._halted.is_set())
            raise
        self.executable = path
        logger.info("started Chromium %s (%s)", self._browser.version, path)

    def _proxy_args(self) -> list[str]:
        """Chromium switches sending every connection (loopback included: ``<-loopback>``) through the guard."""
        if self.settings.allow_private_addresses:
            return []
        if self.proxy is None:
            self.proxy = GuardProxy()
        return [f"--proxy-server={self.proxy.url}", "--proxy-bypass-list=<-loopback>"]

    def _drop_browser(self) -> None:
        """Forget a dead or killed browser (closing it first, in case it is only half dead)."""
        browser, self._browser = self._browser, None
        if browser is None:
            return
        self._arm(time.monotonic() + UNBLOCK_S)
        try:
            browser.close()
        except Exception as e:  # noqa: BLE001
            logger.debug("closing the old browser: %s", e)
        finally:
            self._disarm()
        if self._marker:
            processes.kill(processes.marked_pids(self._marker))  # renderers and helpers the browser left behind
        reaping.reap_adopted()  # what it left to this process to reap, when this process is PID 1 or a subreaper

    def _shutdown(self) -> None:
        self._drop_browser()
        proxy, self.proxy = self.proxy, None
        if proxy is not None:
            proxy.close()
        pw, self._pw = self._pw, None
        if pw is not None:
            try:
                pw.stop()
            except Exception as e:  # noqa: BLE001
                logger.debug("stopping Playwright: %s", e)

    # ---------------------------------------------------------------- rendering

    def _remaining_ms(self, job: RenderJob) -> float:
        assert job.deadline is not None
        return max(1.0, (job.deadline - time.monotonic()) * 1000)

    def _render(self, job: RenderJob) -> FetchResult:
        from playwright.sync_api import Error, TimeoutError

        assert job.url is not None and self._browser is not None
        url = job.url
        watch = self._page_watch = PageWatch(self.settings)
        context = self._browser.new_context(
            user_agent=self.settings.user_agent,
            ignore_https_errors=True,  # PubFetcher's HtmlUnit: useInsecureSSL; the browser is the SSL fallback
            accept_downloads=False,
            service_workers="block",  # else their requests bypass the address check
        )
        try:
            context.route("**/*", watch.route)
            context.route_web_socket(re.compile(".*"), watch.route_web_socket)
            page = context.new_page()
            page.on("response", watch.on_response)
            try:
                response = self._goto(page, job)
                result = self._check_main(job, watch, watch.main or response)
                if result is not None:
                    return result
                self._settle(page, job)
                return self._read(page, job, watch, watch.main or response)
            except TimeoutError:
                return outcome(url, OutcomeKind.TIMEOUT,
                                f"page did not finish loading within {self.settings.limit_s:g} s",
                                final_url=page.url if page.url != "about:blank" else None, response=watch.main)
            except Error as e:
                kind = classify(e)
                message = first_line(e)
                if kind is OutcomeKind.FORBIDDEN_ADDRESS:
                    message = watch.blocked.get(url, message)
                result = outcome(url, kind, message, response=watch.main)
                if kind is OutcomeKind.UNSUPPORTED_TYPE:
                    result.message = f"a download ({result.media_type or 'unknown type'}), not a page"
                    disposition = (result.headers.get("content-disposition") or "").lower()
                    result.is_pdf = (is_pdf_media(result.media_type) or ".pdf" in disposition
                                     or url.lower().endswith(".pdf"))
                return result
        finally:
            try:
                context.close()
            except Error as e:
                logger.debug("closing the page of %s: %s", url, e)

    def _goto(self, page: Page, job: RenderJob) -> Response | None:
        from playwright.sync_api import Error

        assert job.url is not None
        try:
            return page.goto(job.url, referer=origin(job.url), wait_until="load", timeout=self._remaining_ms(job))
        except Error as e:
            if not _INTERRUPTED.search(str(e)):
                raise
            # a script navigated away during the load (a JavaScript redirect): take where it went
            page.wait_for_load_state("load", timeout=self._remaining_ms(job))
            return None

    def _check_main(self, job: RenderJob, watch: PageWatch, response: Response | None) -> FetchResult | None:
        """The failure the main document's response already decides, or ``None`` to go on reading the page."""
        assert job.url is not None
        if response is None:
            return outcome(job.url, OutcomeKind.OTHER, "no response for the page")
        refusal = watch.redirect_refusal(response)
        if refusal:
            return outcome(job.url, OutcomeKind.FORBIDDEN_ADDRESS, refusal, final_url=response.url)
        kind = kind_for_status(response.status)
        if kind is not OutcomeKind.OK:
            return outcome(job.url, kind, f"HTTP {response.status}", response=response)
        mtype = media_type(response.headers.get("content-type"))
        if mtype not in _HTML_MEDIA:
            result = outcome(job.url, OutcomeKind.UNSUPPORTED_TYPE, f"{mtype} is not an HTML page", response=response)
            result.is_pdf = is_pdf_media(mtype)
            return result
        return None

    def _settle(self, page: Page, job: RenderJob) -> None:
        """Give scripts time: until the ``wait_until`` selector is there (PubFetcher goes on without it after the
        timeout), or else until the network is quiet for a moment."""
        from playwright.sync_api import Error, TimeoutError

        if job.wait_until:
            wait_ms = max(1.0, self._remaining_ms(job) - READ_RESERVE_MS)
            try:
                page.wait_for_selector(f"css={job.wait_until}", state="attached", timeout=wait_ms)
            except TimeoutError:
                logger.info("%r did not appear in %s within %.0f ms; taking the page as it is",
                            job.wait_until, job.url, wait_ms)
            except Error as e:
                if "selector" not in str(e).lower():
                    raise
                logger.warning("bad wait_until selector %r for %s: %s", job.wait_until, job.url, first_line(e))
            return
        if self.settings.settle_ms > 0:
            with contextlib.suppress(TimeoutError):
                page.wait_for_load_state("networkidle", timeout=min(self.settings.settle_ms, self._remaining_ms(job)))

    def _read(self, page: Page, job: RenderJob, watch: PageWatch, response: Response | None) -> FetchResult:
        from playwright.sync_api import Error

        assert job.url is not None
        max_bytes = self.settings.max_bytes
        while True:
            try:
                length = page.evaluate("() => document.documentElement ? document.documentElement.outerHTML.length : 0")
                if int(length) > max_bytes:
                    return outcome(job.url, OutcomeKind.TOO_LARGE, f"rendered page over {max_bytes} bytes "
                                    f"({length} characters)", response=watch.main or response)
                html = page.content()
                break
            except Error as e:
                if not _NAVIGATING.search(str(e)):
                    raise
                assert job.deadline is not None
                if time.monotonic() >= job.deadline:  # scripts that navigate for ever
                    return outcome(job.url, OutcomeKind.TIMEOUT, f"page kept navigating for "
                                    f"{self.settings.limit_s:g} s", final_url=page.url, response=watch.main)
                page.wait_for_load_state("load", timeout=self._remaining_ms(job))
                page.wait_for_timeout(50)
        # a script may have replaced the document meanwhile: judge the one that was read
        main = watch.main or response
        if main is not response:
            failed = self._check_main(job, watch, main)
            if failed is not None:
                return failed
        body = html.encode("utf-8", "replace")  # lone surrogates from scripts
        if len(body) > max_bytes:
            return outcome(job.url, OutcomeKind.TOO_LARGE, f"rendered page over {max_bytes} bytes", response=main)
        result = outcome(job.url, OutcomeKind.OK, "", response=main)
        result.final_url = page.url
        result.body = body
        result.text = body.decode("utf-8")
        result.encoding = "utf-8"
        result.encoding_source = "rendered"
        return result


_reported_unavailable = threading.Event()


def _report_unavailable(error: BrowserUnavailable, stopping: bool) -> None:
    """Say once per process that pages are fetched without JavaScript (each page then falls back to a plain fetch,
    so the run goes on: a warning, not an error); say nothing on the console when the run is stopping, where a browser
    or Playwright driver ended by the same Ctrl-C is the interrupt's doing."""
    if stopping or _reported_unavailable.is_set():
        logger.info("%s", error)
        return
    _reported_unavailable.set()
    logger.warning("%s; pages that need JavaScript are fetched without it", error)
