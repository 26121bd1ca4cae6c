"""How the per-publication flow gathers the batchable services' requests when publications reach them at different
times: a trickle out of a slow per-publication step (fullTextXML) on the same host as the annotations API is gathered
while that host is busy, one request per service, and publications that reach a step on an idle host do not wait for
the trickle.

The services answer in this process, each on its own host with one connection as in production
(``synthetic.in_process_hosts``: Europe PMC's REST and annotations APIs share one), under all the client's layers;
fullTextXML answers after a delay, so that the open-access publications leave it one by one, ``GAP`` seconds apart.
"""

from __future__ import annotations

import threading
import time
from urllib.parse import urlsplit

from pubfetch.config import FetchConfig
from pubfetch.fetcher import fetch_many
from pubfetch.model.publication import Publication
from pubfetch.net.mapping_transport import Canned
from support.fetchrun import run_context
from support.synthetic import SCHOLARLY_OFF, SyntheticServices, in_process_hosts

#: Seconds each fullTextXML answer takes; the host has one connection, so they come out this far apart.
GAP = 0.2


def fetch_with_slow_fulltext(services: SyntheticServices, pmids: list[str], *, last_fulltext_after: str = "",
                             fulltexts: int = 0, fail_first_efetch: bool = False, holding: bool = True,
                             ) -> tuple[list[Publication], list[str]]:
    """Fetch ``pmids`` in one batch; returns the publications and the services asked, in the order sent.

    With ``last_fulltext_after``, the last of ``fulltexts`` fullTextXML answers also waits until that service has been
    asked (at most a minute): "while the full texts are still coming" then holds on a loaded machine too, where the
    other publications' steps may take longer than the full texts' ``GAP`` seconds each. With ``fail_first_efetch``
    the first efetch of PubMed's records is answered 503. Without ``holding`` no partial batch waits for company
    (``hold_margin_ms`` -1)."""
    transport, endpoints = in_process_hosts(services)
    inner = transport.answer_for
    sent: list[str] = []
    asked = threading.Event()
    answered_fulltexts = 0

    def slow_fulltext(request):
        nonlocal answered_fulltexts, fail_first_efetch
        path = urlsplit(request.url).path
        service = services._service(path)
        if fail_first_efetch and path.endswith("/efetch.fcgi") and "db=pubmed" in request.url + str(request.data):
            fail_first_efetch = False
            sent.append("ncbi 503")
            return Canned(503, b"Service Unavailable", "text/plain", {})
        if path.endswith("/fullTextXML"):
            time.sleep(GAP)
            answered_fulltexts += 1
            if last_fulltext_after and answered_fulltexts == fulltexts:
                asked.wait(60)
        sent.append(service)
        if service == last_fulltext_after:
            asked.set()
        return inner(request)

    transport.answer_for = slow_fulltext  # type: ignore[method-assign]
    cfg = FetchConfig().with_changes(**SCHOLARLY_OFF, endpoints=endpoints, allow_private_addresses=True, javascript=False, threads=4,
                      batch_size=len(pmids), rate_limits=False, busy_retries=0, timeout=5000,
                      **({} if holding else {"hold_margin_ms": -1}))
    with run_context(cfg, transport=transport) as ctx:
        pubs = list(fetch_many(pmids, config=cfg, context=ctx))
    return pubs, sent


def test_publications_trickling_out_of_a_slow_step_are_asked_for_in_one_request_per_service():
    services = SyntheticServices(24)
    open_access = services.pmids()[::2]  # 12 with full text at Europe PMC
    pubs, _ = fetch_with_slow_fulltext(services, open_access)
    assert services.counts["europepmc_search"] == 1
    assert services.counts["europepmc_fulltext"] == 12
    # one for every type for all 12: the first waited 2.4 s for the last, while the host served their full texts
    assert services.counts["annotations"] == 1
    assert services.counts["efetch_pubmed"] == 1
    assert services.counts["efetch_pmc"] == 0
    assert [len(p.efo.items) for p in pubs] == [1] * 12
    assert all(p.mesh.items and all(term.unique_id for term in p.mesh.items) for p in pubs)


def test_publications_reaching_a_step_together_do_not_wait_for_the_trickle():
    """The closed-access half goes from the search straight to efetch, whose host is idle, and is asked for at once;
    the open-access half, still waiting for its full texts, rides with that request (its PMIDs fill the room the
    batch leaves) and takes its records when it comes to the step: one efetch, each PMID asked once, and the
    closed-access publications ask doi.org and Unpaywall while the full texts are still coming."""
    services = SyntheticServices(24)
    pubs, sent = fetch_with_slow_fulltext(services, services.pmids(), last_fulltext_after="unpaywall", fulltexts=12)
    assert services.counts["europepmc_search"] == 1
    assert services.counts["annotations"] == 1
    assert services.counts["efetch_pubmed"] == 1
    assert services.counts["doi"] == 12 and services.counts["unpaywall"] == 12
    assert services.ids_asked["efetch_pubmed"] == {pmid: 1 for pmid in services.pmids()}
    assert all(p.mesh.items and all(term.unique_id for term in p.mesh.items) for p in pubs)  # each took its record
    first_efetch, last_fulltext = sent.index("ncbi"), len(sent) - 1 - sent[::-1].index("europepmc_fulltext")
    assert first_efetch < sent.index("unpaywall") < last_fulltext
    assert [p.pmid.content for p in pubs] == services.pmids()


def _contents(value: object) -> object:
    """What a publication's JSON holds, without the times it was fetched at."""
    if isinstance(value, dict):
        return {key: _contents(item) for key, item in value.items() if "time" not in key.lower()}
    if isinstance(value, list):
        return [_contents(item) for item in value]
    return value


def test_a_record_fetched_riding_is_the_one_its_step_would_have_fetched(monkeypatch):
    """The open-access publications' records come with the closed-access half's request; without riders (and
    without holding, which would keep the efetch for the full texts until the margin has passed) they are asked after
    the full texts, in a second request: every publication ends the same, part by part."""
    riding_services = SyntheticServices(24)
    riding, _ = fetch_with_slow_fulltext(riding_services, riding_services.pmids(), last_fulltext_after="unpaywall",
                                         fulltexts=12)
    monkeypatch.setattr("pubfetch.engine.flow.RIDERS", {})
    alone_services = SyntheticServices(24)
    alone, _ = fetch_with_slow_fulltext(alone_services, alone_services.pmids(), last_fulltext_after="unpaywall",
                                        fulltexts=12, holding=False)
    assert (riding_services.counts["efetch_pubmed"], alone_services.counts["efetch_pubmed"]) == (1, 2)
    assert [_contents(p.to_json()) for p in riding] == [_contents(p.to_json()) for p in alone]


def test_a_failed_request_is_the_answer_of_its_riders_too():
    """The closed-access half's efetch fails (503): their entries are marked and asked again by the end-of-run retry.
    The open-access publications that rode with it were asked in it: when they come to the step they take its
    failure as their answer, not a second request of their own, so no ID is sent twice in a pass. By then their full
    texts made every part PubMed's record gives final but the MeSH terms' unique IDs, which a failure does not mark
    (as when their own request fails): they end unmarked, without those IDs, after one attempt, as they would have."""
    services = SyntheticServices(24)
    pubs, sent = fetch_with_slow_fulltext(services, services.pmids(), last_fulltext_after="unpaywall", fulltexts=12,
                                          fail_first_efetch=True)
    open_access = {pmid for pmid in services.pmids() if services.article(pmid).oa}
    assert len(open_access) == 12
    assert sent.count("ncbi 503") == 1 and sent.count("ncbi") == 1  # the failed request, then the retry's
    assert services.ids_asked["efetch_pubmed"] == {pmid: 1 for pmid in services.pmids() if pmid not in open_access}
    for pub in pubs:
        rode = pub.pmid.content in open_access
        assert pub.state.fetch_exception is not rode
        assert all(term.unique_id for term in pub.mesh.items) is not rode
