"""How the per-publication flow gathers the batchable services' requests when publications reach them at different
times: a trickle out of a slow per-publication step (fullTextXML) is one request per service, not one per linger, and
publications that reach a step together do not wait for the trickle.

The services answer in this process (``support.fetchrun``), under all the client's layers; Europe PMC's
fullTextXML answers one request at a time, each after a delay, so that the open-access publications leave it one by
one, ``GAP`` seconds apart, for longer than the linger (the other services answer at once and side by side, as
services on other hosts would). The counts hold as long as the machine lets a publication through its step within the
linger (``LINGER_MS``, five gaps).
"""

from __future__ import annotations

import threading
import time

from pubfetch.model.publication import Publication
from support.fetchrun import fetch_run
from support.synthetic import SyntheticServices

#: Seconds each fullTextXML answer takes; the host has one connection, so they come out this far apart.
GAP = 0.2
#: The batches' linger: shorter than the trickle of 12 full texts (2.4 s), five times the gap between them.
LINGER_MS = 1000


def fetch_with_slow_fulltext(services: SyntheticServices, pmids: list[str]) -> tuple[list[Publication], list[str]]:
    """Fetch ``pmids`` in one batch; returns the publications and the services asked, in the order sent."""
    run = fetch_run(services, per_host_connections=32, batch_size=len(pmids), linger_ms=LINGER_MS)
    transport = run.transport
    inner = transport.answer_for
    sent: list[str] = []
    one_at_a_time = threading.Lock()

    def slow_fulltext(request):
        if request.url.split("?")[0].endswith("/fullTextXML"):
            with one_at_a_time:
                time.sleep(GAP)
        sent.append(services._service(request.url.removeprefix(services.base).split("?")[0]))
        return inner(request)

    transport.answer_for = slow_fulltext  # type: ignore[method-assign]
    return run.fetch(pmids), sent


def test_publications_trickling_out_of_a_slow_step_are_asked_for_in_one_request_per_service():
    services = SyntheticServices(24)
    open_access = services.pmids()[::2]  # 12 with full text at Europe PMC
    pubs, _ = fetch_with_slow_fulltext(services, open_access)
    assert services.counts["europepmc_search"] == 1
    assert services.counts["europepmc_fulltext"] == 12
    # one per type (EFO, GO) for all 12, although the first waited 2.4 s for the last: not one per linger
    assert services.counts["annotations"] == 2
    assert services.counts["efetch_pubmed"] == 1
    assert services.counts["efetch_pmc"] == 0
    assert [len(p.efo.items) for p in pubs] == [1] * 12
    assert all(p.mesh.items and all(term.unique_id for term in p.mesh.items) for p in pubs)


def test_publications_reaching_a_step_together_do_not_wait_for_the_trickle():
    """The closed-access half goes from the search straight to efetch and is asked for after the linger; the
    open-access half is asked for in a second efetch after its full texts: one request per group that arrives
    together, and the closed-access publications ask doi.org and Unpaywall while the full texts are still coming."""
    services = SyntheticServices(24)
    pubs, sent = fetch_with_slow_fulltext(services, services.pmids())
    assert services.counts["europepmc_search"] == 1
    assert services.counts["annotations"] == 2
    assert services.counts["efetch_pubmed"] == 2
    assert services.counts["doi"] == 12 and services.counts["unpaywall"] == 12
    assert services.ids_asked["efetch_pubmed"] == {pmid: 1 for pmid in services.pmids()}
    first_efetch, last_fulltext = sent.index("ncbi"), len(sent) - 1 - sent[::-1].index("europepmc_fulltext")
    assert first_efetch < sent.index("unpaywall") < last_fulltext
    assert [p.pmid.content for p in pubs] == services.pmids()
