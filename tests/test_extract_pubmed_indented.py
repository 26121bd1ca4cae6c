"""An indented efetch answer (a MEDLINE file's layout) read without its indentation and, when references are not
asked for, without what is not read: the same records as the document parsed as written, in every case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.pubmed_cut import cut_unread
from pubfetch.extract.pubmed_dtd import ELEMENT_CONTENT, MIN_DECLARED, declared
from pubfetch.extract.xmlsafe import XmlError, parse_xml
from pubfetch.model.rich import RichName

MIXED = Path(__file__).parent / "data" / "documents" / "pubmed" / "mixed_set.xml"
PROLOG = (b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, '
          b'1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n')

#: A record written the way MEDLINE's files are: indented, with inline markup, MathML and blanks between inline
#: elements in its texts, a history, a grant, a correction and a reference list (with a title and an entity).
RECORD = """<PubmedArticle>
    <MedlineCitation Status="MEDLINE" Owner="NLM">
      <PMID Version="1">{pmid}</PMID>
      <Article PubModel="Print">
        <Journal>
          <ISSN IssnType="Electronic">1234-5678</ISSN>
          <JournalIssue CitedMedium="Internet">
            <Volume>12</Volume>
            <PubDate>
              <Year>2020</Year>
              <Month>Mar</Month>
              <Day>5</Day>
            </PubDate>
          </JournalIssue>
          <Title>Journal of Tests</Title>
        </Journal>
        <ArticleTitle><i>Mus</i> <i>musculus</i> and <b>R</b><sup>2</sup> <sub>x</sub> in record {pmid}</ArticleTitle>
        <Pagination>
          <MedlinePgn>1-9</MedlinePgn>
        </Pagination>
        <Abstract>
          <AbstractText Label="RESULTS">Fit ( <mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML"> <mml:msup>\
<mml:mrow><mml:mi>R</mml:mi></mml:mrow> <mml:mrow><mml:mn>2</mml:mn></mml:mrow> </mml:msup> </mml:math> = 0.5) \
<i>in</i> <i>vivo</i>.</AbstractText>
          <AbstractText Label="CONCLUSIONS"><b>Yes</b> <i>and</i> no.</AbstractText>
        </Abstract>
        <AuthorList CompleteYN="Y">
          <Author ValidYN="Y">
            <LastName>Smith</LastName>
            <ForeName>Jane</ForeName>
            <Initials>J</Initials>
            <Identifier Source="ORCID">0000-0002-1825-0097</Identifier>
            <AffiliationInfo>
              <Affiliation><sup>1</sup> <i>Institute</i>, Town. jane@example.org</Affiliation>
            </AffiliationInfo>
          </Author>
        </AuthorList>
        <Language>eng</Language>
        <GrantList CompleteYN="Y">
          <Grant>
            <GrantID>R01 GM000{pmid}</GrantID>
            <Agency>NIGMS NIH HHS</Agency>
            <Country>United States</Country>
          </Grant>
        </GrantList>
        <PublicationTypeList>
          <PublicationType UI="D016428">Journal Article</PublicationType>
        </PublicationTypeList>
      </Article>
      <MedlineJournalInfo>
        <MedlineTA>J Tests</MedlineTA>
      </MedlineJournalInfo>
      <CommentsCorrectionsList>
        <CommentsCorrections RefType="ErratumIn">
          <RefSource>J Tests. 2021;13:1. doi: 10.1000/erratum.{pmid}</RefSource>
          <PMID Version="1">9{pmid}</PMID>
        </CommentsCorrections>
      </CommentsCorrectionsList>
      <KeywordList Owner="NOTNLM">
        <Keyword MajorTopicYN="N"><i>Mus</i> <i>musculus</i></Keyword>
      </KeywordList>
    </MedlineCitation>
    <PubmedData>
      <History>
        <PubMedPubDate PubStatus="received">
          <Year>2019</Year>
          <Month>1</Month>
          <Day>2</Day>
        </PubMedPubDate>
      </History>
      <PublicationStatus>ppublish</PublicationStatus>
      <ArticleIdList>
        <ArticleId IdType="pubmed">{pmid}</ArticleId>
        <ArticleId IdType="doi">10.1000/test.{pmid}</ArticleId>
      </ArticleIdList>
      <ReferenceList>
        <Title>References</Title>
        <Reference>
          <Citation>Doe J. Cells &amp; tissues. Nature. 2001;1:2.</Citation>
          <ArticleIdList>
            <ArticleId IdType="pubmed">11111{pmid}</ArticleId>
            <ArticleId IdType="doi">10.1000/cited.{pmid}</ArticleId>
          </ArticleIdList>
        </Reference>
        <Reference>
          <Citation>Roe R. Water<sub>2</sub> <i>in</i> cells. Science. 2002.</Citation>
        </Reference>
      </ReferenceList>
    </PubmedData>
  </PubmedArticle>
"""

RICH_CHOICES = [True, False, frozenset((RichName.references, RichName.funding)), frozenset((RichName.funding,))]


def indented_set(records: int = 60, first_pmid: int = 1000, extra: str = "") -> bytes:
    body = "".join("  " + RECORD.format(pmid=first_pmid + i) for i in range(records))
    return PROLOG + f"<PubmedArticleSet>\n{extra}{body}</PubmedArticleSet>\n".encode()


def as_written(data: bytes, rich_parts: object) -> list:
    """The records of the document parsed as written (a str answer is never cut nor given declarations)."""
    return parse_pubmed_xml(data.decode("utf-8"), rich_parts=rich_parts)  # type: ignore[arg-type]


@pytest.mark.parametrize("rich_parts", RICH_CHOICES)
def test_an_indented_set_reads_as_written(rich_parts):
    data = indented_set()
    assert len(data) >= MIN_DECLARED and declared(data) is not None
    records = parse_pubmed_xml(data, rich_parts=rich_parts)
    assert len(records) == 60
    assert records == as_written(data, rich_parts)
    first = records[0]
    assert first.title == "Mus musculus and R2 x in record 1000"  # the blanks between inline elements kept
    assert first.abstract.startswith("RESULTS: Fit ( R 2 = 0.5) in vivo.")
    assert first.keywords == ["Mus musculus"]
    assert first.authors[0].affiliations == ["1 Institute, Town. jane@example.org"]
    if rich_parts is True or (rich_parts and RichName.references in rich_parts):  # type: ignore[operator]
        assert [(r.pmid, r.doi, r.text) for r in first.references] == [
            ("111111000", "10.1000/CITED.1000", "Doe J. Cells & tissues. Nature. 2001;1:2."),
            ("", "", "Roe R. Water2 in cells. Science. 2002.")]
    else:
        assert first.references == []


def test_the_declarations_drop_only_the_blanks_of_element_content():
    root = parse_xml(declared(indented_set()), remove_blank_text=True)
    article = root[0]
    assert article.text is None and root.text is None  # indentation of containers gone
    for element in root.iter():
        if element.tag in ELEMENT_CONTENT:
            assert all(not (child.tail or "").strip() for child in element)
            assert not (element.text or "").strip()
    title = root.find(".//ArticleTitle")
    assert title[0].tail == " "  # between <i>Mus</i> and <i>musculus</i>
    math = root.find(".//{http://www.w3.org/1998/Math/MathML}math")
    assert math.text == " "


def test_small_compact_or_foreign_documents_are_parsed_as_written():
    small = indented_set(records=2)
    assert len(small) < MIN_DECLARED and declared(small) is None
    compact = PROLOG + b"<PubmedArticleSet>" + b"".join(
        etree.tostring(a) for a in parse_xml(indented_set(), remove_blank_text=True)) + b"</PubmedArticleSet>"
    assert declared(compact + b" " * MIN_DECLARED) is None  # not indented: no blank to drop, the subset costs
    own_subset = indented_set().replace(b'pubmed_250101.dtd">', b'pubmed_250101.dtd" [<!ENTITY x "y">]>', 1)
    assert declared(own_subset) is None
    utf16 = indented_set().decode().encode("utf-16")
    assert declared(utf16) is None
    commented = indented_set(extra="<!-- a comment -->\n")
    assert parse_pubmed_xml(commented) == as_written(commented, True)


def test_a_document_without_a_type_declaration_gets_one():
    data = indented_set().replace(PROLOG, b'<?xml version="1.0"?>\n')
    assert declared(data).startswith(b'<?xml version="1.0"?>\n<!DOCTYPE PubmedArticleSet [<!ELEMENT ')
    assert parse_pubmed_xml(data) == as_written(data, True)


def test_the_unread_parts_are_cut_only_when_references_are_not_asked_for():
    data = indented_set(records=3)
    cut = cut_unread(data)
    assert b"<History>" not in cut and b"<ReferenceList>" not in cut and b"<Title>References" not in cut
    assert cut.count(b"<PubmedArticle>") == 3 and b"<ArticleIdList>" in cut
    assert parse_pubmed_xml(data, rich_parts=False) == as_written(data, False)


@pytest.mark.parametrize("change", [
    ("<!-- <History> -->", "a comment"),
    ("<![CDATA[ <ReferenceList> ]]>", "a CDATA section"),
])
def test_nothing_is_cut_from_a_document_with_a_comment_or_cdata(change):
    text, _ = change
    data = indented_set(records=3).replace(b"<Language>", text.encode() + b"<Language>", 1)
    assert cut_unread(data) is data
    assert parse_pubmed_xml(data, rich_parts=False) == as_written(data, False)


def test_a_nested_reference_list_is_cut_whole():
    nested = (b"<ReferenceList><Title>Inner</Title><Reference><Citation>Inner</Citation></Reference>"
              b"</ReferenceList>\n      </ReferenceList>")
    data = indented_set(records=3).replace(b"</ReferenceList>", nested, 1)
    cut = cut_unread(data)
    assert cut.count(b"ReferenceList") == 0 and cut.count(b"<PubmedArticle>") == 3
    for rich_parts in RICH_CHOICES:
        assert parse_pubmed_xml(data, rich_parts=rich_parts) == as_written(data, rich_parts)
    records = parse_pubmed_xml(data)
    assert [r.text for r in records[0].references][-1] == "Inner"


@pytest.mark.parametrize("odd", [b"<ReferenceList/>", b'<ReferenceList Type="x"></ReferenceList>'])
def test_a_list_holding_an_odd_list_is_left_to_the_tree(odd):
    data = indented_set(records=3).replace(b"</ReferenceList>", odd + b"</ReferenceList>", 1)
    assert cut_unread(data) is data
    assert parse_pubmed_xml(data, rich_parts=False) == as_written(data, False)


def test_another_encoding_is_not_cut():
    data = indented_set(records=3).replace(b'encoding="UTF-8"', b'encoding="ISO-8859-1"')
    assert cut_unread(data) is data


def test_a_document_cut_short_fails_as_written():
    data = indented_set()
    for end in (len(data) // 2, data.rindex(b"</History>") + 3, data.rindex(b"</ReferenceList>") + 5):
        short = data[:end]
        with pytest.raises(XmlError) as cut_short:
            parse_pubmed_xml(short, rich_parts=False)
        with pytest.raises(XmlError) as written:
            parse_pubmed_xml(short.decode("utf-8", "ignore"), rich_parts=False)
        assert str(cut_short.value) == str(written.value)


def test_the_corpus_answers_read_the_same_indented(corpus_dir):
    """Real records (the corpus's efetch answers, written compact), indented into one set past the threshold."""
    articles = []
    with open(corpus_dir / "manifest.jsonl", encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            if entry["resource"] == "pubmed_efetch":
                articles += list(parse_xml((corpus_dir / entry["body"]).read_bytes()))
    assert len(articles) >= 5
    root = etree.Element("PubmedArticleSet")
    while len(etree.tostring(root)) < 2 * MIN_DECLARED:
        root.extend(etree.fromstring(etree.tostring(a)) for a in articles)
    etree.indent(root)
    data = PROLOG + etree.tostring(root, encoding="utf-8")
    assert declared(data) is not None
    for rich_parts in RICH_CHOICES:
        records = parse_pubmed_xml(data, rich_parts=rich_parts)
        assert records == as_written(data, rich_parts)
        assert len(records) == len(root)
