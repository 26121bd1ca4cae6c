"""The end-of-run retry asks only what failed: the failed requests' resources and links, once, after their Retry-After;
never a resource that answered, never a permanent answer; and the publications wait for it on disk, not in memory.

The services answer in this process (``support.fetchrun``), through a client with no answer memory, so a request asked
again reaches them (and is counted as a repeat): what is tested is that the chain does not ask, not that a cache hides
the asking."""

from __future__ import annotations

import gc
import logging
import threading
import time
import weakref
from collections import Counter

from pubfetch.engine import run_batch as batches
from pubfetch.fetcher import BatchSummary
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.store.spill import SpillList
from support.fetchrun import fetch_run
from support.loopback import Reply, Request
from support.synthetic import Article, SyntheticServices, per_publication


class FlakyServices(SyntheticServices):
    """Synthetic services where chosen requests fail: ``fail(path_part, times, reply)`` answers ``reply`` to the
    first ``times`` requests whose path and query contain ``path_part`` (counted for their service and as
    ``injected``). Every request's path and arrival time is kept, and what each failed request asked (path, query
    and body) in ``failed``."""

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self._rules: list[list] = []
        self.arrivals: list[tuple[str, float]] = []
        self.failed: list[str] = []
        self._rules_lock = threading.Lock()

    def fail(self, part: str, times: int, reply: Reply) -> None:
        self._rules.append([part, times, reply])

    def handle(self, req: Request) -> Reply:
        where = req.path + "?" + "&".join(f"{k}={v[0]}" for k, v in sorted(req.query.items())) + "|" + req.body.decode(
            "utf-8", "replace")
        with self._rules_lock:
            self.arrivals.append((req.path, time.monotonic()))
            for rule in self._rules:
                if rule[0] in where and rule[1] > 0:
                    rule[1] -= 1
                    self.failed.append(where)
                    self.counts["injected"] += 1
                    self.counts[self._service(req.path)] += 1
                    return rule[2]
        return super().handle(req)

    def asked(self, path: str) -> list[float]:
        return [at for p, at in self.arrivals if p == path]


def run(services: SyntheticServices, ids: list[str], summary: BatchSummary | None = None,
        **changes) -> list[Publication]:
    return fetch_run(services, **changes).fetch(ids, summary=summary)


def reference(n: int, **changes) -> tuple[list[Publication], Counter[str]]:
    healthy = SyntheticServices(n)
    pubs = run(healthy, healthy.pmids(), **changes)
    return pubs, healthy.counts.copy()


def by_pmid(pubs: list[Publication]) -> dict[str, Publication]:
    """Publications by PMID (a retried one is yielded after the retry, so the order differs from the input's)."""
    return {pub.pmid.content: pub for pub in pubs}


def contents(pubs: list[Publication]) -> dict[str, dict]:
    return {pmid: content(pub) for pmid, pub in sorted(by_pmid(pubs).items())}


def content(pub: Publication) -> dict:
    d = pub.to_json()
    return {part: d[part].get("content", d[part].get("list")) for part in
            ("pmid", "pmcid", "doi", "title", "keywords", "mesh", "efo", "go", "abstract", "fulltext")}


BUSY = Reply(503, "Service Unavailable", "text/plain")

def test_a_failed_request_is_asked_again_and_nothing_else():
    expected, healthy_counts = reference(6)
    closed = Article(1)
    services = FlakyServices(6)
    services.fail(f"/unpaywall/{closed.doi.upper()}", 1, BUSY)
    summary = BatchSummary()
    pubs = run(services, services.pmids(), summary)
    counts = services.counts.copy()
    asked = len(services.asked(f"/unpaywall/{closed.doi.upper()}"))
    assert contents(pubs) == contents(expected)
    assert not any(p.state.fetch_exception for p in pubs)
    # the run asked what a healthy run asks, plus the one failed request once more
    assert asked == 2
    assert per_publication(counts) - per_publication(healthy_counts) == Counter({"unpaywall": 1, "injected": 1})
    assert per_publication(healthy_counts) - per_publication(counts) == Counter()
    assert services.repeats == Counter()
    assert (summary.total, summary.final, summary.failed) == (6, 3, 0)


def test_a_failure_made_good_by_a_later_resource_is_not_asked_again():
    """fullTextXML failed, but PMC's efetch gave the final full text later in the chain: nothing is left to ask."""
    expected, healthy_counts = reference(4)
    oa = Article(2)
    services = FlakyServices(4)
    services.fail(f"/epmc/rest/{oa.pmcid}/fullTextXML", 1, BUSY)
    pubs = run(services, services.pmids())
    counts = services.counts.copy()
    assert contents(pubs) == contents(expected)
    assert by_pmid(pubs)[oa.pmid].fulltext.type is PartType.pmc_xml
    assert not any(p.state.fetch_exception for p in pubs)
    assert len(services.asked(f"/epmc/rest/{oa.pmcid}/fullTextXML")) == 1  # not asked again
    assert per_publication(counts) - per_publication(healthy_counts) == Counter({"injected": 1})
    assert per_publication(healthy_counts) - per_publication(counts) == Counter()
    assert counts["efetch_pmc"] - healthy_counts["efetch_pmc"] == 1  # PMC's XML for the one whose full text failed


def test_a_failed_batched_request_marks_only_its_publications_and_the_retry_asks_only_them(caplog):
    expected, _ = reference(10, europepmc_batch=5)
    services = FlakyServices(10)
    # the PMID search that asks for publication 5, with whichever others arrived with it (at most five)
    services.fail(f"EXT_ID:{Article(5).pmid}", 1, BUSY)
    with caplog.at_level(logging.INFO, logger="pubfetch.engine.overlap"):
        pubs = run(services, services.pmids(), europepmc_batch=5)
    asked = services.ids_asked
    [failed_request] = services.failed
    in_failed = [f"EXT_ID:{a.pmid}" in failed_request for a in map(Article, range(10))]
    assert in_failed[5] and 1 <= sum(in_failed) <= 5
    retried = [r.getMessage() for r in caplog.records if r.getMessage().startswith("retrying ")]
    assert retried == [f"retrying {sum(in_failed)} publication{'s' if sum(in_failed) > 1 else ''} that ended with a "
                       "fetch exception: only what failed"]
    assert contents(pubs) == contents(expected)
    assert not any(p.state.fetch_exception for p in pubs)
    # PubFetcher's counters: the publications of the failed request went twice, the others once
    assert [by_pmid(pubs)[a.pmid].state.retry_counter for a in map(Article, range(10))] == [int(x) for x in in_failed]
    assert services.repeats == Counter()
    # the PubMed XML of every publication was asked exactly once, retry or not
    assert set(asked["efetch_pubmed"].values()) == {1}


def test_a_permanent_answer_is_not_asked_again_in_the_same_run():
    oa = Article(2)
    services = FlakyServices(4)
    # the search said there is XML full text, and the endpoint says "no such record": fetchException (PubFetcher),
    # but asking again in a minute cannot change the answer
    services.fail(f"/epmc/rest/{oa.pmcid}/fullTextXML", 5, Reply(404, "not found", "text/plain"))
    pubs = run(services, services.pmids())
    assert len(services.asked(f"/epmc/rest/{oa.pmcid}/fullTextXML")) == 1
    assert [by_pmid(pubs)[a.pmid].state.fetch_exception for a in map(Article, range(4))] == [False, False, True, False]



def test_the_retry_keeps_the_mark_of_a_failure_it_does_not_ask_again():
    """An open-access article whose annotations came back unreadable (a JSON body cut short, status 200: not asked
    again in the run) and whose fullTextXML was busy (asked again by the end-of-run retry). PMC's efetch gave the full
    text, so the article is final without EFO and GO terms. The retry asks nothing that failed for good, so the
    unreadable answers' mark must survive it: cleared, the entry would be final with holes that no later run fills.
    (The chaos run met this once: tests/test_reliability_chaos.py.)"""
    expected, _ = reference(4)
    oa = Article(2)
    services = FlakyServices(4)
    cut = Reply(200, f'[{{"source": "PMC", "extId": "{oa.pmcid}", "annotations": [{{"exact": "sequ',
                "application/json;charset=UTF-8")
    for article_id in (f"PMC:{oa.pmcid}", f"MED:{oa.pmid}"):  # every answer naming the article (EFO and GO passes)
        services.fail(article_id, 4, cut)
    services.fail(f"/epmc/rest/{oa.pmcid}/fullTextXML", 1, BUSY)
    pubs = run(services, services.pmids())
    pub, healthy = by_pmid(pubs)[oa.pmid], by_pmid(expected)[oa.pmid]
    for article_id in (f"PMC:{oa.pmcid}", f"MED:{oa.pmid}"):  # it was asked by both, and both answers were cut
        assert any("annotationsByArticleIds" in where and article_id in where for where in services.failed)
    assert pub.state.retry_counter == 1  # it went through the end-of-run retry (for fullTextXML) ...
    assert pub.fulltext.type is PartType.pmc_xml and pub.is_final(FetcherArgs())
    assert (pub.efo.items, pub.go.items) == ([], []) != (healthy.efo.items, healthy.go.items)  # ... with its holes
    assert pub.state.fetch_exception  # ... and still marked for a later fetch
    assert pub.state.can_fetch(pub, FetcherArgs())  # a later run fetches it again, final as it is
    # whatever else the cut answers touched (another article asked in the same request) is marked too
    for each in pubs:
        assert content(each) == content(by_pmid(expected)[each.pmid.content]) or each.state.fetch_exception


def test_the_retry_waits_for_the_retry_after_of_the_failure():
    closed = Article(1)
    path = f"/unpaywall/{closed.doi.upper()}"
    services = FlakyServices(2)
    services.fail(path, 1, Reply(503, "busy", "text/plain", {"Retry-After": "2"}))
    pubs = run(services, services.pmids())
    first, second = services.asked(path)
    assert not any(p.state.fetch_exception for p in pubs)
    assert second - first >= 2.0 - 0.05  # asked again only after the server's Retry-After


def test_a_failed_publisher_page_is_asked_again_without_resolving_the_doi_again():
    closed = Article(1)
    page = ("<html><head><title>Publisher page</title></head><body><article>"
            + "<p>The full text of the synthetic article as the publisher shows it.</p>" * 40
            + "</article></body></html>")
    services = FlakyServices(2)
    services.extra[f"/doi/{closed.doi.upper()}"] = Reply(302, "", "text/plain",
                                                 {"Location": f"{services.base}/publisher/1"})
    services.extra["/publisher/1"] = Reply(200, page, "text/html; charset=utf-8")
    services.fail("/publisher/1", 1, BUSY)
    pubs = run(services, services.pmids())
    resolved = len(services.asked(f"/doi/{closed.doi.upper()}"))
    fetched = len(services.asked("/publisher/1"))
    assert (resolved, fetched) == (1, 2)
    pub = by_pmid(pubs)[closed.pmid]
    assert not pub.state.fetch_exception
    assert "as the publisher shows it" in pub.fulltext.content
    assert pub.fulltext.url == f"{services.base}/publisher/1"


def test_publications_wait_for_the_retry_on_disk_not_in_memory(monkeypatch, caplog):
    """When the retry starts, the publications of earlier batches that failed are no longer held by anything."""
    made: list[weakref.ref] = []
    original = batches.init_publication

    def tracked(ids, args):
        pub = original(ids, args)
        made.append(weakref.ref(pub))
        return pub

    monkeypatch.setattr(batches, "init_publication", tracked)
    alive_at_retry: list[int] = []
    services = FlakyServices(10)

    class AtRetry(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("retrying "):
                gc.collect()
                alive_at_retry.append(sum(ref() is not None for ref in made[:5]))
                services._rules.clear()  # Europe PMC is back for the retry

    handler = AtRetry(logging.INFO)
    logging.getLogger("pubfetch.engine.overlap").addHandler(handler)
    try:
        with caplog.at_level(logging.INFO, logger="pubfetch.engine.overlap"):
            services.fail("/epmc/rest/search", 1000, BUSY)
            pubs = run(services, services.pmids(), batch_size=5)
    finally:
        logging.getLogger("pubfetch.engine.overlap").removeHandler(handler)
    assert alive_at_retry == [0]  # the first batch's five publications were dropped after being spilled
    assert len(pubs) == 10
    assert not any(p.state.fetch_exception for p in pubs)


def test_spill_list_reads_back_in_key_order_and_leaves_no_file(tmp_path):
    spill = SpillList(str(tmp_path))
    assert list(spill.chunks(2)) == []
    assert list(tmp_path.iterdir()) == []  # nothing failed, no file
    for key, doc in (((2, 0), {"id": "c"}), ((1, 3), {"id": "b"}), ((1, 1), {"id": "a"}), ((2, 0), {"id": "d"})):
        spill.append(key, doc)
    assert len(spill) == 4 and len(list(tmp_path.iterdir())) == 1
    assert list(spill.chunks(3)) == [[{"id": "a"}, {"id": "b"}, {"id": "c"}], [{"id": "d"}]]
    assert len(spill) == 0
    spill.close()
    assert list(tmp_path.iterdir()) == []


def test_a_rejection_before_a_failure_is_counted_by_the_retry_that_reports_the_publication():
    """The DOI page is another paper's (its citation_doi differs) and Unpaywall is busy: the publication is reported
    by the end-of-run retry, and the run's summary still counts the page rejected in its first pass."""
    closed = Article(1)
    page = ("<html><head><meta name='citation_doi' content='10.5555/another.paper'><title>Another paper</title>"
            "</head><body><article>" + "<p>The full text of another article.</p>" * 40 + "</article></body></html>")
    services = FlakyServices(2)
    services.extra[f"/doi/{closed.doi.upper()}"] = Reply(302, "", "text/plain",
                                                 {"Location": f"{services.base}/publisher/1"})
    services.extra["/publisher/1"] = Reply(200, page, "text/html; charset=utf-8")
    services.fail(f"/unpaywall/{closed.doi.upper()}", 1, BUSY)
    summary = BatchSummary()
    pubs = run(services, services.pmids(), summary)
    pub = by_pmid(pubs)[closed.pmid]
    assert len(services.asked(f"/unpaywall/{closed.doi.upper()}")) == 2  # it went to the retry
    assert [s.doi for s in pub.rejected_sites] == ["10.5555/ANOTHER.PAPER"]
    assert summary.rejected_sites == 1 and "1 page or PDF rejected as another paper's" in summary.line()
