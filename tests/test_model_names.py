"""Author names written as one string (pubfetch/model/names.py): split into family and given names by nameparser,
or kept whole as a collective's literal name."""

from __future__ import annotations

import pytest

from pubfetch.model.names import is_collective, split_name
from pubfetch.model.parts import Author


@pytest.mark.parametrize(("name", "family", "given", "literal"), [
    ("Matthew J. Kourakis", "Kourakis", "Matthew J.", ""),
    ("Kourakis, Matthew J.", "Kourakis", "Matthew J.", ""),
    ("Ludwig van der Berg", "van der Berg", "Ludwig", ""),
    ("de Souza, Maria", "de Souza", "Maria", ""),
    ("Martin Luther King Jr.", "King Jr.", "Martin Luther", ""),
    ("Smith, John, III", "Smith III", "John", ""),
    ("Dr. Anna Möhrle PhD", "Möhrle", "Anna", ""),
    ("Kourakis MJ", "Kourakis", "MJ", ""),
    ("Möhrle", "Möhrle", "", ""),
    ("World Health Organization", "", "", "World Health Organization"),
    ("The ENCODE Project Consortium", "", "", "The ENCODE Project Consortium"),
    ("COVID-19 Genomics UK (COG-UK) consortium", "", "", "COVID-19 Genomics UK (COG-UK) consortium"),
    ("Smith and Wesson", "", "", "Smith and Wesson"),
    ("  ", "", "", ""),
])  # fmt: skip
def test_a_name_written_as_one_string_is_split(name: str, family: str, given: str, literal: str) -> None:
    assert split_name(name) == (family, given, literal)


@pytest.mark.parametrize(("name", "collective"), [
    ("Food and Agriculture Organization of the United Nations", True),
    ("Writing Committee for the ASPIRE Trial", True),
    ("The Cancer Genome Atlas Research Network", True),
    ("GBD 2019 Diseases and Injuries Collaborators", True),
    ("Anderson", False),  # "and" only as a whole word
    ("Jean de la Fontaine", False),  # particles are not joiners
    ("Groupman, Jerome", False),  # an organisation's word only as a whole word
])  # fmt: skip
def test_collectives_are_told_by_their_words(name: str, collective: bool) -> None:
    assert is_collective(name) is collective


def test_a_person_record_is_built_from_one_string_with_its_other_fields() -> None:
    author = Author.from_name("Kourakis, Matthew J.", "https://orcid.org/0000-0002-1825-0097", ["UCSB"])
    assert author == Author("Kourakis", "Matthew J.", "", "https://orcid.org/0000-0002-1825-0097", ["UCSB"])
    assert (author.full_name, author.sort_name) == ("Matthew J. Kourakis", "Kourakis, Matthew J.")
    assert Author(literal="WHO").sort_name == "WHO" and Author().is_empty()
