"""Per-host connection slots: one open request per host at any moment, different hosts in parallel."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.slots import HostSlots
from pubfetch.net.urls import host_key
from support.loopback import Reply
from support.netsupport import FastServer as LoopbackServer
from support.netsupport import make_client
from support.waits import wait_until

#: Ceiling of every wait for an event in these tests: far beyond what a loaded machine needs, only there so that a
#: broken client fails the test instead of hanging it.
EVENT_WAIT_S = 60.0


class Meeting:
    """A route handler that holds each of the first requests until ``want`` requests are inside at once (or the
    ceiling passed), then answers slowly: requests a client sends in parallel are seen in parallel however late a
    loaded machine runs its threads, and a client that sends them one by one shows no overlap (after the ceiling)."""

    def __init__(self, want: int, reply: Reply, ceiling_s: float = 10.0) -> None:
        self.want, self.reply, self.ceiling_s = want, reply, ceiling_s
        self.cond = threading.Condition()
        self.arrived = 0

    def __call__(self, _req: object) -> Reply:
        with self.cond:
            self.arrived += 1
            self.cond.notify_all()
            self.cond.wait_for(lambda: self.arrived >= self.want, timeout=self.ceiling_s)
        return self.reply


def test_eight_threads_two_hosts_one_request_per_host_at_a_time() -> None:
    """Host A is reached as 127.0.0.1, host B as localhost (slot keys ignore ports, so names tell them apart).

    The first request to each host waits until the other host has one too (one meeting for both servers), so the
    overlap of the two hosts does not depend on how fast threads start; the slow answers give a client that let two
    requests to one host through the time to show it."""
    reply = Reply(200, "<html><title>slow</title></html>", delay=0.15)
    meeting = Meeting(2, reply)
    with LoopbackServer({"/p/*": meeting}) as a, LoopbackServer({"/p/*": meeting}) as b:
        b_base = b.base.replace("127.0.0.1", "localhost")
        urls = [f"{a.base}/p/{i}" if i % 2 == 0 else f"{b_base}/p/{i}" for i in range(8)]
        client = make_client()
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(client.get, urls))
        client.close()
        assert [r.kind for r in results] == [OutcomeKind.OK] * 8
        assert [r.final_url for r in results] == urls
        assert (a.count("/p/"), b.count("/p/")) == (4, 4)
        assert (a.max_active, b.max_active) == (1, 1)
        # both hosts were served at the same time: some request on A overlaps some request on B
        overlaps = [(ra, rb) for ra in a.requests for rb in b.requests
                    if ra.started < rb.finished and rb.started < ra.finished]
        assert overlaps
        assert client.slots.active_hosts() == 0  # idle hosts are forgotten


def test_more_slots_per_host_allow_parallel_requests() -> None:
    """The first request waits until a second one is inside too: parallel when the client allows it, at any speed."""
    reply = Reply(200, "ok", "text/plain", delay=0.15)
    with LoopbackServer({"/p/*": Meeting(2, reply)}) as server:
        client = make_client(host_connections={"127.0.0.1": 4})
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(client.get, [server.url(f"/p/{i}") for i in range(4)]))
        assert [r.kind for r in results] == [OutcomeKind.OK] * 4
        assert server.max_active > 1


def test_slot_is_released_after_failures() -> None:
    routes = {"/reset": Reply(reset=True), "/big": Reply(200, b"x" * 100, "text/plain"), "/ok": Reply(200, "ok")}
    with LoopbackServer(routes) as server:
        client = make_client(max_bytes=10)
        assert client.get(server.url("/reset")).kind is OutcomeKind.IO_ERROR
        assert client.get(server.url("/big")).kind is OutcomeKind.TOO_LARGE
        assert client.get(server.url("/ok")).kind is OutcomeKind.OK
        assert client.slots.active_hosts() == 0


# ---------------------------------------------------------------------------------------------------- HostSlots


@pytest.mark.parametrize(
    ("url", "key"),
    [("https://www.Example.org/a", "example.org"), ("http://EXAMPLE.org:8080/", "example.org"),
     ("example.org", "example.org"), ("WWW.ncbi.nlm.nih.gov", "ncbi.nlm.nih.gov"), ("http://[::1]:80/", "::1"),
     ("wwwexample.org", "wwwexample.org"), ("not a url at all", "not a url at all")],
)
def test_host_key(url: str, key: str) -> None:
    assert host_key(url) == key


def _hold_in_thread(slots: HostSlots, url: str, entered: threading.Event, release: threading.Event) -> threading.Thread:
    def run() -> None:
        with slots.hold(url):
            entered.set()
            release.wait(EVENT_WAIT_S)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_www_and_case_share_one_slot() -> None:
    slots = HostSlots(1)
    entered, release = threading.Event(), threading.Event()
    holder = _hold_in_thread(slots, "https://www.Example.org/a", entered, release)
    assert entered.wait(EVENT_WAIT_S)
    second_entered, second_release = threading.Event(), threading.Event()
    waiter = _hold_in_thread(slots, "http://example.org/b", second_entered, second_release)
    assert not second_entered.wait(0.1)  # queued behind the first
    release.set()
    assert second_entered.wait(EVENT_WAIT_S)
    second_release.set()
    holder.join(EVENT_WAIT_S)
    waiter.join(EVENT_WAIT_S)
    assert slots.active_hosts() == 0


def test_different_hosts_do_not_wait_for_each_other() -> None:
    slots = HostSlots(1)
    entered, release = threading.Event(), threading.Event()
    holder = _hold_in_thread(slots, "https://a.example/", entered, release)
    assert entered.wait(EVENT_WAIT_S)
    other_entered, other_release = threading.Event(), threading.Event()
    other = _hold_in_thread(slots, "https://b.example/", other_entered, other_release)
    assert other_entered.wait(EVENT_WAIT_S)  # while a.example is still held
    assert slots.active_hosts() == 2
    release.set()
    other_release.set()
    holder.join(EVENT_WAIT_S)
    other.join(EVENT_WAIT_S)
    assert slots.active_hosts() == 0


def test_unlimited_hosts_take_no_slot() -> None:
    slots = HostSlots(1, unlimited={"doi.org", "www.dx.doi.org"})
    assert slots.size("doi.org") is None and slots.size("dx.doi.org") is None
    with slots.hold("https://doi.org/10.1/a"), slots.hold("https://doi.org/10.1/b"):
        assert slots.active_hosts() == 0


def test_overrides_and_validation() -> None:
    slots = HostSlots(2, overrides={"www.EBI.ac.uk": 4})
    assert (slots.size("ebi.ac.uk"), slots.size("example.org")) == (4, 2)
    with pytest.raises(ValueError, match="per_host must be >= 1"):
        HostSlots(0)


def test_slot_released_when_the_block_raises() -> None:
    slots = HostSlots(1)
    with pytest.raises(RuntimeError), slots.hold("https://example.org/"):
        raise RuntimeError("boom")
    assert slots.active_hosts() == 0
    with slots.hold("https://example.org/"):  # would block forever if the slot leaked
        pass


def test_a_released_connection_goes_to_the_lowest_rank_then_the_first_come() -> None:
    """The fetch engine ranks a publication's thread by its batch: the oldest batch's requests go first."""
    slots = HostSlots(1)
    url = "https://host.example/x"
    order: list[str] = []

    def wait_turn(name: str, rank: int) -> None:
        slots.rank_thread(rank)
        with slots.hold(url):
            order.append(name)

    with slots.hold(url):
        threads = []
        for queued, (name, rank) in enumerate((("late batch", 2), ("old batch, first", 1), ("old batch, second", 1))):
            thread = threading.Thread(target=wait_turn, args=(name, rank))
            thread.start()
            threads.append(thread)
            wait_until(lambda n=queued + 1: slots.waiting(url) == n, EVENT_WAIT_S, f"{queued + 1} threads queued",
                       every_s=0.005)
    for thread in threads:
        thread.join(EVENT_WAIT_S)
    assert order == ["old batch, first", "old batch, second", "late batch"]


def test_a_thread_holding_a_host_sends_to_it_without_another_connection() -> None:
    """The batcher holds the host while it decides what to send, then sends within that hold."""
    slots = HostSlots(1)
    with slots.hold("https://host.example/a"), slots.hold("https://host.example/b"):
        assert slots.active_hosts() == 1
    assert slots.active_hosts() == 0


def test_a_permit_taken_ahead_is_used_by_the_next_request_and_an_unused_one_is_dropped() -> None:
    from pubfetch.net.client import HttpClient
    from pubfetch.net.config import HttpConfig
    from pubfetch.net.mapping_transport import Canned, MappingTransport

    class CountingLimiter:
        def __init__(self) -> None:
            self.acquired = 0

        def acquire(self, key: str) -> float:
            self.acquired += 1
            return 0.0

        def penalize(self, key: str, seconds: float) -> None:
            pass

    limiter = CountingLimiter()
    client = HttpClient(HttpConfig(allow_private_addresses=True), rate_limiter=limiter,
                        transport=MappingTransport({"http://api.test/*": Canned(200, b"{}", "application/json")}))
    with client.turn("http://api.test/search") as prepay:
        prepay()
        assert client.get("http://api.test/search?q=1").ok
    assert limiter.acquired == 1  # the request used the permit taken ahead
    with client.turn("http://api.test/search") as prepay:
        prepay()  # taken, never used: dropped when the turn ends
    assert client.get("http://api.test/search?q=2").ok
    assert limiter.acquired == 3  # the next request waited for a permit of its own
