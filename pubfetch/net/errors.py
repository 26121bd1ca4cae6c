"""Turning what requests/urllib3 raise into outcome kinds, mirroring the Java exceptions PubFetcher distinguishes.

requests wraps urllib3 errors (MaxRetryError -> reason; ReadTimeoutError while streaming -> ConnectionError), so the
cause chain is walked to find what really happened.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Iterator

import requests
import urllib3.exceptions as u3

from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.proxies import PROXY_FAILURE, NamedProxy
from pubfetch.net.retry import ExchangeFailed

_NO_ROUTE = {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ECONNREFUSED}


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """The exception, its wrapped args/reasons and its cause/context chain (bounded, cycle-safe)."""
    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack and len(seen) < 32:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        for nxt in (getattr(current, "reason", None), current.__cause__, current.__context__, *current.args):
            if isinstance(nxt, BaseException):
                stack.append(nxt)


def classify_exception(exc: BaseException, proxy: NamedProxy | None = None) -> ExchangeFailed:
    """Classify an exception raised while sending a request or reading its response (``proxy``: the one the request
    went through, named in the message of a failure at it)."""
    if isinstance(exc, ExchangeFailed):
        return exc
    message = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, requests.exceptions.SSLError):
        return ExchangeFailed(OutcomeKind.SSL, message)
    if isinstance(exc, requests.exceptions.ProxyError):
        failed = ExchangeFailed(OutcomeKind.CONNECTION, f"{PROXY_FAILURE}{proxy or 'the proxy'}; {message}")
        failed.proxy = proxy
        return failed
    if isinstance(exc, (requests.exceptions.InvalidURL, requests.exceptions.MissingSchema, u3.LocationValueError)):
        return ExchangeFailed(OutcomeKind.BAD_URL, message)
    if isinstance(exc, requests.exceptions.InvalidSchema):
        return ExchangeFailed(OutcomeKind.BAD_SCHEME, message)
    if isinstance(exc, requests.exceptions.Timeout):  # ConnectTimeout and ReadTimeout
        return ExchangeFailed(OutcomeKind.TIMEOUT, message, retryable=True)
    if isinstance(exc, (requests.exceptions.RequestException, OSError, u3.HTTPError)):
        return _classify_transport(exc, message)
    return ExchangeFailed(OutcomeKind.OTHER, message)


def _classify_transport(exc: BaseException, message: str) -> ExchangeFailed:
    causes = list(_causes(exc))
    # order matters: NameResolutionError < NewConnectionError < ConnectTimeoutError in urllib3's hierarchy
    if any(isinstance(c, (u3.NameResolutionError, socket.gaierror)) for c in causes):
        return ExchangeFailed(OutcomeKind.DNS, message)
    if any(isinstance(c, (u3.SSLError,)) for c in causes):
        return ExchangeFailed(OutcomeKind.SSL, message)
    if any(isinstance(c, u3.NewConnectionError) for c in causes):
        return ExchangeFailed(OutcomeKind.CONNECTION, message)
    if any(isinstance(c, (u3.ReadTimeoutError, u3.ConnectTimeoutError, TimeoutError, socket.timeout)) for c in causes):
        return ExchangeFailed(OutcomeKind.TIMEOUT, message, retryable=True)
    if any(isinstance(c, (ConnectionRefusedError,)) or getattr(c, "errno", None) in _NO_ROUTE for c in causes):
        return ExchangeFailed(OutcomeKind.CONNECTION, message)
    return ExchangeFailed(OutcomeKind.IO_ERROR, message)
