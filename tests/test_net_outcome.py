"""Outcome rules without a network: fetchException (PubFetcher's rule), status kinds, results."""

from __future__ import annotations

import pytest

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
