"""The Crossref parser on every recorded Crossref answer of ../shared/corpus/apis.jsonl: each record equals the
recorded work field by field, the expected values read from the JSON here (json only); error answers raise; and
retraction notices in Crossref's documented ``update-to``/``updated-by`` shape (no recorded work has one: the shape is
that of the recorded correction notices of 10.1073/pnas.1414271111 and 10.1371/journal.pone.0033693, with Crossref's
update type ``retraction``)."""

from __future__ import annotations

import json

import pytest

from pubfetch.extract.crossref import UPDATE_TYPES, jats_abstract, parse_crossref, update_of
from pubfetch.extract.errors import ParseError, ServiceError
from pubfetch.model.retraction import RetractionSource, RetractionVerdict
from pubfetch.model.rich import Relation, Update
from support.apis_corpus import answered, orcid, recorded, squash, upper_doi, words

RESOURCES = ("crossref_work", "crossref_works_filter", "crossref_search")
#: docs/output.md's table, for the types the recordings and the synthetic notices use
RETRACTION_IN, RETRACTION_OF, ERRATUM_IN = "RetractionIn", "RetractionOf", "ErratumIn"


def works_of(doc: dict) -> list[dict]:
    message = doc["message"]
    return [message] if doc["message-type"] == "work" else message.get("items", [])


def expected_authors(work: dict) -> list[tuple]:
    """(given, family, the name as written, ORCID, affiliations); an organisation's ``name`` has no given or family
    (the record splits it as it splits every single-string name: only the name as written is compared)."""
    out = []
    for a in work.get("author", []):
        affiliations = [words(x.get("name")) for x in a.get("affiliation", []) if words(x.get("name"))]
        given, family = words(a.get("given")), words(a.get("family"))
        written = " ".join(p for p in (given, family) if p) or words(a.get("name"))
        out.append((given, family, written, orcid(a.get("ORCID")), affiliations))
    return out


def read_authors(record, work: dict) -> list[tuple]:
    return [(a.given if w.get("given") or w.get("family") else given, a.family if w.get("given") or w.get("family")
             else family, a.full_name, a.orcid, a.affiliations)
            for a, w, (given, family, *_) in zip(record.authors, work.get("author", []), expected_authors(work),
                                                   strict=True)]


def expected_date(work: dict) -> tuple[str, str]:
    """(pub_date, date_partial) of ``published``, else ``issued``."""
    parts = (work.get("published") or work.get("issued") or {}).get("date-parts") or [[]]
    day = [p for p in parts[0] if isinstance(p, int)]
    if len(day) == 3:
        return f"{day[0]:04d}-{day[1]:02d}-{day[2]:02d}", ""
    return "", "-".join(f"{p:02d}" if i else f"{p:04d}" for i, p in enumerate(day))


def check_work(record, work: dict) -> None:
    where = work.get("DOI")
    assert record.doi == upper_doi(work["DOI"]), where
    title = (work.get("title") or [""])[0]
    subtitle = (work.get("subtitle") or [""])[0]
    assert squash(record.title) == squash(title) + (":" + squash(subtitle) if title and subtitle else ""), where
    abstract = squash(work.get("abstract"))
    if abstract.lower().startswith("abstract") and not squash(record.abstract).lower().startswith("abstract"):
        abstract = abstract[len("abstract"):]
    assert squash(record.abstract) == abstract, where
    assert read_authors(record, work) == expected_authors(work), where
    journal = (work.get("container-title") or [""])[0] or (work.get("institution") or [{}])[0].get("name", "")
    assert record.journal_title == words(journal), where
    assert (record.volume, record.issue, record.pages, record.publisher) == tuple(
        words(work.get(k)) for k in ("volume", "issue", "page", "publisher")), where
    issns = {i["type"]: i["value"] for i in reversed(work.get("issn-type", []))}
    assert (record.issn, record.eissn) == (issns.get("print", ""), issns.get("electronic", "")), where
    day, partial = expected_date(work)
    assert (record.pub_date, record.flags.get("date_partial", "")) == (day, partial), where
    assert record.pub_types == [work["type"]], where
    assert record.preprint == (work["type"] == "posted-content" and work.get("subtype") == "preprint"), where
    funding = [(words(f.get("name")), award) for f in work.get("funder", []) for award in (f.get("award") or [""])]
    assert [(g.agency, g.grant_id) for g in record.funding] == [f for f in funding if f != ("", "")], where
    licences = [(lic["content-version"], lic["URL"]) for lic in work.get("license") or []]
    vor = [url for version, url in licences if version == "vor"]
    assert record.license == (vor or [url for _, url in licences] or [""])[0], where
    references = work.get("reference", [])
    assert [r.doi for r in record.references] == [upper_doi(r.get("DOI")) for r in references], where
    assert [squash(r.text) for r in record.references] == [squash(r.get("unstructured")) for r in references], where
    assert [squash(r.title) for r in record.references] == [
        squash(r.get("article-title") or r.get("volume-title")) for r in references], where
    types = {"correction": ERRATUM_IN}
    assert record.updates == [Update(types[u["type"]], doi=upper_doi(u["DOI"])) for u in work.get("updated-by", [])]
    assert "update-to" not in work and record.retraction == RetractionVerdict(RetractionSource.crossref, False), where
    relations = [Relation(kind, upper_doi(item["id"])) for kind, items in (work.get("relation") or {}).items()
                 if kind in ("is-preprint-of", "has-preprint", "is-version-of", "has-version")
                 for item in items if item["id-type"] == "doi"]
    assert record.relations == relations, where


def test_every_recorded_work_reads_field_by_field(corpus_dir):
    checked = 0
    for entry, doc in answered(corpus_dir, *RESOURCES):
        records = parse_crossref(json.dumps(doc))
        works = works_of(doc)
        assert len(records) == len(works), entry["name"]
        for record, work in zip(records, works, strict=True):
            check_work(record, work)
            checked += 1
    # 16 single works, the 3-DOI filter batch, the 5-work sample, 3 full-text works, 2 + 20 + 20 + 1 search hits
    assert checked >= 60


def test_recorded_features_are_read(corpus_dir):
    """The features the corpus README names are there, so the field-by-field test cannot pass on empty records."""
    by_doi = {r.doi: r for entry, body in recorded(corpus_dir, *RESOURCES) if entry["status"] == 200
              for r in parse_crossref(body)}
    pnas = by_doi["10.1073/PNAS.1414271111"]
    assert pnas.abstract.startswith("Significance\n\nThe inadequate mechanical properties")
    assert pnas.updates == [Update(ERRATUM_IN, doi="10.1073/PNAS.1507001112")]
    assert len(pnas.references) == 69
    assert by_doi["10.1101/2024.04.01.587366"].relations == [Relation("is-preprint-of", "10.1016/J.XGEN.2025.100814")]
    assert by_doi["10.1101/2024.04.01.587366"].preprint
    assert by_doi["10.3389/FGENE.2017.00147"].relations == [Relation("has-preprint", "10.1101/171108")]
    assert ("Division of Ocean Sciences", "1736771") in [(g.agency, g.grant_id)
                                                        for g in by_doi["10.5194/CP-2020-95"].funding]
    assert {"10.1162/QSS_A_00348", "10.1007/10452.1573-5125", "10.1007/S11192-025-05390-3"} <= set(by_doi)


@pytest.mark.parametrize("name, error", [
    ("crossref-work-404-notarealdoi", ParseError),
    ("crossref-work-404-arxiv-datacite-doi", ParseError),
    ("crossref-work-400-query-with-doi", ServiceError),
    ("crossref-search-404-bad-cursor", ServiceError),
    ("crossref-search-500-cursor-5", ServiceError),
])
def test_error_answers_raise(corpus_dir, name, error):
    body = next(body for entry, body in recorded(corpus_dir, *RESOURCES) if entry["name"] == name)
    with pytest.raises(error):
        parse_crossref(body)


def test_empty_list_page_has_no_records(corpus_dir):
    body = next(body for entry, body in recorded(corpus_dir, *RESOURCES)
                if entry["name"] == "crossref-search-title-no-results")
    assert parse_crossref(body) == []


def _notice(doi: str, key: str, target: str) -> dict:
    """A work in the recorded correction's shape, with update type ``retraction``."""
    return {"DOI": doi, "type": "journal-article", "title": ["Retraction"], key: [
        {"updated": {"date-parts": [[2020, 1, 2]], "date-time": "2020-01-02T00:00:00Z", "timestamp": 1577923200000},
         "DOI": target, "type": "retraction", "source": "publisher", "label": "Retraction"}]}


def test_retraction_both_directions():
    answer = {"status": "ok", "message-type": "work-list", "message": {"items": [
        _notice("10.1000/paper", "updated-by", "10.1000/notice"), _notice("10.1000/notice", "update-to", "10.1000/p2")]}}
    paper, notice = parse_crossref(json.dumps(answer))
    assert paper.updates == [Update(RETRACTION_IN, doi="10.1000/NOTICE")]
    assert paper.retraction == RetractionVerdict(RetractionSource.crossref, True)
    assert notice.updates == [Update(RETRACTION_OF, doi="10.1000/P2")]
    assert notice.retraction == RetractionVerdict(RetractionSource.crossref, False)  # the notice is not retracted


def test_update_types_as_pubmed_names():
    assert update_of("retraction", notice=False) == "RetractionIn"
    assert update_of("Expression of Concern", notice=True) == "ExpressionOfConcernFor"
    assert update_of("expression_of_concern", notice=False) == "ExpressionOfConcernIn"
    assert update_of("corrigendum", notice=True) == "ErratumFor"
    assert update_of("new_version", notice=False) == "UpdateIn"
    assert all(a.endswith("In") and b[:-3] in a for a, b in UPDATE_TYPES.values())


def test_jats_abstract_goes_through_the_jats_reader():
    fragment = ("<jats:title>Abstract</jats:title><jats:sec><jats:title>Background</jats:title><jats:p>First "
                "<jats:italic>part</jats:italic>.</jats:p></jats:sec><jats:sec><jats:title>Results</jats:title>"
                "<jats:p>Second.</jats:p></jats:sec>")
    assert jats_abstract(fragment) == "Background\n\nFirst part.\n\nResults\n\nSecond."
    assert jats_abstract("Bare text &amp; no markup") == "Bare text & no markup"
    assert jats_abstract("<jats:p>Not closed &nbsp; here") == "Not closed here"
