"""The HTTP client every resource uses: one call in, one classified :class:`FetchResult` out, never an exception.

Layers, outermost first (Scrapy's downloader middlewares, flattened):

1. URL checks: only http and https (ftp for PDFs), a host, and for untrusted URLs no private/loopback/metadata target.
2. Redirects, followed by hand so that every hop is checked like the first (scheme, address), loops are caught and the
   response hook sees every response.
3. Retries (tenacity, :mod:`pubfetch.net.retry`) of one hop: a timeout once unless quick, 503/429 after Retry-After.
4. The exchange: a per-host slot is held while a thread-local pooled ``requests.Session`` sends the request and the body
   is streamed under the size cap, bomb guard and deadline.

Sessions have ``trust_env`` on, so HTTP_PROXY/HTTPS_PROXY/NO_PROXY/ALL_PROXY and REQUESTS_CA_BUNDLE/CURL_CA_BUNDLE are
honoured as in any requests program. Each thread gets its own session because ``requests.Session`` is not documented
as thread-safe; its connection pool still keeps connections alive across that thread's requests.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final, Self

import requests
from requests.adapters import HTTPAdapter
from requests.structures import CaseInsensitiveDict

from pubfetch.net import addresses
from pubfetch.net import body as bodies
from pubfetch.net.config import HttpConfig
from pubfetch.net.encoding import decode_body
from pubfetch.net.errors import classify_exception
from pubfetch.net.ftp import fetch_ftp
from pubfetch.net.outcome import FetchResult, OutcomeKind, kind_for_status, sets_fetch_exception
from pubfetch.net.record import ExchangeRecord, call_hook
from pubfetch.net.retry import ExchangeFailed, ServerBusy, build_retrying, parse_retry_after
from pubfetch.net.slots import HostSlots
from pubfetch.net.sniff import has_pdf_magic, is_pdf, is_pdf_media, is_skipped_media, is_textual_media, media_type
from pubfetch.net.urls import (
    HTTP_SCHEMES,
    RedactingFilter,
    header_text,
    host_key,
    hostname,
    origin,
    resolve_location,
    scheme,
    without_fragment,
)

logger = logging.getLogger(__name__)
logger.addFilter(RedactingFilter())  # request URLs may carry an api_key; logs must not

REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
_SHORT_PATH: Final = 80


def _short_path(url: str) -> str:
    """The path of a URL without its query (e-mail, API key, long ID lists), cut to a readable length."""
    path = url.split("://", 1)[-1].partition("/")[2].partition("?")[0]
    path = "/" + path
    return path if len(path) <= _SHORT_PATH else path[:_SHORT_PATH - 3] + "..."

BUSY_STATUSES: Final = frozenset({429, 503})
#: A URL may be visited twice in one redirect chain (A -> A?cookie-set -> A is common); a third visit is a loop.
MAX_VISITS_PER_URL: Final = 2
#: Bytes kept of bodies nobody needs in full: redirects, 503/429, error pages.
SMALL_BODY: Final = 64 * 1024

_DEFAULT_ACCEPT: Final = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
_HTTP_VERSIONS: Final = {9: "HTTP/0.9", 10: "HTTP/1.0", 11: "HTTP/1.1", 20: "HTTP/2", 30: "HTTP/3"}

Data = Mapping[str, str] | bytes | str | None


@dataclass
class _Hop:
    """One received response, reduced to what the client decides on."""

    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes = b""
    location: str | None = None
    skipped: bool = False  # body deliberately not downloaded (media type)
    attempts: int = 0
    retry_after: float | None = None


@dataclass
class _Request:
    """What one call asks for; redirects mutate method/url/data."""

    method: str
    url: str
    data: Data
    headers: dict[str, str]
    untrusted: bool
    accept_pdf: bool
    publication: bool
    follow: bool = True
    read_body: bool = True
    redirects: list[str] = field(default_factory=list)


class HttpClient:
    """Thread-safe HTTP client with PubFetcher's behaviour (see module docstring).

    Args:
        config: settings; defaults are PubFetcher's.
        slots: share one :class:`HostSlots` between several clients (defaults to one built from ``config``).
        sleep: how retries wait (tests may speed it up).
    """

    def __init__(
        self,
        config: HttpConfig | None = None,
        *,
        slots: HostSlots | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config or HttpConfig()
        self.slots = slots or HostSlots(
            self.config.per_host_connections, self.config.host_connections, self.config.unlimited_hosts
        )
        self._sleep = sleep
        self._local = threading.local()
        self._sessions: list[requests.Session] = []
        self._sessions_lock = threading.Lock()

    # ------------------------------------------------------------------ public API

    def get(
        self,
        url: str,
        *,
        referer: str | None = None,
        publication: bool = False,
        untrusted: bool = False,
        accept_pdf: bool = True,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str] | None = None,
    ) -> FetchResult:
        """GET a URL, following redirects.

        Args:
            url: http(s) URL; ftp is accepted when ``accept_pdf`` (as PubFetcher does for PDF links).
            referer: Referer header; default PubFetcher's, the origin of ``url``.
            publication: fetching for a publication (only changes ``result.fetch_exception``, PubFetcher's rule).
            untrusted: the URL comes from a page, a redirect or a third-party API: refuse private/loopback/metadata
                targets unless ``config.allow_private_addresses``. Redirect hops to another host are checked anyway.
            accept_pdf: when false, a PDF is not downloaded and the outcome is ``UNSUPPORTED_TYPE`` with ``is_pdf``.
            headers: extra request headers (e.g. ``Accept`` for an API).
            params: query parameters appended to ``url``.
        """
        if params:
            url = _with_params(url, params)
        request = _Request("GET", url, None, self._headers(url, referer, headers), untrusted, accept_pdf, publication)
        return self._run(request)

    def post(
        self,
        url: str,
        data: Data,
        *,
        referer: str | None = None,
        publication: bool = False,
        untrusted: bool = False,
        headers: Mapping[str, str] | None = None,
    ) -> FetchResult:
        """POST form data or a body (e.g. E-utilities efetch with a long ID list), following redirects.

        Retried like GET: the services this is for (efetch, search) are idempotent.
        """
        request = _Request("POST", url, data, self._headers(url, referer, headers), untrusted, True, publication)
        return self._run(request)

    def resolve_redirect(
        self,
        url: str,
        *,
        referer: str | None = None,
        untrusted: bool = False,
        headers: Mapping[str, str] | None = None,
    ) -> FetchResult:
        """Request a URL without following a redirect and report its Location (for doi.org).

        ``result.location`` is the absolute redirect target (``None`` if the answer was not a redirect); the body is
        not downloaded. Errors are classified as for :meth:`get` (an unknown DOI is ``NOT_FOUND``).
        """
        request = _Request("GET", url, None, self._headers(url, referer, headers), untrusted, True, False)
        request.follow = False
        request.read_body = False
        return self._run(request)

    def close(self) -> None:
        """Close the pooled connections of every thread's session."""
        with self._sessions_lock:
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            session.close()
        self._local = threading.local()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------------ the call: checks and redirects

    def _run(self, request: _Request) -> FetchResult:
        started = time.monotonic()
        result = self._follow(request)
        result.fetch_exception = sets_fetch_exception(result, publication=request.publication)
        elapsed = time.monotonic() - started
        if result.ok:
            logger.info("GOT %s (%s, %d bytes, %.2f s)", result.final_url, result.content_type, len(result.body),
                        elapsed)
        else:
            # one sentence on the console (host, the path that names the ID, what happened); the whole story in
            # the log file
            logger.warning("%s: %s %s: %s%s", hostname(result.final_url or result.url), request.method,
                           _short_path(result.final_url or result.url), result.brief(),
                           "; a later run retries it" if result.fetch_exception else "")
            logger.debug("%s %s failed: %s%s (%s)%s", request.method, result.url, result.kind.name,
                         f" {result.status}" if result.status else "", result.message,
                         " -> fetchException" if result.fetch_exception else "")
        return result

    def _follow(self, request: _Request) -> FetchResult:
        start_url = request.url
        refused = self._refuse_url(request, start_url, first=True)
        if refused is not None:
            return refused
        if scheme(start_url) == "ftp":
            return self._run_ftp(request)

        visits: Counter[str] = Counter()
        current = start_url
        while True:
            visits[without_fragment(current)] += 1
            logger.info("%s %s", request.method, current)
            try:
                hop = self._with_retries(request, current)
            except ServerBusy as busy:
                hop = busy.payload if isinstance(busy.payload, _Hop) else _Hop(current, busy.status, {})
                return self._error(request, current, OutcomeKind.SERVER_BUSY, str(busy), hop=hop)
            except ExchangeFailed as failed:
                failed_hop = failed.payload if isinstance(failed.payload, _Hop) else None
                return self._error(request, current, failed.kind, failed.message, hop=failed_hop,
                                   attempts=failed.attempts)

            if hop.location is None or not request.follow:
                return self._final(request, hop)

            target = hop.location
            if len(request.redirects) >= self.config.max_redirects:
                return self._error(
                    request, current, OutcomeKind.TOO_MANY_REDIRECTS,
                    f"more than {self.config.max_redirects} redirects (next: {target})", hop=hop,
                )
            if visits[without_fragment(target)] >= MAX_VISITS_PER_URL:
                return self._error(request, current, OutcomeKind.REDIRECT_LOOP, f"redirect loop at {target}", hop=hop)
            request.redirects.append(current)
            refused = self._refuse_url(request, target, first=False)
            if refused is not None:
                return refused
            logger.info("redirect %d %s -> %s", hop.status, current, target)
            if hop.status in (301, 302, 303) and request.method == "POST":
                # what browsers and requests do: the body is not re-sent, the method becomes GET
                request.method, request.data = "GET", None
                request.headers.pop("Content-Type", None)
            current = target

    def _refuse_url(self, request: _Request, url: str, *, first: bool) -> FetchResult | None:
        """The outcome for a URL that must not be requested, or ``None`` if it may be."""
        sch = scheme(url)
        if sch == "ftp" and first and request.accept_pdf and request.method == "GET" and request.follow:
            pass  # PubFetcher tries non-HTTP URLs as PDFs; ftp is the one that can be one
        elif sch not in HTTP_SCHEMES:
            kind = OutcomeKind.BAD_URL if not sch else OutcomeKind.BAD_SCHEME
            why = "ftp is fetched only for PDFs" if sch == "ftp" else "only http and https URLs are fetched"
            return self._error(request, url, kind, f"{why}: {url}")
        host = hostname(url)
        if host is None:
            return self._error(request, url, OutcomeKind.BAD_URL, f"no host in {url}")
        if self.config.allow_private_addresses:
            return None
        # trusted URLs (configured endpoints) are not checked, but a redirect from them to another host is
        if request.untrusted or host != hostname(request.url):
            reason = addresses.forbidden_host_reason(host)
            if reason:
                return self._error(request, url, OutcomeKind.FORBIDDEN_ADDRESS, f"{host} is a {reason}")
        return None

    # ------------------------------------------------------------------ retries and the exchange

    def _with_retries(self, request: _Request, url: str) -> _Hop:
        attempts = 0

        def attempt() -> _Hop:
            nonlocal attempts
            attempts += 1
            return self._exchange(request, url)

        try:
            hop = build_retrying(self.config, self._sleep)(attempt)
        except ServerBusy as busy:
            if isinstance(busy.payload, _Hop):
                busy.payload.attempts = attempts
            raise
        except ExchangeFailed as failed:
            failed.attempts = attempts
            if isinstance(failed.payload, _Hop):
                failed.payload.attempts = attempts
            raise
        hop.attempts = attempts
        return hop

    def _exchange(self, request: _Request, url: str) -> _Hop:
        """Send one request and read its response while holding the host's slot."""
        cfg = self.config
        timeout = cfg.timeout_s
        deadline_s = cfg.total_timeout_s
        with self.slots.hold(url):
            self._wait_for_rate(url)
            started = datetime.now(UTC)
            t0 = time.monotonic()
            deadline = t0 + deadline_s if deadline_s is not None else None
            try:
                response = self._session().request(
                    request.method,
                    url,
                    data=request.data,
                    headers=request.headers,
                    allow_redirects=False,
                    stream=True,
                    timeout=(timeout, timeout),
                    proxies=dict(cfg.proxies) if cfg.proxies else None,
                    verify=cfg.ca_bundle,
                )
            except Exception as e:
                raise classify_exception(e) from e
            try:
                return self._read_response(request, url, response, started, t0, deadline)
            finally:
                response.close()

    def _read_response(
        self,
        request: _Request,
        url: str,
        response: requests.Response,
        started: datetime,
        t0: float,
        deadline: float | None,
    ) -> _Hop:
        cfg = self.config
        status = response.status_code
        headers = CaseInsensitiveDict(response.headers)
        location_header = headers.get("Location")
        hop = _Hop(url, status, headers)
        # now, while urllib3 still holds the socket: once the body is read the connection goes back to the pool
        peer = _peer(response.raw) if cfg.response_hook is not None else None

        def record(body: bytes, truncated: bool) -> None:
            if cfg.response_hook is not None:
                call_hook(cfg.response_hook, _record(request, response, body, truncated, started, t0, peer))

        try:
            if status in REDIRECT_STATUSES and location_header:
                hop.body, truncated = bodies.read_some(response, SMALL_BODY)
                record(hop.body, truncated)
                if not request.read_body:
                    hop.body = b""
                location = header_text(location_header)
                try:
                    hop.location = resolve_location(url, location)
                except ValueError as e:
                    raise ExchangeFailed(OutcomeKind.BAD_URL, f"malformed Location {location!r}: {e}",
                                         payload=hop) from e
                return hop
            if status in BUSY_STATUSES:
                hop.body, truncated = bodies.read_some(response, SMALL_BODY)
                hop.retry_after = parse_retry_after(headers.get("Retry-After"))
                self._penalize(url, hop.retry_after)
                record(hop.body, truncated)
                raise ServerBusy(status, hop.retry_after, hop)
            mtype = media_type(headers.get("Content-Type"))
            if status >= 400 or not request.read_body:
                hop.body, truncated = bodies.read_some(response, SMALL_BODY)
                record(hop.body, truncated)
                if not request.read_body:
                    hop.body = b""
                return hop
            if is_skipped_media(mtype) or (not request.accept_pdf and is_pdf_media(mtype)):
                hop.skipped = True
                record(b"", True)
                return hop
            try:
                hop.body = bodies.read_capped(
                    response,
                    cfg.max_bytes,
                    deadline=deadline,
                    max_ratio=cfg.max_compression_ratio,
                    ratio_floor=cfg.compression_ratio_floor,
                )
            except bodies.BodyTooLarge as e:
                record(b"", True)
                raise ExchangeFailed(OutcomeKind.TOO_LARGE, str(e), payload=hop) from e
            except bodies.DeadlineExceeded as e:
                # not retried: a server that drips once drips again, and each try may take the whole deadline
                record(b"", True)
                raise ExchangeFailed(OutcomeKind.TIMEOUT, str(e), payload=hop) from e
            record(hop.body, False)
            return hop
        except (ServerBusy, ExchangeFailed):
            raise
        except Exception as e:
            failed = classify_exception(e)
            failed.payload = hop  # the status and headers were received; the body was not
            hop.body = b""
            raise failed from e

    # ------------------------------------------------------------------ ftp

    def _run_ftp(self, request: _Request) -> FetchResult:
        cfg = self.config
        url = request.url
        logger.info("GET PDF %s", url)
        attempts = 0

        def attempt() -> tuple[bytes, str | None]:
            nonlocal attempts
            attempts += 1
            deadline = time.monotonic() + cfg.total_timeout_s if cfg.total_timeout_s is not None else None
            with self.slots.hold(url):
                try:
                    return fetch_ftp(url, timeout=cfg.timeout_s, max_bytes=cfg.max_bytes, deadline=deadline)
                except bodies.BodyTooLarge as e:
                    raise ExchangeFailed(OutcomeKind.TOO_LARGE, str(e)) from e
                except bodies.DeadlineExceeded as e:
                    raise ExchangeFailed(OutcomeKind.TIMEOUT, str(e)) from e

        try:
            body, content_type = build_retrying(cfg, self._sleep)(attempt)
        except ExchangeFailed as failed:
            return self._error(request, url, failed.kind, failed.message, attempts=attempts)
        except Exception as e:  # noqa: BLE001
            classified = classify_exception(e)
            return self._error(request, url, classified.kind, classified.message, attempts=attempts)
        pdf = has_pdf_magic(body)
        return FetchResult(
            url=url,
            final_url=url,
            kind=OutcomeKind.OK if pdf else OutcomeKind.UNSUPPORTED_TYPE,
            content_type=content_type,
            body=body,
            is_pdf=pdf,
            attempts=attempts,
            message="" if pdf else "ftp is fetched only for PDFs and this is not one",
        )

    # ------------------------------------------------------------------ results

    def _final(self, request: _Request, hop: _Hop) -> FetchResult:
        content_type = hop.headers.get("Content-Type")
        result = FetchResult(
            url=request.url,
            final_url=hop.url,
            kind=kind_for_status(hop.status),
            status=hop.status,
            content_type=content_type,
            headers=hop.headers,
            body=hop.body,
            location=hop.location,
            redirects=tuple(request.redirects),
            retry_after=hop.retry_after,
            attempts=hop.attempts,
        )
        mtype = media_type(content_type)
        if hop.skipped:
            result.kind = OutcomeKind.UNSUPPORTED_TYPE
            result.is_pdf = is_pdf_media(mtype)
            result.message = f"{mtype} not downloaded" + (" (PDFs not accepted here)" if result.is_pdf else "")
            return result
        if result.kind is not OutcomeKind.OK:
            result.message = f"HTTP {hop.status}"
        if not hop.body:
            result.text = "" if result.ok and request.read_body else None
            return result
        if result.ok and is_pdf(content_type, hop.body):
            result.is_pdf = True
            if not request.accept_pdf:
                result.kind = OutcomeKind.UNSUPPORTED_TYPE
                result.message = "a PDF, and PDFs are not accepted here"
            return result
        if is_textual_media(mtype):
            result.text, result.encoding, result.encoding_source = decode_body(content_type, hop.body)
        elif result.ok:
            result.kind = OutcomeKind.UNSUPPORTED_TYPE
            result.message = f"{mtype} is neither text nor PDF"
        return result

    def _error(
        self,
        request: _Request,
        url: str,
        kind: OutcomeKind,
        message: str,
        *,
        hop: _Hop | None = None,
        attempts: int = 0,
    ) -> FetchResult:
        result = FetchResult(
            url=request.url,
            final_url=url,
            kind=kind,
            redirects=tuple(request.redirects),
            message=message,
            attempts=hop.attempts if hop is not None else attempts,
        )
        if hop is not None:
            result.status = hop.status
            result.headers = hop.headers
            result.content_type = hop.headers.get("Content-Type")
            result.location = hop.location
            result.retry_after = hop.retry_after
            result.body = hop.body
        return result

    # ------------------------------------------------------------------ shared rate limits

    def _rate_key(self, url: str) -> str:
        key = self.config.rate_key
        return key(url) if key is not None else "host:" + host_key(url)

    def _wait_for_rate(self, url: str) -> None:
        """Take a permit of the URL's service from the shared limiter (every thread and process waits its turn)."""
        limiter = self.config.rate_limiter
        if limiter is None:
            return
        try:
            waited = limiter.acquire(self._rate_key(url))
        except Exception as e:
            raise ExchangeFailed(OutcomeKind.SERVER_BUSY, f"rate limit: {e}") from e
        if waited > 0.5:
            logger.debug("waited %.2f s for the rate limit of %s", waited, self._rate_key(url))

    def _penalize(self, url: str, retry_after: float | None) -> None:
        """A 429/503 with Retry-After slows down every process using the same limiter, not only this thread."""
        limiter = self.config.rate_limiter
        if limiter is not None and retry_after:
            limiter.penalize(self._rate_key(url), min(retry_after, self.config.retry_after_cap_s))

    # ------------------------------------------------------------------ plumbing

    def _headers(self, url: str, referer: str | None, extra: Mapping[str, str] | None) -> dict[str, str]:
        headers = {"User-Agent": self.config.user_agent, "Accept": _DEFAULT_ACCEPT, "Accept-Language": "en-US,en;q=0.5"}
        headers.update(self.config.extra_headers)
        with contextlib.suppress(ValueError):  # a malformed URL is refused later, with a proper outcome
            headers["Referer"] = referer if referer is not None else origin(url)
        if extra:
            headers.update(extra)
        return headers

    def _session(self) -> requests.Session:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = _ManualRedirectSession()
            session.trust_env = True  # proxies and CA bundles from the environment
            adapter = HTTPAdapter(pool_connections=32, pool_maxsize=4, max_retries=0)
            session.mount("http://", adapter)
            session.mount("https://", adapter)
            self._local.session = session
            with self._sessions_lock:
                self._sessions.append(session)
        return session


class _ManualRedirectSession(requests.Session):
    """A session that never looks at Location: the client follows redirects itself.

    Even with ``allow_redirects=False`` requests prepares the next request of a redirect (``response.next``), and a
    malformed or non-UTF-8 Location then raises out of ``request()`` before the client can classify the response.
    """

    def get_redirect_target(self, resp: requests.Response) -> str | None:
        return None


def _with_params(url: str, params: Mapping[str, str]) -> str:
    """Append query parameters the way requests encodes them."""
    prepared = requests.Request("GET", url, params=dict(params)).prepare()
    return prepared.url or url


def _record(
    request: _Request,
    response: requests.Response,
    body: bytes,
    truncated: bool,
    started: datetime,
    t0: float,
    peer: str | None,
) -> ExchangeRecord:
    """The hook's view of an exchange (built only when a hook is installed)."""
    sent = response.request
    sent_body = sent.body if sent is not None else None
    raw = response.raw
    raw_headers = getattr(raw, "headers", None)
    pairs = list(raw_headers.items()) if raw_headers is not None else list(response.headers.items())
    return ExchangeRecord(
        method=request.method,
        url=response.url or request.url,
        request_headers=tuple(sent.headers.items()) if sent is not None else (),
        request_body=sent_body.encode("utf-8") if isinstance(sent_body, str) else sent_body,
        status=response.status_code,
        reason=response.reason or "",
        http_version=_HTTP_VERSIONS.get(getattr(raw, "version", 11), "HTTP/1.1"),
        response_headers=tuple((str(k), str(v)) for k, v in pairs),
        body=body,
        truncated=truncated,
        started=started,
        elapsed_s=time.monotonic() - t0,
        peer=peer,
    )


def _peer(raw: object) -> str | None:
    """``ip:port`` the response came from, if urllib3 still exposes the socket."""
    try:
        sock = raw._connection.sock  # type: ignore[attr-defined]
        host, port = sock.getpeername()[:2]
    except Exception:  # noqa: BLE001 - best effort only
        return None
    return f"{host}:{port}"
