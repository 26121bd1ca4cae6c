"""Unpaywall v2 answers: fields, link order and de-duplication, error answers, hostile input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pubfetch.extract.errors import ParseError, ServiceError
from pubfetch.extract.unpaywall import parse_unpaywall
from pubfetch.ids import normalise_doi
from pubfetch.model.parts import Author
from pubfetch.model.record import ArticleRecord, Link
from support.mutations import mutated

DOCS = Path(__file__).parent / "data" / "documents"


def _link(url: str, kind: str = "html") -> Link:
    return Link(url, kind, "unpaywall")


def test_hand_written() -> None:
    r = parse_unpaywall((DOCS / "unpaywall.json").read_bytes())
    assert r.doi == "10.1234/EXAMPLE.2019.001"
    assert r.title == "A Drosophila model of Ca2+ signalling"
    assert (r.journal_title, r.publisher, r.pub_date) == ("Journal of Example Neuroscience", "Example Press",
                                                          "2019-02-14")
    assert r.oa is True
    assert (r.issn, r.eissn) == ("1234-5670", "1234-5679")
    assert r.pub_types == ["journal-article"]
    assert r.authors == [Author("Doe", "Jane", "", "http://orcid.org/0000-0001-2345-6789", []),
                         Author("Roe", "Richard A.", "", "", []),
                         Author("", "", "Glia Consortium", "", [])]
    # best location first (its url is the PDF, so only landing page and PDF), repeated in oa_locations: once;
    # the publisher location's url and landing page are the same address: once
    assert r.links == [_link("https://repo.example.org/1"), _link("https://repo.example.org/1/paper.pdf", "pdf"),
                       _link("https://doi.org/10.1234/example.2019.001")]
    assert r.flags["oa_status"] == "green" and r.flags["journal_issn_l"] == "1234-5670"


def test_corpus_repositories(corpus_dir: Path) -> None:
    r = parse_unpaywall((corpus_dir / "files/unpaywall/10.1038_nature12373.json").read_bytes())
    assert (r.doi, r.title, r.journal_title) == ("10.1038/NATURE12373", "Nanometre-scale thermometry in a living cell",
                                                 "Nature")
    assert (r.pub_date, r.oa, r.issn, r.eissn) == ("2013-07-31", True, "0028-0836", "1476-4687")
    assert r.publisher == "Springer Science and Business Media LLC"
    assert r.links == [
        _link("http://nrs.harvard.edu/urn-3:HUL.InstRepos:12285462"),
        _link("https://dash.harvard.edu/bitstream/1/12285462/1/Nanometer-Scale%20Thermometry.pdf", "pdf"),
        _link("http://europepmc.org/articles/pmc4221854"),
        _link("http://europepmc.org/articles/pmc4221854?pdf=render", "pdf"),
        _link("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC4221854"),
        _link("http://arxiv.org/abs/1304.1068"),
        _link("http://arxiv.org/pdf/1304.1068", "pdf"),
    ]
    assert len(r.authors) == 8 and r.authors[1] == Author("Maurer", "P. C.", "", "", [])


def test_corpus_pdf_without_landing_page(corpus_dir: Path) -> None:
    r = parse_unpaywall((corpus_dir / "files/unpaywall/10.1016_j.jns.2020.116832.json").read_bytes())
    assert r.links == [_link("https://doi.org/10.1016/j.jns.2020.116832", "pdf"),
                       _link("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC7151535")]
    assert r.authors[0] == Author("Asadi-Pooya", "Ali A.", "", "http://orcid.org/0000-0002-2598-7601",
                                  [])
    assert r.flags["oa_status"] == "bronze"


def test_corpus_all(corpus_dir: Path, corpus_manifest: list[dict]) -> None:
    entries = [e for e in corpus_manifest if e["resource"] == "unpaywall"]
    assert len(entries) == 5
    for entry in entries:
        r = parse_unpaywall((corpus_dir / entry["body"]).read_bytes())
        assert r.doi == normalise_doi(entry["ids"]["doi"])
        assert r.oa is True and r.title and r.journal_title and r.links
        assert len({link.url for link in r.links}) == len(r.links)


def test_licence_is_the_best_locations_else_the_first_location_naming_one(corpus_dir: Path) -> None:
    """Compared with the recorded answers read as plain JSON: the licence of the best open location, else the first
    of the open locations that names one."""
    named = 0
    for path in sorted((corpus_dir / "files" / "unpaywall").glob("*.json")):
        d = json.loads(path.read_text(encoding="utf-8"))
        locations = [d.get("best_oa_location") or {}, *(d.get("oa_locations") or [])]
        expected = next((loc["license"] for loc in locations if loc.get("license")), "")
        assert parse_unpaywall(path.read_bytes()).license == expected, path.name
        named += bool(expected)
    assert named >= 2
    d = json.loads((DOCS / "unpaywall.json").read_text(encoding="utf-8"))
    d["best_oa_location"]["license"] = d["oa_locations"][0]["license"] = None  # the best (listed first) names none
    d["oa_locations"][1]["license"] = "cc-by-nc"
    assert parse_unpaywall(json.dumps(d)).license == "cc-by-nc"


def test_closed_article_and_nulls() -> None:
    doc = {"doi": "10.1/x", "is_oa": False, "best_oa_location": None, "oa_locations": [], "title": None,
           "journal_name": "null", "published_date": "2019", "z_authors": None, "journal_issns": None}
    r = parse_unpaywall(json.dumps(doc))
    assert (r.doi, r.oa, r.title, r.journal_title, r.pub_date, r.links, r.authors) == (
        "10.1/X", False, "", "", "", [], [])


def test_error_answers() -> None:
    with pytest.raises(ServiceError, match="isn't in Unpaywall"):
        parse_unpaywall(b'{"HTTP_status_code": 404, "error": true, "message": "\'10.1/x\' isn\'t in Unpaywall."}')
    for bad in (b"", b"[]", b'{"hello": 1}', b"<html/>", b'"x"'):
        with pytest.raises(ParseError):
            parse_unpaywall(bad)


def _mutated() -> st.SearchStrategy[bytes]:
    return mutated(lambda: [(DOCS / "unpaywall.json").read_bytes()])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_mutated_documents_raise_only_value_errors(data: bytes) -> None:
    try:
        record = parse_unpaywall(data)
    except ValueError:
        return
    assert isinstance(record, ArticleRecord)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                        st.sampled_from(["doi", "title", "is_oa", "oa_locations", "best_oa_location", "url",
                                         "url_for_pdf", "z_authors", "given", "journal_issns", "error"]),
                        inner, max_size=6),
                    max_leaves=30))
def test_any_json_shape_raises_only_value_errors(value: object) -> None:
    try:
        parse_unpaywall(json.dumps(value))
    except ValueError:
        pass
