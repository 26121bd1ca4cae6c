"""The network transport: one request sent with a pooled ``requests.Session``, its body streamed under the size cap,
decompression-bomb guard and deadline.

Each thread gets its own session because ``requests.Session`` is not documented as thread-safe (its cookies, its
settings), but all of them send through one adapter, whose urllib3 pools are: a connection to a host is reused by the
next publication's thread instead of each publication (one thread each) opening its own TCP connection, and over
HTTPS its own TLS handshake, to every host it asks. What requests would look up in the environment on every
request (proxy variables, NO_PROXY bypass, CA bundle variables) is looked up once per transport instead: requests'
``trust_env`` re-reads them per request, which costs more CPU than the rest of a small request's handling.
Redirects are never followed here (the redirect layer does it); a redirect, 503/429 or error status gets only a
bounded piece of its body read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Final

import requests
from requests.structures import CaseInsensitiveDict

from pubfetch.net import body as bodies
from pubfetch.net import connguard
from pubfetch.net.config import HttpConfig
from pubfetch.net.connguard import GuardedAdapter
from pubfetch.net.errors import classify_exception
from pubfetch.net.layers import needs_address_check
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.proxies import NamedProxy, named_proxy
from pubfetch.net.record import ExchangeRecord
from pubfetch.net.retry import ExchangeFailed, ServerBusy, parse_retry_after
from pubfetch.net.sniff import is_pdf_media, is_skipped_media, media_type
from pubfetch.net.transport import Request, Response, time_left
from pubfetch.net.urls import header_text, resolve_location
from pubfetch.perthread import PerThread

REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
BUSY_STATUSES: Final = frozenset({429, 503})
#: Bytes kept of bodies nobody needs in full: redirects, 503/429, error pages.
SMALL_BODY: Final = 64 * 1024
#: Hosts whose proxy decision is remembered (a long run meets tens of thousands of publisher hosts).
_PROXY_CACHE_SIZE: Final = 4096

_HTTP_VERSIONS: Final = {9: "HTTP/0.9", 10: "HTTP/1.0", 11: "HTTP/1.1", 20: "HTTP/2", 30: "HTTP/3"}


class EnvironmentSettings:
    """Proxies from the environment (as the configuration read them: what requests' ``trust_env`` would read on every
    request) and the config, and the config's CA bundle."""

    def __init__(self, config: HttpConfig) -> None:
        self.environment = config.proxies_of_environment()
        self.environment_proxies = dict(self.environment.proxies)
        self.explicit_proxies = dict(config.proxies) if config.proxies else {}
        # the configuration fills ca_bundle from REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE (FetchConfig.http_config)
        self.verify: bool | str = config.ca_bundle or True
        self._no_proxy = self.explicit_proxies.get("no_proxy") or self.environment.no_proxy or None
        self._bypass: dict[str, bool] = {}
        self._lock = threading.Lock()

    def proxies(self, url: str) -> dict[str, str]:
        """The proxies for a URL: explicit ones, then the environment's unless NO_PROXY exempts its host."""
        if not self.environment_proxies:
            return self.explicit_proxies
        netloc = url.split("://", 1)[-1].split("/", 1)[0]
        bypass = self._bypass.get(netloc)
        if bypass is None:
            bypass = requests.utils.should_bypass_proxies(url, no_proxy=self._no_proxy)
            with self._lock:
                if len(self._bypass) >= _PROXY_CACHE_SIZE:
                    self._bypass.clear()
                self._bypass[netloc] = bypass
        if bypass:
            return self.explicit_proxies
        return {**self.environment_proxies, **self.explicit_proxies}

    def named_proxy(self, url: str) -> NamedProxy | None:
        """The proxy a request to ``url`` goes through, named with what set it."""
        return named_proxy(url, self.proxies(url), self.explicit_proxies, self.environment)


def read_response(request: Request, hop: Response, some: Callable[[int], tuple[bytes, bool]],
                  whole: Callable[[], bytes], record: Callable[[bytes, bool], None]) -> Response:
    """Read as much of a body as the response deserves and classify it, whatever transport received it.

    Args:
        request: what was sent (``read_body``, ``accept_pdf`` and ``record`` matter here).
        hop: the response with status and headers; its body, location and retry_after are filled in.
        some: reads at most n bytes, returning ``(bytes, truncated)`` (redirects, 503/429, error pages).
        whole: reads the whole body under the caps (raises ``BodyTooLarge``/``DeadlineExceeded``).
        record: fills ``hop.exchange`` with what was read (called only when ``request.record``).

    Raises:
        ServerBusy for 503/429; ExchangeFailed for a malformed Location, a body over the cap or past the deadline.
    """
    status = hop.status or 0
    headers = hop.headers
    location_header = headers.get("Location")

    def read_some() -> None:
        hop.body, truncated = some(SMALL_BODY)
        if request.record:
            record(hop.body, truncated)
        if not request.read_body:
            hop.body = b""

    if status in REDIRECT_STATUSES and location_header:
        read_some()
        location = header_text(location_header)
        try:
            hop.location = resolve_location(hop.url, location)
        except ValueError as e:
            raise ExchangeFailed(OutcomeKind.BAD_URL, f"malformed Location {location!r}: {e}", payload=hop) from e
        return hop
    if status in BUSY_STATUSES:
        hop.body, truncated = some(SMALL_BODY)
        hop.retry_after = parse_retry_after(headers.get("Retry-After"))
        if request.record:
            record(hop.body, truncated)
        raise ServerBusy(status, hop.retry_after, hop)
    if status >= 400 or not request.read_body:
        read_some()
        return hop
    mtype = media_type(headers.get("Content-Type"))
    if not request.any_media and (is_skipped_media(mtype) or (not request.accept_pdf and is_pdf_media(mtype))):
        hop.skipped = True
        if request.record:
            record(b"", True)
        return hop
    try:
        hop.body = whole()
    except bodies.BodyTooLarge as e:
        if request.record:
            record(b"", True)
        raise ExchangeFailed(OutcomeKind.TOO_LARGE, str(e), payload=hop) from e
    except bodies.DeadlineExceeded as e:
        # not retried: a server that drips once drips again, and each try may take the whole deadline
        if request.record:
            record(b"", True)
        raise ExchangeFailed(OutcomeKind.TIMEOUT, str(e), payload=hop) from e
    if request.record:
        record(hop.body, False)
    return hop


class RequestsTransport:
    """Sends one request over HTTP(S) with requests; never follows redirects."""

    def __init__(self, config: HttpConfig) -> None:
        self.config = config
        self._settings = EnvironmentSettings(config)
        #: one session per thread; those of ended threads are dropped a few at a time (their connections are the
        #: shared pools', so nothing of theirs is left open)
        self._sessions: PerThread[requests.Session] = PerThread(self._new_session)
        self._live_lock = threading.Lock()
        #: every thread's session sends through this one: the connection pools are the transport's, not a thread's
        self._adapter = GuardedAdapter(pool_connections=32, pool_maxsize=4, max_retries=0)
        #: the exchanges in flight, and why every exchange is cut (for :meth:`abort`)
        self._live: set[connguard.Exchange] = set()
        self._aborted: str | None = None

    def send(self, request: Request) -> Response:
        """One exchange under the connection guards (:mod:`pubfetch.net.connguard`): the peer address of a guarded
        hop is checked at connect time, and the whole exchange (connect, status line, headers, body, decoding) ends
        at one wall-clock deadline (what the hop's earlier attempts left of it), or when :meth:`abort` cuts it."""
        deadline_s = time_left(self.config.total_timeout_s, request)
        started = time.monotonic()
        try:
            return self._send(request, deadline_s)
        finally:
            request.spent_s += time.monotonic() - started

    def _send(self, request: Request, deadline_s: float | None) -> Response:
        with connguard.exchange(needs_address_check(self.config, request, request.url), deadline_s) as state:
            with self._live_lock:
                if self._aborted is not None:
                    raise ExchangeFailed(OutcomeKind.CONNECTION, self._aborted)
                self._live.add(state)
            try:
                try:
                    response = self._exchange(request, deadline_s)
                except ExchangeFailed as failed:
                    raise _guard_outcome(state, failed, deadline_s) from failed
                if state.aborted:
                    raise ExchangeFailed(OutcomeKind.CONNECTION, state.aborted, payload=response)
                if state.expired:  # cut while the headers came: http.client takes the cut for their end
                    raise ExchangeFailed(OutcomeKind.TIMEOUT, f"no complete answer within the deadline of "
                                         f"{deadline_s:g} s", payload=response)
                return response
            finally:
                with self._live_lock:
                    self._live.discard(state)

    def abort(self, reason: str, *, later_too: bool = True) -> None:
        """Cut every exchange in flight now, and (``later_too``) any later one before it is sent: each fails at once
        as CONNECTION with ``reason``, not retried (the network was found down, or the run was interrupted, and it
        stops as soon as its threads end)."""
        with self._live_lock:
            if later_too:
                self._aborted = reason
            live = list(self._live)
        for state in live:
            state.abort(reason)

    def _exchange(self, request: Request, deadline_s: float | None) -> Response:
        cfg = self.config
        timeout = cfg.timeout_s
        url = request.url
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
                proxies=self._settings.proxies(url),
                verify=self._settings.verify,
            )
        except requests.exceptions.ProxyError as e:
            raise classify_exception(e, self._settings.named_proxy(url)) from e
        except Exception as e:
            raise classify_exception(e) from e
        try:
            return self._read(request, response, started, t0, deadline)
        finally:
            response.close()

    def _read(self, request: Request, response: requests.Response, started: datetime, t0: float,
              deadline: float | None) -> Response:
        cfg = self.config
        hop = Response(request.url, response.status_code, CaseInsensitiveDict(response.headers))
        # now, while urllib3 still holds the socket: once the body is read the connection goes back to the pool
        peer = _peer(response.raw) if request.record else None

        def record(body: bytes, truncated: bool) -> None:
            hop.exchange = _record(request, response, body, truncated, started, t0, peer)

        def whole() -> bytes:
            return bodies.read_capped(response, cfg.max_bytes, deadline=deadline, max_ratio=cfg.max_compression_ratio,
                                      ratio_floor=cfg.compression_ratio_floor)

        try:
            return read_response(request, hop, lambda limit: bodies.read_some(response, limit), whole, record)
        except (ServerBusy, ExchangeFailed):
            raise
        except Exception as e:
            failed = classify_exception(e)
            failed.payload = hop  # the status and headers were received; the body was not
            hop.body = b""
            raise failed from e

    def _session(self) -> requests.Session:
        return self._sessions.get()

    def _new_session(self) -> requests.Session:
        session = _ManualRedirectSession()
        session.trust_env = False  # the environment was read once, by EnvironmentSettings
        session.mount("http://", self._adapter)
        session.mount("https://", self._adapter)
        return session

    def close(self) -> None:
        """Close the pooled connections (a later request opens new ones)."""
        self._sessions.drain()
        self._adapter.close()


def _guard_outcome(state: connguard.Exchange, failed: ExchangeFailed, deadline_s: float | None) -> ExchangeFailed:
    """What a failed exchange really was when a guard cut it: a forbidden peer, an abort, or the deadline."""
    if state.refused is not None:
        outcome = ExchangeFailed(OutcomeKind.FORBIDDEN_ADDRESS, state.refused, payload=failed.payload)
    elif state.aborted is not None:
        outcome = ExchangeFailed(OutcomeKind.CONNECTION, state.aborted, payload=failed.payload)
    elif state.expired and (failed.kind is not OutcomeKind.TIMEOUT or failed.retryable):
        outcome = ExchangeFailed(OutcomeKind.TIMEOUT, f"no complete answer within the deadline of {deadline_s:g} s",
                                 payload=failed.payload)  # not retried: a server that drips once drips again
    else:
        return failed
    outcome.url = failed.url
    return outcome


class _ManualRedirectSession(requests.Session):
    """A session that never looks at Location: the client follows redirects itself.

    Even with ``allow_redirects=False`` requests prepares the next request of a redirect (``response.next``), and a
    malformed or non-UTF-8 Location then raises out of ``request()`` before the client can classify the response.
    """

    def get_redirect_target(self, resp: requests.Response) -> str | None:
        return None


def _record(
    request: Request,
    response: requests.Response,
    body: bytes,
    truncated: bool,
    started: datetime,
    t0: float,
    peer: str | None,
) -> ExchangeRecord:
    """The recorder's view of an exchange (built only when a recorder is installed)."""
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
