"""Tests for pubfetch.metadata.publication_record: every Publication as an ArticleMetadata record, and
record_writer.records_output."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.metadata import fields as mf
from pubfetch.metadata.article_metadata import ArticleMetadata
from pubfetch.metadata.extractors import split_pages
from pubfetch.metadata.publication_record import PUBLICATION_COOK_MAP, publication_record
from pubfetch.metadata.record_writer import records_output
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartType
from pubfetch.model.parts import Author, CorrespAuthor, MeshTerm, MinedTerm
from pubfetch.model.publication import Publication

ARGS = FetcherArgs()
PAGE = "https://journal.example.org/article/17"


def full_publication() -> Publication:
    pub = Publication(clock=lambda: 0)
    pub.set_pmid("39000001", PartType.pubmed_xml, "https://pubmed/39000001", ARGS)
    pub.set_pmcid("PMC1234567", PartType.pubmed_xml, "https://pubmed/39000001", ARGS)
    pub.set_doi("10.5555/joe.2020.17", PartType.doi, PAGE, ARGS)
    pub.set_title("Tidal patterns in Example Bay", PartType.doi, PAGE, ARGS)
    pub.set_keywords(["tides", "bays"], PartType.doi, PAGE, ARGS)
    pub.set_mesh([MeshTerm("Tidal Waves", True, "D000001")], PartType.pubmed_xml, "https://pubmed/39000001", ARGS)
    pub.set_efo([MinedTerm("ocean", 3, "http://www.ebi.ac.uk/efo/EFO_1")], PartType.europepmc, "https://epmc", ARGS)
    pub.set_abstract("We watched the tides.", PartType.doi, PAGE, ARGS)
    pub.set_fulltext("Tidal patterns in Example Bay\n\nWe watched the tides.\n\nBody.", PartType.doi, PAGE, ARGS)
    pub.set_journal_title("Journal of Examples")
    pub.set_pub_date("2020-05-01")
    pub.set_citations_count(7)
    pub.oa = True
    pub.set_corresp_author([CorrespAuthor("Ana Example", email="ana@example.org")])
    pub.set_authors([Author("Example", "Ana M.", "", "0000-0002-1825-0097", ["Univ A", "Univ B"]),
                     Author(literal="The Example Consortium")])
    pub.set_biblio(volume="16", issue="2", pages="5-19", issn="0740-2783", eissn="1558-8432",
                   publisher="Example Society Press")
    pub.set_pub_types(["Journal Article", "Review"])
    return pub


def test_cooked_fields_of_a_full_publication() -> None:
    am = publication_record(full_publication())
    assert am.to_json()["cooked"] == {
        "abstract": "We watched the tides.",
        "access.url": "https://doi.org/10.5555/joe.2020.17",  # doi.org links in lower case, the DOI as stored
        "article.title": "Tidal patterns in Example Bay",
        "articletype": "journal_article",
        "author": ["Example, Ana M.", "The Example Consortium"],
        "date": "2020-05-01",
        "doi": "10.5555/JOE.2020.17",
        "eissn": "1558-8432",
        "endpage": "19",
        "issn": "0740-2783",
        "issue": "2",
        "keywords": ["tides", "bays"],
        "provider": "Example Society Press",
        "publication.title": "Journal of Examples",
        "publisher": "Example Society Press",
        "pubtype": "journal",
        "startpage": "5",
        "volume": "16",
    }
    assert am.to_json()["invalid"] == {}


def test_raw_keys_are_the_publication_parts_and_fields() -> None:
    am = publication_record(full_publication())
    assert sorted(am.raw_keys()) == [
        "abstract", "authors", "citationscount", "correspauthor", "doi", "efo", "eissn", "fulltext", "issn", "issue",
        "journaltitle", "keywords", "mesh", "oa", "pages", "pmcid", "pmid", "preprint", "pubdate", "publisher",
        "pubtypes", "retracted", "title", "volume",
    ]
    assert am.get_raw("journalTitle") == "Journal of Examples"
    assert am.get_raw("pubdate") == "2020-05-01"
    assert (am.get_raw("oa"), am.get_raw("preprint"), am.get_raw("citationscount")) == ("true", "false", "7")
    assert am.get_raw_list("pubtypes") == ["Journal Article", "Review"]
    assert am.get_raw_map("mesh") == {"term": "Tidal Waves", "majortopic": "true", "uniqueid": "D000001"}
    assert am.get_raw_map("efo") == {"term": "ocean", "count": "3", "uri": "http://www.ebi.ac.uk/efo/EFO_1"}
    assert am.get_raw_map("correspauthor") == {"name": "Ana Example", "orcid": "", "email": "ana@example.org",
                                               "phone": "", "uri": ""}
    assert am.get_raw_list("authors")[0] == {"family": "Example", "given": "Ana M.", "literal": "",
                                             "orcid": "0000-0002-1825-0097", "affiliations": "Univ A; Univ B"}
    assert am.get_raw("fulltext").endswith("Body.")


def test_sparse_publication_falls_back_to_corresp_authors_and_other_links() -> None:
    pub = Publication(clock=lambda: 0)
    pub.set_pmcid("PMC7654321", PartType.europepmc, "https://epmc/x", ARGS)
    pub.set_title("Only a title", PartType.europepmc, "https://epmc/x", ARGS)
    pub.set_corresp_author([CorrespAuthor("Bo Sample"), CorrespAuthor(email="anon@example.org")])
    pub.set_biblio(pages="e4375", issn="1234")
    am = publication_record(pub)
    assert am.to_json()["cooked"] == {
        "access.url": "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC7654321/", "article.title": "Only a title",
        "articletype": "journal_article", "author": ["Bo Sample"], "pubtype": "journal", "startpage": "e4375",
    }
    assert am.get_invalid(mf.FIELD_ISSN).raw_value == "1234"
    assert am.get_raw("pubdate") is None and am.get_raw("citationscount") is None

    pmid_only = Publication(clock=lambda: 0)
    pmid_only.set_pmid("123", PartType.pubmed_xml, "https://pubmed/123", ARGS)
    assert publication_record(pmid_only).get(mf.FIELD_ACCESS_URL) == "https://www.ncbi.nlm.nih.gov/pubmed/?term=123"
    web_only = Publication(clock=lambda: 0)
    web_only.set_title("A web page", PartType.webpage, "https://tool.example.org/", ARGS)
    assert publication_record(web_only).get(mf.FIELD_ACCESS_URL) == "https://tool.example.org/"
    empty = publication_record(Publication(clock=lambda: 0))
    assert empty.to_json()["cooked"] == {"articletype": "journal_article", "pubtype": "journal"}


def test_split_pages() -> None:
    assert [split_pages(p) for p in ("123-130", "e4375", "576", " 12 \u2013 15 ", "a-b-c", "")] == [
        ("123", "130"), ("e4375", ""), ("576", ""), ("12", "15"), ("", ""), ("", "")]
    assert [key for key, _ in PUBLICATION_COOK_MAP.items()][:3] == ["doi", "title", "journaltitle"]


def test_publication_from_a_real_pubmed_record(corpus_dir: Path) -> None:
    (record,) = parse_pubmed_xml((corpus_dir / "files" / "pubmed_efetch" / "pmid_29915538.xml").read_bytes())
    pub = Publication(clock=lambda: 0)
    apply_record(pub, record, PartType.pubmed_xml, "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi", ARGS)
    am = publication_record(pub)
    assert am.get(mf.FIELD_DOI) == pub.doi.content == "10.3389/FPHAR.2018.00576"
    assert am.get(mf.FIELD_PUBLICATION_TITLE) == "Frontiers in pharmacology"
    assert am.get_list(mf.FIELD_AUTHOR)[:2] == ["Shi, Fang-Hong", "Li, Hao"]
    assert (am.get(mf.FIELD_START_PAGE), am.get(mf.FIELD_END_PAGE)) == ("576", None)
    assert am.get_raw("pmid") == "29915538"
    assert am.to_json()["invalid"] == {}


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_records_output_round_trips(fmt: str) -> None:
    pubs = [full_publication(), Publication(clock=lambda: 0)]
    out = io.StringIO()
    assert records_output(pubs, out, fmt) == 2  # type: ignore[arg-type]
    text = out.getvalue()
    data = json.loads(text) if fmt == "json" else [json.loads(line) for line in text.splitlines()]
    assert len(data) == 2
    back = ArticleMetadata.from_json(data[0])
    assert back.get(mf.FIELD_DOI) == "10.5555/JOE.2020.17"
    assert back.get_list(mf.FIELD_AUTHOR) == ["Example, Ana M.", "The Example Consortium"]
    assert data[1]["cooked"] == {"articletype": "journal_article", "pubtype": "journal"}


def test_records_output_of_nothing() -> None:
    out = io.StringIO()
    assert records_output([], out, "json") == 0
    assert json.loads(out.getvalue()) == []
    lines = io.StringIO()
    assert records_output(iter([]), lines, "jsonl") == 0 and lines.getvalue() == ""
    with pytest.raises(ValueError, match="output format must be 'json' or 'jsonl', not 'csv'"):
        records_output([], io.StringIO(), "csv")  # type: ignore[arg-type]


def test_rich_parts_are_raw_maps() -> None:
    from pubfetch.model.part_type import PartType
    from pubfetch.model.retraction import RetractionSource, RetractionVerdict
    from pubfetch.model.rich import Grant, Reference, RichName, Update

    pub = full_publication()
    pub.set_rich(RichName.funding, [Grant("NIGMS NIH HHS", "R01 GM1", "United States")], PartType.pubmed_xml, "u")
    pub.set_rich(RichName.updates, [Update("RetractionIn", "456")], PartType.pubmed_xml, "u")
    pub.set_rich(RichName.references, [Reference(pmid="1", text="A. 2000")], PartType.pubmed_xml, "u")
    pub.set_rich(RichName.license, "https://creativecommons.org/licenses/by/4.0/", PartType.europepmc_xml, "u")
    pub.set_retraction(RetractionVerdict(RetractionSource.pubmed, True))
    am = publication_record(pub)
    assert am.get_raw("funding") == {"agency": "NIGMS NIH HHS", "grantid": "R01 GM1", "country": "United States"}
    assert am.get_raw("updates") == {"type": "RetractionIn", "pmid": "456", "doi": ""}
    assert am.get_raw("references")["text"] == "A. 2000"
    assert (am.get_raw("license"), am.get_raw("retracted")) == ("https://creativecommons.org/licenses/by/4.0/", "true")


def test_the_structure_parts_are_raw_maps() -> None:
    """Tables, figures, supplements and statements have no LOCKSS field: each item is a raw map, a table's rows as
    JSON arrays that read back to the part's."""
    from support.publications import structured_publication

    pub = structured_publication()
    am = publication_record(pub)
    [table] = am.get_raw_list("tables")
    assert isinstance(table, dict)
    assert json.loads(table["header"]) == pub.tables.items[0].header
    assert json.loads(table["rows"]) == pub.tables.items[0].rows
    assert (table["label"], table["truncated"], json.loads(table["sectionpath"])) == ("Table 1", "false",
                                                                                      ["Results", "Dose"])
    assert am.get_raw_list("supplements") == [{"id": "S1", "label": "S1", "caption": "Raw data.",
                                               "url": "https://europepmc.org/articles/PMC7/bin/s1.csv",
                                               "mediatype": "text/csv", "size": "12"}]
    assert [m["type"] for m in am.get_raw_list("statements")] == ["data_availability", "funding"]  # type: ignore[index]
    assert am.get_raw_list("figures")[0]["url"].endswith("/f1.jpg")  # type: ignore[index]


def test_links_and_mined_terms_are_raw_maps() -> None:
    from pubfetch.model.links import TextLink
    from pubfetch.model.mined_terms import TypedTerm
    from pubfetch.model.part_type import PartType
    from pubfetch.model.rich import RichName

    pub = full_publication()
    pub.set_rich(RichName.links, [TextLink("geo", "GSE1", "geo", ("Methods", "Data"), "At GSE1.", True)],
                 PartType.europepmc_xml, "u")
    pub.set_rich(RichName.mined_terms, [TypedTerm("Diseases", "asthma", 3, "http://x/D1")], PartType.europepmc, "u")
    am = publication_record(pub)
    assert am.get_raw("links") == {"kind": "geo", "value": "GSE1", "registry": "geo", "sectionpath": '["Methods", "Data"]',
                                   "sentence": "At GSE1.", "marked": "true"}
    assert am.get_raw("minedterms") == {"type": "Diseases", "term": "asthma", "count": "3", "uri": "http://x/D1"}
