"""Tests for pubfetch.net.reachability: a run finds the network down when attempts to two hosts in a row get no
answer at all (at the first silence of a second host before anything answered, after four once something did); any
response resets the count; the watch layer stops sending once the network is down."""

from __future__ import annotations

import pytest

from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.reachability import NetworkWatch, NotSent, WatchLayer
from pubfetch.net.retry import ExchangeFailed, ServerBusy
from pubfetch.net.transport import Request, Response

TIMEOUT, CONNECTION, DNS = OutcomeKind.TIMEOUT, OutcomeKind.CONNECTION, OutcomeKind.DNS


def test_before_any_answer_the_first_silence_of_a_second_host_means_down() -> None:
    watch = NetworkWatch()
    watch.failed("a.test", TIMEOUT, responded=False)
    watch.failed("a.test", TIMEOUT, responded=False)  # one host, however often, is that host's problem
    assert not watch.down
    watch.failed("b.test", DNS, responded=False)
    assert watch.down and watch.halted


def test_after_an_answer_four_silences_on_two_hosts_mean_down() -> None:
    watch = NetworkWatch()
    watch.answered()
    for host in ("a.test", "b.test", "a.test"):
        watch.failed(host, CONNECTION, responded=False)
    assert not watch.down
    watch.failed("b.test", CONNECTION, responded=False)
    assert watch.down


def test_any_response_or_another_kind_of_failure_does_not_count() -> None:
    watch = NetworkWatch()
    watch.failed("a.test", TIMEOUT, responded=False)
    watch.failed("b.test", TIMEOUT, responded=True)  # an answer came, then the body timed out: the network works
    watch.failed("c.test", OutcomeKind.SSL, responded=False)
    watch.failed("d.test", OutcomeKind.IO_ERROR, responded=False)
    assert not watch.down
    watch.failed("a.test", TIMEOUT, responded=False)
    watch.failed("b.test", TIMEOUT, responded=False)
    watch.failed("c.test", TIMEOUT, responded=False)
    assert not watch.down  # answered once: four are needed
    watch.failed("d.test", TIMEOUT, responded=False)
    assert watch.down


def test_the_error_names_the_hosts_and_what_they_did() -> None:
    watch = NetworkWatch(timeout_s=15)
    watch.failed("a.test", TIMEOUT, responded=False)
    watch.failed("b.test", TIMEOUT, responded=False)
    assert str(watch.error()) == ("network unreachable: a.test, b.test did not answer (timed out); check your "
                                  "connection or HTTPS_PROXY, or give a longer timeout than 15 s (--timeout is in "
                                  "milliseconds)")
    mixed = NetworkWatch(timeout_s=15)
    mixed.failed("a.test", CONNECTION, responded=False)
    mixed.failed(None, DNS, responded=False)
    assert mixed.error().hosts == ["a.test", "?"]
    assert str(mixed.error()).endswith("(could not connect, host name does not resolve); check your connection or "
                                       "HTTPS_PROXY")


def test_failures_after_the_stop_are_not_news() -> None:
    watch = NetworkWatch()
    watch.failed("a.test", CONNECTION, responded=False)
    watch.failed("b.test", CONNECTION, responded=False)
    watch.failed("c.test", TIMEOUT, responded=False)
    assert watch.error().hosts == ["a.test", "b.test"]


def test_the_down_callbacks_run_once_when_the_network_is_found_down() -> None:
    watch = NetworkWatch()
    calls: list[str] = []
    watch.when_down(lambda: calls.append("cut"))
    watch.failed("a.test", CONNECTION, responded=False)
    assert calls == []
    watch.failed("b.test", CONNECTION, responded=False)
    watch.failed("c.test", CONNECTION, responded=False)
    assert calls == ["cut"]


def test_a_watched_run_skips_silent_hosts_and_timeout_retries_until_something_answers() -> None:
    watch = NetworkWatch()
    watch.failed("a.test", TIMEOUT, responded=False)
    assert watch.retries_timeout() and not watch.skips("a.test")  # not watched: nothing changes
    with watch.watching():
        assert not watch.retries_timeout() and watch.skips("a.test") and not watch.skips("b.test")
        watch.answered()
        assert watch.retries_timeout() and not watch.skips("a.test")
    assert watch.retries_timeout()


class Scripted:
    """A transport answering each request with the next of ``steps`` (a Response, or an exception to raise)."""

    def __init__(self, *steps: Response | BaseException) -> None:
        self.steps = list(steps)
        self.sent: list[str] = []
        self.closed = False

    def send(self, request: Request) -> Response:
        self.sent.append(request.url)
        step = self.steps.pop(0)
        if isinstance(step, BaseException):
            raise step
        return step

    def close(self) -> None:
        self.closed = True


def timeout() -> ExchangeFailed:
    return ExchangeFailed(TIMEOUT, "read timed out", retryable=True)


def test_the_layer_reports_each_attempt_and_sends_nothing_once_down() -> None:
    watch = NetworkWatch()
    inner = Scripted(timeout(), ExchangeFailed(CONNECTION, "refused"))
    layer = WatchLayer(inner, watch)
    with pytest.raises(ExchangeFailed) as first:
        layer.send(Request("GET", "http://a.test/1"))
    assert first.value.retryable  # not watched: a timeout is retried as PubFetcher does
    with pytest.raises(ExchangeFailed):
        layer.send(Request("GET", "http://b.test/1"))
    assert watch.down
    with pytest.raises(NotSent, match="not sent: the network seems down or the run is stopping") as not_sent:
        layer.send(Request("GET", "http://c.test/1"))
    assert not_sent.value.kind is CONNECTION and inner.sent == ["http://a.test/1", "http://b.test/1"]
    layer.close()
    assert inner.closed


def test_the_layer_in_a_watched_run_neither_retries_a_timeout_nor_asks_a_silent_host_again() -> None:
    watch = NetworkWatch()
    layer = WatchLayer(Scripted(timeout()), watch)
    with watch.watching():
        with pytest.raises(ExchangeFailed) as first:
            layer.send(Request("GET", "http://a.test/1"))
        assert not first.value.retryable
        with pytest.raises(NotSent, match="a.test did not answer before"):
            layer.send(Request("GET", "http://a.test/2"))


def test_answers_and_busy_servers_prove_the_network_works() -> None:
    watch = NetworkWatch()
    watch.failed("a.test", TIMEOUT, responded=False)
    layer = WatchLayer(Scripted(ServerBusy(503, None, None), Response("http://c.test/", 200)), watch)
    with pytest.raises(ServerBusy):
        layer.send(Request("GET", "http://b.test/"))
    watch.failed("c.test", TIMEOUT, responded=False)
    assert not watch.down  # the busy answer reset the count
    assert layer.send(Request("GET", "http://c.test/")).status == 200


def test_a_stopped_run_sends_nothing() -> None:
    watch = NetworkWatch()
    watch.stopped = True
    inner = Scripted(Response("http://a.test/", 200))
    with pytest.raises(NotSent):
        WatchLayer(inner, watch).send(Request("GET", "http://a.test/"))
    assert inner.sent == [] and watch.halted and not watch.down
