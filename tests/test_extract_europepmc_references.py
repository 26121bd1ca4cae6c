"""One page of Europe PMC's references endpoint read as references: IDs by the cited paper's source, a citation text
built from its fields, the service's cited order, and the total that tells whether another page is due."""

from __future__ import annotations

import json

import pytest

from pubfetch.extract.errors import ParseError
from pubfetch.extract.europepmc_references import ReferencePage, parse_references_json
from pubfetch.model.rich import Reference


def page(*references: dict, hit_count: object = 2) -> str:
    return json.dumps({"hitCount": hit_count, "referenceList": {"reference": list(references)}})


def test_a_med_reference_gives_its_pmid_doi_title_and_a_citation_text() -> None:
    result = parse_references_json(page({
        "id": "17704785", "source": "MED", "doi": "https://doi.org/10.1038/nmeth1070",
        "title": "Galaxy: a platform", "authorString": "Goecks J, Nekrutenko A",
        "journalAbbreviation": "Nat Methods", "pubYear": 2007, "volume": "4", "issue": "10", "pageInfo": "785-786"}))
    assert result == ReferencePage([Reference(
        pmid="17704785", doi="10.1038/NMETH1070", title="Galaxy: a platform",
        text="Goecks J, Nekrutenko A. Galaxy: a platform. Nat Methods 2007;4(10):785-786.")], 2)


def test_a_pmc_reference_gives_its_pmcid_and_no_pmid() -> None:
    [ref] = parse_references_json(page({"id": "PMC1234567", "source": "PMC"})).references
    assert (ref.pmid, ref.pmcid) == ("", "PMC1234567")


def test_an_id_of_another_source_or_an_invalid_id_is_left_out() -> None:
    refs = parse_references_json(page({"id": "ABC", "source": "MED", "doi": "not a doi"},
                                      {"id": "12345", "source": "AGR"})).references
    assert [(r.pmid, r.pmcid, r.doi) for r in refs] == [("", "", ""), ("", "", "")]


def test_references_come_in_the_services_cited_order_those_without_one_last() -> None:
    refs = parse_references_json(page({"title": "no order"}, {"title": "second", "citedOrder": 2},
                                      {"title": "first", "citedOrder": 1})).references
    assert [r.title for r in refs] == ["first", "second", "no order"]


def test_a_single_reference_not_wrapped_in_a_list_is_read() -> None:
    data = json.dumps({"hitCount": 1, "referenceList": {"reference": {"title": "alone"}}})
    assert [r.title for r in parse_references_json(data).references] == ["alone"]


def test_a_page_without_a_reference_list_is_empty_with_its_count() -> None:
    assert parse_references_json('{"hitCount": 0}') == ReferencePage([], 0)


@pytest.mark.parametrize("count", ["12", True, None])
def test_a_count_that_is_not_a_number_is_unknown(count: object) -> None:
    assert parse_references_json(page(hit_count=count)).hit_count is None


@pytest.mark.parametrize("data", ["[]", '{"resultList": {}}', "", "not json"])
def test_an_answer_that_is_not_a_references_page_is_a_parse_error(data: str) -> None:
    with pytest.raises(ParseError):
        parse_references_json(data)
