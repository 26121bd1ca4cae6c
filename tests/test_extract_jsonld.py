"""schema.org JSON-LD in the meta-tag parser: recorded pages that carry it (Zenodo, PANGAEA, Nature), the same pages with
every <meta> tag removed (JSON-LD alone must then give the article), and hand-written edge cases."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pubfetch.extract.jsonld import json_ld_tags
from pubfetch.extract.meta import parse_meta
from pubfetch.extract.meta_types import meta_part_types
from pubfetch.model.part_type import PartName, PartType

ZENODO = "files/publisher_page/zenodo/zenodo-1196821.html"
PANGAEA = "files/publisher_page/data-repository/pangaea-836178.html"
NATURE = "files/publisher_page/springer-nature/nature-nature01353-paywalled.html"
_META = re.compile(r"<meta\b[^>]*>", re.IGNORECASE)


def page(corpus_dir: Path, path: str, *, without_meta: bool = False) -> str:
    text = (corpus_dir / path).read_text(encoding="utf-8")
    return _META.sub("", text) if without_meta else text


def test_zenodo_record_from_json_ld_alone(corpus_dir: Path) -> None:
    r = parse_meta(page(corpus_dir, ZENODO, without_meta=True), "https://zenodo.org/records/1196821")
    assert r.title == ("PsPM-SC4B: SCR, ECG, EMG, PSR and respiration measurements in a delay fear conditioning task "
                       "with auditory CS and electrical US")
    assert r.doi == "10.5281/zenodo.1196821"
    assert r.abstract.startswith("This dataset includes pupil size response (PSR), skin conductance response (SCR)")
    assert "<p>" not in r.abstract
    assert r.keywords[:3] == ["Pupil Size Response", "Skin Conductance Response", "Electrocardiogram"]
    assert r.publisher == "Zenodo"
    assert r.pub_date == "2018-03-14"
    assert r.authors and r.authors[0].family
    types = meta_part_types(r, PartType.doi)
    assert types[PartName.title] is PartType.meta
    assert types[PartName.doi] is PartType.meta


def test_pangaea_data_set_from_json_ld_alone(corpus_dir: Path) -> None:
    r = parse_meta(page(corpus_dir, PANGAEA, without_meta=True), "https://doi.pangaea.de/10.1594/PANGAEA.836178")
    assert r.doi == "10.1594/PANGAEA.836178"
    assert r.title.startswith("Hydrological and meteorological investigations in a lake near Kangerlussuaq")


def test_nature_main_entity(corpus_dir: Path) -> None:
    tags = dict(json_ld_tags(page(corpus_dir, NATURE)))
    assert tags["jsonld.headline"] == "Single-nanowire electrically driven lasers"
    assert tags["jsonld.doi"] == "10.1038/nature01353"
    assert tags["jsonld.journal"] == "Nature"
    assert tags["jsonld.description"].startswith("Electrically driven semiconductor lasers are used")


def test_highwire_tags_still_win_over_json_ld(corpus_dir: Path) -> None:
    r = parse_meta(page(corpus_dir, ZENODO), "https://zenodo.org/records/1196821")
    assert r.flags["types"]["title"] == "citation"


@pytest.mark.parametrize(("script", "expected"), [
    ('{"@type": "ScholarlyArticle", "headline": "H", "identifier": {"@type": "PropertyValue", "propertyID": "DOI",'
     ' "value": "10.1000/xyz"}}', {"jsonld.headline": "H", "jsonld.doi": "10.1000/xyz"}),
    ('{"@graph": [{"@type": "WebPage", "name": "Site"}, {"@type": ["Article"], "name": "A", "sameAs": '
     '"https://doi.org/10.1000/abc"}]}', {"jsonld.headline": "A", "jsonld.doi": "10.1000/abc"}),
    ('{"@graph": [{"@type": "CreativeWork", "name": "The Journal", "url": "https://doi.org/10.1000/journal"}, '
     '{"@type": "ScholarlyArticle", "headline": "A", "identifier": "doi:10.1000/abc"}]}',
     {"jsonld.headline": "A", "jsonld.doi": "10.1000/abc"}),  # the article, not the site's work before it
    ('{"@type": "CreativeWork", "name": "A record", "url": "https://doi.org/10.1000/rec"}',
     {"jsonld.headline": "A record", "jsonld.doi": "10.1000/rec"}),
    ('{"@type": "Organization", "name": "Only a publisher"}', {}),
    ('{"@type": "ScholarlyArticle", "headline": ', {}),  # invalid JSON is skipped
    ('[{"@type": "schema:Dataset", "name": "D", "keywords": ["a", "b"], "encoding": {"encodingFormat": '
     '"application/pdf", "contentUrl": "https://x.org/d.pdf"}}]',
     {"jsonld.headline": "D", "jsonld.keywords": "b", "jsonld.pdf": "https://x.org/d.pdf"}),
])
def test_json_ld_shapes(script: str, expected: dict[str, str]) -> None:
    html = f'<html><head><script type="application/ld+json">{script}</script></head><body></body></html>'
    assert dict(json_ld_tags(html)) == expected


def test_json_ld_pdf_becomes_a_meta_pdf_link() -> None:
    html = ('<script type="application/ld+json">{"@type": "Article", "name": "A", "encoding": [{"encodingFormat": '
            '"application/pdf", "contentUrl": "/files/a.pdf"}]}</script>')
    r = parse_meta(html, "https://repo.example.org/records/1")
    assert [(link.url, link.kind, link.source) for link in r.links] == [
        ("https://repo.example.org/files/a.pdf", "pdf", "jsonld.pdf")]


def test_json_ld_people_are_split_by_their_own_name_parts_and_organisations_kept_whole() -> None:
    """A Person's familyName and givenName are the author's ("van der Berg" given as such stays the family name,
    not a middle name); a name alone is split as a meta tag's; an Organization is a literal."""
    html = ('<html><head><title>x</title><script type="application/ld+json">{"@type": "ScholarlyArticle", '
            '"headline": "A study of authors", "author": ['
            '{"@type": "Person", "name": "Ludwig van der Berg", "familyName": "van der Berg", "givenName": "Ludwig"}, '
            '{"@type": "Person", "name": "Matthew J. Kourakis"}, '
            '{"@type": "Organization", "name": "World Health Organization"}]}</script></head><body></body></html>')
    assert [t for t in json_ld_tags(html) if t[0] == "jsonld.author"] == [
        ("jsonld.author", "van der Berg, Ludwig"), ("jsonld.author", "Matthew J. Kourakis"),
        ("jsonld.author", "World Health Organization")]
    record = parse_meta(html.encode(), "https://example.org/article")
    assert [(a.family, a.given, a.literal) for a in record.authors] == [
        ("van der Berg", "Ludwig", ""), ("Kourakis", "Matthew J.", ""), ("", "", "World Health Organization")]
