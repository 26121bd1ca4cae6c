"""The HTTP client every resource uses: one call in, one classified :class:`FetchResult` out, never an exception.

The client checks the first URL (only http and https, ftp for PDFs; a host; for untrusted URLs no
private/loopback/metadata target), builds the :class:`~pubfetch.net.transport.Request` and sends it through a stack of
transports (:mod:`pubfetch.net.layers`: redirects, retries, per-host slots, rate limit, recording) around the network
(:class:`~pubfetch.net.requests_transport.RequestsTransport`; ftp URLs go to
:class:`~pubfetch.net.ftp.FtpTransport` under retries and slots). What comes back, a response or a classified
exception, becomes the :class:`FetchResult`.

Proxies (HTTP_PROXY/HTTPS_PROXY/NO_PROXY/ALL_PROXY) and CA bundles (REQUESTS_CA_BUNDLE/CURL_CA_BUNDLE) from the
environment are honoured as in any requests program, read once per client.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Final, Self

import requests

from pubfetch.net.answers import AnswerMemory, request_key
from pubfetch.net.config import HttpConfig, RateLimiter, ResponseHook
from pubfetch.net.counts import CountingLayer, RequestCounts
from pubfetch.net.encoding import decode_body
from pubfetch.net.ftp import FtpTransport
from pubfetch.net.layers import RateLimitLayer, RetryLayer, SlotLayer, http_stack, refusal
from pubfetch.net.outcome import EntryPolicy, FetchResult, OutcomeKind, kind_for_status, sets_fetch_exception
from pubfetch.net.reachability import HALTED, NetworkWatch, NotSent
from pubfetch.net.requests_transport import RequestsTransport
from pubfetch.net.retry import ExchangeFailed, ServerBusy
from pubfetch.net.slots import HostSlots
from pubfetch.net.sniff import has_pdf_magic, is_pdf, is_pdf_media, is_textual_media, media_type
from pubfetch.net.transport import Data, Request, Response, Transport
from pubfetch.net.urls import RedactingFilter, hostname, origin, scheme

logger = logging.getLogger(__name__)
logger.addFilter(RedactingFilter())  # request URLs may carry an api_key; logs must not

_DEFAULT_ACCEPT: Final = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
_SHORT_PATH: Final = 80


def _short_path(url: str) -> str:
    """The path of a URL without its query (e-mail, API key, long ID lists), cut to a readable length."""
    path = url.split("://", 1)[-1].partition("/")[2].partition("?")[0]
    path = "/" + path
    return path if len(path) <= _SHORT_PATH else path[:_SHORT_PATH - 3] + "..."



class HttpClient:
    """Thread-safe HTTP client with PubFetcher's behaviour (see module docstring).

    Args:
        config: settings; defaults are PubFetcher's.
        slots: share one :class:`HostSlots` between several clients (defaults to one built from ``config``).
        sleep: how retries wait (tests may speed it up).
        transport: the network under the layers (default: requests); tests give an in-process one
            (:class:`~pubfetch.net.mapping_transport.MappingTransport`).
        answers: remember answers and hand them out again instead of sending an identical request twice (a fetch
            run gives one; see :mod:`pubfetch.net.answers`).
        response_hook: called with an :class:`~pubfetch.net.record.ExchangeRecord` for every HTTP response received
            (redirects and retried responses too), e.g. a :class:`~pubfetch.net.warc.WarcRecorder`; what it raises
            is logged and ignored.
        rate_limiter: a limiter every request waits on, shared by the threads and processes using it (e.g.
            :class:`~pubfetch.net.ratelimit.SharedRateLimiter`); ``None``: no limit beyond the per-host slots.
        rate_key: maps a URL to the limiter's service key (e.g. a :class:`~pubfetch.net.ratelimit.ServiceMap`);
            default: ``host:<normalised host>``.
    """

    def __init__(
        self,
        config: HttpConfig | None = None,
        *,
        slots: HostSlots | None = None,
        sleep: Callable[[float], None] = time.sleep,
        transport: Transport | None = None,
        answers: AnswerMemory | None = None,
        response_hook: ResponseHook | None = None,
        rate_limiter: RateLimiter | None = None,
        rate_key: Callable[[str], str] | None = None,
    ) -> None:
        self.config = config or HttpConfig()
        cfg = self.config
        self.slots = slots or HostSlots(cfg.per_host_connections, cfg.host_connections, cfg.unlimited_hosts)
        self.answers = answers
        self.network: Transport = transport if transport is not None else RequestsTransport(cfg)
        #: requests, failures, 429s and 503s per host since the client was made (what a run report shows)
        self.counts = RequestCounts()
        #: whether the network seems down (attempts to several hosts in a row got no answer): then nothing is sent
        self.watch = NetworkWatch(cfg.timeout_s)
        if sleep is time.sleep:  # a retry's pause ends (and the retry is not sent) when the run stops
            sleep = self.watch.pause
        self.transport: Transport = http_stack(self.network, cfg, self.slots, sleep, counts=self.counts,
                                               watch=self.watch, hook=response_hook,
                                               limiter=(rate_limiter, rate_key) if rate_limiter is not None else None)
        abort = getattr(self.network, "abort", None)
        if abort is not None:  # once the network is found down, the exchanges in flight end at once
            self.watch.when_down(lambda: abort("not answered: the network seems down"))
        ftp = CountingLayer(FtpTransport(cfg.timeout_s, cfg.max_bytes, cfg.total_timeout_s,
                                         cfg.allow_private_addresses,
                                         cfg.proxies_of_environment().proxies.get("ftp")), self.counts)
        self.ftp: Transport = RetryLayer(SlotLayer(ftp, self.slots), cfg, sleep)
        self._rate_layer = _find_layer(self.transport, RateLimitLayer)
        self._listener = threading.local()

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
        any_media: bool = False,
        entry: EntryPolicy | None = None,
    ) -> FetchResult:
        """GET a URL, following redirects.

        Args:
            url: http(s) URL; ftp is accepted when ``accept_pdf`` (as PubFetcher does for PDF links).
            referer: Referer header; default PubFetcher's, the origin of ``url``.
            publication: fetching for a publication (only changes ``result.fetch_exception``, PubFetcher's rule).
            entry: what a failure means for the database entry asked for (:class:`EntryPolicy`): it decides
                ``result.fetch_exception`` and whether the line promises a retry. ``None``: PubFetcher's rule for
                ``publication`` when ``publication`` is set, else no entry (a search, a bulk file: no promise).
            untrusted: the URL comes from a page, a redirect or a third-party API: refuse private/loopback/metadata
                targets unless ``config.allow_private_addresses``. Redirect hops to another host are checked anyway.
            accept_pdf: when false, a PDF is not downloaded and the outcome is ``UNSUPPORTED_TYPE`` with ``is_pdf``.
            headers: extra request headers (e.g. ``Accept`` for an API).
            params: query parameters appended to ``url``.
            any_media: a file of any type is wanted (a supplementary file, a bulk file): its body is read and is the
                answer whatever its media type (``result.text`` only for a textual one), under the same size cap.
        """
        if params:
            url = _with_params(url, params)
        return self._run(Request("GET", url, None, self._headers(url, referer, headers), untrusted=untrusted,
                                 accept_pdf=accept_pdf, publication=publication, any_media=any_media), entry)

    def post(
        self,
        url: str,
        data: Data,
        *,
        referer: str | None = None,
        publication: bool = False,
        untrusted: bool = False,
        headers: Mapping[str, str] | None = None,
        entry: EntryPolicy | None = None,
    ) -> FetchResult:
        """POST form data or a body (e.g. E-utilities efetch with a long ID list), following redirects.

        Retried like GET: the services this is for (efetch, search) are idempotent. ``entry`` as for :meth:`get`.
        """
        return self._run(Request("POST", url, data, self._headers(url, referer, headers), untrusted=untrusted,
                                 publication=publication), entry)

    def resolve_redirect(
        self,
        url: str,
        *,
        referer: str | None = None,
        untrusted: bool = False,
        headers: Mapping[str, str] | None = None,
        entry: EntryPolicy | None = None,
    ) -> FetchResult:
        """Request a URL without following a redirect and report its Location (for doi.org).

        ``result.location`` is the absolute redirect target (``None`` if the answer was not a redirect); the body is
        not downloaded. Errors are classified as for :meth:`get` (an unknown DOI is ``NOT_FOUND``); ``entry`` as
        for :meth:`get`.
        """
        return self._run(Request("GET", url, None, self._headers(url, referer, headers), untrusted=untrusted,
                                 follow=False, read_body=False), entry)

    @contextlib.contextmanager
    def turn(self, url: str) -> Iterator[Callable[[], None]]:
        """Hold the connection slot of the URL's host for this thread (its requests to that host inside take no
        other), and yield a function that waits for the service's rate-limit permit, which this thread's next
        request to the service then uses. Whoever holds the turn can send the moment it decides what to send: the
        batcher gathers publications until then (``pubfetch.engine.service_batcher``)."""
        rate = self._rate_layer
        with self.slots.hold(url):
            try:
                yield (lambda: rate.prepay(url)) if rate is not None else (lambda: None)
            finally:
                if rate is not None:
                    rate.forget_prepaid()

    def rank_thread(self, rank: int) -> None:
        """This thread's requests queue for a host before those of threads of a higher rank
        (:meth:`~pubfetch.net.slots.HostSlots.rank_thread`)."""
        self.slots.rank_thread(rank)

    def on_request(self, listener: Callable[[bool, str], None] | None) -> None:
        """Call ``listener(True, url)`` on this thread whenever it is about to send a request (not for an answer the
        client already had), ``listener(False, url)`` when the request is done: how the batcher knows a publication is
        waiting for a host rather than on its way towards a batch, and how much work each host has before it."""
        self._listener.fn = listener

    def cut_in_flight(self) -> None:
        """The run was interrupted: cut the exchanges in flight now instead of waiting for their deadlines (a slow
        server would hold a Ctrl-C for minutes). Later requests are sent as usual (``watch.stopped`` holds them)."""
        abort = getattr(self.network, "abort", None)
        if abort is not None:
            abort("not answered: the run was interrupted", later_too=False)

    def close(self) -> None:
        """Close the pooled connections."""
        self.transport.close()
        self.ftp.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------------ the call

    def _run(self, request: Request, entry: EntryPolicy | None) -> FetchResult:
        if self.watch.halted:  # quietly: the run is about to stop with one line saying why
            return FetchResult(request.url, request.url, OutcomeKind.CONNECTION, message="not sent: " + HALTED,
                               not_sent=True)
        key = request_key(request) if self.answers is not None else None
        if self.answers is not None:
            known = self.answers.get(key)
            if known is not None:  # a copy: what it means for this entry is this request's to decide
                logger.info("answered before: %s %s", request.method, request.url)
                known.fetch_exception = _marks(known, request, entry)
                return known
        listener = getattr(self._listener, "fn", None)
        if listener is not None:
            listener(True, request.url)
        started = time.monotonic()
        try:
            result = self._send(request)
        finally:
            if listener is not None:
                listener(False, request.url)
        result.fetch_exception = _marks(result, request, entry)
        if self.answers is not None:
            self.answers.put(key, result)
        elapsed = time.monotonic() - started
        if result.ok:
            logger.info("GOT %s (%s, %d bytes, %.2f s)", result.final_url, result.content_type, len(result.body),
                        elapsed)
        else:
            self._tell_failure(request, result, entry)
        return result

    def _tell_failure(self, request: Request, result: FetchResult, entry: EntryPolicy | None) -> None:
        """One sentence on the console (host, the path that names the ID, what happened, and what it means for the
        entry: :meth:`EntryPolicy.retry_words`, or the service's answer at info); the whole story in the log file.
        Once the network is found down (or the run is stopping), the run's one line says why, and what was not sent
        or was cut is no news; nor is a request not sent to a host that was just silent."""
        host = hostname(result.final_url or result.url)
        head = f"{host}: {request.method} {_short_path(result.final_url or result.url)}: {result.brief()}"
        policy = _policy(request, entry)
        answer = policy.answer(result) if policy is not None else None
        quiet = self.watch.halted or result.not_sent or answer is not None
        words = f": {answer}" if answer is not None else (
            policy.retry_words(result) if policy is not None else "")
        # one kind whichever host said it (the console line counts the hosts), apart from the failures a later run
        # retries, whose sentence says so
        logger.log(logging.INFO if quiet else logging.WARNING, "%s%s", head, words,
                   extra={"kind": f"{result.kind.name} {result.status or ''} {words}", "host": host})
        logger.debug("%s %s failed: %s%s (%s)%s", request.method, result.url, result.kind.name,
                     f" {result.status}" if result.status else "", result.message,
                     " -> fetchException" if result.fetch_exception else "")

    def _send(self, request: Request) -> FetchResult:
        """Send through the stack of the URL's scheme and turn what comes back into a result."""
        try:
            refused = refusal(self.config, request, request.url, first=True)
            if refused is not None:
                raise refused
            ftp = scheme(request.url) == "ftp"
            if ftp:
                logger.info("GET PDF %s", request.url)
            response = (self.ftp if ftp else self.transport).send(request)
        except ServerBusy as busy:
            url = busy.url or request.url
            busy_hop = busy.payload if isinstance(busy.payload, Response) else Response(url, busy.status)
            return _error(request, url, OutcomeKind.SERVER_BUSY, str(busy), busy_hop, busy.attempts)
        except NotSent as unsent:
            result = _error(request, unsent.url or request.url, unsent.kind, unsent.message, None, 0)
            result.not_sent = True
            return result
        except ExchangeFailed as failed:
            failed_hop = failed.payload if isinstance(failed.payload, Response) else None
            return _error(request, failed.url or request.url, failed.kind, failed.message, failed_hop,
                          failed.attempts)
        if response.status is None:
            return _ftp_result(request, response)
        return _final(request, response)

    # ------------------------------------------------------------------ plumbing

    def _headers(self, url: str, referer: str | None, extra: Mapping[str, str] | None) -> dict[str, str]:
        headers = {"User-Agent": self.config.user_agent, "Accept": _DEFAULT_ACCEPT, "Accept-Language": "en-US,en;q=0.5"}
        headers.update(self.config.extra_headers)
        with contextlib.suppress(ValueError):  # a malformed URL is refused later, with a proper outcome
            headers["Referer"] = referer if referer is not None else origin(url)
        if extra:
            headers.update(extra)
        return headers


def _policy(request: Request, entry: EntryPolicy | None) -> EntryPolicy | None:
    """The entry policy of a request: the one given, else PubFetcher's publication rule for a publication's request."""
    if entry is not None:
        return entry
    return _PUBLICATION if request.publication else None


_PUBLICATION: Final = EntryPolicy()


def _marks(result: FetchResult, request: Request, entry: EntryPolicy | None) -> bool:
    """``result.fetch_exception``: the entry policy's verdict, or with no entry PubFetcher's rule for a webpage."""
    policy = _policy(request, entry)
    return policy.marks_entry(result) if policy is not None else sets_fetch_exception(result, publication=False)


def _find_layer(transport: Transport, kind: type[RateLimitLayer]) -> RateLimitLayer | None:
    """The layer of ``kind`` in a stack of layers (each wraps ``inner``), if there is one."""
    layer: object = transport
    while layer is not None:
        if isinstance(layer, kind):
            return layer
        layer = getattr(layer, "inner", None)
    return None


def _final(request: Request, hop: Response) -> FetchResult:
    """The result of a received last response: its kind by status, media type and body."""
    content_type = hop.headers.get("Content-Type")
    result = FetchResult(
        url=request.url,
        final_url=hop.url,
        kind=kind_for_status(hop.status or 0),
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
    elif result.ok and not request.any_media:
        result.kind = OutcomeKind.UNSUPPORTED_TYPE
        result.message = f"{mtype} is neither text nor PDF"
    return result


def _ftp_result(request: Request, response: Response) -> FetchResult:
    """An ftp download is a result only when it is a PDF."""
    pdf = has_pdf_magic(response.body)
    return FetchResult(
        url=request.url,
        final_url=request.url,
        kind=OutcomeKind.OK if pdf else OutcomeKind.UNSUPPORTED_TYPE,
        content_type=response.headers.get("Content-Type"),
        body=response.body,
        is_pdf=pdf,
        attempts=response.attempts,
        message="" if pdf else "ftp is fetched only for PDFs and this is not one",
    )


def _error(request: Request, url: str, kind: OutcomeKind, message: str, hop: Response | None,
           attempts: int) -> FetchResult:
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


def _with_params(url: str, params: Mapping[str, str]) -> str:
    """Append query parameters the way requests encodes them."""
    prepared = requests.Request("GET", url, params=dict(params)).prepare()
    return prepared.url or url
