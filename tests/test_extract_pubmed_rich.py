"""Funding, corrections and references of a PubMed efetch article, and the ID checks a cited paper's IDs go through
(an invalid cited ID is dropped, a valid one normalised)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.extract import pubmed_rich
from pubfetch.extract.pubmed_rich import PUBMED_RICH, add_rich_parts, references, valid_doi, valid_pmcid, valid_pmid
from pubfetch.extract.xmlsafe import parse_xml
from pubfetch.model.record import ArticleRecord
from pubfetch.model.rich import Grant, Reference, Update

ARTICLE = b"""<PubmedArticle>
  <MedlineCitation>
    <PMID>30000001</PMID>
    <Article>
      <GrantList>
        <Grant><GrantID>R01 GM1</GrantID><Agency>NIGMS NIH HHS</Agency><Country>United States</Country></Grant>
        <Grant><Agency>Wellcome Trust</Agency></Grant>
        <Grant><Country>United Kingdom</Country></Grant>
      </GrantList>
    </Article>
    <CommentsCorrectionsList>
      <CommentsCorrections RefType="RetractionIn"><RefSource>Nature. 2021. doi: 10.1038/s1.</RefSource>
        <PMID>33333333</PMID></CommentsCorrections>
      <CommentsCorrections RefType="CommentOn"><RefSource>J X. 2019</RefSource><PMID>bad</PMID></CommentsCorrections>
      <CommentsCorrections><RefSource>no type</RefSource></CommentsCorrections>
    </CommentsCorrectionsList>
  </MedlineCitation>
  <PubmedData>
    <ReferenceList>
      <Reference><Citation>First A. One. J 2000.</Citation>
        <ArticleIdList><ArticleId IdType="pubmed">11111111</ArticleId><ArticleId IdType="pmc">PMC22</ArticleId>
          <ArticleId IdType="doi">10.1/ONE</ArticleId></ArticleIdList></Reference>
      <ReferenceList>
        <Reference><Citation>Nested B. Two.</Citation>
          <ArticleIdList><ArticleId IdType="pubmed">x</ArticleId><ArticleId IdType="pubmed">22222222</ArticleId>
          </ArticleIdList></Reference>
      </ReferenceList>
    </ReferenceList>
  </PubmedData>
</PubmedArticle>"""


def read_rich(article: object) -> ArticleRecord:
    """The rich parts of one ``PubmedArticle``, its lists found as the parser finds them."""
    element = parse_xml(article)  # type: ignore[arg-type]
    out = ArticleRecord()
    add_rich_parts(out, PUBMED_RICH, element.findall("MedlineCitation/Article/GrantList"),
                   element.findall("MedlineCitation/CommentsCorrectionsList"), element.findall("PubmedData/ReferenceList"))
    return out


@pytest.fixture(scope="module")
def record() -> ArticleRecord:
    return read_rich(ARTICLE)


def test_every_grant_with_an_agency_or_id_is_kept_with_its_country(record: ArticleRecord) -> None:
    assert record.funding == [Grant("NIGMS NIH HHS", "R01 GM1", "United States"), Grant("Wellcome Trust", "", "")]


def test_corrections_keep_their_reftype_the_valid_pmid_and_the_doi_of_their_source(record: ArticleRecord) -> None:
    assert record.updates == [Update("RetractionIn", "33333333", "10.1038/S1"), Update("CommentOn", "", "")]


def test_references_nested_lists_included_keep_their_order_text_and_first_valid_ids(record: ArticleRecord) -> None:
    assert record.references == [
        Reference(pmid="11111111", pmcid="PMC22", doi="10.1/ONE", text="First A. One. J 2000."),
        Reference(pmid="22222222", text="Nested B. Two.")]


def test_an_article_without_a_citation_still_gets_its_references() -> None:
    out = read_rich(b"<PubmedArticle><PubmedData><ReferenceList><Reference><Citation>C</Citation>"
                    b"</Reference></ReferenceList></PubmedData></PubmedArticle>")
    assert (out.funding, out.updates, out.references) == ([], [], [Reference(text="C")])


def test_a_reference_nested_in_another_is_not_followed() -> None:
    """A Reference inside another's Citation (no schema has it) is neither a reference nor part of the outer text:
    read level by level, a chain of them made the references grow with the square of the answer."""
    depth = 100
    chain = "".join(f"<Reference><ArticleIdList><ArticleId IdType='pubmed'>{i + 1}</ArticleId></ArticleIdList>"
                    f"<Citation>Level {i}." for i in range(depth)) + " End.</Citation></Reference>" * depth
    out = read_rich(f"<PubmedArticle><PubmedData><ReferenceList>{chain}</ReferenceList></PubmedData></PubmedArticle>")
    assert out.references == [Reference(pmid="1", text="Level 0. End.")]


def test_a_pmid_is_kept_only_when_valid() -> None:
    assert (valid_pmid("12345678"), valid_pmid("PMC1"), valid_pmid("")) == ("12345678", "", "")


def test_a_pmcid_gets_its_prefix_and_upper_case() -> None:
    assert (valid_pmcid("123"), valid_pmcid("pmc123"), valid_pmcid("PMCX"), valid_pmcid("")) == \
        ("PMC123", "PMC123", "", "")


def test_a_doi_loses_its_resolver_and_is_upper_cased_and_a_non_doi_is_dropped() -> None:
    assert valid_doi("https://doi.org/10.1000/abc") == "10.1000/ABC"
    assert (valid_doi("10.1000/a b"), valid_doi("not a doi"), valid_doi("")) == ("", "", "")


def test_a_caller_that_does_not_ask_for_the_rich_parts_gets_the_rest_unchanged_and_the_retraction_verdict() -> None:
    """``rich_parts=False`` leaves out funding and references (not asked, not parsed) and nothing else: every other
    field is what the full parse gives, corrections included, so the retraction verdict stands."""
    from pubfetch.extract.pubmed import parse_pubmed_xml

    document = b"<PubmedArticleSet>" + ARTICLE.replace(
        b"<Article>", b"<Article><ArticleTitle>A retracted paper</ArticleTitle>") + b"</PubmedArticleSet>"
    full, = parse_pubmed_xml(document)
    plain, = parse_pubmed_xml(document, rich_parts=False)
    assert full.funding and full.references
    assert plain.funding == [] and plain.references == []
    assert plain.updates == full.updates and plain.retraction == full.retraction and full.retraction.retracted
    plain.funding, plain.references = full.funding, full.references
    assert plain == full


def test_the_rich_parts_named_are_the_only_ones_read_and_the_corrections_always() -> None:
    """``rich_parts`` naming some parts reads those as the full reading does; the corrections are read in every case
    (PubMed's retraction verdict is read from them)."""
    from pubfetch.extract.pubmed import parse_pubmed_xml
    from pubfetch.model.rich import RichName
    doc = b"<PubmedArticleSet>" + ARTICLE + b"</PubmedArticleSet>"
    [full] = parse_pubmed_xml(doc)
    [some] = parse_pubmed_xml(doc, rich_parts={RichName.references})
    [none] = parse_pubmed_xml(doc, rich_parts=False)
    assert full.funding and full.references and full.updates
    assert (some.references, some.funding, some.updates) == (full.references, [], full.updates)
    assert (none.references, none.funding, none.text_links, none.updates) == ([], [], [], full.updates)


def _one_by_one(article: object) -> list[Reference]:
    """The references as read one ``Reference`` at a time (the reading every list had before the one-pass reading)."""
    return [pubmed_rich._reference(ref) for top in pubmed_rich._path(article, "PubmedData", "ReferenceList")
            for ref in pubmed_rich._top_references(top)]


def _read_in_one_pass(article: object) -> list[bool]:
    """Whether each of the article's reference lists is read in the one pass (its elements all in their places)."""
    return [pubmed_rich._plain_references(top, []) == pubmed_rich._PLACED(top)
            for top in pubmed_rich._path(article, "PubmedData", "ReferenceList")]


#: Reference lists of unusual shapes: whether the one pass reads them (markup inside a citation or an ID is read
#: there; parts out of their places are not), and the references the one-by-one reading gives.
AWKWARD = {
    "a citation with markup": (
        "<Reference><Citation>A <i>b</i>  c.</Citation><ArticleIdList><ArticleId IdType='pubmed'>5</ArticleId>"
        "</ArticleIdList></Reference>", True, [Reference("5", "", "", "", "A b c.")]),
    "an ArticleId outside an ArticleIdList": (
        "<Reference><Citation>X.</Citation><ArticleId IdType='pubmed'>5</ArticleId></Reference>",
        False, [Reference("", "", "", "", "X.")]),
    "a citation inside the ID list": (
        "<Reference><ArticleIdList><Citation>In the list.</Citation><ArticleId IdType='doi'>10.1/a</ArticleId>"
        "</ArticleIdList></Reference><Reference><Citation>Second.</Citation></Reference>",
        False, [Reference("", "", "10.1/A", "", ""), Reference("", "", "", "", "Second.")]),
    "a reference in a reference": (
        "<Reference><Citation>Outer.</Citation><Reference><Citation>Inner.</Citation><ArticleIdList>"
        "<ArticleId IdType='pubmed'>7</ArticleId></ArticleIdList></Reference></Reference>",
        False, [Reference("", "", "", "", "Outer.")]),
    "a list in the list": (
        "<Title>Refs</Title><ReferenceList><Reference><Citation>Deep.</Citation></Reference></ReferenceList>"
        "<Reference><Citation>Top.</Citation></Reference>",
        False, [Reference("", "", "", "", "Deep."), Reference("", "", "", "", "Top.")]),
    "an ID with markup": (
        "<Reference><Citation>Y.</Citation><ArticleIdList><ArticleId IdType='pmc'>PMC<b>12</b></ArticleId>"
        "</ArticleIdList></Reference>", True, [Reference("", "PMC12", "", "", "Y.")]),
}


@pytest.mark.parametrize("shape", sorted(AWKWARD))
def test_a_list_of_an_unusual_shape_is_read_as_one_by_one(shape: str) -> None:
    body, one_pass, expected = AWKWARD[shape]
    article = parse_xml(f"<PubmedArticle><PubmedData><ReferenceList>{body}</ReferenceList></PubmedData>"
                        f"</PubmedArticle>".encode())
    assert _read_in_one_pass(article) == [one_pass]
    assert references(article) == _one_by_one(article) == expected


def test_a_plain_list_read_in_one_pass_gives_what_the_one_by_one_reading_gives() -> None:
    body = ("<Title>References</Title>"
            "<Reference><Citation> Spaced   out. </Citation><ArticleIdList><ArticleId IdType='pubmed'>0123</ArticleId>"
            "<ArticleId IdType=' PubMed '>456</ArticleId><ArticleId IdType='pmcid'>PMC9</ArticleId></ArticleIdList>"
            "<ArticleIdList><ArticleId IdType='doi'>https://doi.org/10.1/b c</ArticleId>"
            "<ArticleId IdType='doi'>10.1/d</ArticleId><ArticleId IdType='pmc'>77</ArticleId></ArticleIdList>"
            "<Citation>Second citation.</Citation></Reference>"
            "<Reference/><Reference><ArticleIdList><ArticleId IdType='pubmed'> 89 </ArticleId></ArticleIdList>"
            "</Reference>")
    article = parse_xml(f"<PubmedArticle><PubmedData><ReferenceList>{body}</ReferenceList></PubmedData>"
                        f"</PubmedArticle>".encode())
    assert _read_in_one_pass(article) == [True]
    assert references(article) == _one_by_one(article) == [
        Reference("456", "PMC77", "10.1/D", "", "Spaced out."), Reference(), Reference("89", "", "", "", "")]


def test_every_reference_list_of_the_corpus_reads_as_one_by_one(corpus_dir: Path) -> None:
    articles = [a for path in sorted((corpus_dir / "files" / "pubmed_efetch").glob("*.xml"))
                for a in parse_xml(path.read_bytes()).iter("PubmedArticle")]
    read = [(references(a), _one_by_one(a)) for a in articles]
    assert sum(len(one_pass) for one_pass, _ in read) > 0
    assert any(all(_read_in_one_pass(a)) for a in articles if references(a))
    assert all(one_pass == one_by_one for one_pass, one_by_one in read)
