"""The client's layers over an in-process transport: redirects, retries, slots, rate limits and recording see what the
network would give them, without a socket."""

from __future__ import annotations

import pytest

from pubfetch.net.client import HttpClient
from pubfetch.net.config import HttpConfig
from pubfetch.net.mapping_transport import Canned, MappingTransport
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.transport import Request

PAGE = "<html><head><title>Landing</title></head><body><p>Text of the article.</p></body></html>"


class CountingLimiter:
    def __init__(self) -> None:
        self.acquired: list[str] = []
        self.penalties: list[tuple[str, float]] = []

    def acquire(self, key: str) -> float:
        self.acquired.append(key)
        return 0.0

    def penalize(self, key: str, seconds: float) -> None:
        self.penalties.append((key, seconds))


def test_redirect_is_followed_and_every_hop_recorded() -> None:
    records = []
    transport = MappingTransport({
        "http://doi.test/10.1/x": Canned(302, "", "text/plain", {"Location": "/article/x"}),
        "http://doi.test/article/x": Canned(200, PAGE),
    })
    with HttpClient(HttpConfig(), transport=transport, response_hook=records.append) as client:
        result = client.get("http://doi.test/10.1/x")
    assert result.ok and result.text == PAGE
    assert result.final_url == "http://doi.test/article/x"
    assert result.redirects == ("http://doi.test/10.1/x",)
    assert [(r.status, r.url) for r in records] == [(302, "http://doi.test/10.1/x"), (200, "http://doi.test/article/x")]


def test_busy_answer_is_retried_after_retry_after_and_holds_back_the_limiter() -> None:
    answers = iter([Canned(429, "slow down", "text/plain", {"Retry-After": "2"}),
                    Canned(503, "busy", "text/plain", {"Retry-After": "1"}), Canned(200, "{}", "application/json")])
    waits: list[float] = []
    limiter = CountingLimiter()
    transport = MappingTransport({"http://api.test/*": lambda request: next(answers)})
    with HttpClient(HttpConfig(), transport=transport, sleep=waits.append, rate_limiter=limiter,
                    rate_key=lambda url: "api") as client:
        result = client.get("http://api.test/search", params={"q": "1"})
    assert result.ok and result.attempts == 3
    assert waits == [2.0, 1.0]
    # only "too many requests" holds back everybody using the limiter; the 503 concerned this request
    assert limiter.acquired == ["api", "api", "api"] and limiter.penalties == [("api", 2.0)]
    assert [r.url for r in transport.sent] == ["http://api.test/search?q=1"] * 3


def test_a_host_slot_is_held_while_the_transport_answers() -> None:
    held: list[int] = []

    def answer(request: Request) -> Canned:
        held.append(client.slots.active_hosts())
        return Canned(200, PAGE)

    with HttpClient(transport=MappingTransport({"http://journal.test/*": answer})) as client:
        assert client.get("http://journal.test/a").ok
    assert held == [1] and client.slots.active_hosts() == 0


@pytest.mark.parametrize(("canned", "kind"), [
    (Canned(404, "no such record", "text/plain"), OutcomeKind.NOT_FOUND),
    (Canned(200, b"\x89PNG\r\n", "image/png"), OutcomeKind.UNSUPPORTED_TYPE),
    (Canned(200, "x" * 2000, "text/html"), OutcomeKind.TOO_LARGE),
])
def test_answers_are_classified_as_network_answers_are(canned: Canned, kind: OutcomeKind) -> None:
    transport = MappingTransport({"http://journal.test/a": canned}, max_bytes=1000)
    with HttpClient(HttpConfig(max_bytes=1000), transport=transport) as client:
        assert client.get("http://journal.test/a", publication=True).kind is kind


def test_untrusted_redirect_to_a_private_address_is_refused_before_it_is_sent() -> None:
    transport = MappingTransport({"http://journal.test/a": Canned(302, "", None, {"Location": "http://10.0.0.1/"})})
    with HttpClient(transport=transport) as client:
        result = client.get("http://journal.test/a", untrusted=True)
    assert result.kind is OutcomeKind.FORBIDDEN_ADDRESS and result.final_url == "http://10.0.0.1/"
    assert [r.url for r in transport.sent] == ["http://journal.test/a"]


def test_a_run_never_sends_an_answered_request_twice_but_asks_again_after_a_passing_failure() -> None:
    from pubfetch.net.answers import AnswerMemory

    busy_then_ok = iter([Canned(503, "busy", "text/plain"), Canned(200, "{}", "application/json")])
    transport = MappingTransport({
        "http://api.test/record/1": Canned(200, '{"id": 1}', "application/json"),
        "http://api.test/record/2": Canned(404, "no such record", "text/plain"),
        "http://api.test/record/3": lambda request: next(busy_then_ok),
    })
    with HttpClient(HttpConfig(busy_retries=0), transport=transport, answers=AnswerMemory()) as client:
        first = [client.get(f"http://api.test/record/{i}") for i in (1, 2, 3)]
        again = [client.get(f"http://api.test/record/{i}") for i in (1, 2, 3)]
        posted = client.post("http://api.test/record/1", {"q": "x"})
    assert [r.status for r in first] == [200, 404, 503]
    assert [r.status for r in again] == [200, 404, 200]
    assert again[0].text == '{"id": 1}' and again[0] is not first[0]
    # the answered GETs went out once; the 503 was asked again; a POST is another request
    assert transport.counts == {"http://api.test/record/1": 2, "http://api.test/record/2": 1,
                                "http://api.test/record/3": 2}
    assert posted.ok and transport.sent[-1].method == "POST"


def test_the_answer_memory_counts_headers_too() -> None:
    """Pages with 96 headers of 6 kB and an empty body took a run's memory past its bound, which
    counted bodies only. Every answer kept counts its headers; the kept answers stay within the bound."""
    from pubfetch.net.answers import AnswerMemory

    heavy = {f"X-Filler-{i}": "h" * 6000 for i in range(96)}  # 576 kB of headers, one byte of body
    transport = MappingTransport({"http://pages.test/*": Canned(200, "x", "text/plain", heavy)})
    memory = AnswerMemory(max_bytes=4 * 1024 * 1024)
    with HttpClient(HttpConfig(busy_retries=0), transport=transport, answers=memory) as client:
        for i in range(30):
            assert client.get(f"http://pages.test/{i}").ok
        assert client.get("http://pages.test/29").ok  # the latest answers are still remembered
    kept_headers = sum(len(k) + len(v) for r in memory._answers.values() for k, v in r.headers.items())
    assert 0 < kept_headers <= memory.max_bytes
    assert len(memory) < 30 and transport.counts["http://pages.test/29"] == 1
