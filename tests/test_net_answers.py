"""Tests for pubfetch.net.answers: the answers a run received, kept by request and handed out again as copies;
failures that may pass are never kept, and the memory stays within its entry and byte bounds."""

from __future__ import annotations

import pytest

from pubfetch.net.answers import ENTRY_OVERHEAD, AnswerMemory, answer_size, request_key
from pubfetch.net.outcome import FetchResult, OutcomeKind
from pubfetch.net.transport import Request


def answer(url: str, kind: OutcomeKind = OutcomeKind.OK, status: int | None = 200, body: bytes = b"",
           headers: dict[str, str] | None = None) -> FetchResult:
    return FetchResult(url, url, kind, status=status, body=body, headers=headers or {})


def test_requests_are_the_same_when_method_url_body_headers_and_reading_agree() -> None:
    base = Request("GET", "https://x/a", headers={"Accept": "a", "X-B": "b"})
    assert request_key(base) == request_key(Request("GET", "https://x/a", headers={"X-B": "b", "Accept": "a"}))
    form = request_key(Request("POST", "https://x/a", {"b": "2", "a": "1"}))
    assert form == request_key(Request("POST", "https://x/a", {"a": "1", "b": "2"}))  # form fields in any order
    assert form != request_key(Request("POST", "https://x/a", "a=1&b=3"))
    for other in (Request("POST", "https://x/a", headers=base.headers), Request("GET", "https://x/b"),
                  Request("GET", "https://x/a", headers={"Accept": "a"}),
                  Request("GET", "https://x/a", headers=base.headers, accept_pdf=False),
                  Request("GET", "https://x/a", headers=base.headers, follow=False),
                  Request("GET", "https://x/a", headers=base.headers, untrusted=True)):
        assert request_key(other) != request_key(base), other


@pytest.mark.parametrize(("kind", "status"), [
    (OutcomeKind.OK, 200), (OutcomeKind.OK, 301), (OutcomeKind.NOT_FOUND, 404), (OutcomeKind.HTTP_ERROR, 403),
    (OutcomeKind.UNSUPPORTED_TYPE, 200)])
def test_answers_are_kept_and_handed_out_as_copies(kind: OutcomeKind, status: int) -> None:
    memory = AnswerMemory()
    kept = answer("https://x/a", kind, status, b"body")
    memory.put("key", kept)
    first, second = memory.get("key"), memory.get("key")
    assert first == kept and first is not kept and second is not first
    first.message = "changed by a caller"
    assert memory.get("key").message == "" and memory.hits == 3


@pytest.mark.parametrize(("kind", "status"), [
    (OutcomeKind.SERVER_BUSY, 503), (OutcomeKind.SERVER_BUSY, 429), (OutcomeKind.TIMEOUT, None),
    (OutcomeKind.CONNECTION, None), (OutcomeKind.IO_ERROR, 200), (OutcomeKind.OK, None)])
def test_failures_that_may_pass_and_results_without_a_status_are_not_kept(kind: OutcomeKind,
                                                                          status: int | None) -> None:
    memory = AnswerMemory()
    memory.put("key", answer("https://x/a", kind, status))
    assert memory.get("key") is None and len(memory) == 0 and memory.hits == 0


def test_the_least_recently_used_answer_goes_first_when_entries_run_out() -> None:
    memory = AnswerMemory(max_entries=2)
    for name in ("a", "b"):
        memory.put(name, answer(f"https://x/{name}"))
    assert memory.get("a") is not None  # "a" is now the most recent
    memory.put("c", answer("https://x/c"))
    assert (memory.get("a") is not None, memory.get("b"), memory.get("c") is not None) == (True, None, True)


def test_kept_bytes_count_every_answer_once_and_stay_within_the_bound() -> None:
    one = answer("https://x/a", body=b"x" * 1000, headers={"X-Pad": "h" * 3000})
    size = answer_size("a", one)
    assert size > ENTRY_OVERHEAD + 1000 + 3000  # headers count, not only the body
    memory = AnswerMemory(max_bytes=2 * size + size // 2)
    memory.put("a", one)
    memory.put("a", one)  # a replaced answer is counted once
    assert memory.kept_bytes == size and len(memory) == 1
    memory.put("b", answer("https://x/a", body=b"x" * 1000, headers={"X-Pad": "h" * 3000}))
    memory.put("c", answer("https://x/a", body=b"x" * 1000, headers={"X-Pad": "h" * 3000}))
    assert len(memory) == 2 and memory.kept_bytes <= memory.max_bytes and memory.get("a") is None


def test_an_answer_larger_than_max_body_is_not_kept() -> None:
    memory = AnswerMemory(max_body=ENTRY_OVERHEAD + 10_000)
    memory.put("pdf", answer("https://x/a.pdf", body=b"%PDF" + b"x" * 20_000))
    memory.put("page", answer("https://x/a", body=b"<html/>"))
    assert memory.get("pdf") is None and memory.get("page") is not None
