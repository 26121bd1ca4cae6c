"""Tests for pubfetch.net.browser.outcome: Chromium's network errors classified into the outcome kinds plain HTTP
gives, and the one-line messages of failures."""

from __future__ import annotations

import pytest

from pubfetch.net.browser.outcome import classify, first_line, outcome
from pubfetch.net.outcome import OutcomeKind


@pytest.mark.parametrize(("message", "kind"), [
    ("net::ERR_NAME_NOT_RESOLVED at https://x/", OutcomeKind.DNS),
    ("net::ERR_CONNECTION_TIMED_OUT", OutcomeKind.TIMEOUT), ("net::ERR_TIMED_OUT", OutcomeKind.TIMEOUT),
    ("net::ERR_CONNECTION_REFUSED", OutcomeKind.CONNECTION), ("net::ERR_PROXY_CONNECTION_FAILED", OutcomeKind.CONNECTION),
    ("net::ERR_INTERNET_DISCONNECTED", OutcomeKind.CONNECTION),
    ("net::ERR_CERT_AUTHORITY_INVALID", OutcomeKind.SSL), ("net::ERR_SSL_PROTOCOL_ERROR", OutcomeKind.SSL),
    ("net::ERR_TOO_MANY_REDIRECTS", OutcomeKind.TOO_MANY_REDIRECTS),
    ("net::ERR_UNSAFE_PORT", OutcomeKind.BAD_URL), ("net::ERR_INVALID_URL", OutcomeKind.BAD_URL),
    ("net::ERR_BLOCKED_BY_CLIENT", OutcomeKind.FORBIDDEN_ADDRESS),
    ("Download is starting", OutcomeKind.UNSUPPORTED_TYPE),
    ("net::ERR_CONNECTION_RESET", OutcomeKind.IO_ERROR), ("net::ERR_EMPTY_RESPONSE", OutcomeKind.IO_ERROR),
    ("net::ERR_HTTP2_PROTOCOL_ERROR", OutcomeKind.IO_ERROR), ("net::ERR_ABORTED", OutcomeKind.IO_ERROR),
    ("Target page, context or browser has been closed", OutcomeKind.OTHER),
])
def test_chromium_errors_are_classified_like_plain_http(message: str, kind: OutcomeKind) -> None:
    assert classify(RuntimeError(message)) is kind


def test_the_first_matching_pattern_wins() -> None:
    """A message naming two errors takes the earlier kind of the table (a name error before a reset)."""
    assert classify(RuntimeError("net::ERR_CONNECTION_RESET after net::ERR_NAME_NOT_RESOLVED")) is OutcomeKind.DNS


def test_first_line_names_the_exception_and_its_first_line() -> None:
    error = RuntimeError("Page.goto: net::ERR_CONNECTION_REFUSED at http://x/\n=== logs ===\nnavigating")
    assert first_line(error) == "RuntimeError: Page.goto: net::ERR_CONNECTION_REFUSED at http://x/"
    assert first_line(TimeoutError()) == "TimeoutError: "


def test_an_outcome_without_a_response_is_one_attempt_at_the_url() -> None:
    result = outcome("https://x/a", OutcomeKind.TIMEOUT, "page did not finish within 3 s")
    assert (result.url, result.final_url, result.kind, result.status, result.attempts, result.message) == (
        "https://x/a", "https://x/a", OutcomeKind.TIMEOUT, None, 1, "page did not finish within 3 s")
    moved = outcome("https://x/a", OutcomeKind.FORBIDDEN_ADDRESS, "refused", final_url="http://10.0.0.1/")
    assert moved.final_url == "http://10.0.0.1/"
