"""Re-runs of final entries: after a run that left every entry final, re-runs sent thousands of
requests again, because a 404 from the PubMed page (asked for IDs or MeSH only) set fetchException on entries whose
title, abstract and full text were final, and such entries are retried up to the retry limit."""

from __future__ import annotations

import pytest

from pubfetch.config import Endpoints, FetchConfig
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.resources import ncbi
from pubfetch.resources.pubstate import PubState
from support.fetchrun import run_context
from support.loopback import LoopbackServer, Reply
from support.synthetic import SCHOLARLY_OFF

ARGS = FetcherArgs()
EPMC = "https://www.ebi.ac.uk/europepmc/webservices/rest/"


def publication(final: bool) -> Publication:
    """A publication with a PMID and, when ``final``, a final title, abstract and full text (no DOI, no MeSH)."""
    pub = Publication()
    pub.set_pmid("31111111", PartType.europepmc, f"{EPMC}search?query=EXT_ID:31111111", ARGS)
    if final:
        pub.set_title("A final title", PartType.europepmc, f"{EPMC}search", ARGS)
        pub.set_abstract("An abstract. " * 40, PartType.europepmc, f"{EPMC}search", ARGS)
        pub.set_fulltext("Full text. " * 800, PartType.europepmc_xml, f"{EPMC}PMC1/fullTextXML", ARGS)
    return pub


@pytest.mark.parametrize(("final", "status", "marked"), [
    (True, 404, False),  # the lookup the entry did not need: not marked failed
    (False, 404, True),  # PubFetcher's rule for an entry that needed the page
    (True, 503, True),  # a failure that may pass is still retried later
])
def test_a_pubmed_page_404_does_not_mark_a_final_entry_failed(final, status, marked):
    with LoopbackServer({"/pubmed/*": Reply(status, "no such page", "text/plain")}) as server:
        none = server.url("/none/")
        cfg = FetchConfig().with_changes(**SCHOLARLY_OFF, endpoints=Endpoints(europepmc=none, europepmc_annotations=none, eutils=none,
                                              pubmed=server.url("/pubmed/"), doi=none, unpaywall=none),
                          allow_private_addresses=True, javascript=False, rate_limits=False)
        pub = publication(final)
        assert pub.is_final(ARGS) is final
        with run_context(cfg) as ctx:
            ncbi.fetch_pubmed_html(ctx, [PubState(pub)])
        asked = [r.path for r in server.requests]
    assert asked and asked[0] == "/pubmed/31111111/"  # the page was asked (for the DOI and MeSH)
    assert pub.state.fetch_exception is marked
