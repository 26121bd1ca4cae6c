"""Europe PMC search answers: hand-written core XML, recorded JSON/XML answers from the corpus, hostile input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pubfetch.extract.errors import ParseError, ServiceError
from pubfetch.extract.europepmc import (
    SearchPage,
    ids_mismatch,
    loose_date,
    markup_text,
    parse_search,
    parse_search_json,
    parse_search_xml,
    pick_result,
)
from pubfetch.extract.xmlsafe import XmlError
from pubfetch.ids import normalise_doi
from pubfetch.model.parts import Author, CorrespAuthor, MeshTerm
from pubfetch.model.record import ArticleRecord, Link
from support.mutations import mutated

DOCS = Path(__file__).parent / "data" / "documents"
SEARCH = "files/europepmc_search"


def _corpus(corpus_dir: Path, name: str) -> bytes:
    return (corpus_dir / SEARCH / name).read_bytes()


# ------------------------------------------------------------------------------------------ hand-written XML


@pytest.fixture(scope="module")
def core_xml() -> SearchPage:
    return parse_search_xml((DOCS / "epmc_search_core.xml").read_bytes())


def test_core_xml_page(core_xml: SearchPage) -> None:
    assert core_xml.hit_count == 2
    assert core_xml.next_cursor_mark == "AoIIQAAAACgxMjM0NTY="
    assert len(core_xml.records) == 2


def test_core_xml_med_record(core_xml: SearchPage) -> None:
    r = core_xml.records[0]
    assert (r.pmid, r.pmcid, r.doi) == ("30000001", "PMC6000001", "10.1234/EXAMPLE.2019.001")
    assert r.title == "A Drosophila model of Ca2+ signalling in glia."
    assert r.abstract == (
        "Background\n\nGlial calcium waves are poorly understood.\n\n"
        "Results\n\nWaves spread faster in mutants (p<0.05, n = 12 & 14).\n\n"
        "Conclusions\n\nGlia matter."
    )
    assert r.keywords == ["glia", "calcium waves", "Drosophila"]
    assert r.mesh == [MeshTerm("Animals", False, ""), MeshTerm("Neuroglia", True, ""),
                      MeshTerm("Calcium Signaling", False, "")]
    assert r.journal_title == "Journal of example neuroscience"
    assert (r.volume, r.issue, r.pages, r.issn, r.eissn) == ("12", "3", "101-110", "1234-5670", "1234-5679")
    assert r.pub_date == "2019-02-14"
    assert r.citations_count == 12
    assert r.oa is True and r.preprint is False
    assert r.pub_types == ["Research Support, Non-U.S. Gov't", "Journal Article"]
    assert r.authors == [
        Author("Doe", "Jane", "", "https://orcid.org/0000-0001-2345-6789",
               [("Institute of Glial Biology, Example University, Tartu, Estonia. Electronic address: "
                "jane.doe@example.org.")]),
        Author("Roe", "Richard", "", "",
               ["Department of Genetics, Example College, Oxford, UK.",
                "Institute of Glial Biology, Example University, Tartu, Estonia."]),
    ]
    assert r.corresp_author == [CorrespAuthor("Jane Doe", "https://orcid.org/0000-0001-2345-6789",
                                              "jane.doe@example.org")]
    # the DOI link is listed twice (DOI and Unpaywall sites): one Link, both entries kept in the flags
    assert r.links == [
        Link("https://doi.org/10.1234/example.2019.001", "html", "europepmc fullTextUrlList"),
        Link("https://europepmc.org/articles/PMC6000001", "html", "europepmc fullTextUrlList"),
        Link("https://europepmc.org/articles/PMC6000001?pdf=render", "pdf", "europepmc fullTextUrlList"),
    ]
    assert [u["availabilityCode"] for u in r.flags["fullTextUrlList"]] == ["S", "OA", "OA", "OA"]
    assert r.flags["source"] == "MED"
    assert r.flags["id"] == "30000001"
    assert {k: r.flags[k] for k in ("inEPMC", "inPMC", "hasPDF", "hasTextMinedTerms", "hasReferences")} == {
        "inEPMC": True, "inPMC": True, "hasPDF": True, "hasTextMinedTerms": True, "hasReferences": False}
    assert r.flags["printPublicationDate"] == "2019-03-01"
    assert r.flags["dateOfPublication"] == "2019 Mar"
    assert r.flags["fullTextIds"] == ["PMC6000001"]


def test_core_xml_preprint(core_xml: SearchPage) -> None:
    r = core_xml.records[1]
    assert (r.pmid, r.pmcid, r.doi) == ("", "", "10.1101/2019.01.01.000001")
    assert r.preprint is True and r.oa is False
    assert r.flags["source"] == "PPR" and r.flags["id"] == "PPR100001"
    assert r.publisher == "bioRxiv"
    assert r.pub_types == ["Preprint"]
    assert r.pub_date == "2019-01-02"
    assert r.citations_count == 0


def test_parse_search_tells_forms_apart() -> None:
    xml = (DOCS / "epmc_search_core.xml").read_bytes()
    assert parse_search(xml).hit_count == 2
    assert parse_search(xml.decode()).hit_count == 2
    assert parse_search(b'{"hitCount": 0, "resultList": {"result": []}}') == SearchPage([], 0, "")


# --------------------------------------------------------------------------------------------- corpus JSON


def test_corpus_oa_fixture(corpus_dir: Path) -> None:
    page = parse_search_json(_corpus(corpus_dir, "epmcmcp_fixture_oa_pmc3320746.json"))
    assert page.hit_count == 1 and page.next_cursor_mark == ""
    (r,) = page.records
    assert (r.pmid, r.pmcid, r.doi) == ("22338609", "PMC3320746", "10.1021/PR200636X")
    assert r.title == ("Statistical considerations of optimal study design for human plasma proteomics and biomarker "
                       "discovery.")
    assert r.abstract.startswith("A mass spectrometry-based plasma biomarker discovery workflow was developed")
    assert r.abstract.endswith("The power analysis provides information required prior to study initiation.")
    assert r.journal_title == "Journal of proteome research"
    assert (r.volume, r.issue, r.pages, r.issn, r.eissn) == ("11", "4", "2103-2113", "1535-3893", "1535-3907")
    assert r.pub_date == "2012-03-12"  # firstPublicationDate, not printPublicationDate 2012-04-01
    assert r.citations_count == 63
    assert r.oa is True and r.preprint is False
    assert len(r.mesh) == 12
    assert r.mesh[:3] == [MeshTerm("Humans"), MeshTerm("Pancreatic Neoplasms"), MeshTerm("Blood Proteins")]
    assert r.mesh[-1] == MeshTerm("Biomarkers, Tumor")
    assert r.pub_types == ["Research Support, Non-U.S. Gov't", "research-article", "Journal Article"]
    assert len(r.authors) == 11
    assert r.authors[0] == Author("Zhou", "Cong", "", "https://orcid.org/0000-0002-6938-4685",
        [("Clinical and Experimental Pharmacology Group, Paterson Institute for Cancer Research, Manchester Academic "
         "Health Science Centre, Christie Hospital, University of Manchester, Wilmslow Road, Manchester M20 4BX, "
         "United Kingdom.")])
    assert r.authors[1] == Author("Simpson", "Kathryn L", "", "", [])
    assert r.corresp_author == []  # no affiliation holds an e-mail address
    assert r.links == [
        Link("https://doi.org/10.1021/pr200636x", "html", "europepmc fullTextUrlList"),
        Link("https://europepmc.org/articles/PMC3320746", "html", "europepmc fullTextUrlList"),
        Link("https://europepmc.org/articles/PMC3320746?pdf=render", "pdf", "europepmc fullTextUrlList"),
    ]
    assert {k: r.flags[k] for k in ("source", "inEPMC", "inPMC", "hasPDF", "hasTextMinedTerms", "hasReferences")} == {
        "source": "MED", "inEPMC": True, "inPMC": True, "hasPDF": True, "hasTextMinedTerms": True,
        "hasReferences": True}


def test_corpus_subscription_fixture(corpus_dir: Path) -> None:
    (r,) = parse_search_json(_corpus(corpus_dir, "epmcmcp_fixture_subscription_med24073682.json")).records
    assert (r.pmid, r.pmcid, r.doi) == ("24073682", "PMC3864987", "10.1517/14740338.2013.827660")
    assert r.oa is False
    assert r.citations_count == 1218
    assert r.pub_date == "2013-09-27"
    assert r.abstract.startswith("Introduction\n\nPolypharmacy, defined as the use of multiple drugs")
    assert "\n\nAreas covered\n\nWe present information about:" in r.abstract
    assert "<" not in r.abstract


def test_corpus_structured_abstract(corpus_dir: Path) -> None:
    (r,) = parse_search_json(_corpus(corpus_dir, "epmcmcp_09f9ebd3a04f8ea29512b7c6.json")).records
    assert (r.pmid, r.pmcid, r.doi) == ("26037986", "", "10.1007/S00068-014-0450-3")
    assert r.abstract.startswith("Aims\n\nEmergency surgery is associated with poorer outcomes")
    assert "\n\nMethods\n\nThis was a retrospective study" in r.abstract
    assert r.oa is False and r.flags["inEPMC"] is False
    assert r.links == [Link("https://doi.org/10.1007/s00068-014-0450-3", "html", "europepmc fullTextUrlList")]


def test_corpus_several_results_and_pick(corpus_dir: Path) -> None:
    page = parse_search_json(_corpus(corpus_dir, "epmcmcp_21ee33699fa147c7c222686a.json"))
    assert page.hit_count == 3
    assert [(r.flags["source"], r.pmid, r.pmcid) for r in page.records] == [
        ("MED", "25432938", ""), ("PMC", "", "PMC7989237"), ("PMC", "", "PMC13439031")]
    assert page.records[1].keywords == ["Global Health", "Covid-19", "Ir Scholarship"]
    assert page.records[1].pub_date == "2021-03-08"
    assert pick_result(page.records) is page.records[0]
    # a PMC asked for by its PMCID: the MED result does not contradict it (no PMCID) and wins on source
    assert pick_result(page.records, pmcid="PMC7989237") is page.records[0]
    assert pick_result(page.records, pmid="1") is page.records[1]


def test_corpus_core_page_corresp_authors(corpus_dir: Path) -> None:
    page = parse_search_json(_corpus(corpus_dir, "pyepmc_search_cancer_core.json"))
    assert page.hit_count == 5059039
    assert page.next_cursor_mark == "AoIIP4ZawSg1MzEyODI1MA=="
    assert len(page.records) == 25
    by_pmid = {r.pmid: r for r in page.records}
    assert by_pmid["39709209"].corresp_author == [
        CorrespAuthor("Jonathan D Schoenfeld", "", "jdschoenfeld@partners.org")]
    assert by_pmid["40527231"].corresp_author == [
        CorrespAuthor("Yan Zhou", "", "zhouyan9893@fjzlhospital.com"),
        CorrespAuthor("Chuanben Chen", "", "chenchuanben2010@126.com")]
    assert by_pmid["40468710"].keywords == ["Cancer", "Acceptance And Commitment Therapy", "Longitudinal",
                                            "Psychological Flexibility", "Cancer Survivorship", "Act"]


def test_corpus_lite_xml(corpus_dir: Path) -> None:
    page = parse_search_xml(_corpus(corpus_dir, "pyepmc_search_cancer.xml"))
    assert page.hit_count == 5059039 and page.next_cursor_mark == "AoIIP4ZawSg1MzEyODI1MA=="
    assert len(page.records) == 25
    r = page.records[1]
    assert (r.pmid, r.pmcid, r.doi) == ("39709208", "PMC12124214", "10.1016/S0140-6736(24)02716-8")
    assert r.title == "Department of Error."
    assert (r.journal_title, r.volume, r.issue, r.pages) == ("Lancet", "404", "10471", "2542")
    assert (r.issn, r.eissn) == ("0140-6736", "1474-547x")
    assert r.pub_types == ["published erratum", "correction"]
    assert r.pub_date == "2025-12-01"
    assert r.flags["inEPMC"] is True and r.flags["hasTextMinedTerms"] is True and r.oa is False


def test_corpus_empty_and_idlist(corpus_dir: Path) -> None:
    assert parse_search_json(_corpus(corpus_dir, "pyepmc_search_no_results.json")) == SearchPage([], 0, "")
    page = parse_search_json(_corpus(corpus_dir, "pyepmc_search_cancer_idlist.json"))
    assert len(page.records) == 25
    assert (page.records[1].pmid, page.records[1].pmcid) == ("39709208", "PMC12124214")
    assert page.records[1].title == "" and page.records[1].flags == {
        "source": "MED", "id": "39709208", "fullTextIds": ["PMC12124214"]}


def test_corpus_every_answer_gives_its_ids(corpus_dir: Path, corpus_manifest: list[dict]) -> None:
    """Every recorded search answer parses, and each ID the manifest says it holds is in one of its records."""
    entries = [e for e in corpus_manifest if e["resource"] == "europepmc_search"]
    assert len(entries) == 16
    for entry in entries:
        page = parse_search((corpus_dir / entry["body"]).read_bytes())
        for kind, values in entry["ids"].items():
            wanted = values if isinstance(values, list) else [values]
            got = {getattr(r, kind) for r in page.records}
            for value in wanted:
                assert (normalise_doi(value) if kind == "doi" else value) in got, (entry["name"], kind, value)


# ---------------------------------------------------------------------------------------------- choosing


def _rec(source: str, pmid: str = "", pmcid: str = "", doi: str = "") -> ArticleRecord:
    return ArticleRecord(pmid=pmid, pmcid=pmcid, doi=doi, flags={"source": source})


def test_pick_result_prefers_med_then_pmc_then_ppr() -> None:
    ppr, pmc, med, other = _rec("PPR"), _rec("PMC"), _rec("MED"), _rec("AGR")
    assert pick_result([other, ppr, pmc]) is pmc
    assert pick_result([other, ppr]) is ppr
    assert pick_result([other, _rec("CTX")]) is other
    assert pick_result([ppr, med, pmc]) is med
    assert pick_result([]) is None


def test_pick_result_skips_contradicting_ids() -> None:
    wrong = _rec("MED", pmid="2")
    right = _rec("PMC", pmid="1")
    assert pick_result([wrong, right], pmid="1") is right
    assert pick_result([wrong, _rec("MED", pmid="3")], pmid="1") is None
    assert pick_result([wrong], pmid="1") is wrong  # a lone result is taken as PubFetcher does


def test_ids_mismatch_and_f1000() -> None:
    r = _rec("MED", doi="10.12688/F1000RESEARCH.1234.2")
    assert ids_mismatch(r, doi="10.12688/f1000research.1234.1") == []
    assert ids_mismatch(_rec("MED", doi="10.1/A"), doi="10.1/b") == ["DOI 10.1/A (expected 10.1/B)"]
    assert ids_mismatch(_rec("MED", pmcid="PMC1"), pmcid="PMC2") == ["PMCID PMC1 (expected PMC2)"]


# ---------------------------------------------------------------------------------------------- helpers


def test_markup_text() -> None:
    assert markup_text("<h4>Aim</h4>Text <i>in</i> it.<h4>Results</h4>x<sup>2</sup> &gt; 1") == (
        "Aim\n\nText in it.\n\nResults\n\nx2 > 1")
    assert markup_text("p<0.05 and a <b>bold</b> claim", paragraphs=False) == "p<0.05 and a bold claim"
    assert markup_text("one<br/>two<p>three</p>", paragraphs=False) == "one two three"
    assert markup_text("   ") == ""


def test_loose_date() -> None:
    assert loose_date("2012 Apr") == "2012-04-01"
    assert loose_date("2012 Apr 5") == "2012-04-05"
    assert loose_date("2015") == "2015-01-01"
    assert loose_date("2015 Spring") == ""
    assert loose_date("Apr 2012") == ""


def test_invalid_ids_are_dropped() -> None:
    doc = {"hitCount": 1, "resultList": {"result": [
        {"source": "MED", "pmid": "0123", "pmcid": "12345", "doi": "10.1/a b", "title": 5, "citedByCount": "x"}]}}
    (r,) = parse_search_json(json.dumps(doc)).records
    assert (r.pmid, r.pmcid, r.doi, r.title, r.citations_count) == ("", "PMC12345", "", "", None)


# -------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("data", [b"", b"   ", b"not json", b"[1, 2]", b'"text"', b'{"version": "6.9"}',
                                  b'{"hitCount": 1, "resultList": []}', b"\xff\xfe{", b"[" * 100000])
def test_bad_json_raises_parse_error(data: bytes) -> None:
    with pytest.raises(ParseError):
        parse_search_json(data)


def test_service_error() -> None:
    with pytest.raises(ServiceError, match="Invalid query"):
        parse_search_json(b'{"errCode": 400, "errMsg": "Invalid query"}')
    with pytest.raises(ServiceError):
        parse_search_xml(b"<responseWrapper><errCode>500</errCode><errMsg>down</errMsg></responseWrapper>")


@pytest.mark.parametrize("data", [b"", b"<responseWrapper><hitCount>", b"<html><body>busy</body></html>",
                                  b"<responseWrapper><version>6.9</version></responseWrapper>"])
def test_bad_xml_raises_value_error(data: bytes) -> None:
    with pytest.raises(ValueError) as info:
        parse_search_xml(data)
    assert isinstance(info.value, (XmlError, ParseError))


def test_xml_entities_are_not_expanded() -> None:
    doc = (b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
           b"<responseWrapper><hitCount>1</hitCount><resultList><result><title>a &x; b</title>"
           b"<pmid>1</pmid></result></resultList></responseWrapper>")
    (r,) = parse_search_xml(doc).records
    assert r.title == "a b" and r.pmid == "1"


# ------------------------------------------------------------------------------------------ property test


def _documents() -> list[bytes]:
    docs = [(DOCS / "epmc_search_core.xml").read_bytes()]
    docs.append(json.dumps({"hitCount": 1, "nextCursorMark": "x", "resultList": {"result": [{
        "source": "MED", "pmid": "1", "title": "<i>T</i>", "abstractText": "<h4>A</h4>b",
        "authorList": {"author": [{
            "firstName": "A", "lastName": "B", "authorId": {"type": "ORCID", "value": "1"},
            "authorAffiliationDetailsList": {"authorAffiliation": [{"affiliation": "a@b.cd"}]}}]},
        "meshHeadingList": {"meshHeading": [{"majorTopic_YN": "Y", "descriptorName": "M"}]},
        "journalInfo": {"journal": {"title": "J", "issn": "1"}, "printPublicationDate": "2000-01-01"},
        "fullTextUrlList": {"fullTextUrl": [{"documentStyle": "pdf", "url": "https://x/y.pdf"}]},
        "citedByCount": 3, "isOpenAccess": "Y"}]}}).encode())
    return docs


def _mutated() -> st.SearchStrategy[bytes]:
    return mutated(lambda: _documents())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_mutated_documents_raise_only_value_errors(data: bytes) -> None:
    for parse in (parse_search, parse_search_json, parse_search_xml):
        try:
            page = parse(data)
        except ValueError:
            continue
        assert all(isinstance(r, ArticleRecord) for r in page.records)


_KEYS = ["hitCount", "resultList", "result", "source", "pmid", "pmcid", "doi", "title", "abstractText", "authorList",
         "author", "firstName", "lastName", "authorId", "type", "value", "authorAffiliationDetailsList",
         "authorAffiliation", "affiliation", "journalInfo", "journal", "issn", "meshHeadingList", "meshHeading",
         "descriptorName", "majorTopic_YN", "keywordList", "keyword", "fullTextUrlList", "fullTextUrl", "url",
         "documentStyle", "pubTypeList", "pubType", "citedByCount", "isOpenAccess", "firstPublicationDate", "errMsg"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(_KEYS), inner,
                                                                                max_size=6),
                    max_leaves=25))
def test_any_json_shape_raises_only_value_errors(value: object) -> None:
    for doc in (value, {"hitCount": 1, "resultList": {"result": [value]}}, {"resultList": {"result": value}}):
        try:
            parse_search_json(json.dumps(doc))
        except ValueError:
            pass


def test_authors_by_name_parts_a_collective_as_a_literal_and_a_short_full_name_split() -> None:
    answer = {"hitCount": 1, "resultList": {"result": [{"id": "1", "source": "MED", "pmid": "1", "title": "T",
              "authorList": {"author": [
                  {"fullName": "Ullah MA", "lastName": "Ullah", "firstName": "Mirza Ahsan", "initials": "MA"},
                  {"collectiveName": "ASPIRE Investigators"},
                  {"fullName": "Kim J"}]}}]}}
    [record] = parse_search(json.dumps(answer)).records
    assert record.authors == [Author("Ullah", "Mirza Ahsan"), Author(literal="ASPIRE Investigators"),
                              Author("Kim", "J")]
