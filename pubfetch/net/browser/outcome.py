"""Classifying a rendered page like plain HTTP: the main document's response and Chromium's network errors become a
:class:`~pubfetch.net.outcome.FetchResult` of the same kinds :class:`~pubfetch.net.client.HttpClient` gives, so that
callers treat a rendered page and a fetched one alike."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from pubfetch.net.outcome import FetchResult, OutcomeKind

if TYPE_CHECKING:
    from playwright.sync_api import Response

#: Chromium network errors (as Playwright reports them) -> outcome kinds; first match wins.
NET_ERRORS: Final = (
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


def outcome(url: str, kind: OutcomeKind, message: str, final_url: str | None = None,
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


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def classify(exc: BaseException) -> OutcomeKind:
    text = str(exc)
    for pattern, kind in NET_ERRORS:
        if pattern.search(text):
            return kind
    return OutcomeKind.OTHER
