"""Europe PMC Annotations API answers: grouping of mentions into EFO and GO terms, both answer forms, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pubfetch.extract.annotations import (
    Mention,
    by_id,
    group_mentions,
    parse_annotations,
    parse_annotations_json,
    parse_annotations_xml,
)
from pubfetch.extract.errors import ParseError, ServiceError
from pubfetch.extract.xmlsafe import XmlError
from pubfetch.model.parts import MinedTerm
from pubfetch.model.record import ArticleRecord
from support.mutations import mutated

DOCS = Path(__file__).parent / "data" / "documents"
GO_DIGESTION = MinedTerm("digestion", 3, "http://identifiers.org/GO:0007586")
GO_MEMBRANE = MinedTerm("membranes", 1, "http://identifiers.org/GO:0016020")
GO_DEATH = MinedTerm("death", 1, "http://identifiers.org/GO:0016265")


def _json_doc() -> bytes:
    def ann(kind: str, exact: str, uri: str | None, frequency: int | None = None) -> dict:
        a: dict = {"exact": exact, "type": kind, "provider": "Europe PMC",
                   "tags": [{"name": exact.lower(), "uri": uri}] if uri else []}
        if frequency is not None:
            a["frequency"] = frequency
        return a

    return json.dumps([
        {"source": "MED", "extId": "30000001", "pmcid": "PMC6000001", "annotations": [
            ann("Experimental Methods", "PCR", "http://www.ebi.ac.uk/efo/EFO_0002692"),
            ann("Experimental Methods", "qPCR", "http://www.ebi.ac.uk/efo/EFO_0002692"),
            ann("Experimental Methods", "western blot", "http://purl.obolibrary.org/obo/OBI_0000714", 2),
            ann("Experimental Methods", "qPCR", "http://www.ebi.ac.uk/efo/EFO_0002692"),
            ann("Experimental Methods", "PCR", "http://www.ebi.ac.uk/efo/EFO_0002692"),
            ann("Gene Ontology", "apoptosis", "http://identifiers.org/GO:0006915"),
            ann("Gene Ontology", "mitosis", None),
            ann("Gene Ontology", "Mitosis", None, 0),
            ann("Diseases", "cancer", "http://linkedlifedata.com/resource/umls-concept/C0006826"),
        ]},
        {"source": "PMC", "extId": "PMC6000002", "annotations": []},
    ]).encode()


def test_grouping_by_uri() -> None:
    first, second = parse_annotations_json(_json_doc())
    assert (first.pmid, first.pmcid, first.flags) == ("30000001", "PMC6000001", {"source": "MED", "extId": "30000001"})
    # PCR and qPCR tie at 2 mentions for one URI: the first seen names the term; count 4 beats western blot's 2
    assert first.efo == [MinedTerm("PCR", 4, "http://www.ebi.ac.uk/efo/EFO_0002692"),
                         MinedTerm("western blot", 2, "http://purl.obolibrary.org/obo/OBI_0000714")]
    # mentions without URI group by text (case kept); a frequency of 0 counts as one mention
    assert first.go == [MinedTerm("apoptosis", 1, "http://identifiers.org/GO:0006915"),
                        MinedTerm("mitosis", 1, ""), MinedTerm("Mitosis", 1, "")]
    assert (second.pmid, second.pmcid, second.efo, second.go) == ("", "PMC6000002", [], [])
    assert by_id([first, second]) == {"30000001": first, "PMC6000001": first, "PMC6000002": second}


def test_group_mentions_most_frequent_spelling_and_whitespace() -> None:
    uri = "http://identifiers.org/GO:0016477"
    mentions = [Mention("Gene Ontology", "Cell migration", 1, [uri]),
                Mention("Gene Ontology", "cell\n migration", 1, [uri]),
                Mention("Gene Ontology", "cell migration", 1, [uri])]
    assert group_mentions(mentions) == [MinedTerm("cell migration", 3, uri)]
    assert group_mentions([]) == []


def test_xml_form() -> None:
    (r,) = parse_annotations_xml((DOCS / "annotations.xml").read_bytes())
    assert (r.pmid, r.pmcid, r.flags) == ("", "PMC6000001", {"source": "PMC", "extId": "PMC6000001"})
    assert r.efo == [MinedTerm("Confocal microscopy", 4, "http://www.ebi.ac.uk/efo/EFO_0000000"),
                     MinedTerm("calcium imaging", 2, "http://www.ebi.ac.uk/efo/EFO_0000001")]
    assert r.go == [MinedTerm("cell migration", 1, "http://identifiers.org/GO:0016477")]
    assert parse_annotations((DOCS / "annotations.xml").read_bytes()) == [r]
    assert parse_annotations_xml(b"<articles/>") == []


def test_corpus_one_article(corpus_dir: Path) -> None:
    (r,) = parse_annotations_json((corpus_dir / "files/europepmc_annotations/med22338609.json").read_bytes())
    assert (r.pmid, r.pmcid) == ("22338609", "PMC3320746")
    assert r.efo == []
    assert r.go == [GO_DIGESTION, GO_MEMBRANE, GO_DEATH]  # "Digestion" once, "digestion" twice


def test_corpus_missing_article_left_out(corpus_dir: Path) -> None:
    records = parse_annotations((corpus_dir / "files/europepmc_annotations/three_ids_one_missing.json").read_bytes())
    assert [(r.pmid, r.pmcid) for r in records] == [("22338609", "PMC3320746"), ("24073682", "PMC3864987")]
    assert records[0].go == [GO_DIGESTION, GO_MEMBRANE, GO_DEATH]
    assert (records[1].efo, records[1].go) == ([], [])
    assert set(by_id(records)) == {"22338609", "PMC3320746", "24073682", "PMC3864987"}


@pytest.mark.parametrize("data", [b"", b"{", b'{"a": 1}', b"42", b"\xff"])
def test_bad_json(data: bytes) -> None:
    with pytest.raises(ParseError):
        parse_annotations_json(data)


def test_service_error_and_skipped_entries() -> None:
    with pytest.raises(ServiceError):
        parse_annotations_json(b'{"errCode": 400, "errMsg": "articleIds required"}')
    assert parse_annotations_json(b'[1, "x", {"other": 1}]') == []


@pytest.mark.parametrize("data", [b"", b"<articles><article>", b"<html><body><p>busy</p></body></html>"])
def test_bad_xml(data: bytes) -> None:
    with pytest.raises(ValueError) as info:
        parse_annotations_xml(data)
    assert isinstance(info.value, (XmlError, ParseError))


def _mutated() -> st.SearchStrategy[bytes]:
    return mutated(lambda: [_json_doc(), (DOCS / "annotations.xml").read_bytes()])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated())
def test_mutated_documents_raise_only_value_errors(data: bytes) -> None:
    for parse in (parse_annotations, parse_annotations_json, parse_annotations_xml):
        try:
            records = parse(data)
        except ValueError:
            continue
        assert all(isinstance(r, ArticleRecord) for r in records)


_KEYS = ["source", "extId", "pmcid", "annotations", "exact", "type", "tags", "uri", "name", "frequency", "errMsg"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(_KEYS), inner,
                                                                                max_size=6),
                    max_leaves=25))
def test_any_json_shape_raises_only_value_errors(value: object) -> None:
    for doc in (value, [value], [{"source": "MED", "extId": "1", "annotations": value}],
                [{"source": "MED", "extId": "1", "annotations": [value]}]):
        try:
            parse_annotations_json(json.dumps(doc))
        except ValueError:
            pass


def test_a_recorded_answer_gives_every_type_it_holds_as_typed_terms(corpus_dir) -> None:
    import json as _json
    from collections import Counter

    from pubfetch.extract.annotations import parse_annotations as _parse

    body = (corpus_dir / "files/europepmc_annotations/three_ids_one_missing.json").read_bytes()
    records = {r.pmid: r for r in _parse(body)}
    raw = {a["extId"]: a["annotations"] for a in _json.loads(body)}
    assert set(records) == {"22338609", "24073682"}  # the third ID has no annotations: left out by the service
    for pmid, record in records.items():
        # a relationship's mention tags two things and counts for each; every other mention counts once (these
        # answers give no frequency)
        mentions = Counter(a["type"] for a in raw[pmid] if "Relationship" not in a["type"])
        counted: Counter[str] = Counter()
        for term in record.mined_terms:
            counted[term.type] += term.count
        assert +Counter({k: v for k, v in counted.items() if "Relationship" not in k}) == mentions
    first = {t.type for t in records["22338609"].mined_terms}
    assert {"Gene_Proteins", "Diseases", "Chemicals", "Organisms", "Accession Numbers", "Resources",
            "Gene Ontology"} <= first
    assert [t.term for t in records["22338609"].go] == [t.term for t in records["22338609"].mined_terms
                                                        if t.type == "Gene Ontology"]
