"""The links a snowball follows: Europe PMC's citations (one request a paper and page, to the announced count), ELink
(many PMIDs a POSTed request), recorded answers through the client and the requests counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.extract.citation_links import parse_elink_citedin
from pubfetch.ids import PublicationIds
from pubfetch.snowball.links import citing_europepmc, citing_pubmed
from support.citation_graph import small_graph
from support.fetchrun import fetch_run
from support.recorded_links import ELINK, recorded, recorded_citers, recorded_links_run
from support.synthetic import Article


def test_the_links_of_recorded_answers_through_the_client(corpus_dir: Path,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    asked: list[str] = []
    run = recorded_links_run(corpus_dir, asked)
    with run.context() as ctx:
        none = citing_europepmc(ctx, PublicationIds(pmid="20098740"))
        some = citing_europepmc(ctx, PublicationIds(pmid="15723116"))
        cited_by, failed = citing_pubmed(ctx, ["9298984"])
    assert none.found == [] and not none.failed
    # page 2 of 810 citers was not recorded: the 25 of page 1 are kept, and the shortfall is said
    assert [c.pmid for c in some.found] == recorded_citers(corpus_dir, "epmc-citations-med15723116-page1")
    assert some.failed
    assert "15723116: page 2 failed" in caplog.text
    assert "pageSize=1000&format=json" in asked[0]
    assert cited_by == parse_elink_citedin(recorded(corpus_dir, ELINK)) and len(cited_by["9298984"]) == 39
    assert failed == []


def test_the_links_are_asked_in_batches_one_citations_request_per_paper_and_elink_for_many(tmp_path: Path) -> None:
    services = small_graph()
    run = fetch_run(services, elink_batch=5)
    run.fetch(services.pmids(3), citations=True, depth=2)
    # the seeds and depth 1's 9 papers (paper 4 cites two seeds: it is one paper); depth 2's links are not followed
    assert services.counts["citations"] == 3 + 9
    assert services.ids_asked["citations"] == {Article(i).pmid: 1 for i in range(12)}
    # ELink: the seeds' 3 PMIDs in one request, depth 1's 9 in two (5 and 4)
    assert services.counts["elink"] == 1 + 2
    assert services.ids_asked["elink"] == {Article(i).pmid: 1 for i in range(12)}


def test_a_long_citation_list_is_read_page_by_page_to_the_announced_count(tmp_path: Path) -> None:
    services = small_graph()
    services.page_size = 2  # the service answers 2 citers a page whatever page size is asked
    edges: list = []
    fetch_run(services).fetch(services.pmids(3), citations=True, edges=edges)
    # seeds 0 and 2 have 3 citers (2 pages each), seed 1 has 4 with paper 4's cross link (2 pages)
    assert services.counts["citations"] == 6
    assert {(e.citing.pmid, e.cited.pmid) for e in edges if e.source == "europepmc_citations"} == {
        (Article(a).pmid, Article(b).pmid) for b in range(3) for a in services.citers(b)}
