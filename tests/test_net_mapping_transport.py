"""The in-process transport's own rules (pubfetch/net/mapping_transport.py), which every test built on it relies on:
a URL is answered by its exact entry, else by the longest matching ``prefix*``, else 404; answers may be functions
of the request; every request is kept and counted by URL without query. (What the client's layers make of its answers
is tests/test_net_transport.py.)"""

from __future__ import annotations

from pubfetch.net.client import HttpClient
from pubfetch.net.mapping_transport import NOT_FOUND, Canned, MappingTransport
from pubfetch.net.transport import Request


def test_exact_urls_win_then_the_longest_prefix_then_not_found() -> None:
    transport = MappingTransport({
        "http://api.test/*": Canned(200, "any"),
        "http://api.test/search*": Canned(200, "search"),
        "http://api.test/search?q=1": Canned(200, "exactly q=1"),
    })

    def body(url: str) -> bytes:
        return transport.answer_for(Request("GET", url)).payload

    assert body("http://api.test/search?q=1") == b"exactly q=1"
    assert body("http://api.test/search?q=2") == b"search"
    assert body("http://api.test/other") == b"any"
    assert transport.answer_for(Request("GET", "http://elsewhere.test/")) is NOT_FOUND


def test_an_answer_may_be_a_function_of_the_request() -> None:
    transport = MappingTransport({"http://api.test/*": lambda request: Canned(200, request.method + " " + request.url)})
    with HttpClient(transport=transport) as client:
        result = client.post("http://api.test/echo", {"q": "1"})
    assert result.ok and result.text == "POST http://api.test/echo"


def test_every_request_is_kept_and_counted_without_its_query() -> None:
    transport = MappingTransport({"http://api.test/*": Canned(200, "ok", "text/plain")})
    with HttpClient(transport=transport) as client:
        for q in ("1", "2"):
            assert client.get("http://api.test/search", params={"q": q}).ok
        assert client.get("http://api.test/other").ok
    assert [r.url for r in transport.sent] == ["http://api.test/search?q=1", "http://api.test/search?q=2",
                                               "http://api.test/other"]
    assert transport.counts == {"http://api.test/search": 2, "http://api.test/other": 1}


def test_text_answers_are_sent_as_utf8_with_their_content_type() -> None:
    transport = MappingTransport({"http://j.test/a": Canned(200, "caf\u00e9", "text/plain; charset=utf-8")})
    with HttpClient(transport=transport) as client:
        result = client.get("http://j.test/a")
    assert result.body == "caf\u00e9".encode() and result.text == "caf\u00e9"
    assert result.content_type == "text/plain; charset=utf-8"
