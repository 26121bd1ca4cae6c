"""The OpenAlex parser on every recorded OpenAlex answer of ../shared/corpus/apis.jsonl: each record equals the
recorded work field by field, the expected values read from the JSON here (json only; the abstract rebuilt from the
inverted index by sorting its positions); error answers raise."""

from __future__ import annotations

import json

import pytest

from pubfetch.extract.errors import ParseError, ServiceError
from pubfetch.extract.openalex import abstract_text, parse_openalex
from pubfetch.model.retraction import RetractionSource, RetractionVerdict
from support.apis_corpus import answered, orcid, recorded, upper_doi, words

RESOURCES = ("openalex_work", "openalex_works_filter")


def rebuilt(index: dict | None) -> str:
    return " ".join(word for _, word in sorted((p, w) for w, ps in (index or {}).items() for p in ps))


def check_work(record, work: dict) -> None:
    where = work.get("id") or work.get("doi")
    ids = work.get("ids") or {}
    assert record.doi == upper_doi(ids.get("doi") or work.get("doi")), where
    assert record.pmid == (ids.get("pmid") or "").rsplit("/", 1)[-1], where
    pmcid = (ids.get("pmcid") or "").rsplit("/", 1)[-1]
    assert record.pmcid == ("PMC" + pmcid.removeprefix("PMC") if pmcid else ""), where
    assert record.title == words(work.get("title")), where
    assert record.abstract == rebuilt(work.get("abstract_inverted_index")), where
    assert [(a.full_name, a.orcid, a.affiliations) for a in record.authors] == [
        (words(s["author"]["display_name"]), orcid(s["author"].get("orcid")),
         [words(x) for x in s.get("raw_affiliation_strings", [])]) for s in work.get("authorships", [])], where
    source = (work.get("primary_location") or {}).get("source") or {}
    assert record.journal_title == (words(source.get("display_name")) if source.get("type") == "journal" else "")
    biblio = work.get("biblio") or {}
    assert (record.volume, record.issue) == (biblio.get("volume") or "", biblio.get("issue") or ""), where
    first, last = biblio.get("first_page") or "", biblio.get("last_page") or ""
    assert record.pages == (f"{first}-{last}" if first and last and first != last else first), where
    assert record.pub_date == (work.get("publication_date") or ""), where
    assert [(g.agency, g.grant_id) for g in record.funding] == [
        (g["funder_display_name"], g["award_id"] or "") for g in work.get("grants") or []], where
    best, primary = work.get("best_oa_location") or {}, work.get("primary_location") or {}
    assert record.license == (best.get("license") or primary.get("license") or ""), where
    assert [link.url for link in record.links] == ([best["pdf_url"]] if best.get("pdf_url") else []), where
    assert record.citations_count == work.get("cited_by_count"), where
    flag = work.get("is_retracted")
    assert record.retraction == (RetractionVerdict(RetractionSource.openalex, flag) if flag is not None else None)
    assert record.oa is ((work.get("open_access") or {}).get("is_oa") is True), where
    assert record.preprint is (work.get("type") == "preprint"), where


def test_every_recorded_work_reads_field_by_field(corpus_dir):
    checked = 0
    for entry, doc in answered(corpus_dir, *RESOURCES):
        works = doc["results"] if "results" in doc else [doc]
        records = parse_openalex(json.dumps(doc))
        assert len(records) == len(works), entry["name"]
        for record, work in zip(records, works, strict=True):
            check_work(record, work)
            checked += 1
    # 8 single works (one a select= answer of two fields), 2 + 5 + 1 + 38 + 1 works of the list pages
    assert checked >= 50


def test_recorded_features_are_read(corpus_dir):
    by_doi: dict = {}
    for entry, body in recorded(corpus_dir, *RESOURCES):
        for record in parse_openalex(body) if entry["status"] == 200 else []:
            by_doi.setdefault(record.doi, record)  # the single work's answer comes before list pages holding it
    pnas = by_doi["10.1073/PNAS.1414271111"]
    assert pnas.abstract.startswith("Significance The inadequate mechanical properties of engineered tissues")
    assert (pnas.pmid, pnas.pmcid, pnas.citations_count) == ("25349395", "PMC4234579", 138)
    assert by_doi["10.7717/PEERJ.4375"].links[0].url == "https://peerj.com/articles/4375.pdf"
    assert by_doi["10.4018/JNN.20180101"].title == "" and by_doi["10.4018/JNN.20180101"].retraction is None


@pytest.mark.parametrize("name, error", [
    ("openalex-work-404-doi-unknown", ParseError),
    ("openalex-work-400-bad-select", ServiceError),
    ("openalex-filter-400-unknown-filter", ServiceError),
])
def test_error_answers_raise(corpus_dir, name, error):
    body = next(body for entry, body in recorded(corpus_dir, *RESOURCES) if entry["name"] == name)
    with pytest.raises(error):
        parse_openalex(body)


def test_exhausted_cursor_page_has_no_records(corpus_dir):
    body = next(body for entry, body in recorded(corpus_dir, *RESOURCES)
                if entry["name"] == "openalex-filter-cursor-exhausted")
    assert parse_openalex(body) == []


def test_inverted_index_in_position_order():
    assert abstract_text({"b": [1, 3], "a": [0], "c": [2], "bad": ["x", -1]}) == "a b c b"
    assert abstract_text(None) == ""


def test_retracted_work():
    """OpenAlex's flag (no recorded work is retracted: the field as every recorded work has it, set true)."""
    (record,) = parse_openalex(json.dumps({"id": "https://openalex.org/W1", "doi": "https://doi.org/10.1/x",
                                           "is_retracted": True}))
    assert record.retraction == RetractionVerdict(RetractionSource.openalex, True) and record.doi == "10.1/X"
