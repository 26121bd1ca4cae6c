"""Outcome rules without a network: fetchException (PubFetcher's rule), status kinds, config checks."""

from __future__ import annotations

import pytest

from pubfetch.net.config import HttpConfig
from pubfetch.net.outcome import FetchResult, OutcomeKind, kind_for_status, sets_fetch_exception


def result(kind: OutcomeKind, url: str = "https://journal.example/article/1") -> FetchResult:
    return FetchResult(url=url, final_url=url, kind=kind)


@pytest.mark.parametrize(
    ("kind", "publication", "webpage"),
    [
        (OutcomeKind.OK, False, False),
        (OutcomeKind.NOT_FOUND, True, False),
        (OutcomeKind.HTTP_ERROR, True, False),
        (OutcomeKind.SERVER_BUSY, True, True),
        (OutcomeKind.TIMEOUT, True, True),
        (OutcomeKind.CONNECTION, True, True),
        (OutcomeKind.OTHER, True, True),
        (OutcomeKind.DNS, False, False),
        (OutcomeKind.SSL, False, False),
        (OutcomeKind.IO_ERROR, False, False),
        (OutcomeKind.TOO_LARGE, False, False),
        (OutcomeKind.REDIRECT_LOOP, False, False),
        (OutcomeKind.TOO_MANY_REDIRECTS, False, False),
        (OutcomeKind.BAD_URL, False, False),
        (OutcomeKind.BAD_SCHEME, False, False),
        (OutcomeKind.FORBIDDEN_ADDRESS, False, False),
        (OutcomeKind.UNSUPPORTED_TYPE, False, False),
    ],
)
def test_fetch_exception_table(kind: OutcomeKind, publication: bool, webpage: bool) -> None:
    r = result(kind)
    assert sets_fetch_exception(r, publication=True) is publication
    assert sets_fetch_exception(r, publication=False) is webpage
    assert r.sets_fetch_exception(publication=True) is publication


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://doi.org/10.1093/nar/gkab1081", False),
        ("HTTPS://DOI.ORG/10.1/x", False),
        ("http://doi.org/10.1/x", True),  # PubFetcher's pattern names https only
        ("https://dx.doi.org/10.1/x", True),
        ("https://journal.example/paper.pdf", False),
        ("https://journal.example/paper.PDF", False),
        ("https://journal.example/paper.ps", False),
        ("https://journal.example/data.tar.gz", False),
        ("https://journal.example/paper.pdf?download=1", True),
        ("https://journal.example/article", True),
    ],
)
def test_http_error_exceptions_by_url(url: str, expected: bool) -> None:
    assert sets_fetch_exception(result(OutcomeKind.NOT_FOUND, url), publication=True) is expected
    # busy is temporary wherever it happens
    assert sets_fetch_exception(result(OutcomeKind.SERVER_BUSY, url), publication=True) is True


@pytest.mark.parametrize(
    ("status", "kind"),
    [(200, OutcomeKind.OK), (204, OutcomeKind.OK), (302, OutcomeKind.OK), (399, OutcomeKind.OK),
     (400, OutcomeKind.HTTP_ERROR), (404, OutcomeKind.NOT_FOUND), (410, OutcomeKind.NOT_FOUND),
     (429, OutcomeKind.SERVER_BUSY), (500, OutcomeKind.HTTP_ERROR), (503, OutcomeKind.SERVER_BUSY)],
)
def test_kind_for_status(status: int, kind: OutcomeKind) -> None:
    assert kind_for_status(status) is kind


def test_result_properties_and_repr() -> None:
    r = FetchResult(url="u", final_url="u", kind=OutcomeKind.TIMEOUT, body=b"x" * 10_000,
                    content_type="Text/HTML; charset=utf-8")
    assert (r.ok, r.transient, r.permanent, r.media_type) == (False, True, False, "text/html")
    assert "10000 bytes" in repr(r) and "xxxx" not in repr(r)
    assert result(OutcomeKind.NOT_FOUND).permanent is True
    assert OutcomeKind.SERVER_BUSY.is_http_status and not OutcomeKind.TIMEOUT.is_http_status


def test_config_defaults_are_pubfetchers() -> None:
    c = HttpConfig()
    assert (c.timeout_ms, c.timeout_s, c.quick, c.effective_timeout_retries) == (15000, 15.0, False, 1)
    assert c.user_agent == "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0"
    assert c.per_host_connections == 1
    assert c.total_timeout_s == 120.0
    assert HttpConfig(quick=True).effective_timeout_retries == 0
    assert (HttpConfig(timeout_ms=0).timeout_s, HttpConfig(timeout_ms=0).total_timeout_s) == (None, None)
    assert HttpConfig(total_timeout_ms=2500).total_timeout_s == 2.5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"timeout_ms": -1}, "timeout_ms must be between 0 and"), ({"max_bytes": 0}, "max_bytes must be between 1 and"),
     ({"max_redirects": -1}, "max_redirects must be between 0 and 100"),
     ({"per_host_connections": 0}, "per_host_connections must be between 1 and 1024"),
     ({"host_connections": {"a.example": 0}}, "host_connections.a.example must be between 1 and 1024"),
     ({"busy_retries": -1}, "busy_retries must be between 0 and 100"),
     ({"busy_backoff_s": -1}, "busy_backoff_s must be between 0 and 3600")],
)
def test_config_validation(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        HttpConfig(**kwargs)
