"""The rich parts' overwrite rule is the parts' rule: a final part is kept, a better type replaces a worse one, and
among non-final parts of one type a bigger offer wins; grants are kept once per grant ID."""

from __future__ import annotations

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import ArticleRecord, PartName, PartType, Publication, apply_record
from pubfetch.model.rich import Grant, Reference, RichName, dedup_grants, dedup_references


def test_a_final_source_replaces_a_page_and_is_then_kept() -> None:
    pub = Publication()
    assert pub.set_rich(RichName.license, "Copyright 2020 Publisher", PartType.dc, "page")
    assert pub.set_rich(RichName.license, "cc by", PartType.europepmc, "search")
    assert not pub.set_rich(RichName.license, "https://creativecommons.org/licenses/by/4.0/", PartType.europepmc_xml,
                            "jats")
    assert (pub.license.content, pub.license.type, pub.license.url) == ("cc by", PartType.europepmc, "search")


def test_an_offer_of_the_same_lesser_type_is_refused_as_for_the_ten_parts() -> None:
    pub = Publication()
    pub.set_rich(RichName.references, [Reference(text="a")], PartType.dc, "one")
    assert not pub.set_rich(RichName.references, [Reference(text="a"), Reference(text="b")], PartType.dc, "two")
    pub.set_title("A title", PartType.dc, "one", FetcherArgs())
    assert not pub.set_title("A longer title", PartType.dc, "two", FetcherArgs())
    assert (pub.references.url, pub.title.url) == ("one", "one")


def test_a_mapping_without_a_rich_part_leaves_it_alone() -> None:
    record = ArticleRecord(title="A title", license="cc by", funding=[Grant("A", "1")])
    pub = Publication()
    apply_record(pub, record, {PartName.title: PartType.webpage, RichName.funding: PartType.doi}, "u", FetcherArgs())
    assert pub.license.is_empty() and [g.grant_id for g in pub.funding.items] == ["1"]


def test_grants_are_kept_once_per_grant_id() -> None:
    grants = [Grant("", "R01 1"), Grant("NIH", "R01 1", "United States"), Grant("NIH"), Grant("Wellcome"),
              Grant("Wellcome")]
    assert dedup_grants(grants) == [Grant("NIH", "R01 1", "United States"), Grant("Wellcome")]


def test_references_are_kept_once_by_any_id_in_common_else_by_their_text() -> None:
    refs = [Reference(pmid="1", text="A."), Reference(doi="10.1/X", pmid="1", text="A again."),
            Reference(doi="10.1/x", pmcid="PMC2", text="A, third copy."), Reference(text="Doe J.  No IDs."),
            Reference(text="doe j. no ids."), Reference(title="Only a title"), Reference()]
    assert dedup_references(refs) == [Reference(pmid="1", doi="10.1/X", pmcid="PMC2", text="A."),
                                      Reference(text="Doe J.  No IDs."), Reference(title="Only a title")]


def test_relations_round_trip_and_join():
    """The relations part: read back as written, and another source's relations joined to it (the part keeps the
    first source's provenance)."""
    from pubfetch.model.publication import Publication
    from pubfetch.model.rich import Relation

    pub = Publication(clock=lambda: 7)
    crossref = [Relation("is-preprint-of", "10.1016/J.XGEN.2025.100814")]
    assert pub.join_rich(RichName.relations, crossref, PartType.crossref, "https://api.crossref.org/works/10.1101/x")
    assert not pub.join_rich(RichName.relations, crossref, PartType.biorxiv, "https://api.biorxiv.org/x")
    assert pub.join_rich(RichName.relations, [Relation("is-version-of", "10.1101/Y")], PartType.datacite, "u")
    assert pub.relations.items == [*crossref, Relation("is-version-of", "10.1101/Y")]
    assert pub.relations.type is PartType.crossref
    again = Publication.from_json(pub.to_json(computed=False))
    assert again.relations == pub.relations
    assert again.to_json()["relations"]["list"][0] == {"type": "is-preprint-of", "doi": "10.1016/J.XGEN.2025.100814"}
