"""The part types of what meta tags gave: each is the worse of its tag format's type and the page's own type."""

from __future__ import annotations

from pathlib import Path

from pubfetch.extract.meta import parse_meta
from pubfetch.extract.meta_types import link_part_type, meta_part_types
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.record import ArticleRecord, Link

HIGHWIRE = Path(__file__).parent / "data" / "documents" / "meta" / "highwire_page.html"
HIGHWIRE_URL = "https://jir.example.org/content/12/3/101"
PAGE = """<html><head>
<meta name="citation_title" content="Marsh resilience and sediment supply">
<meta name="dc.description" content="An abstract long enough to be read as one, about salt marshes and sediment.">
<meta name="keywords" content="marsh; sediment">
<meta name="citation_doi" content="10.1000/marsh.1">
<meta name="citation_pdf_url" content="https://www.example.org/marsh.pdf">
</head><body></body></html>"""


def test_each_field_gets_its_formats_type_on_a_page_of_a_better_type() -> None:
    types = meta_part_types(parse_meta(PAGE, "https://www.example.org/marsh"), PartType.doi)
    assert types[PartName.title] is PartType.citation
    assert types[PartName.doi] is PartType.citation
    assert types[PartName.theAbstract] is PartType.dc


def test_keywords_are_left_out_when_the_resource_does_not_take_them() -> None:
    record = ArticleRecord(flags={"types": {"title": "citation", "keywords": "meta", "journal": "citation"}})
    assert meta_part_types(record, keywords=False) == {PartName.title: PartType.citation}
    assert meta_part_types(record) == {PartName.title: PartType.citation, PartName.keywords: PartType.meta}


def test_a_record_without_recorded_formats_has_no_types() -> None:
    assert meta_part_types(ArticleRecord()) == {}


def test_a_link_is_typed_by_its_tag_and_no_better_than_its_page() -> None:
    pdf = Link("https://www.example.org/marsh.pdf", "pdf", "citation_pdf_url")
    assert link_part_type(pdf) is PartType.pdf_citation
    assert link_part_type(Link("https://www.example.org/full", "html", "citation_fulltext_html_url"),
                          PartType.doi) is PartType.link_citation
    assert link_part_type(pdf, PartType.webpage) is PartType.webpage


def test_a_link_from_another_source_is_typed_by_its_kind() -> None:
    assert link_part_type(Link("https://a.example/x.pdf", "pdf", "unpaywall")) is PartType.pdf_meta
    assert link_part_type(Link("https://a.example/x", "html", "")) is PartType.link_meta


def test_meta_part_types_are_never_better_than_the_page() -> None:
    r = parse_meta(HIGHWIRE.read_bytes(), HIGHWIRE_URL)
    assert meta_part_types(r) == {PartName.pmid: PartType.citation, PartName.doi: PartType.citation,
                                  PartName.title: PartType.citation, PartName.keywords: PartType.citation,
                                  PartName.theAbstract: PartType.citation}
    on_doi_page = meta_part_types(r, PartType.doi, keywords=False)
    assert PartName.keywords not in on_doi_page and on_doi_page[PartName.title] is PartType.citation
    on_link_meta_page = meta_part_types(r, PartType.link_meta)
    assert set(on_link_meta_page.values()) == {PartType.link_meta}
    assert meta_part_types(ArticleRecord()) == {}


def test_link_part_types() -> None:
    r = parse_meta(HIGHWIRE.read_bytes(), HIGHWIRE_URL)
    assert [link_part_type(link) for link in r.links] == [PartType.link_citation, PartType.pdf_citation,
                                                          PartType.pdf_meta]
    assert [link_part_type(link, PartType.link_oadoi) for link in r.links] == [PartType.link_citation,
                                                                                PartType.pdf_citation, PartType.pdf_meta]
    assert link_part_type(Link("https://x.example/a.pdf", "pdf", "elsewhere")) is PartType.pdf_meta
