"""Tests for pubfetch.net.errors: what requests and urllib3 raise, wrapped however deep, classified into the outcome
kinds PubFetcher distinguishes (and whether a retry may help)."""

from __future__ import annotations

import errno
import socket

import pytest
import requests
import urllib3.exceptions as u3

from pubfetch.net.errors import classify_exception
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.retry import ExchangeFailed


def wrapped(reason: BaseException) -> requests.exceptions.ConnectionError:
    """As requests raises a failed connection: ConnectionError(MaxRetryError(reason=...))."""
    return requests.exceptions.ConnectionError(u3.MaxRetryError(None, "/a", reason))  # type: ignore[arg-type]


@pytest.mark.parametrize(("exc", "kind", "retryable"), [
    (requests.exceptions.SSLError("certificate verify failed"), OutcomeKind.SSL, False),
    (requests.exceptions.ProxyError("proxy down"), OutcomeKind.CONNECTION, False),
    (requests.exceptions.InvalidURL("no host"), OutcomeKind.BAD_URL, False),
    (requests.exceptions.MissingSchema("no scheme"), OutcomeKind.BAD_URL, False),
    (u3.LocationValueError("bad location"), OutcomeKind.BAD_URL, False),
    (requests.exceptions.InvalidSchema("no adapter for gopher"), OutcomeKind.BAD_SCHEME, False),
    (requests.exceptions.ConnectTimeout("connect"), OutcomeKind.TIMEOUT, True),
    (requests.exceptions.ReadTimeout("read"), OutcomeKind.TIMEOUT, True),
    (wrapped(u3.NameResolutionError("nowhere.test", None, socket.gaierror(-2, "Name or service not known"))),  # type: ignore[arg-type]
     OutcomeKind.DNS, False),
    (wrapped(u3.SSLError("handshake")), OutcomeKind.SSL, False),
    (wrapped(u3.NewConnectionError(None, "refused")), OutcomeKind.CONNECTION, False),  # type: ignore[arg-type]
    (wrapped(u3.ReadTimeoutError(None, "/a", "read timed out")), OutcomeKind.TIMEOUT, True),  # type: ignore[arg-type]
    (requests.exceptions.ChunkedEncodingError(u3.ProtocolError("reset", ConnectionResetError(errno.ECONNRESET, "x"))),
     OutcomeKind.IO_ERROR, False),
    (OSError(errno.EHOSTUNREACH, "No route to host"), OutcomeKind.CONNECTION, False),
    (ConnectionRefusedError(errno.ECONNREFUSED, "refused"), OutcomeKind.CONNECTION, False),
    (TimeoutError("timed out"), OutcomeKind.TIMEOUT, True),
    (ValueError("a bug"), OutcomeKind.OTHER, False),
])
def test_exceptions_are_classified_through_their_wrappers(exc: BaseException, kind: OutcomeKind,
                                                          retryable: bool) -> None:
    failed = classify_exception(exc)
    assert (failed.kind, failed.retryable) == (kind, retryable)
    assert f"{type(exc).__name__}: " in failed.message  # the message names what was raised


def test_the_cause_chain_is_followed() -> None:
    try:
        try:
            raise socket.gaierror(-2, "Name or service not known")
        except socket.gaierror as inner:
            raise requests.exceptions.ConnectionError("failed") from inner
    except requests.exceptions.ConnectionError as outer:
        assert classify_exception(outer).kind is OutcomeKind.DNS


def test_a_cycle_in_the_chain_ends() -> None:
    first, second = OSError("first"), OSError("second")
    first.__context__, second.__context__ = second, first
    assert classify_exception(first).kind is OutcomeKind.IO_ERROR


def test_an_already_classified_failure_is_kept() -> None:
    failed = ExchangeFailed(OutcomeKind.TOO_LARGE, "body over 10 bytes")
    assert classify_exception(failed) is failed


def test_a_refused_connection_to_a_closed_loopback_port() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago, nobody listening now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(requests.exceptions.ConnectionError) as info:
        requests.get(f"http://127.0.0.1:{port}/", timeout=5)
    assert classify_exception(info.value).kind is OutcomeKind.CONNECTION
