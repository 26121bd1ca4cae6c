"""An indented efetch answer (a MEDLINE file's layout) made for the tests of its parse without indentation and
without what a run does not read: records with inline markup, MathML, blanks between inline elements, a history, a
grant, a correction and a reference list."""

from __future__ import annotations

from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.model.rich import RichName

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
