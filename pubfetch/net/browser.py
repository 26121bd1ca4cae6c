"""JavaScript rendering: fetch a page with headless Chromium (Playwright) and classify the result like plain HTTP.

PubFetcher renders pages that need JavaScript with HtmlUnit (1.1.1) or headless Firefox (develop), in a thread it can
kill, because a few sites never finish. Here a headless Chromium does the rendering, driven by Playwright's sync API.

Why the threads look the way they do:

* Playwright's sync API is bound to the thread that started it, and fetch workers are many threads. So one dedicated
  worker thread owns Playwright and the browser and serves render requests from a queue, one page at a time; the
  browser is started on first use and reused (a fresh browser context per page keeps cookies and storage apart).
* A page can hang the worker in a call that has no timeout of its own: ``page.content()`` waits forever behind a
  script stuck in a loop, and closing such a page can hang too. Every Playwright call that takes a timeout gets what is
  left of the page's limit; a watchdog thread covers the rest: when a page is still busy ``kill_grace_ms`` after its
  limit, the browser process is killed (found by a marker argument on its command line), which makes the stuck call
  fail at once; the page becomes a TIMEOUT and the next page starts a new browser. If even that does not free the
  worker, it is abandoned and a new worker takes over the queue.
* Plain HTTP fetching must not pay for any of this: Playwright is imported only when a page is rendered.

Results are :class:`~pubfetch.net.outcome.FetchResult`, as from :class:`~pubfetch.net.client.HttpClient`: the status
of the main document decides the kind (404 -> NOT_FOUND, ...), ``text`` is the DOM serialised after the scripts ran
(``body`` is its UTF-8 encoding, so parse ``text``: a ``<meta charset>`` in it may name another encoding), non-HTML
documents (PDF, XML) are UNSUPPORTED_TYPE (with ``is_pdf``) for the caller to fetch plainly, as PubFetcher does.

URLs are treated as untrusted: unless ``allow_private_addresses``, the page and every request it makes are refused when
the host is a loopback/private/link-local/metadata address (:mod:`pubfetch.net.addresses`). Playwright's routing sees
neither WebSockets nor the hops of redirects Chromium follows itself, so all of Chromium's traffic goes through a
:class:`~pubfetch.net.guardproxy.GuardProxy` on 127.0.0.1 that checks the address it actually connects to: a
WebSocket, worker, fetch, script or iframe reaching a loopback service (directly or by a redirect) fails there. The
routes still refuse forbidden hosts early (a clean FORBIDDEN_ADDRESS for the main document), and a main document that
was redirected to such an address is dropped. Images, media and fonts are not loaded (PubFetcher does not download
images either): they cost time and hold nothing to extract.
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import queue
import re
import shutil
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Self

from pubfetch.net import addresses
from pubfetch.net.config import DEFAULT_MAX_BYTES, DEFAULT_USER_AGENT
from pubfetch.net.outcome import FetchResult, OutcomeKind, kind_for_status, sets_fetch_exception
from pubfetch.net.sniff import is_pdf_media, media_type
from pubfetch.net.urls import HTTP_SCHEMES, hostname, origin, scheme
import contextlib

from pubfetch.net.guardproxy import GuardProxy

if TYPE_CHECKING:
    from pubfetch.net.counts import RequestCounts
    from playwright.sync_api import Browser, Page, Playwright, Request, Response, Route, WebSocketRoute

logger = logging.getLogger(__name__)

#: Environment variable naming the Chromium binary to use.
ENV_VAR: Final = "PUBFETCH_CHROMIUM"
#: System binaries tried, in order, when neither a configured path nor Playwright's own browser is there.
SYSTEM_CANDIDATES: tuple[str, ...] = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")
#: Chromium switches: no sandbox (containers run as root), no GPU, /tmp instead of a small /dev/shm (Docker's 64 MB
#: makes renderers crash), and no phoning home: no background networking, component updates (update.googleapis.com),
#: sync, default apps, safe-browsing and domain-reliability reports, translation, hyperlink pings or DNS prefetching.
LAUNCH_ARGS: Final = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-dev-shm-usage", "--disable-component-update", "--disable-sync", "--disable-extensions",
                      "--disable-default-apps", "--no-first-run", "--no-default-browser-check",
                      "--disable-domain-reliability", "--disable-client-side-phishing-detection",
                      "--disable-breakpad", "--metrics-recording-only", "--no-pings", "--dns-prefetch-disable",
                      "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication,"
                      "CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,CalculateNativeWinOcclusion")
UNAVAILABLE_MESSAGE: Final = (
    "JavaScript fetching needs Chromium: install it with `apt-get install chromium` or `playwright install chromium`, "
    f"or set {ENV_VAR}=/path"
)

#: PubFetcher 1.1.1 caps a JavaScript fetch at 2 minutes.
DEFAULT_PAGE_TIMEOUT_MS: Final = 120_000
#: Longest wait for the network to fall quiet after the load event when no ``wait_until`` selector is given.
DEFAULT_SETTLE_MS: Final = 2_000
#: How long after a page's limit the watchdog waits before killing the browser.
DEFAULT_KILL_GRACE_MS: Final = 5_000
LAUNCH_TIMEOUT_MS: Final = 30_000
#: After killing the browser, how long the worker may stay stuck before it is abandoned for a new one.
UNBLOCK_S: Final = 10.0
#: How long "no browser" is believed before looking again (pages meanwhile fail at once).
RECHECK_UNAVAILABLE_S: Final = 60.0
#: Time kept back from a ``wait_until`` wait so that the page can still be read before its limit.
READ_RESERVE_MS: Final = 1_000

_HTML_MEDIA: Final = frozenset({"", "text/html", "application/xhtml+xml"})
_SKIPPED_RESOURCES: Final = frozenset({"image", "media", "font"})
_REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
_MARKER_PREFIX: Final = "--pubfetch-browser="

#: Chromium network errors (as Playwright reports them) -> outcome kinds; first match wins.
_NET_ERRORS: Final = (
    (re.compile(r"ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED"), OutcomeKind.DNS),
    (re.compile(r"ERR_(?:CONNECTION_)?TIMED_OUT"), OutcomeKind.TIMEOUT),
    (re.compile(r"ERR_(?:CONNECTION_REFUSED|CONNECTION_FAILED|ADDRESS_UNREACHABLE|NETWORK_UNREACHABLE|"
                r"INTERNET_DISCONNECTED|PROXY_CONNECTION_FAILED|TUNNEL_CONNECTION_FAILED|NETWORK_CHANGED)"),
     OutcomeKind.CONNECTION),
    (re.compile(r"ERR_(?:CERT_|SSL_|BAD_SSL_)"), OutcomeKind.SSL),
    (re.compile(r"ERR_TOO_MANY_REDIRECTS"), OutcomeKind.TOO_MANY_REDIRECTS),
    (re.compile(r"ERR_(?:INVALID_URL|UNSAFE_PORT|DISALLOWED_URL_SCHEME|UNKNOWN_URL_SCHEME)"), OutcomeKind.BAD_URL),
    (re.compile(r"ERR_BLOCKED_BY_CLIENT"), OutcomeKind.FORBIDDEN_ADDRESS),
    (re.compile(r"Download is starting"), OutcomeKind.UNSUPPORTED_TYPE),
    (re.compile(r"ERR_(?:CONNECTION_RESET|CONNECTION_CLOSED|CONNECTION_ABORTED|EMPTY_RESPONSE|"
                r"CONTENT_LENGTH_MISMATCH|INCOMPLETE_CHUNKED_ENCODING|INVALID_CHUNKED_ENCODING|INVALID_RESPONSE|"
                r"INVALID_HTTP_RESPONSE|RESPONSE_HEADERS_|HTTP2_|QUIC_|CONTENT_DECODING_FAILED|ABORTED)"),
     OutcomeKind.IO_ERROR),
)
_NAVIGATING: Final = re.compile(r"(?i)navigat|execution context was destroyed")
_INTERRUPTED: Final = re.compile(r"(?i)interrupted by another navigation")


class BrowserUnavailable(RuntimeError):
    """No usable Chromium (or no Playwright): JavaScript pages cannot be rendered on this machine."""


# ---------------------------------------------------------------------------------------------------------------------
# Finding a browser
# ---------------------------------------------------------------------------------------------------------------------


def _usable(candidate: str) -> str | None:
    """The path of an executable file named by ``candidate`` (a path, or a command looked up on PATH)."""
    candidate = os.path.expanduser(candidate.strip())
    if not candidate:
        return None
    if os.sep in candidate or (os.altsep and os.altsep in candidate):
        path = os.path.abspath(candidate)
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return shutil.which(candidate)


def _choose(configured: str | None, bundled: str | None) -> str | None:
    """Pick the browser: the configured one (argument, else ``PUBFETCH_CHROMIUM``), then Playwright's own, then the
    system's. A configured path that is not there is reported and skipped rather than failing every page."""
    configured = configured or None  # PUBFETCH_CHROMIUM is read by the configuration (FetchConfig.chromium)
    if configured:
        found = _usable(configured)
        if found:
            return found
        logger.warning("configured Chromium %r is not an executable file; looking for another browser", configured)
    if bundled and _usable(bundled):
        return bundled
    for name in SYSTEM_CANDIDATES:
        found = _usable(name)
        if found:
            return found
    return None


@functools.lru_cache(maxsize=1)
def _bundled_chromium() -> str | None:
    """Where Playwright keeps its own Chromium (whether or not it is installed); ``None`` without Playwright.

    Asking needs Playwright's driver, which refuses to start in a thread running an asyncio loop, so it is asked from
    a short-lived thread of its own.
    """
    found: list[str] = []

    def ask() -> None:
        try:
            from playwright.sync_api import sync_playwright

            with sync_playwright() as pw:
                found.append(pw.chromium.executable_path)
        except Exception as e:  # noqa: BLE001 - any failure just means "no bundled browser"
            logger.debug("cannot ask Playwright for its Chromium: %s", e)

    thread = threading.Thread(target=ask, name="pubfetch-playwright-probe", daemon=True)
    thread.start()
    thread.join(30)
    return found[0] if found else None


def find_chromium(configured: str | None = None) -> str | None:
    """The Chromium binary JavaScript rendering would use, or ``None`` if there is none.

    Order: ``configured`` (else the ``PUBFETCH_CHROMIUM`` environment variable) when it names an executable, then
    Playwright's own browser when it is installed, then ``/usr/bin/chromium``, ``chromium``, ``chromium-browser`` and
    ``google-chrome`` on PATH.
    """
    return _choose(configured, _bundled_chromium())


# ---------------------------------------------------------------------------------------------------------------------
# Killing a browser that hangs
# ---------------------------------------------------------------------------------------------------------------------


def _marked_pids(marker: str) -> list[int]:
    """Processes started with ``marker`` as one of their arguments (Linux /proc; empty elsewhere)."""
    wanted = marker.encode()
    own = os.getpid()
    pids: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return pids
    for entry in entries:
        if not entry.isdigit() or int(entry) == own:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if wanted in argv:
            pids.append(int(entry))
    return pids


def _kill(pids: Iterable[int]) -> list[int]:
    """SIGKILL the processes; the ones that were signalled."""
    killed = []
    sig = getattr(signal, "SIGKILL", signal.SIGTERM)
    for pid in pids:
        try:
            os.kill(pid, sig)
            killed.append(pid)
        except (ProcessLookupError, PermissionError):
            pass
    return killed


# ---------------------------------------------------------------------------------------------------------------------
# Jobs and results
# ---------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Settings:
    user_agent: str
    timeout_ms: int
    max_bytes: int
    executable: str | None
    allow_private_addresses: bool
    settle_ms: int
    kill_grace_ms: int

    @property
    def limit_s(self) -> float:
        return self.timeout_ms / 1000


@dataclass(eq=False)
class _Job:
    """One render request; ``url`` ``None`` asks only that the browser be started. Finished exactly once, by the
    worker or (when the worker is abandoned) by the watchdog."""

    url: str | None
    wait_until: str | None = None
    result: FetchResult | None = None
    error: BrowserUnavailable | None = None
    executable: str | None = None
    deadline: float | None = None
    done: threading.Event = field(default_factory=threading.Event, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _started: bool = field(default=False, init=False)

    def begin(self) -> bool:
        with self._lock:
            if self.done.is_set():
                return False
            self._started = True
            return True

    @property
    def started(self) -> bool:
        return self._started

    def finish(self, result: FetchResult | None = None, error: BrowserUnavailable | None = None) -> bool:
        with self._lock:
            if self.done.is_set():
                return False
            self.result, self.error = result, error
            self.done.set()
            return True


def _outcome(url: str, kind: OutcomeKind, message: str, final_url: str | None = None,
             response: Response | None = None) -> FetchResult:
    result = FetchResult(url=url, final_url=final_url or url, kind=kind, message=message, attempts=1)
    if response is not None:
        _describe(result, response)
    return result


def _describe(result: FetchResult, response: Response) -> None:
    """Copy status and headers of the main document's response into the result."""
    from requests.structures import CaseInsensitiveDict

    result.status = response.status
    result.headers = CaseInsensitiveDict(response.headers)
    result.content_type = result.headers.get("content-type")
    result.final_url = response.url
    hops: list[str] = []
    request = response.request.redirected_from
    while request is not None:
        hops.append(request.url)
        request = request.redirected_from
    result.redirects = tuple(reversed(hops))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def _classify(exc: BaseException) -> OutcomeKind:
    text = str(exc)
    for pattern, kind in _NET_ERRORS:
        if pattern.search(text):
            return kind
    return OutcomeKind.OTHER


# ---------------------------------------------------------------------------------------------------------------------
# One page
# ---------------------------------------------------------------------------------------------------------------------


class _PageWatch:
    """Per-page request filter and main-document tracker (its callbacks run on the worker thread)."""

    def __init__(self, settings: _Settings) -> None:
        self._settings = settings
        self.main: Response | None = None
        self.blocked: dict[str, str] = {}

    def forbidden(self, url: str) -> str | None:
        """Why this request must not be made, ``None`` if it may."""
        if self._settings.allow_private_addresses or scheme(url) not in HTTP_SCHEMES:
            return None
        host = hostname(url)
        if host is None:
            return None
        reason = addresses.forbidden_host_reason(host)
        return f"{host} is a {reason}" if reason else None

    def route(self, route: Route) -> None:
        from playwright.sync_api import Error

        request = route.request
        try:
            if request.resource_type in _SKIPPED_RESOURCES:
                route.abort("blockedbyclient")
                return
            reason = self.forbidden(request.url)
            if reason:
                self.blocked[request.url] = reason
                logger.warning("browser request refused: %s (%s)", request.url, reason)
                route.abort("blockedbyclient")
                return
            route.continue_()
        except Error as e:  # the page went away meanwhile
            logger.debug("route of %s not handled: %s", request.url, e)

    def route_web_socket(self, socket: WebSocketRoute) -> None:
        """WebSockets are not seen by :meth:`route`: check them here (the guard proxy checks them again)."""
        url = socket.url
        reason = self.forbidden(re.sub(r"^ws(s?):", r"http\1:", url, flags=re.IGNORECASE))
        if reason:
            self.blocked[url] = reason
            logger.warning("browser WebSocket refused: %s (%s)", url, reason)
            socket.close(code=1008, reason="forbidden address")
            return
        socket.connect_to_server()

    def on_response(self, response: Response) -> None:
        try:
            request = response.request
            if not request.is_navigation_request() or response.frame.parent_frame is not None:
                return
            if scheme(response.url) not in HTTP_SCHEMES:
                return
            if response.status in _REDIRECT_STATUSES and response.headers.get("location"):
                return
        except Exception:  # noqa: BLE001 - a detached frame; not the main document
            return
        self.main = response

    def redirect_refusal(self, response: Response) -> str | None:
        """Why the main document must be dropped: it came through (or from) a forbidden address."""
        urls = [response.url]
        request: Request | None = response.request.redirected_from
        while request is not None:
            urls.append(request.url)
            request = request.redirected_from
        for url in urls:
            reason = self.forbidden(url)
            if reason:
                return f"redirected to {url}: {reason}"
        return None


# ---------------------------------------------------------------------------------------------------------------------
# The worker thread and its watchdog
# ---------------------------------------------------------------------------------------------------------------------


class _Worker:
    """Owns Playwright and one browser; renders queued jobs one at a time. See the module docstring."""

    def __init__(self, settings: _Settings, jobs: queue.Queue[_Job | None], on_retire: Callable[[_Worker], None]):
        self.settings = settings
        self._jobs = jobs
        self._on_retire = on_retire
        self._lock = threading.Lock()
        self._armed_until: float | None = None
        self._killed_at: float | None = None
        self._current: _Job | None = None
        self._marker: str | None = None
        self._stopped = threading.Event()
        self.retired = False
        self.executable: str | None = None
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._unavailable: tuple[BrowserUnavailable, float] | None = None  # and when it was found out
        self._page_watch: _PageWatch | None = None
        #: all of Chromium's connections go through it unless private addresses are allowed
        self.proxy: GuardProxy | None = None
        self._thread = threading.Thread(target=self._run, name="pubfetch-browser", daemon=True)
        self._watchdog = threading.Thread(target=self._watch, name="pubfetch-browser-watchdog", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._watchdog.start()

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
        return _kill(_marked_pids(marker)) if marker else []

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
            job.finish(_outcome(job.url, OutcomeKind.TIMEOUT,
                                f"page did not finish within {self.settings.limit_s:g} s (browser worker abandoned)"))
        elif job is not None:
            job.finish(error=BrowserUnavailable(f"{UNAVAILABLE_MESSAGE} (the browser did not start)"))
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
                        job.finish(_outcome(job.url, OutcomeKind.OTHER, _first_line(e)))
                    else:
                        job.finish(error=BrowserUnavailable(f"{UNAVAILABLE_MESSAGE} ({_first_line(e)})"))
                    self._drop_browser()
                finally:
                    self._current = None
                    self._disarm()
        finally:
            self._shutdown()
            self._stopped.set()

    def _serve(self, job: _Job) -> None:
        self._arm(time.monotonic() + (LAUNCH_TIMEOUT_MS + self.settings.kill_grace_ms) / 1000)
        try:
            self._ensure_browser()
        except BrowserUnavailable as e:
            job.executable = None
            job.finish(_outcome(job.url, OutcomeKind.OTHER, str(e)) if job.url else None, e)
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
            result = _outcome(job.url, _classify(e), _first_line(e))
        killed = self._was_killed()
        if killed:
            main = self._page_watch.main if self._page_watch is not None else None
            result = _outcome(job.url, OutcomeKind.TIMEOUT, f"page did not finish within {self.settings.limit_s:g} s "
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
                try:
                    self._pw = sync_playwright().start()
                except Exception as e:
                    raise BrowserUnavailable(f"{UNAVAILABLE_MESSAGE} (Playwright did not start: {e})") from e
            try:
                bundled: str | None = self._pw.chromium.executable_path
            except Exception:  # noqa: BLE001 - no browsers registered for this platform
                bundled = None
            path = _choose(self.settings.executable, bundled)
            if path is None:
                raise BrowserUnavailable(UNAVAILABLE_MESSAGE)
            self._marker = f"{_MARKER_PREFIX}{uuid.uuid4().hex}"
            try:
                self._browser = self._pw.chromium.launch(
                    executable_path=path, headless=True, args=[*LAUNCH_ARGS, *self._proxy_args(), self._marker],
                    timeout=LAUNCH_TIMEOUT_MS,
                )
            except Exception as e:
                raise BrowserUnavailable(f"{UNAVAILABLE_MESSAGE} (Chromium at {path} did not start: "
                                         f"{_first_line(e)})") from e
        except BrowserUnavailable as e:
            self._unavailable = (e, time.monotonic())
            logger.error("%s", e)
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
            _kill(_marked_pids(self._marker))  # renderers and helpers the browser left behind

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

    def _remaining_ms(self, job: _Job) -> float:
        assert job.deadline is not None
        return max(1.0, (job.deadline - time.monotonic()) * 1000)

    def _render(self, job: _Job) -> FetchResult:
        from playwright.sync_api import Error, TimeoutError

        assert job.url is not None and self._browser is not None
        url = job.url
        watch = self._page_watch = _PageWatch(self.settings)
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
                return _outcome(url, OutcomeKind.TIMEOUT,
                                f"page did not finish loading within {self.settings.limit_s:g} s",
                                final_url=page.url if page.url != "about:blank" else None, response=watch.main)
            except Error as e:
                kind = _classify(e)
                message = _first_line(e)
                if kind is OutcomeKind.FORBIDDEN_ADDRESS:
                    message = watch.blocked.get(url, message)
                result = _outcome(url, kind, message, response=watch.main)
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

    def _goto(self, page: Page, job: _Job) -> Response | None:
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

    def _check_main(self, job: _Job, watch: _PageWatch, response: Response | None) -> FetchResult | None:
        """The failure the main document's response already decides, or ``None`` to go on reading the page."""
        assert job.url is not None
        if response is None:
            return _outcome(job.url, OutcomeKind.OTHER, "no response for the page")
        refusal = watch.redirect_refusal(response)
        if refusal:
            return _outcome(job.url, OutcomeKind.FORBIDDEN_ADDRESS, refusal, final_url=response.url)
        kind = kind_for_status(response.status)
        if kind is not OutcomeKind.OK:
            return _outcome(job.url, kind, f"HTTP {response.status}", response=response)
        mtype = media_type(response.headers.get("content-type"))
        if mtype not in _HTML_MEDIA:
            result = _outcome(job.url, OutcomeKind.UNSUPPORTED_TYPE, f"{mtype} is not an HTML page", response=response)
            result.is_pdf = is_pdf_media(mtype)
            return result
        return None

    def _settle(self, page: Page, job: _Job) -> None:
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
                logger.warning("bad wait_until selector %r for %s: %s", job.wait_until, job.url, _first_line(e))
            return
        if self.settings.settle_ms > 0:
            with contextlib.suppress(TimeoutError):
                page.wait_for_load_state("networkidle", timeout=min(self.settings.settle_ms, self._remaining_ms(job)))

    def _read(self, page: Page, job: _Job, watch: _PageWatch, response: Response | None) -> FetchResult:
        from playwright.sync_api import Error

        assert job.url is not None
        max_bytes = self.settings.max_bytes
        while True:
            try:
                length = page.evaluate("() => document.documentElement ? document.documentElement.outerHTML.length : 0")
                if int(length) > max_bytes:
                    return _outcome(job.url, OutcomeKind.TOO_LARGE, f"rendered page over {max_bytes} bytes "
                                    f"({length} characters)", response=watch.main or response)
                html = page.content()
                break
            except Error as e:
                if not _NAVIGATING.search(str(e)):
                    raise
                assert job.deadline is not None
                if time.monotonic() >= job.deadline:  # scripts that navigate for ever
                    return _outcome(job.url, OutcomeKind.TIMEOUT, f"page kept navigating for "
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
            return _outcome(job.url, OutcomeKind.TOO_LARGE, f"rendered page over {max_bytes} bytes", response=main)
        result = _outcome(job.url, OutcomeKind.OK, "", response=main)
        result.final_url = page.url
        result.body = body
        result.text = body.decode("utf-8")
        result.encoding = "utf-8"
        result.encoding_source = "rendered"
        return result


# ---------------------------------------------------------------------------------------------------------------------
# The public renderer
# ---------------------------------------------------------------------------------------------------------------------


class BrowserRenderer:
    """Renders pages with JavaScript in a shared headless Chromium; thread-safe, one page at a time.

    Args:
        user_agent: the User-Agent of every request (PubFetcher's ``userAgent``).
        timeout_ms: hard limit on one page, from the start of its navigation to its HTML being read (PubFetcher: 2
            minutes). A page over it is closed (the browser killed if need be) and reported as TIMEOUT.
        max_bytes: cap on the rendered HTML (UTF-8 bytes); over it the result is TOO_LARGE.
        executable: Chromium binary; default ``PUBFETCH_CHROMIUM``, Playwright's browser, a system Chromium
            (:func:`find_chromium`).
        allow_private_addresses: allow pages and their requests to reach loopback/private/metadata addresses (tests,
            intranets).
        settle_ms: after the load event, how long to wait at most for the network to go quiet (pages filling
            themselves from XHR), when no ``wait_until`` selector is given; 0 to read at once.
        kill_grace_ms: how long past ``timeout_ms`` a stuck page may take before the browser is killed.
    """

    def __init__(
        self,
        user_agent: str = DEFAULT_USER_AGENT,
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
        self._settings = _Settings(user_agent, timeout_ms, max_bytes, executable or None, allow_private_addresses,
                                   settle_ms, kill_grace_ms)
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._lock = threading.Lock()
        self._worker: _Worker | None = None
        self._retired: list[_Worker] = []
        self._closed = False
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

    def render(self, url: str, wait_until: str | None = None, *, publication: bool = False) -> FetchResult:
        """Load ``url`` in the browser, let its scripts run, and return the resulting HTML as a classified result.

        Args:
            url: http(s) URL; treated as untrusted (see ``allow_private_addresses``).
            wait_until: a CSS selector to wait for before reading the page (scraping rules' ``wait_until``); when it
                does not appear within the limit, the page is read as it is, as PubFetcher does.
            publication: fetching for a publication (only changes ``result.fetch_exception``, PubFetcher's rule).

        Never raises for network or browser trouble: a missing browser is an OTHER failure whose message says how to
        install one (:meth:`ensure_browser` raises :class:`BrowserUnavailable` instead, for a CLI to report).
        """
        if not isinstance(url, str):
            raise TypeError(f"url must be a str, got {type(url).__name__}")
        url = url.strip()
        started = time.monotonic()
        result = self._refuse(url)
        if result is None:
            logger.info("GET %s (with JavaScript)", url)
            job = _Job(url, wait_until.strip() if wait_until and wait_until.strip() else None)
            self._run(job)
            result = job.result or _outcome(url, OutcomeKind.OTHER, "the renderer gave no result")
            if self._counts is not None and job.error is None:
                self._counts.record(result.final_url or url, result.status,
                                    not result.ok and result.kind is not OutcomeKind.UNSUPPORTED_TYPE)
        result.fetch_exception = sets_fetch_exception(result, publication=publication)
        elapsed = time.monotonic() - started
        if result.ok:
            logger.info("GOT %s (with JavaScript, %d bytes, %.2f s)", result.final_url, len(result.body), elapsed)
        else:
            logger.warning("GET %s with JavaScript failed: %s%s (%s)%s", url, result.kind.name,
                           f" {result.status}" if result.status else "", result.message,
                           " -> fetchException" if result.fetch_exception else "")
        return result

    def ensure_browser(self) -> str:
        """Start the browser now; the path of the Chromium in use. Raises :class:`BrowserUnavailable` if none."""
        job = _Job(None)
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
        if not worker.join(DEFAULT_KILL_GRACE_MS / 1000):
            logger.warning("browser worker busy at close: killing the browser")
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
            return _outcome(url, kind, f"only http and https URLs are rendered: {url}")
        host = hostname(url)
        if host is None:
            return _outcome(url, OutcomeKind.BAD_URL, f"no host in {url}")
        if not self._settings.allow_private_addresses:
            reason = addresses.forbidden_host_reason(host)
            if reason:
                return _outcome(url, OutcomeKind.FORBIDDEN_ADDRESS, f"{host} is a {reason}")
        return None

    def _run(self, job: _Job) -> None:
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

    def _cancel(self, job: _Job) -> None:
        if job.url is not None:
            job.finish(_outcome(job.url, OutcomeKind.OTHER, "the renderer was closed"))
        else:
            job.finish(error=BrowserUnavailable("the renderer was closed"))

    def _ensure_worker(self) -> None:
        """Start a worker if there is no live one (first use, or the last one was abandoned). Holds ``_lock``."""
        if self._worker is not None and self._worker.alive:
            return
        self._worker = _Worker(self._settings, self._jobs, self._worker_retired)
        self._worker.start()

    def _worker_retired(self, worker: _Worker) -> None:
        with self._lock:
            self._retired.append(worker)
            if self._worker is worker and not self._closed:
                self._ensure_worker()


# ---------------------------------------------------------------------------------------------------------------------
# Sharing and shutdown
# ---------------------------------------------------------------------------------------------------------------------

_LIVE: set[BrowserRenderer] = set()
_SHARED: dict[tuple[Any, ...], BrowserRenderer] = {}
_SHARED_LOCK = threading.Lock()


def page_timeout_ms(timeout_ms: int) -> int:
    """The per-page limit for PubFetcher's ``timeout`` parameter: 8 x the socket timeout, at least 30 s."""
    return max(timeout_ms * 8, 30_000)


def shared_renderer(config: Any) -> BrowserRenderer:
    """One renderer per distinct setting, shared by every caller (a browser is expensive to start).

    Args:
        config: a :class:`pubfetch.config.FetchConfig` (passed in: net/ sits below config/ and never builds one);
            its user agent, timeout (see :func:`page_timeout_ms`), size cap, ``chromium`` and
            ``allow_private_addresses`` are used.
    """
    http = config.http_config()
    key = (config.args.user_agent, page_timeout_ms(config.args.timeout), http.max_bytes, config.chromium or None,
           bool(config.allow_private_addresses))
    with _SHARED_LOCK:
        renderer = _SHARED.get(key)
        if renderer is None or renderer.closed:
            renderer = BrowserRenderer(user_agent=key[0], timeout_ms=key[1], max_bytes=key[2], executable=key[3],
                                       allow_private_addresses=key[4])
            _SHARED[key] = renderer
        return renderer


@atexit.register
def _close_all() -> None:
    """Close every open renderer at exit, so that no Chromium outlives the process."""
    for renderer in list(_LIVE):
        try:
            renderer.close()
        except Exception as e:  # noqa: BLE001 - exiting anyway
            logger.debug("closing a renderer at exit: %s", e)
