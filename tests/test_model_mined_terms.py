"""A text-mined term of any annotation type, as stored and read back."""

from __future__ import annotations

from pubfetch.model.mined_terms import OWN_PARTS, TypedTerm
from pubfetch.part_names import AnnotationType


def test_a_term_reads_back_from_its_json_and_bad_values_are_defaults() -> None:
    term = TypedTerm("Diseases", "asthma", 3, "http://purl.obolibrary.org/obo/DOID_2841")
    assert TypedTerm.from_json(term.to_json()) == term
    assert TypedTerm.from_json({"type": "Chemicals", "term": 5, "count": True}) == TypedTerm("Chemicals", "", 1, "")
    assert str(term) == "Diseases: asthma (3)"


def test_efo_and_go_keep_parts_of_their_own() -> None:
    assert OWN_PARTS == {AnnotationType.experimental_methods, AnnotationType.gene_ontology}
