"""The batcher is work-conserving: a publication that reaches a batchable service whose host is idle is asked for at
once, whatever the other publications are doing, and the publications that reach a service together are asked for
together; while the host is busy a batch keeps gathering, the older batch's stragglers included. The services answer
in this process, each on its own host as in production (one connection per host), or the batcher is driven directly
with a stand-in for the host."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from types import SimpleNamespace

from pubfetch.config import FetchConfig
from pubfetch.engine.service_batcher import BatchedService, Batcher
from pubfetch.fetcher import fetch_many
from pubfetch.model.publication import Publication
from pubfetch.net.mapping_transport import Canned, MappingTransport
from pubfetch.net.slots import HostSlots
from pubfetch.net.transport import Request
from pubfetch.resources.pubstate import PubState
from support.fetchrun import run_context
from support.loopback import Reply
from support.synthetic import SCHOLARLY_OFF, Article, SyntheticServices, in_process_hosts
from support.waits import wait_until

#: Longest a held answer waits for the event it expects before giving up (the test then fails: the event should have
#: come long before; this only keeps a batcher that holds requests back from hanging the suite).
GUARD_S = 30.0


def fetch(transport: MappingTransport, endpoints, pmids: list[str]) -> list[Publication]:
    """One batch through the chain; a batch that waited for publications busy elsewhere would wait for ever (the
    linger, the batcher's safety net, is ten minutes)."""
    cfg = FetchConfig().with_changes(**SCHOLARLY_OFF, endpoints=endpoints, allow_private_addresses=True, javascript=False, threads=4,
                      batch_size=len(pmids), linger_ms=600_000, rate_limits=False,
                      busy_retries=0, timeout=120_000)
    with run_context(cfg, transport=transport) as ctx:
        return list(fetch_many(pmids, config=cfg, context=ctx))


def test_a_second_pass_search_goes_to_its_idle_host_while_another_publication_waits_for_a_page():
    """Europe PMC's search does not find B by its PMID and PubMed names no PMCID; B's DOI leads to a page that does, so
    B searches again by it. A's publisher page answers only once that second search has reached Europe PMC: held until the other
    publications are done, the search would never come."""
    services = SyntheticServices(4)
    a, b = Article(1), Article(2)  # A closed access, B open access
    services.search_misses_pmid = lambda article: article.index == b.index
    services.pmcid_on_page_only = lambda article: article.index == b.index
    services.extra[f"/doi/{a.doi.upper()}"] = Reply(302, "", "text/plain", {"Location": "http://slow.test/a"})
    second_search = threading.Event()
    page_waited: list[bool] = []  # for each request of A's page: whether B's second search came before the guard
    transport, endpoints = in_process_hosts(services, {"http://slow.test/*": lambda request: held_page(request)})
    search = transport.answers["http://ebi.test/*"]

    def watched_search(request: Request) -> Canned:
        if "/search" in request.url and b.pmcid in request.url:
            second_search.set()
        return search(request)

    def held_page(request: Request) -> Canned:
        came = second_search.wait(GUARD_S)
        page_waited.append(came)
        return Canned(200 if came else 504, f"<html><head><title>{'A' if came else 'timed out'}</title></head></html>",
                      "text/html")

    transport.answers["http://ebi.test/*"] = watched_search
    pubs = fetch(transport, endpoints, [a.pmid, b.pmid])
    assert page_waited == [True]
    assert pubs[1].pmcid.content == b.pmcid and pubs[1].fulltext.content


def test_publications_released_together_reach_the_next_service_in_one_request():
    """The search does not find the PMIDs; one efetch of PubMed gives every PMCID, and every publication then asks
    PMC for its JATS: one request for all of them, not one for the first and another for the rest."""
    services = SyntheticServices(40)
    services.search_misses_pmid = lambda article: True
    transport, endpoints = in_process_hosts(services)
    open_access = services.pmids()[::2]
    pubs = fetch(transport, endpoints, open_access)
    assert services.counts["efetch_pubmed"] == 1
    assert services.counts["efetch_pmc"] == 1
    assert services.ids_asked["efetch_pmc"] == {Article(i).pmcid.removeprefix("PMC"): 1 for i in range(0, 40, 2)}
    assert all(pub.pmcid.content and pub.fulltext.content for pub in pubs)


class OneConnectionHost:
    """A client stand-in with one connection to the step's host, which the test holds (a request of another step in
    flight) and lets go of; ``queued`` is set when a batch queues for it."""

    def __init__(self) -> None:
        self.connection = threading.Lock()
        self.queued = threading.Event()

    @contextlib.contextmanager
    def turn(self, url: str) -> Iterator[Callable[[], None]]:
        self.queued.set()
        with self.connection:
            yield lambda: None


def test_a_straggler_of_the_older_batch_rides_with_the_next_batchs_request_while_the_host_is_busy():
    """The next batch's publications reach the step and queue for its host, busy with another request; the older
    batch's last publication, back from a page meanwhile, joins their request instead of making one of its own."""
    host = OneConnectionHost()
    ctx = SimpleNamespace(client=host)
    batcher = Batcher(ctx, settle_s=GUARD_S)  # type: ignore[arg-type]
    served: list[list[PubState]] = []

    def step(ctx: object, states: Sequence[PubState]) -> None:
        served.append(list(states))

    service = BatchedService(lambda ctx: "http://eutils.test/efetch.fcgi", lambda ctx: 10)
    straggler = PubState(Publication())
    newer = [PubState(Publication()), PubState(Publication())]
    batcher.start([straggler], 1)
    batcher.start(newer, 2)
    batcher.requesting(straggler, True)  # at a publisher's page
    host.connection.acquire()
    threads = [threading.Thread(target=batcher.serve, args=(step, service, state)) for state in newer]
    try:
        for thread in threads:
            thread.start()
        assert host.queued.wait(GUARD_S)
        batcher.requesting(straggler, False)  # its page answered: on its way to the step
        threads.append(threading.Thread(target=batcher.serve, args=(step, service, straggler)))
        threads[-1].start()
        wait_until(lambda: any(state is straggler for batch in batcher._open.values() for state in batch.states),
                   GUARD_S, "the straggler in the open batch")
    finally:
        host.connection.release()
        for thread in threads:
            thread.join(GUARD_S)
    assert len(served) == 1
    assert [id(state) for state in served[0]] == [id(straggler), *map(id, newer)]  # the older batch's first


class SharedHost:
    """A client stand-in whose host has one connection, shared by the batcher and by other requests of the test (the
    real slots: given out in order, and they say how many wait)."""

    def __init__(self) -> None:
        self.slots = HostSlots()
        self.rank_thread = self.slots.rank_thread

    @contextlib.contextmanager
    def turn(self, url: str) -> Iterator[Callable[[], None]]:
        with self.slots.hold(url):
            yield lambda: None


class OtherRequest:
    """A request of another step holding the host's connection until the test lets it go."""

    def __init__(self, host: SharedHost, url: str, rank: int = 0) -> None:
        self.holding = threading.Event()
        self.release = threading.Event()
        self.thread = threading.Thread(target=self._send, args=(host, url, rank))
        self.thread.start()

    def _send(self, host: SharedHost, url: str, rank: int) -> None:
        host.rank_thread(rank)
        with host.slots.hold(url):
            self.holding.set()
            self.release.wait(GUARD_S)

    def done(self) -> None:
        self.release.set()
        self.thread.join(GUARD_S)


def test_a_batch_lets_every_request_waiting_for_its_busy_host_go_first_and_gathers_meanwhile():
    """While other requests wait for the batch's host, its connection is what the run waits on: the batch lets them
    go, each in turn (not only those queued when it first had the host), and the publications arriving meanwhile ride
    with it. Once nothing else waits, it goes at once."""
    host = SharedHost()
    batcher = Batcher(SimpleNamespace(client=host), settle_s=GUARD_S)  # type: ignore[arg-type]
    url = "http://ebi.test/search"
    service = BatchedService(lambda ctx: url, lambda ctx: 10)
    served: list[list[PubState]] = []

    def step(ctx: object, states: Sequence[PubState]) -> None:
        served.append(list(states))

    first, second = PubState(Publication()), PubState(Publication())
    batcher.start([first, second], 1)
    batcher.requesting(second, True)  # at another host
    fulltext = OtherRequest(host, url)
    assert fulltext.holding.wait(GUARD_S)
    leader = threading.Thread(target=batcher.serve, args=(step, service, first))
    leader.start()
    wait_until(lambda: host.slots.waiting(url) == 1, GUARD_S, "the batch queued for the host")
    annotations = OtherRequest(host, url)  # queued behind the batch
    wait_until(lambda: host.slots.waiting(url) == 2, GUARD_S, "another request queued behind the batch")
    fulltext.done()
    assert annotations.holding.wait(GUARD_S)  # the batch let it go first
    wait_until(lambda: host.slots.waiting(url) == 1, GUARD_S, "the batch queued again")
    later = OtherRequest(host, url)  # queued after the batch had let the first one go
    wait_until(lambda: host.slots.waiting(url) == 2, GUARD_S, "a later request queued behind the batch")
    annotations.done()
    assert later.holding.wait(GUARD_S)  # let go too
    joiner = threading.Thread(target=batcher.serve, args=(step, service, second))
    joiner.start()
    wait_until(lambda: len(next(iter(batcher._open.values())).states) == 2, GUARD_S, "the second publication joined")
    assert served == []
    later.done()
    leader.join(GUARD_S)
    joiner.join(GUARD_S)
    assert [[id(state) for state in batch] for batch in served] == [[id(first), id(second)]]


def test_two_batches_waiting_for_one_host_do_not_hand_it_back_and_forth():
    """Batches of two steps of the older batch wait for one host with a request of the next batch: neither counts
    the other as work the host has, and one that lets the request go queues behind it, not ahead by its batch's rank
    (the two would hand the connection to each other for ever). The request goes, then each batch."""
    host = SharedHost()
    batcher = Batcher(SimpleNamespace(client=host), settle_s=GUARD_S)  # type: ignore[arg-type]
    search = BatchedService(lambda ctx: "http://ebi.test/search", lambda ctx: 10)
    annotations = BatchedService(lambda ctx: "http://ebi.test/annotations", lambda ctx: 10)
    served: list[str] = []
    states = [PubState(Publication()), PubState(Publication())]
    batcher.start(states, 1)
    fulltext = OtherRequest(host, "http://ebi.test/fulltext", rank=2)
    assert fulltext.holding.wait(GUARD_S)

    def served_then_done(name: str, service: BatchedService, state: PubState) -> None:
        host.rank_thread(1)  # the older batch, as the flow ranks its threads
        batcher.serve(lambda ctx, batch: served.append(name), service, state)
        batcher.finished(state)  # its next step is elsewhere

    threads = [threading.Thread(target=served_then_done, args=(name, service, state))
               for name, service, state in (("search", search, states[0]), ("annotations", annotations, states[1]))]
    for thread in threads:
        thread.start()
    wait_until(lambda: host.slots.waiting("http://ebi.test/") == 2, GUARD_S, "both batches queued for the host")
    newer = OtherRequest(host, "http://ebi.test/fulltext", rank=2)  # the next batch's full text
    wait_until(lambda: host.slots.waiting("http://ebi.test/") == 3, GUARD_S, "the newer request queued")
    fulltext.done()
    assert newer.holding.wait(GUARD_S)
    assert served == []
    newer.done()
    for thread in threads:
        thread.join(GUARD_S)
    assert sorted(served) == ["annotations", "search"]


def test_a_batch_that_queued_behind_its_busy_host_waits_for_company_once_another_host_bounds_the_run():
    """A search queued while its own host was the busiest (full texts before it: holding was not free) and let them
    go first. By the time the host has nothing else, Unpaywall has more work than the margin: the batch waits for
    company as it would have on reaching an idle host, and a publication arriving meanwhile rides with it."""
    host = SharedHost()
    now = [0.0]
    batcher = Batcher(SimpleNamespace(client=host), settle_s=GUARD_S, margin_s=1.0,  # type: ignore[arg-type]
                      clock=lambda: now[0])
    url, unpaywall = "http://ebi.test/search", "http://unpaywall.test/v2/"
    service = BatchedService(lambda ctx: url, lambda ctx: 10)
    served: list[list[PubState]] = []

    def step(ctx: object, states: Sequence[PubState]) -> None:
        served.append(list(states))

    def at_unpaywall(count: int) -> list[PubState]:
        states = [PubState(Publication()) for _ in range(count)]
        batcher.start(states, 2)
        for state in states:
            batcher.requesting(state, True, unpaywall)
        return states

    def answer(states: list[PubState]) -> None:
        for state in states:
            now[0] += 0.1
            batcher.requesting(state, False, unpaywall)
            batcher.finished(state)

    queued = at_unpaywall(3)
    answer(queued[:2])  # Unpaywall answers every 0.1 s; one request left: less than the margin, nothing to hold for
    first = PubState(Publication())
    batcher.start([first], 1)
    fulltext = OtherRequest(host, url, rank=5)
    assert fulltext.holding.wait(GUARD_S)
    leader = threading.Thread(target=batcher.serve, args=(step, service, first))
    leader.start()
    wait_until(lambda: host.slots.waiting(url) == 1, GUARD_S, "the batch queued for the busy host")
    annotations = OtherRequest(host, url, rank=5)
    wait_until(lambda: host.slots.waiting(url) == 2, GUARD_S, "another request queued")
    fulltext.done()
    assert annotations.holding.wait(GUARD_S)  # the batch let it go first
    wait_until(lambda: host.slots.waiting(url) == 1, GUARD_S, "the batch queued again")
    queued += at_unpaywall(30)  # meanwhile the closed-access half reached Unpaywall: 3 s of work
    annotations.done()
    wait_until(lambda: served or batcher.holding, GUARD_S, "the batch sent or held")
    second = PubState(Publication())
    batcher.start([second], 1)
    joiner = threading.Thread(target=batcher.serve, args=(step, service, second))
    joiner.start()
    wait_until(lambda: served or any(len(batch.states) == 2 for batch in batcher._open.values()), GUARD_S,
               "the second publication joined or the batch went")
    answer(queued[2:])
    leader.join(GUARD_S)
    joiner.join(GUARD_S)
    assert [[id(state) for state in batch] for batch in served] == [[id(first), id(second)]]
