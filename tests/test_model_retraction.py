"""Retraction flags kept per source: each source's verdict replaces only its own earlier one, the paper is retracted
while any source says so, and entries stored before the flags were kept per source still read as retracted."""

from __future__ import annotations

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.model.record import ArticleRecord
from pubfetch.model.retraction import RetractionSource, RetractionVerdict
from pubfetch.model.rich import RichName, Update

PUBMED, EUROPEPMC, EARLIER = RetractionSource.pubmed, RetractionSource.europepmc, RetractionSource.earlier


def _said(pub: Publication, source: RetractionSource, retracted: bool) -> None:
    apply_record(pub, ArticleRecord(pmid="1", retraction=RetractionVerdict(source, retracted)), PartType.pubmed_xml,
                 "u", FetcherArgs())


def test_a_source_clears_its_own_flag_and_not_another_sources() -> None:
    pub = Publication()
    _said(pub, PUBMED, True)
    _said(pub, EUROPEPMC, True)
    assert pub.retracted and pub.retraction.sources() == [PUBMED, EUROPEPMC]
    _said(pub, PUBMED, False)
    assert pub.retracted and pub.retraction.sources() == [EUROPEPMC]
    _said(pub, EUROPEPMC, False)
    assert not pub.retracted and pub.to_json()["retractionFlags"] == {"pubmed": False, "europepmc": False}


def test_publication_types_and_updates_of_a_record_without_a_verdict_mark_nothing() -> None:
    """What a page's meta tags, a JATS article type or Unpaywall's genre say is no verdict."""
    pub = Publication()
    record = ArticleRecord(pmid="1", pub_types=["Retracted Publication"], updates=[Update("RetractionIn", "2")])
    apply_record(pub, record, PartType.doi, "https://publisher.example/1", FetcherArgs())
    assert not pub.retracted and pub.pub_types == ["Retracted Publication"]


def test_the_flags_round_trip_through_json() -> None:
    pub = Publication()
    _said(pub, PUBMED, False)
    _said(pub, EUROPEPMC, True)
    again = Publication.from_json(pub.to_json(computed=False))
    assert again.retraction == pub.retraction and again.retracted
    assert again.to_json()["retracted"] is True


def test_an_entry_stored_before_per_source_flags_stays_retracted_until_a_source_answers() -> None:
    pub = Publication()
    pub.set_pmid("1", PartType.external, "", FetcherArgs())
    old = pub.to_json(computed=False)
    del old["retractionFlags"]
    old["retracted"] = True
    loaded = Publication.from_json(old)
    assert loaded.retracted and loaded.retraction.sources() == [EARLIER]
    _said(loaded, PUBMED, False)  # the first real verdict replaces the unattributed one
    assert not loaded.retracted and loaded.to_json()["retractionFlags"] == {"pubmed": False}


def test_an_entry_stored_before_the_retraction_fields_reads_its_types_and_updates() -> None:
    pub = Publication()
    pub.set_pmid("1", PartType.external, "", FetcherArgs())
    pub.set_rich(RichName.updates, [Update("RetractionIn", "2")], PartType.pubmed_xml, "u")
    old = pub.to_json(computed=False)
    del old["retractionFlags"], old["retracted"]
    assert Publication.from_json(old).retraction.sources() == [EARLIER]
    assert not Publication.from_json({**old, "updates": {}}).retracted


def test_a_flag_of_a_source_this_version_does_not_know_reads_as_an_earlier_verdict() -> None:
    """An entry a newer pubfetch stored, retracted by a source added since, stays retracted here."""
    pub = Publication.from_json({"pmid": {"content": "1"}, "retracted": True,
                                 "retractionFlags": {"newsource": True, "pubmed": False}})
    assert pub.retracted and pub.to_json()["retractionFlags"] == {"pubmed": False, "earlier": True}
