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
from support.fetchrun import run_context
from support.synthetic import SCHOLARLY_OFF, SyntheticServices, in_process_hosts

#: Seconds each fullTextXML answer takes; the host has one connection, so they come out this far apart.
GAP = 0.2


def fetch_with_slow_fulltext(services: SyntheticServices, pmids: list[str], *, last_fulltext_after: str = "",
                             fulltexts: int = 0) -> tuple[list[Publication], list[str]]:
    """Fetch ``pmids`` in one batch; returns the publications and the services asked, in the order sent.

    With ``last_fulltext_after``, the last of ``fulltexts`` fullTextXML answers also waits until that service has been
    asked (at most a minute): "while the full texts are still coming" then holds on a loaded machine too, where the
    other publications' steps may take longer than the full texts' ``GAP`` seconds each."""
    transport, endpoints = in_process_hosts(services)
    inner = transport.answer_for
    sent: list[str] = []
    asked = threading.Event()
    answered_fulltexts = 0

    def slow_fulltext(request):
        nonlocal answered_fulltexts
        path = urlsplit(request.url).path
        service = services._service(path)
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
                      batch_size=len(pmids), rate_limits=False, busy_retries=0, timeout=5000)
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
    the open-access half is asked for in a second efetch after its full texts: one request per group that arrives
    together, and the closed-access publications ask doi.org and Unpaywall while the full texts are still coming."""
    services = SyntheticServices(24)
    pubs, sent = fetch_with_slow_fulltext(services, services.pmids(), last_fulltext_after="unpaywall", fulltexts=12)
    assert services.counts["europepmc_search"] == 1
    assert services.counts["annotations"] == 1
    assert services.counts["efetch_pubmed"] == 2
    assert services.counts["doi"] == 12 and services.counts["unpaywall"] == 12
    assert services.ids_asked["efetch_pubmed"] == {pmid: 1 for pmid in services.pmids()}
    first_efetch, last_fulltext = sent.index("ncbi"), len(sent) - 1 - sent[::-1].index("europepmc_fulltext")
    assert first_efetch < sent.index("unpaywall") < last_fulltext
    assert [p.pmid.content for p in pubs] == services.pmids()
