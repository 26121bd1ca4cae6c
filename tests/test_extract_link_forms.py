"""The databases' names and identifier forms the links of a text are found by (a snapshot of the Bioregistry's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.extract.link_forms import (
    Registry,
    _name_keys,
    begins_word,
    curie_prefixes,
    names_at_key,
    names_in,
    registries,
)
from pubfetch.extract.pubmed import parse_pubmed_xml


def test_names_are_found_where_a_word_begins_and_in_order() -> None:
    text = "Data are in GEO and the Protein Data Bank (PDB); not in GEOGRAPHY or xPDB."
    found = [(at, registry.kind) for at, registry in names_in(text)]
    assert found[0] == (text.index("GEO"), "geo")
    assert {at for at, kind in found if kind == "pdb"} == {text.index("Protein"), text.index("(PDB") + 1}
    assert text.index("GEOGRAPHY") not in {at for at, _ in found} and text.index("xPDB") + 1 not in {
        at for at, _ in found}


def test_a_word_begins_after_anything_but_a_letter_digit_or_underscore() -> None:
    assert begins_word("GSE1", 0) and begins_word("(GSE1", 1) and not begins_word("xGSE1", 1)
    assert not begins_word("_GSE1", 1) and not begins_word("9GSE1", 1)


def test_every_registry_has_forms_of_its_kind_and_curie_prefixes_name_registries() -> None:
    regs = registries()
    assert regs and all(form.kind == reg.kind for reg in regs for form in reg.forms)
    prefixes = curie_prefixes()
    assert prefixes["nct"].kind == prefixes["clinicaltrials"].kind
    assert set(prefixes.values()) <= set(regs)


def _names_by_search(text: str) -> list[tuple[int, Registry]]:
    """names_in without its word filter: every name's first word looked for by a substring search in every text."""
    lowered = text.lower()
    found = []
    for key, lower, regs, _ in _name_keys():
        found += names_at_key(text, lowered if lower else text, key, regs)
    return sorted(dict.fromkeys(found), key=lambda item: item[0])


_AWKWARD = [
    "GenBank\u2019s MN908947 and the Protein Data Bank\u2013PDB entry 1ABC",
    "\u00b5GenBank, GenBank\u00e9, \u00e9GEO GEO\u00b2 (ENA) \u201cPDB\u201d UP_1 up UP",
    "clinicaltrials.gov NCT01234567 ClinicalTrials.gov, CLINICALTRIALS.GOV and Clinicaltrials",
    "the european nucleotide archive, European Nucleotide Archive: EUROPEAN NUCLEOTIDE ARCHIVE",
    "GENBAN\u212a and \u212aorean clinical trial registry",  # the Kelvin sign lower-cases to an ASCII "k"
    "PDB_1ABC pdb PDB1 xPDB PDB",
]


@pytest.mark.parametrize("text", _AWKWARD)
def test_the_word_filter_drops_no_name_a_substring_search_finds(text: str) -> None:
    assert names_in(text) == _names_by_search(text)
    assert names_in(text.upper()) == _names_by_search(text.upper())


def test_the_word_filter_drops_no_name_in_the_corpus_abstracts(corpus_dir: Path) -> None:
    texts = [record.abstract for path in sorted((corpus_dir / "files" / "pubmed_efetch").glob("*.xml"))
             for record in parse_pubmed_xml(path.read_bytes()) if record.abstract]
    assert texts
    named = 0
    for text in texts:
        for variant in (text, text.upper(), text.lower()):
            found = names_in(variant)
            assert found == _names_by_search(variant)
            named += bool(found)
    assert named  # the comparison saw names found, not only texts without any
