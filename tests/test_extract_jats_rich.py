"""Funding, references, sections and licence of a JATS article: grants per award ID with their funder, references
in order with their checked IDs (a ref nested in another not followed), body sections by depth, the licence URL first;
peer reviews' parts left out."""

from __future__ import annotations

import json

import pytest

from pubfetch.extract.jats import parse_jats
from pubfetch.extract.jats_rich import add_rich_parts
from pubfetch.extract.xmlsafe import parse_xml
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import Grant, Reference, Section

ARTICLE = """<article xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:ali="http://www.niso.org/schemas/ali/1.0/">
<front><article-meta>
  <funding-group>
    <award-group><funding-source country="US"><institution-wrap><institution-id>http://dx.doi.org/10.13039/1</institution-id>
      <institution>National Science Foundation</institution></institution-wrap></funding-source>
      <award-id>DEB-1</award-id><award-id>DEB-2</award-id></award-group>
    <award-group><funding-source>Marsh Society</funding-source></award-group>
  </funding-group>
  <permissions><license license-type="open-access">
    <ali:license_ref>https://creativecommons.org/licenses/by/4.0/</ali:license_ref>
    <license-p>This article is distributed under CC BY.</license-p></license></permissions>
</article-meta></front>
<body>
  <p>Lead paragraph outside any section.</p>
  <sec><title>Introduction</title><p>First paragraph.</p><p>Second paragraph.</p>
    <sec><label>1.1</label><title>Aims</title><list><list-item><p>One aim.</p></list-item></list></sec></sec>
  <sec><title>Methods</title><p>We sampled.</p></sec>
</body>
<back><ref-list>
  <ref id="r1"><label>1</label><element-citation><person-group><name><surname>Goecks</surname></name></person-group>
    <article-title>Galaxy</article-title> <source>Genome Biol</source> <year>2010</year> , <volume>11</volume>
    <pub-id pub-id-type="pmid">20738864</pub-id><pub-id pub-id-type="doi">10.1186/gb-2010-11-8-r86</pub-id>
    <pub-id pub-id-type="pmc">2945788</pub-id></element-citation></ref>
  <ref id="r2"><mixed-citation>A book. <source>Plant Biology</source> ( <year>2001</year> )
    <pub-id pub-id-type="pmid">not-a-pmid</pub-id></mixed-citation></ref>
</ref-list></back>
<sub-article><front-stub><funding-group><award-group><funding-source>Reviewer fund</funding-source>
  <award-id>R-9</award-id></award-group></funding-group></front-stub>
  <back><ref-list><ref><mixed-citation>Reviewer's reference</mixed-citation></ref></ref-list></back></sub-article>
</article>"""


@pytest.fixture(scope="module")
def record() -> ArticleRecord:
    out = ArticleRecord()
    add_rich_parts(parse_xml(ARTICLE), out)
    return out


def test_each_award_id_is_a_grant_of_its_funder_without_the_registry_id(record: ArticleRecord) -> None:
    assert record.funding == [Grant("National Science Foundation", "DEB-1", "US"),
                              Grant("National Science Foundation", "DEB-2", "US"), Grant("Marsh Society", "", "")]


def test_references_keep_their_order_valid_ids_cited_title_and_tidy_citation_text(record: ArticleRecord) -> None:
    assert record.references == [
        Reference(pmid="20738864", pmcid="PMC2945788", doi="10.1186/GB-2010-11-8-R86", title="Galaxy",
                  text="Goecks Galaxy Genome Biol 2010, 11 20738864 10.1186/gb-2010-11-8-r86 2945788"),
        Reference(title="Plant Biology", text="A book. Plant Biology (2001) not-a-pmid")]


def test_sections_are_depth_first_with_their_own_paragraphs(record: ArticleRecord) -> None:
    assert record.sections == [Section("Introduction", 1, "First paragraph.\n\nSecond paragraph."),
                               Section("Aims", 2, "One aim."), Section("Methods", 1, "We sampled.")]


def test_the_licence_reference_url_wins_over_type_and_text(record: ArticleRecord) -> None:
    assert record.license == "https://creativecommons.org/licenses/by/4.0/"


def licence_of(permissions: str) -> str:
    out = ArticleRecord()
    add_rich_parts(parse_xml(f'<article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta>'
                             f"<permissions>{permissions}</permissions></article-meta></front></article>"), out)
    return out.license


def test_a_licence_without_a_reference_gives_its_link_then_a_url_in_its_text_then_its_type_then_its_text() -> None:
    assert licence_of('<license xlink:href="https://l.example/x"><license-p>t</license-p></license>') == \
        "https://l.example/x"
    assert licence_of("<license><license-p>See https://creativecommons.org/licenses/by-nc/4.0/.</license-p>"
                      "</license>") == "https://creativecommons.org/licenses/by-nc/4.0/"
    assert licence_of('<license license-type="open-access"><license-p>Free.</license-p></license>') == "open-access"
    assert licence_of("<license><license-p>Free to read.</license-p></license>") == "Free to read."
    assert licence_of("") == ""


def test_older_contract_sponsors_and_numbers_are_grants() -> None:
    out = ArticleRecord()
    add_rich_parts(parse_xml('<article><front><article-meta><contract-num rid="s1">GM-7</contract-num>'
                             '<contract-sponsor id="s1">NIH</contract-sponsor></article-meta></front></article>'), out)
    assert out.funding == [Grant("NIH", "GM-7")]
    alone = ArticleRecord()
    add_rich_parts(parse_xml('<article><front><article-meta><contract-sponsor id="s1">NIH</contract-sponsor>'
                             "</article-meta></front></article>"), alone)
    assert alone.funding == [Grant("NIH")]


def _nested_chain(chain: int, depth: int) -> str:
    """``depth`` references each inside the citation of the one before, as the hostile answer had them."""
    opened = "".join(f'<ref id="r{chain}-{level}"><mixed-citation>Roe R. Paper {chain}-{level}. J Biol 2001;12:1.'
                     f'<pub-id pub-id-type="pmid">{chain * 1000 + level + 1}</pub-id>' for level in range(depth))
    return opened + "</mixed-citation></ref>" * depth


def test_a_ref_nested_in_another_is_not_followed_so_references_never_outgrow_the_answer() -> None:
    chains, depth = 60, 120
    answer = ('<article><front><article-meta><article-id pub-id-type="pmid">1</article-id></article-meta></front>'
              f"<back><ref-list>{''.join(_nested_chain(c, depth) for c in range(chains))}</ref-list></back></article>")
    record = parse_jats(answer)[0]
    assert len(record.references) == chains  # the outermost of each chain; its nested ones are not references
    assert record.references[1] == Reference(pmid="1001", text="Roe R. Paper 1-0. J Biol 2001;12:1. 1001")
    pub = Publication()
    apply_record(pub, record, PartType.europepmc_xml, "u", FetcherArgs())
    stored = len(json.dumps(pub.to_json(computed=False), ensure_ascii=False).encode())
    assert stored < len(answer) / 10  # each level's subtree read again made it depth/2 times the answer


def test_a_ref_keeps_its_own_ids_title_and_text_beside_a_nested_one() -> None:
    out = ArticleRecord()
    add_rich_parts(parse_xml('<article><back><ref-list><ref><element-citation><article-title>Own</article-title>'
                             '<pub-id pub-id-type="doi">10.1/own</pub-id><ref><element-citation>'
                             '<article-title>Inner</article-title><pub-id pub-id-type="pmid">9</pub-id>'
                             "</element-citation></ref></element-citation></ref></ref-list></back></article>"), out)
    assert out.references == [Reference(doi="10.1/OWN", title="Own", text="Own 10.1/own")]


def test_the_rich_parts_named_are_the_only_ones_read() -> None:
    """``rich_parts`` naming some parts reads those, as the full reading reads them, and leaves the others empty."""
    from pubfetch.extract.jats import parse_jats
    from pubfetch.model.rich import RichName
    doc = (b"<article><front><article-meta><article-id pub-id-type='pmid'>1</article-id><funding-group><award-group>"
           b"<funding-source>NIH</funding-source><award-id>R01 1</award-id></award-group></funding-group>"
           b"</article-meta></front><body><sec><title>Intro</title><p>See GSE12345.</p></sec></body><back><ref-list>"
           b"<ref id='r1'><mixed-citation>Roe R. A paper.</mixed-citation></ref></ref-list></back></article>")
    [full] = parse_jats(doc)
    [some] = parse_jats(doc, rich_parts={RichName.references, RichName.sections})
    assert full.funding and full.text_links and full.references and full.sections
    assert (some.references, some.sections) == (full.references, full.sections)
    assert (some.funding, some.text_links, some.license) == ([], [], "")
