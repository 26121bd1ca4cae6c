"""The layers of the HTTP client, each a :class:`~pubfetch.net.transport.Transport` wrapping another one.

Outermost first (:func:`http_stack` builds them in this order):

1. :class:`RedirectLayer`: follows redirects by hand, so that every hop is checked like the first (scheme, host,
   address), loops are caught and every response passes through the layers below.
2. :class:`RetryLayer`: retries one hop (tenacity, :mod:`pubfetch.net.retry`): a timeout once unless quick, 503/429
   after Retry-After; the attempts share one exchange deadline.
3. :class:`SlotLayer`: holds one of the host's connection slots for the exchange (request, headers, whole body).
4. :class:`RateLimitLayer`: takes a permit of the URL's service from the shared limiter; a 429 with Retry-After
   holds back every process using the limiter (a 503 only the request that got it, which waits before its retry).
5. :class:`RecordingLayer`: hands every response received (redirects and retried ones too) to the response hook.
6. :class:`~pubfetch.net.counts.CountingLayer`: counts every attempt sent, per host (for the run report).
7. The network: :class:`~pubfetch.net.requests_transport.RequestsTransport`, or a test's in-process transport.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Final

from pubfetch.net import addresses, urls
from pubfetch.net.config import HttpConfig, RateLimiter, ResponseHook
from pubfetch.net.counts import CountingLayer, RequestCounts
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.reachability import NetworkWatch, WatchLayer
from pubfetch.net.record import call_hook
from pubfetch.net.retry import ExchangeFailed, ServerBusy, build_retrying
from pubfetch.net.slots import HostSlots
from pubfetch.net.transport import Request, Response, Transport
from pubfetch.net.urls import HTTP_SCHEMES, RedactingFilter, host_key, hostname, scheme, without_fragment

logger = logging.getLogger(__name__)
logger.addFilter(RedactingFilter())  # request URLs may carry an api_key; logs must not

#: A URL may be visited twice in one redirect chain (A -> A?cookie-set -> A is common); a third visit is a loop.
MAX_VISITS_PER_URL: Final = 2


class Layer:
    """A transport that wraps another one; closing it closes the inner one."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner

    def send(self, request: Request) -> Response:
        return self.inner.send(request)

    def close(self) -> None:
        self.inner.close()


def refusal(config: HttpConfig, request: Request, url: str, *, first: bool) -> ExchangeFailed | None:
    """Why a URL must not be requested (as the exception to raise), or ``None`` if it may be.

    Only http and https are fetched (ftp only as the first URL of a PDF fetch, which the client routes to the ftp
    transport). Trusted URLs (configured endpoints) are not address-checked, but a redirect from them to another host
    is, and so is every untrusted URL unless ``allow_private_addresses``.
    """
    sch = scheme(url)
    if sch == "ftp" and first and request.accept_pdf and request.method == "GET" and request.follow:
        pass  # PubFetcher tries non-HTTP URLs as PDFs; ftp is the one that can be one
    elif sch not in HTTP_SCHEMES:
        kind = OutcomeKind.BAD_URL if not sch else OutcomeKind.BAD_SCHEME
        why = "ftp is fetched only for PDFs" if sch == "ftp" else "only http and https URLs are fetched"
        return _at(ExchangeFailed(kind, f"{why}: {url}"), url)
    ambiguous = urls.ambiguity(url)
    if ambiguous:
        return _at(ExchangeFailed(OutcomeKind.BAD_URL, f"ambiguous URL ({ambiguous}): {url}"), url)
    host = hostname(url)
    if host is None:
        return _at(ExchangeFailed(OutcomeKind.BAD_URL, f"no host in {url}"), url)
    if needs_address_check(config, request, url):
        reason = addresses.forbidden_host_reason(host)
        if reason:
            return _at(ExchangeFailed(OutcomeKind.FORBIDDEN_ADDRESS, f"{host} is a {reason}"), url)
    return None


def needs_address_check(config: HttpConfig, request: Request, url: str) -> bool:
    """Whether a hop must not reach a forbidden address: an untrusted URL, or a redirect away from the host of the
    (trusted) URL first asked for; never when ``allow_private_addresses``. The transport checks the connected peer of
    such hops too."""
    if config.allow_private_addresses:
        return False
    first = request.redirects[0] if request.redirects else request.url
    return request.untrusted or hostname(url) != hostname(first)


#: Request headers that carry credentials; never re-sent to another host.
CREDENTIAL_HEADERS: Final = frozenset({"authorization", "proxy-authorization", "cookie"})


def without_credentials(hop: Request) -> Request:
    """The hop as it may go to another host: no credential headers, and no ``api_key`` in the form data or the URL
    (a 307/308 re-sends the body, so an E-utilities POST redirected elsewhere would hand NCBI's key over)."""
    headers = {k: v for k, v in hop.headers.items() if k.lower() not in CREDENTIAL_HEADERS}
    return dataclasses.replace(hop, url=urls.without_secret_params(hop.url), headers=headers,
                               data=urls.form_without_secrets(hop.data))


def _at(failed: ExchangeFailed, url: str) -> ExchangeFailed:
    failed.url = url
    return failed


class RedirectLayer(Layer):
    """Follows redirects hop by hop (unless ``request.follow`` is false); returns the last response.

    Raises ``ExchangeFailed`` (TOO_MANY_REDIRECTS, REDIRECT_LOOP, a refused target) with the redirect response as
    payload; every exception leaving it carries the URL of the hop where it happened (``url``).
    """

    def __init__(self, inner: Transport, config: HttpConfig) -> None:
        super().__init__(inner)
        self.config = config

    def send(self, request: Request) -> Response:
        visits: Counter[str] = Counter()
        hop = request
        while True:
            current = hop.url
            visits[without_fragment(current)] += 1
            logger.info("%s %s", hop.method, current)
            try:
                response = self.inner.send(hop)
            except (ExchangeFailed, ServerBusy) as e:
                e.url = e.url or current
                raise
            if response.location is None or not request.follow:
                return response
            target = response.location
            if len(request.redirects) >= self.config.max_redirects:
                raise _at(ExchangeFailed(OutcomeKind.TOO_MANY_REDIRECTS,
                                         f"more than {self.config.max_redirects} redirects (next: {target})",
                                         payload=response), current)
            if visits[without_fragment(target)] >= MAX_VISITS_PER_URL:
                raise _at(ExchangeFailed(OutcomeKind.REDIRECT_LOOP, f"redirect loop at {target}", payload=response),
                          current)
            request.redirects.append(current)
            refused = refusal(self.config, request, target, first=False)
            if refused is not None:
                raise refused
            logger.info("redirect %d %s -> %s", response.status, current, target)
            hop = dataclasses.replace(hop, url=target)
            if hostname(target) != hostname(current):
                hop = without_credentials(hop)
            if response.status in (301, 302, 303) and hop.method == "POST":
                # what browsers and requests do: the body is not re-sent, the method becomes GET
                headers = dict(hop.headers)
                headers.pop("Content-Type", None)
                hop = dataclasses.replace(hop, method="GET", data=None, headers=headers)


class RetryLayer(Layer):
    """Retries one hop by the policy of :func:`~pubfetch.net.retry.build_retrying`; sets ``attempts``."""

    def __init__(self, inner: Transport, config: HttpConfig, sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(inner)
        self.config = config
        self.sleep = sleep

    def send(self, request: Request) -> Response:
        attempts = 0
        total = self.config.total_timeout_s
        request.spent_s = 0.0  # the attempts of this hop share one exchange deadline

        def attempt() -> Response:
            nonlocal attempts
            attempts += 1
            return self.inner.send(request)

        def out_of_time() -> bool:
            return total is not None and request.spent_s >= total

        try:
            response: Response = build_retrying(self.config, self.sleep, out_of_time)(attempt)
        except (ServerBusy, ExchangeFailed) as e:
            e.attempts = attempts
            if isinstance(e.payload, Response):
                e.payload.attempts = attempts
            raise
        response.attempts = attempts
        return response


class SlotLayer(Layer):
    """Holds a slot of the request's host for the whole exchange (PubFetcher's per-host lock)."""

    def __init__(self, inner: Transport, slots: HostSlots) -> None:
        super().__init__(inner)
        self.slots = slots

    def send(self, request: Request) -> Response:
        with self.slots.hold(request.url):
            return self.inner.send(request)


class RateLimitLayer(Layer):
    """Waits for a permit of the URL's service from the shared limiter (every thread and process waits its turn).

    Args:
        limiter: a :class:`~pubfetch.net.ratelimit.SharedRateLimiter` (``acquire(key)``, ``penalize(key, s)``).
        rate_key: URL -> service key; default ``host:<normalised host>``.
        retry_after_cap_s: longest Retry-After passed on to the limiter.
    """

    def __init__(self, inner: Transport, limiter: object, rate_key: Callable[[str], str] | None,
                 retry_after_cap_s: float) -> None:
        super().__init__(inner)
        self.limiter = limiter
        self.rate_key = rate_key
        self.retry_after_cap_s = retry_after_cap_s
        self._prepaid = threading.local()  # service keys whose permit this thread took ahead of its request

    def _key(self, url: str) -> str:
        return self.rate_key(url) if self.rate_key is not None else "host:" + host_key(url)

    def prepay(self, url: str) -> None:
        """Wait for the permit of the URL's service now; this thread's next request to it uses that permit instead
        of waiting again (the batcher gathers publications while it waits)."""
        key = self._key(url)
        try:
            self.limiter.acquire(key)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - the request itself meets it again and fails with it
            return
        self._prepaid.__dict__.setdefault("keys", set()).add(key)

    def forget_prepaid(self) -> None:
        """Drop this thread's unused permits (the batch asked nothing after all): a later request waits its turn."""
        self._prepaid.__dict__.setdefault("keys", set()).clear()

    def send(self, request: Request) -> Response:
        key = self._key(request.url)
        prepaid: set[str] = self._prepaid.__dict__.setdefault("keys", set())
        if key in prepaid:
            prepaid.discard(key)
        else:
            try:
                waited = self.limiter.acquire(key)  # type: ignore[attr-defined]
            except ExchangeFailed:  # the run stopped while it waited (NetworkWatch.pause): not sent
                raise
            except Exception as e:
                raise ExchangeFailed(OutcomeKind.SERVER_BUSY, f"rate limit: {e}") from e
            if waited > 0.5:
                logger.debug("waited %.2f s for the rate limit of %s", waited, key)
        try:
            return self.inner.send(request)
        except ServerBusy as busy:
            # "too many requests" with Retry-After slows down every process using the same limiter; a 503 says the
            # server could not answer this request now, and the retry layer waits before asking it again
            if busy.status == 429 and busy.retry_after:
                self.limiter.penalize(key, min(busy.retry_after, self.retry_after_cap_s))  # type: ignore[attr-defined]
            raise


class RecordingLayer(Layer):
    """Hands every exchange received to the hook (a WARC writer); a failing hook never fails the fetch."""

    def __init__(self, inner: Transport, hook: Callable[..., None]) -> None:
        super().__init__(inner)
        self.hook = hook

    def send(self, request: Request) -> Response:
        request.record = True
        try:
            response = self.inner.send(request)
        except (ServerBusy, ExchangeFailed) as e:
            if isinstance(e.payload, Response) and e.payload.exchange is not None:
                call_hook(self.hook, e.payload.exchange)
            raise
        if response.exchange is not None:
            call_hook(self.hook, response.exchange)
        return response


def http_stack(network: Transport, config: HttpConfig, slots: HostSlots,
               sleep: Callable[[float], None] = time.sleep, counts: RequestCounts | None = None,
               watch: NetworkWatch | None = None, hook: ResponseHook | None = None,
               limiter: tuple[RateLimiter, Callable[[str], str] | None] | None = None) -> Transport:
    """The layers of the module docstring around a network transport (the recorder with a ``hook``, the rate limit
    with a ``limiter`` and its URL-to-key map, the counting layer with ``counts``; with a ``watch``,
    :class:`~pubfetch.net.reachability.WatchLayer` just inside the slots)."""
    transport: Transport = network
    if counts is not None:
        transport = CountingLayer(transport, counts)
    if hook is not None:
        transport = RecordingLayer(transport, hook)
    if limiter is not None:
        transport = RateLimitLayer(transport, limiter[0], limiter[1], config.retry_after_cap_s)
    if watch is not None:
        transport = WatchLayer(transport, watch)
    transport = SlotLayer(transport, slots)
    transport = RetryLayer(transport, config, sleep)
    return RedirectLayer(transport, config)
