"""The names of a publication's parts and of the annotation types, which the settings and the model share."""

from __future__ import annotations

import pytest

from pubfetch.model.mined_terms import AnnotationType as ModelAnnotationType
from pubfetch.model.part_type import PartName as ModelPartName
from pubfetch.part_names import DEFAULT_ANNOTATIONS, AnnotationType, PartName


def test_a_part_is_named_by_its_json_name_or_pubfetcher_s_enum_name() -> None:
    assert PartName.parse("abstract") is PartName.parse("theAbstract") is PartName.theAbstract
    assert [p.value for p in PartName][:3] == ["pmid", "pmcid", "doi"]
    assert PartName.doi.is_id and PartName.mesh.is_list and not PartName.title.is_list
    with pytest.raises(ValueError, match="unknown publication part 'abstracts': expected one of pmid, "):
        PartName.parse("abstracts")


def test_pubfetcher_asks_the_annotation_types_of_its_efo_and_go_parts() -> None:
    assert DEFAULT_ANNOTATIONS == {AnnotationType("Experimental Methods"), AnnotationType("Gene Ontology")}


def test_the_model_names_the_same_enumerations() -> None:
    assert (ModelPartName, ModelAnnotationType) == (PartName, AnnotationType)
