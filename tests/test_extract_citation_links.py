"""Who cites a paper, as the services' answers say: Europe PMC's citations pages and ELink's
``pubmed_pubmed_citedin`` link sets, recorded answers read."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from pubfetch.extract.citation_links import parse_elink_citedin, parse_europepmc_citations
from pubfetch.extract.errors import ParseError
from support.recorded_links import ELINK, recorded, recorded_citers


def test_a_recorded_citations_page_lists_its_citers_by_pmid_with_the_announced_count(corpus_dir: Path) -> None:
    first = "epmc-citations-med15723116-page1"
    page = parse_europepmc_citations(recorded(corpus_dir, first))
    assert [c.pmid for c in page.citing] == recorded_citers(corpus_dir, first)
    assert page.hit_count == 810 and page.listed == 25 and page.unfollowable == 0
    last = parse_europepmc_citations(recorded(corpus_dir, "epmc-citations-med15723116-page33-last"))
    assert 0 < last.listed < 25
    none = parse_europepmc_citations(recorded(corpus_dir, "epmc-citations-med20098740-none"))
    assert none.citing == [] and none.hit_count == 0


def test_a_citer_of_another_source_is_counted_not_followed_and_a_pmc_one_is_a_pmcid() -> None:
    page = parse_europepmc_citations('{"hitCount": 3, "citationList": {"citation": [{"id": "PPR123", "source": '
                                     '"PPR"}, {"id": "PMC77", "source": "PMC"}, {"id": "12", "source": "MED"}]}}')
    assert [(c.pmid, c.pmcid) for c in page.citing] == [("", "PMC77"), ("12", "")]
    assert page.unfollowable == 1 and page.listed == 3


def test_an_answer_that_is_no_citations_page_is_refused() -> None:
    with pytest.raises(ParseError, match="not a Europe PMC citations answer"):
        parse_europepmc_citations('{"resultList": {}}')


def test_a_recorded_elink_answer_gives_the_citedin_links_only_and_refuses_a_merged_link_set(corpus_dir: Path) -> None:
    body = recorded(corpus_dir, ELINK)
    root = etree.fromstring(body)
    expected = root.xpath("//LinkSetDb[LinkName='pubmed_pubmed_citedin']/Link/Id/text()")
    neighbours = root.xpath("//LinkSetDb[LinkName='pubmed_pubmed']/Link/Id/text()")
    assert expected and set(neighbours) - set(expected)
    assert parse_elink_citedin(body) == {"9298984": expected}
    with pytest.raises(ParseError, match="one id parameter per PMID"):
        parse_elink_citedin(recorded(corpus_dir, "eutils-elink-pubmed-two-ids-mindate"))


def test_an_elink_error_is_said() -> None:
    with pytest.raises(ParseError, match="ELink answered an error: Invalid db name"):
        parse_elink_citedin("<eLinkResult><ERROR>Invalid db name</ERROR></eLinkResult>")
