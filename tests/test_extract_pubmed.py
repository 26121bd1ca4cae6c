"""PubMed efetch XML parser: recorded answers (corpus), a hand-written mixed set, bad input and mutated documents."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pubfetch.extract.errors import ParseError, ServiceError
from pubfetch.extract.pubmed import _EMAIL, format_abstract, normalise_orcid, parse_pubmed_xml
from pubfetch.model.parts import Author, CorrespAuthor, MeshTerm
from pubfetch.model.record import ArticleRecord
from support.mutations import MUTATIONS, mutate
from support.readings import as_read

DOCS = Path(__file__).parent / "data" / "documents" / "pubmed"
MIXED = DOCS / "mixed_set.xml"


def corpus_body(corpus_dir: Path, pmid: str) -> bytes:
    """The recorded efetch answer for one PMID, found through the manifest's ids."""
    with open(corpus_dir / "manifest.jsonl", encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            if entry["resource"] == "pubmed_efetch" and entry["ids"].get("pmid") == pmid:
                return (corpus_dir / entry["body"]).read_bytes()
    pytest.skip(f"no recorded efetch answer for PMID {pmid}")


def one(data: bytes) -> ArticleRecord:
    records = parse_pubmed_xml(data)
    assert len(records) == 1
    return records[0]


# ------------------------------------------------------------------------------------------------------ corpus


def test_structured_abstract_mesh_and_dates(corpus_dir: Path) -> None:
    r = one(corpus_body(corpus_dir, "22351513"))
    assert (r.pmid, r.pmcid, r.doi) == ("22351513", "", "10.1002/jsfa.5627")
    assert r.title == ("Variation in oil content and fatty acid composition of the seed oil of Acacia species collected "
                       "from the northwest zone of India.")
    sections = r.abstract.split("\n\n")
    assert [s.split(":", 1)[0] for s in sections] == ["BACKGROUND", "RESULTS", "CONCLUSION"]
    assert sections[0] == (
        "BACKGROUND: The oil content and fatty acid composition of the mature seeds of Acacia species collected from "
        "natural habitat of the northwest zone of the Indian subcontinent (Rajasthan) were analyzed in order to "
        "determine their potential for human or animal consumption.")
    assert sections[1].startswith("RESULTS: Oil content varied between 40 and 102 g kg\u207b\u00b9. The highest")
    assert "Copyright" not in r.abstract
    assert r.mesh[0] == MeshTerm("Acacia", False, "D000045")  # qualifier chemistry is major, the descriptor is not
    assert MeshTerm("India", False, "D007194") in r.mesh
    assert [m.term for m in r.mesh][-2:] == ["Seeds", "Species Specificity"]
    assert len(r.mesh) == 10
    assert r.keywords == []
    assert r.journal_title == "Journal of the science of food and agriculture"
    assert (r.issn, r.eissn, r.volume, r.issue, r.pages) == ("", "1097-0010", "92", "11", "2310-5")
    assert r.pub_date == "2012-02-20"  # ArticleDate (electronic), as PubFetcher
    assert r.flags["journal_date"] == "2012-08-30"
    assert r.flags["publication_status"] == "ppublish"
    assert r.pub_types == ["Journal Article", "Research Support, Non-U.S. Gov't"]
    assert r.preprint is False
    assert [a.full_name for a in r.authors] == ["Riyazuddeen Khan", "Ruchi Srivastava", "Mather Ali Khan", "Pravej Alam",
                                           "Malik Zainul Abdin", "Mahmooduzzafar"]
    assert r.authors[0].affiliations == ["Department of Botany, Jamia Hamdard, Hamdard Nagar, New Delhi 110062, India."]
    assert r.authors[5] == Author(family="Mahmooduzzafar")
    assert r.corresp_author == []


def test_pmcid_keywords_and_references_not_taken(corpus_dir: Path) -> None:
    r = one(corpus_body(corpus_dir, "29915538"))
    assert (r.pmid, r.pmcid, r.doi) == ("29915538", "PMC5994433", "10.3389/fphar.2018.00576")
    assert r.keywords == ["glucagon-like peptide-1 receptor agonists", "meta-analysis",
                          "randomized controlled trials", "semaglutide", "type 2 diabetes"]
    assert r.mesh == []
    assert r.abstract.startswith("Background: Semaglutide, a newly once-weekly glucagon like peptide-1 (GLP-1) receptor")
    assert "\n" not in r.abstract  # one unlabelled AbstractText with inline <b> labels
    assert "I2 test" in r.abstract and "P < 0.001" in r.abstract
    assert (r.issn, r.eissn, r.volume, r.issue, r.pages) == ("1663-9812", "", "9", "", "576")
    assert r.pub_date == "2018-06-04"
    assert r.flags["journal_date"] == "2018"
    assert len(r.authors) == 6 and r.authors[1].full_name == "Hao Li"


def test_print_only_article_has_no_complete_date(corpus_dir: Path) -> None:
    r = one(corpus_body(corpus_dir, "1234567"))
    assert (r.pmid, r.doi) == ("1234567", "10.1159/000398269")
    assert r.abstract == ""
    assert r.pub_date == ""  # no ArticleDate and PubDate is a year only
    assert r.flags["journal_date"] == "1975"
    assert r.journal_title == "Frontiers of hormone research"
    assert (r.issn, r.volume, r.pages) == ("0301-3073", "3", "94-104")
    assert [m.term for m in r.mesh if m.major_topic] == ["Castration", "Menopause"]
    assert [a.full_name for a in r.authors] == ["L Rauramo", "K Lagerspetz", "P Engblom", "R Punnonen"]


@pytest.mark.parametrize(("pmid", "email", "name"), [
    ("20412080", "peter.robinson@charite.de", "P N Robinson"),
    ("22528466", "williaml@thegreencell.com", "William Lowther"),
    ("23121403", "aspire@ctc.usyd.edu.au", "Timothy A Brighton"),
])
def test_corresponding_author_from_affiliation_email(corpus_dir: Path, pmid: str, email: str, name: str) -> None:
    r = one(corpus_body(corpus_dir, pmid))
    assert r.corresp_author == [CorrespAuthor(name=name, email=email)]


def test_collective_author_and_labels(corpus_dir: Path) -> None:
    r = one(corpus_body(corpus_dir, "23121403"))
    assert r.title == "Low-dose aspirin for preventing recurrent venous thromboembolism."
    assert r.authors[-1] == Author(literal="ASPIRE Investigators")  # a CollectiveName
    assert len(r.authors) == 13  # investigators are not authors
    assert [s.split(":", 1)[0] for s in r.abstract.split("\n\n")] == ["BACKGROUND", "METHODS", "RESULTS", "CONCLUSIONS"]
    assert r.pub_date == "2012-11-04" and r.flags["journal_date"] == "2012-11-22"
    assert (r.volume, r.issue, r.pages) == ("367", "21", "1979-87")
    assert r.doi == "10.1056/NEJMoa1210384"


def test_many_articles_in_one_set_keep_their_own_values(corpus_dir: Path) -> None:
    """A batch answer: the articles of several recordings in one PubmedArticleSet, built in memory."""
    pmids = ["1234567", "29915538", "20412080"]
    articles = []
    for pmid in pmids:
        text = corpus_body(corpus_dir, pmid).decode("utf-8")
        start, end = text.index("<PubmedArticle>"), text.rindex("</PubmedArticleSet>")
        articles.append(text[start:end])
    records = parse_pubmed_xml("<PubmedArticleSet>" + "".join(articles) + "</PubmedArticleSet>")
    assert [r.pmid for r in records] == pmids
    assert [r.pmcid for r in records] == ["", "PMC5994433", ""]
    assert [bool(r.keywords) for r in records] == [False, True, False]
    assert records[2].title == "The human phenotype ontology."


@pytest.mark.parametrize("rich_parts", [True, False])
@pytest.mark.usefixtures("as_parsed_from")
def test_recorded_answers_read_as_they_come_are_read_as_a_whole_tree(corpus_dir: Path, rich_parts: bool) -> None:
    """Streams (and large bytes) are read article by article while libxml2 parses the rest, text from its whole
    tree: the recorded answers, one by one and joined in one set, give the same records either way."""
    files = sorted((corpus_dir / "files" / "pubmed_efetch").glob("*.xml"))
    bodies = [path.read_bytes() for path in files]
    joined = b"<PubmedArticleSet>" + b"".join(
        body[body.index(b"<PubmedArticle>"):body.rindex(b"</PubmedArticleSet>")] for body in bodies
    ) + b"</PubmedArticleSet>"
    for body in [*bodies, joined]:
        whole = as_read(parse_pubmed_xml(body.decode("utf-8"), rich_parts=rich_parts))
        assert whole and as_read(parse_pubmed_xml(body, rich_parts=rich_parts)) == whole
        assert as_read(parse_pubmed_xml(io.BytesIO(body), rich_parts=rich_parts)) == whole
    assert len(parse_pubmed_xml(joined)) == len(bodies)


# -------------------------------------------------------------------------------------------- hand-written set


@pytest.mark.usefixtures("as_parsed_from")
def test_the_hand_written_set_read_as_it_comes_is_read_as_a_whole_tree() -> None:
    data = MIXED.read_bytes()
    whole = as_read(parse_pubmed_xml(data.decode("utf-8")))
    assert len(whole) == 2 and as_read(parse_pubmed_xml(data)) == whole
    assert as_read(parse_pubmed_xml(io.BytesIO(data))) == whole


@pytest.mark.usefixtures("as_parsed_from")
def test_only_the_sets_own_articles_are_read() -> None:
    """An article nested below another element of the set is not one of the set's, read as it comes or whole."""
    xml = ("<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>T</ArticleTitle>"
           "</Article></MedlineCitation></PubmedArticle><Wrapper><PubmedArticle><MedlineCitation><PMID>2</PMID>"
           "<Article><ArticleTitle>U</ArticleTitle></Article></MedlineCitation></PubmedArticle></Wrapper>"
           "</PubmedArticleSet>")
    for data in (xml, xml.encode()):
        assert [(r.pmid, r.title) for r in parse_pubmed_xml(data)] == [("1", "T")]


def test_mixed_set_journal_article() -> None:
    article, _ = parse_pubmed_xml(MIXED.read_bytes())
    assert (article.pmid, article.pmcid) == ("38800001", "PMC10700001")  # digits-only pmc id gets its prefix
    assert article.doi == "10.1101/2023.12.01.569999"  # the ValidYN=N ELocationID is skipped, references ignored
    assert article.title == "Lumevetikad kevadel."  # [Not Available] -> VernacularTitle
    assert article.abstract == ("BACKGROUND: Snow algae bloom in spring.\n\nUnlabelled middle part.\n\n"
                                "CONCLUSIONS: They colour the snow red.")
    assert article.keywords == ["snow algae", "red snow"]
    assert article.preprint is True and article.pub_types == ["Preprint"]
    assert article.pub_date == "" and article.flags["journal_date"] == "2023"  # MedlineDate range: year only
    assert article.eissn == "2692-8205" and article.issn == ""
    assert article.authors[0] == Author(
        family="Kivi", given="Mari-Liis", orcid="https://orcid.org/0000-0002-1825-0097",
        affiliations=["Department of Botany, University of Somewhere, Somewhere, Estonia.",
                      "Snow Lab, Elsewhere. Electronic address: ml.kivi@example.org."])
    assert (article.authors[1].family, article.authors[1].given) == ("Mets Jr", "Jaan")  # the Suffix kept
    assert article.authors[1].orcid == "https://orcid.org/0000-0001-5109-370X"
    assert article.corresp_author == [CorrespAuthor(name="Mari-Liis Kivi", orcid="https://orcid.org/0000-0002-1825-0097",
                                                    email="ml.kivi@example.org")]


def test_mixed_set_book_article() -> None:
    book = parse_pubmed_xml(MIXED.read_text(encoding="utf-8"))[1]
    assert (book.pmid, book.pmcid, book.doi) == ("20300001", "", "")
    assert book.title == "Snow blindness"
    assert book.abstract == "CLINICAL CHARACTERISTICS: Eyes hurt after bright snow.\n\nMANAGEMENT: Wear sunglasses."
    assert [a.full_name for a in book.authors] == ["Anu Lumi"]  # editors are not authors
    assert book.publisher == "University of Somewhere Press"
    assert book.pub_types == ["Review"]
    assert book.flags["book"] is True and book.flags["book_title"] == "Invented Reviews"
    assert book.flags["isbn"] == "9780000000001"
    assert book.flags["journal_date"] == "1993" and book.pub_date == ""


def test_whole_book_falls_back_to_book_title_and_authors() -> None:
    xml = """<PubmedArticleSet><PubmedBookArticle><BookDocument><PMID>20300002</PMID><Book>
      <BookTitle>A Whole Book</BookTitle><PubDate><Year>2004</Year><Month>Mar</Month><Day>9</Day></PubDate>
      <AuthorList Type="authors"><Author><LastName>Raamat</LastName><ForeName>Rein</ForeName></Author></AuthorList>
      </Book></BookDocument></PubmedBookArticle></PubmedArticleSet>"""
    (book,) = parse_pubmed_xml(xml)
    assert (book.pmid, book.title, book.pub_date) == ("20300002", "A Whole Book", "2004-03-09")
    assert [a.full_name for a in book.authors] == ["Rein Raamat"]


def test_a_versioned_pmcid_is_the_articles(caplog: pytest.LogCaptureFixture) -> None:
    """PubMed names the version of a versioned article it links (PMID 30271887 in MEDLINE's 2021 update files,
    Wellcome Open Research's fourth version): the record keeps the article's PMCID, without a word in the log; a
    reference naming a version is the same paper."""
    xml = """<PubmedArticleSet><PubmedArticle><MedlineCitation Status="PubMed-not-MEDLINE" Owner="NLM">
      <PMID Version="1">30271887</PMID><Article><ArticleTitle>Sex chromosome trisomy.</ArticleTitle></Article>
      </MedlineCitation><PubmedData><ArticleIdList>
        <ArticleId IdType="pubmed">30271887</ArticleId>
        <ArticleId IdType="doi">10.12688/wellcomeopenres.14677.4</ArticleId>
        <ArticleId IdType="pmc">PMC6134338.4</ArticleId>
      </ArticleIdList><ReferenceList><Reference><Citation>Earlier version.</Citation><ArticleIdList>
        <ArticleId IdType="pmc">PMC6134338.1</ArticleId></ArticleIdList></Reference></ReferenceList>
      </PubmedData></PubmedArticle></PubmedArticleSet>"""
    with caplog.at_level("DEBUG", logger="pubfetch"):
        (record,) = parse_pubmed_xml(xml)
    assert (record.pmid, record.pmcid, record.doi) == ("30271887", "PMC6134338", "10.12688/wellcomeopenres.14677.4")
    assert [(r.pmcid, r.text) for r in record.references] == [("PMC6134338", "Earlier version.")]
    assert not [r for r in caplog.records if "PMCID" in r.getMessage()]


def test_an_empty_article_id_names_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """MEDLINE's files hold some ``<ArticleId IdType="doi"></ArticleId>``: no ID, and nothing to warn about, while a
    DOI that is not one is still said to be invalid."""
    xml = """<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID Version="1">420999</PMID><Article>
      <ArticleTitle>T.</ArticleTitle><ELocationID EIdType="doi" ValidYN="Y">10.1000/from.elocation</ELocationID>
      </Article></MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">420999</ArticleId>
      <ArticleId IdType="doi"></ArticleId><ArticleId IdType="pmc"> </ArticleId></ArticleIdList></PubmedData>
      </PubmedArticle></PubmedArticleSet>"""
    with caplog.at_level("DEBUG", logger="pubfetch"):
        (record,) = parse_pubmed_xml(xml)
    assert (record.pmid, record.pmcid, record.doi) == ("420999", "", "10.1000/from.elocation")
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == []
    with caplog.at_level("DEBUG", logger="pubfetch"):
        parse_pubmed_xml(xml.replace('<ArticleId IdType="doi"></ArticleId>', '<ArticleId IdType="doi">no</ArticleId>'))
    assert "invalid DOI 'no' in PubMed XML" in [r.getMessage() for r in caplog.records]


def test_empty_set_gives_no_records() -> None:
    assert parse_pubmed_xml(b'<?xml version="1.0" ?>\n<PubmedArticleSet></PubmedArticleSet>\n') == []
    assert parse_pubmed_xml("<PubmedArticleSet>\n</PubmedArticleSet>") == []


@pytest.mark.usefixtures("as_parsed_from")
@pytest.mark.parametrize("as_bytes", [False, True])
def test_single_article_root_is_accepted(as_bytes: bool) -> None:
    xml = ("<PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>T</ArticleTitle></Article>"
           "</MedlineCitation></PubmedArticle>")
    assert [(r.pmid, r.title) for r in parse_pubmed_xml(xml.encode() if as_bytes else xml)] == [("1", "T")]


@pytest.mark.parametrize(("article_date", "expected"), [
    ("<Year>2012</Year>", "2012-01-01"),
    ("<Year>2012</Year><Month>7</Month>", "2012-07-01"),
    ("<Year>2012</Year><Month>Feb</Month><Day>29</Day>", "2012-02-29"),
    ("<Year>2013</Year><Month>02</Month><Day>29</Day>", ""),
    ("<Year>12</Year>", ""),
])
def test_article_date_padding(article_date: str, expected: str) -> None:
    xml = (f"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>5</PMID><Article><ArticleTitle>T</ArticleTitle>"
           f"<ArticleDate DateType='Electronic'>{article_date}</ArticleDate></Article></MedlineCitation>"
           f"</PubmedArticle></PubmedArticleSet>")
    assert one(xml.encode()).pub_date == expected


@pytest.mark.parametrize("affiliation", [
    "Department of Snow, University of Somewhere, 12345 Somewhere, Estonia. Electronic address: ml.kivi@example.org.",
    "a" * 70 + "@example.org",  # a local part longer than an address's: its last 64 characters
    "Lab @ home, then x" * 5 + " and later mets.jaan@example.ee",  # an "@" of no address before one
    "no address here", "first@example.org and second@example.org", "\u00e9" * 80 + "ab@example.de",
])
def test_the_corresponding_authors_address_is_the_first_match_of_the_pattern(affiliation: str) -> None:
    xml = ("<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>5</PMID><Article><ArticleTitle>T</ArticleTitle>"
           "<AuthorList><Author><LastName>Kivi</LastName><AffiliationInfo><Affiliation>"
           f"{affiliation}</Affiliation></AffiliationInfo></Author></AuthorList></Article></MedlineCitation>"
           "</PubmedArticle></PubmedArticleSet>")
    found = _EMAIL.search(affiliation)  # the pattern searched from the affiliation's start
    assert [c.email for c in one(xml.encode()).corresp_author] == ([found.group()] if found else [])


def test_format_abstract_and_orcid_helpers() -> None:
    assert format_abstract([("A", "one"), ("", "two"), ("B", "")]) == "A: one\n\ntwo"
    assert normalise_orcid("0000-0002-1825-009x") == "https://orcid.org/0000-0002-1825-009X"
    assert normalise_orcid("no orcid") == ""


# --------------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("data", [b"", b"   ", "not xml at all", b"<PubmedArticleSet><PubmedArticle>", None])
def test_not_xml_raises_value_error(data: bytes | str | None) -> None:
    with pytest.raises(ValueError):
        parse_pubmed_xml(data)  # type: ignore[arg-type]


@pytest.mark.parametrize("xml", ["<pmc-articleset><article/></pmc-articleset>",
                                 "<Wrapper><PubmedArticle><MedlineCitation><PMID>1</PMID></MedlineCitation>"
                                 "</PubmedArticle></Wrapper>"])
@pytest.mark.usefixtures("as_parsed_from")
@pytest.mark.parametrize("as_bytes", [False, True])
def test_wrong_root_raises_parse_error(xml: str, as_bytes: bool) -> None:
    with pytest.raises(ParseError, match="PubmedArticleSet"):
        parse_pubmed_xml(xml.encode() if as_bytes else xml)


@pytest.mark.usefixtures("as_parsed_from")
@pytest.mark.parametrize("as_bytes", [False, True])
def test_efetch_error_answer_raises_service_error(as_bytes: bool) -> None:
    xml = "<eFetchResult><ERROR>Cannot retrieve history data.</ERROR></eFetchResult>"
    with pytest.raises(ServiceError, match="Cannot retrieve"):
        parse_pubmed_xml(xml.encode() if as_bytes else xml)


def test_external_entities_are_not_resolved(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET", encoding="utf-8")
    xml = (f'<!DOCTYPE PubmedArticleSet [<!ENTITY x SYSTEM "file://{secret}">]>'
           "<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>7</PMID><Article>"
           "<ArticleTitle>A &x; title</ArticleTitle></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>")
    try:
        records = parse_pubmed_xml(xml)
    except ValueError:
        return
    assert all("TOP SECRET" not in r.title for r in records)


# -------------------------------------------------------------------------------------------------- properties






def _check(data: bytes) -> None:
    try:
        records = parse_pubmed_xml(data)
    except ValueError:
        return
    assert isinstance(records, list)
    assert all(isinstance(r, ArticleRecord) for r in records)


@settings(max_examples=150, deadline=None)
@given(cuts=MUTATIONS)
def test_mutated_hand_written_set_only_raises_value_error(cuts: list[tuple[int, int, int]]) -> None:
    _check(mutate(MIXED.read_bytes(), cuts))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(index=st.integers(0, 5), cuts=MUTATIONS)
def test_mutated_recorded_answers_only_raise_value_error(corpus_dir: Path, index: int,
                                                         cuts: list[tuple[int, int, int]]) -> None:
    files = sorted((corpus_dir / "files" / "pubmed_efetch").glob("*.xml"))
    _check(mutate(files[index % len(files)].read_bytes(), cuts))
