"""What one source says about one article: a record is empty until it carries publication content, and its lists
and flags are its own."""

import pytest

from pubfetch.model.parts import MeshTerm
from pubfetch.model.record import ArticleRecord, Link


def test_a_new_record_is_empty() -> None:
    assert ArticleRecord().is_empty()


@pytest.mark.parametrize("content", [{"pmid": "1"}, {"pmcid": "PMC1"}, {"doi": "10.1/x"}, {"title": "T"},
                                     {"abstract": "A"}, {"fulltext": "F"}, {"keywords": ["k"]},
                                     {"mesh": [MeshTerm("Humans")]}])
def test_any_publication_content_makes_it_non_empty(content: dict) -> None:
    assert not ArticleRecord(**content).is_empty()


@pytest.mark.parametrize("facts", [{"journal_title": "J"}, {"pub_date": "2020-01-01"}, {"citations_count": 3},
                                   {"links": [Link("https://a.example/x.pdf", "pdf", "unpaywall")]},
                                   {"license": "cc by"}, {"flags": {"inEPMC": True}}])
def test_bibliographic_facts_links_and_flags_alone_are_no_content(facts: dict) -> None:
    assert ArticleRecord(**facts).is_empty()


def test_records_do_not_share_their_lists_or_flags() -> None:
    first, second = ArticleRecord(), ArticleRecord()
    first.keywords.append("marsh")
    first.flags["source"] = "MED"
    assert (second.keywords, second.flags) == ([], {})


def test_a_link_is_html_from_an_unnamed_source_unless_told() -> None:
    assert Link("https://a.example/") == Link("https://a.example/", "html", "")
