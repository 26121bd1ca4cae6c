"""Part names and part types: PubFetcher's ranking of sources, where the ten final types are equivalent and beat every
other, the PDF counterpart of a page type, and the names a part is known by."""

import pytest

from pubfetch.model.part_type import PartName, PartType

T = PartType


def test_part_type_order_and_finality():
    names = [t.value for t in PartType]
    assert names[:10] == ["europepmc", "europepmc_xml", "europepmc_html", "pubmed_xml", "pubmed_html", "pmc_xml",
                          "pmc_html", "doi", "link", "link_oadoi"]
    assert names[-2:] == ["webpage", "na"]
    assert names[10:14] == ["crossref", "datacite", "biorxiv", "openalex"]  # the scholarly APIs, before meta tags
    assert names[14] == "citation"
    assert len(names) == 37
    assert all(t.is_final for t in list(PartType)[:10])
    assert not any(t.is_final for t in list(PartType)[10:])


def test_no_final_type_is_better_than_another():
    assert not T.europepmc.is_better_than(T.link_oadoi)
    assert not T.link_oadoi.is_better_than(T.europepmc)
    assert T.link_oadoi.is_better_than(T.crossref) and T.doi.is_better_than(T.openalex)
    assert T.crossref.is_better_than(T.openalex) and T.openalex.is_better_than(T.citation)
    assert T.link_oadoi.is_better_than(T.citation)
    assert T.citation.is_better_than(T.eprints)
    assert not T.eprints.is_better_than(T.citation)
    assert T.webpage.is_better_than(T.na)
    assert not T.na.is_better_than(T.na)


def test_to_pdf():
    assert T.doi.to_pdf() is T.pdf_doi
    assert T.link.to_pdf() is T.pdf_link
    assert T.link_oadoi.to_pdf() is T.pdf_oadoi
    assert T.link_citation.to_pdf() is T.pdf_citation
    assert T.link_eprints.to_pdf() is T.pdf_eprints
    assert T.link_meta.to_pdf() is T.pdf_meta
    assert T.europepmc_html.to_pdf() is T.pdf_europepmc
    assert T.pmc_html.to_pdf() is T.pdf_pmc
    assert T.pdf_doi.to_pdf() is T.pdf_doi
    assert T.pdf_doi.is_pdf and not T.doi.is_pdf


def test_part_name_parse():
    assert PartName.parse("abstract") is PartName.theAbstract
    assert PartName.parse("theAbstract") is PartName.theAbstract
    with pytest.raises(ValueError, match="unknown publication part 'abstrakt'"):
        PartName.parse("abstrakt")


def test_the_worse_of_two_types_is_the_later_in_rank() -> None:
    assert T.worse(T.citation, T.doi) is T.citation
    assert T.worse(T.doi, T.link_meta) is T.link_meta
    assert T.worse(T.og, T.og) is T.og


def test_final_types_are_equivalent_to_each_other_and_other_types_only_to_themselves() -> None:
    assert T.europepmc.is_equivalent(T.link_oadoi)
    assert T.citation.is_equivalent(T.citation)
    assert not T.citation.is_equivalent(T.eprints)
    assert not T.doi.is_equivalent(None)


def test_any_type_is_better_than_none() -> None:
    assert T.na.is_better_than(None)


def test_ids_and_lists_are_told_apart() -> None:
    assert [n.value for n in PartName if n.is_id] == ["pmid", "pmcid", "doi"]
    assert [n.value for n in PartName if n.is_list] == ["keywords", "mesh", "efo", "go"]
