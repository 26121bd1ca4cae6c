"""Europe PMC's resource (pubfetch/resources/europepmc.py) called directly, over the in-process services: one search
for a batch that hands each publication its own record (whatever kind of ID each asks by), the search asked at most
once per ID kind, long queries
POSTed, paging bounded, and fullTextXML asked only where the search allows it."""

from __future__ import annotations

import json

from pubfetch.model.part_type import PartType
from pubfetch.net.mapping_transport import Canned
from pubfetch.resources import europepmc
from pubfetch.resources.pubstate import PubFlag
from support.fetchrun import fetch_run
from support.synthetic import Article


def test_query_of_a_batch_ors_the_ids_of_one_kind() -> None:
    assert europepmc.build_query("pmid", ["1", "2"]) == "(EXT_ID:1 OR EXT_ID:2) AND SRC:MED"
    assert europepmc.build_query("pmcid", ["PMC1", "PMC2"]) == "PMCID:PMC1 OR PMCID:PMC2"
    assert europepmc.build_query("doi", ['10.1/a"b', "10.2/c"]) == 'DOI:"10.1/a\\"b" OR DOI:"10.2/c"'


def test_one_search_for_a_batch_gives_each_publication_its_own_record() -> None:
    run = fetch_run(4)
    states = [run.pub_state(Article(i).pmid) for i in range(4)]
    with run.context() as ctx:
        europepmc.fetch_search(ctx, states)
    assert run.services.counts["europepmc_search"] == 1
    assert [r.pub.title.content for r in states] == [Article(i).title for i in range(4)]
    assert all(r.pub.title.type is PartType.europepmc for r in states)
    # the part's URL is the one-ID query that gives the record, whatever batch fetched it
    assert states[1].pub.title.url == europepmc.single_query_url(ctx, "pmid", Article(1).pmid)
    # open access (even indexes) is announced, so fullTextXML will be asked for those only
    assert [r.has(PubFlag.EPMC_HAS_FULLTEXT_XML) for r in states] == [True, False, True, False]
    assert all(r.has(PubFlag.EUROPEPMC) for r in states)


def test_publications_asking_by_different_kinds_of_id_share_one_search() -> None:
    """A second pass asks some publications by PMCID and others by DOI: one request ORs both kinds' queries, and
    each publication still gets the record its own ID gives."""
    run = fetch_run(4)
    by_pmcid, by_doi = run.pub_state(Article(0).pmcid), run.pub_state(Article(1).doi)
    with run.context() as ctx:
        europepmc.fetch_search(ctx, [by_doi, by_pmcid])
    assert run.services.counts["europepmc_search"] == 1
    assert run.services.ids_asked["europepmc_search"] == {Article(0).pmid: 1, Article(1).pmid: 1}
    assert [by_pmcid.pub.title.content, by_doi.pub.title.content] == [Article(0).title, Article(1).title]
    assert by_doi.pub.title.url == europepmc.single_query_url(ctx, "doi", by_doi.pub.doi.content)


def test_a_publication_the_search_answered_is_not_searched_again() -> None:
    run = fetch_run(2)
    states = [run.pub_state(Article(i).pmid) for i in range(2)]
    with run.context() as ctx:
        europepmc.fetch_search(ctx, states)
        europepmc.fetch_search(ctx, states)  # the chain's PMCID and DOI passes
        europepmc.fetch_search(ctx, states)
    assert run.services.counts["europepmc_search"] == 1


def test_an_unknown_id_is_searched_once_per_kind_and_given_nothing() -> None:
    run = fetch_run(1)
    missing = run.pub_state("10.5555/synth.99")  # beyond the services' one article
    with run.context() as ctx:
        europepmc.fetch_search(ctx, [missing])
        europepmc.fetch_search(ctx, [missing])
    assert run.services.counts["europepmc_search"] == 1
    assert missing.pub.title.is_empty() and not missing.has(PubFlag.EUROPEPMC)
    assert not missing.pub.state.fetch_exception  # "no record" is an answer, not a failure


def test_a_busy_search_marks_its_publications_for_the_retry() -> None:
    run = fetch_run(2)
    run.services.failing.add("europepmc_search")
    states = [run.pub_state(Article(i).pmid) for i in range(2)]
    with run.context() as ctx:
        europepmc.fetch_search(ctx, states)
    assert all(r.pub.state.fetch_exception for r in states)
    assert all(r.again_flags == {PubFlag.EPMC_PMID} for r in states)  # only the PMID search is asked again
    assert all(r.pub.title.is_empty() for r in states)


def test_a_query_too_long_for_a_url_is_posted() -> None:
    run = fetch_run(60)
    states = [run.pub_state(Article(i).doi) for i in range(60)]
    with run.context() as ctx:
        europepmc.fetch_search(ctx, states)
    [sent] = run.transport.sent
    assert sent.method == "POST" and sent.url.endswith("/epmc/rest/searchPOST")
    assert [r.pub.title.content for r in states] == [Article(i).title for i in range(60)]


def test_a_search_claiming_endless_pages_is_read_only_up_to_its_page_limit() -> None:
    run = fetch_run(1)
    pages = iter(range(10_000))

    def endless(_request) -> Canned:
        record = run.services.search_record(Article(0))
        body = {"hitCount": 10**12, "nextCursorMark": f"cursor-{next(pages)}", "resultList": {"result": [record]}}
        return Canned(200, json.dumps(body), "application/json")

    run.transport.answers[run.services.base + "/epmc/rest/search*"] = endless
    only = run.pub_state(Article(0).pmid)
    with run.context() as ctx:
        europepmc.fetch_search(ctx, [only])
    assert len(run.transport.sent) == europepmc.MAX_PAGES
    assert only.pub.title.content == Article(0).title


def test_full_text_xml_is_asked_for_what_the_search_calls_open_access_only() -> None:
    run = fetch_run(4)
    states = [run.pub_state(Article(i).pmid) for i in range(4)]
    with run.context() as ctx:
        europepmc.fetch_search(ctx, states)
        europepmc.fetch_fulltext_xml(ctx, states)
        europepmc.fetch_fulltext_xml(ctx, states)  # asked once per publication
    assert run.services.ids_asked["europepmc_fulltext"] == {Article(0).pmcid: 1, Article(2).pmcid: 1}
    assert [r.pub.fulltext.type for r in states] == [PartType.europepmc_xml, PartType.na,
                                                     PartType.europepmc_xml, PartType.na]
    assert states[0].pub.fulltext.content.startswith(Article(0).title)


def test_without_a_search_answer_a_known_pmcid_is_asked_and_a_404_is_no_failure() -> None:
    run = fetch_run(4)
    known, absent = run.pub_state(Article(2).pmcid), run.pub_state("PMC9999999")
    with run.context() as ctx:
        europepmc.fetch_fulltext_xml(ctx, [known, absent])
    assert known.has(PubFlag.EPMC_FULLTEXT_XML) and known.pub.fulltext.type is PartType.europepmc_xml
    assert absent.pub.fulltext.is_empty()
    assert not absent.pub.state.fetch_exception and not absent.again_flags
