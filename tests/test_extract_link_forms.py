"""The databases' names and identifier forms the links of a text are found by (a snapshot of the Bioregistry's)."""

from __future__ import annotations

from pubfetch.extract.link_forms import begins_word, curie_prefixes, names_in, registries


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
