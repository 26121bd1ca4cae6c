"""Funding, corrections and licence of a Europe PMC search result: grants as listed, correction types in PubMed's
RefType spelling with the cited PMID and DOI, and the licence as written."""

from __future__ import annotations

from pubfetch.extract.europepmc_rich import add_rich_parts
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import Grant, Update


def rich(grants: list, corrections: list, license_name: str = "") -> ArticleRecord:
    record = ArticleRecord()
    add_rich_parts(record, grants, corrections, license_name)
    return record


def test_grants_keep_agency_and_id_with_entities_decoded_and_empty_ones_dropped() -> None:
    record = rich([{"agency": "Wellcome &amp; Trust", "grantId": "WT 1"}, {"agency": "NIGMS"},
                   {"grantId": 42}, {"agency": " ", "grantId": ""}, "not a mapping"], [])
    assert record.funding == [Grant("Wellcome & Trust", "WT 1"), Grant("NIGMS", ""), Grant("", "42")]


def test_field_names_are_matched_whatever_their_case() -> None:
    assert rich([{"Agency": "NIH", "GRANTID": "R01"}], []).funding == [Grant("NIH", "R01")]


def test_a_correction_gets_pubmeds_reftype_the_cited_pmid_and_the_doi_of_its_reference() -> None:
    record = rich([], [{"type": "Retraction in", "source": "MED", "id": "31234567",
                        "reference": "J Biol. 2020;1:2. doi: 10.1000/xyz.123."}])
    assert record.updates == [Update("RetractionIn", "31234567", "10.1000/XYZ.123")]


def test_an_id_from_another_source_is_no_pmid_and_a_correction_without_type_is_dropped() -> None:
    record = rich([], [{"type": "Erratum for", "source": "PPR", "id": "PPR12345"}, {"source": "MED", "id": "1"}])
    assert record.updates == [Update("ErratumFor", "", "")]


def test_the_licence_is_kept_as_written() -> None:
    assert rich([], [], "cc by-nc").license == "cc by-nc"
