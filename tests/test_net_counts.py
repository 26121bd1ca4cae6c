"""Requests, failures and 429s per host (pubfetch/net/counts.py), counted where requests leave for the network: every
attempt that was sent is counted once (each redirect hop, each retried 429 or 503), hosts as the slots compare them."""

from __future__ import annotations

from pubfetch.net.client import HttpClient
from pubfetch.net.counts import HostCounts, RequestCounts
from pubfetch.net.mapping_transport import Canned, MappingTransport


def test_every_attempt_sent_is_counted_once_with_what_it_met() -> None:
    busy = iter([Canned(429, "slow down", "text/plain", {"Retry-After": "1"}),
                 Canned(503, "busy", "text/plain", {"Retry-After": "1"}), Canned(200, "{}", "application/json")])
    transport = MappingTransport({
        "http://api.test/*": lambda request: next(busy),
        "http://www.journal.test/old": Canned(301, "", None, {"Location": "http://journal.test/new"}),
        "http://journal.test/new": Canned(200, "<html>page</html>"),
        "http://journal.test/gone": Canned(404, "gone", "text/plain"),
    })
    with HttpClient(transport=transport, sleep=lambda seconds: None) as client:
        assert client.get("http://api.test/search").ok  # two busy answers, then the answer
        assert client.get("http://www.journal.test/old").ok  # a redirect hop, then the page
        assert not client.get("http://journal.test/gone").ok
        counts = client.counts.by_host()
    assert counts == {
        "api.test": HostCounts(requests=3, failed=2, too_many=1, unavailable=1, no_answer=0),
        "journal.test": HostCounts(requests=3, failed=1, too_many=0, unavailable=0, no_answer=0),
    }


def test_hosts_are_told_apart_as_the_slots_tell_them_and_listed_busiest_first() -> None:
    counts = RequestCounts()
    assert not counts
    counts.record("https://www.Example.org:8443/a", 200, False)
    counts.record("http://example.org/b", None, True)  # no answer at all
    counts.record("https://other.test/", 503, True)
    assert list(counts.by_host()) == ["example.org", "other.test"]
    assert counts.by_host()["example.org"] == HostCounts(requests=2, failed=1, no_answer=1)
    assert counts.total() == HostCounts(requests=3, failed=2, unavailable=1, no_answer=1)
    copy = counts.by_host()
    copy["example.org"].requests = 99  # a copy: the counters are not changed through it
    assert counts.by_host()["example.org"].requests == 2
