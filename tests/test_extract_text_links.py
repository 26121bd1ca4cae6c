"""Links and identifiers found in words: each kind from the Bioregistry's patterns, the ambiguous forms only next to
their database's name, URLs and DOIs without the sentence's punctuation, grant numbers in funding sentences, and the
sentence around each."""

from __future__ import annotations

import pytest

from pubfetch.extract.sentences import pack, sentence_spans
from pubfetch.extract.text_links import LinkSet, find_links, marked_link, record_links
from pubfetch.model.links import LINK_KINDS, TextLink
from pubfetch.model.rich import Section


def _found(text: str) -> list[tuple[str, str]]:
    return [(link.kind, link.value) for link in find_links(text)]


@pytest.mark.parametrize(("text", "kind", "value", "registry"), [
    ("Reads are in SRA (SRR13907305).", "sra", "SRR13907305", "insdc.sra"),
    ("Arrays: GSE12345 were used.", "geo", "GSE12345", "geo"),
    ("The platform GPL570 was used.", "geo", "GPL570", "geo"),
    ("See BioProject PRJNA707788 here.", "bioproject", "PRJNA707788", "bioproject"),
    ("Sample SAMN18219192 was taken.", "bioproject", "SAMN18219192", "biosample"),
    ("Data in E-MTAB-1234 now.", "arrayexpress", "E-MTAB-1234", "arrayexpress"),
    ("The transcript NM_000546.5 is known.", "refseq", "NM_000546.5", "refseq"),
    ("Gene ENSG00000139618 is BRCA2.", "ensembl", "ENSG00000139618", "ensembl"),
    ("Registered as NCT01234567 in 2010.", "clinicalTrial", "NCT01234567", "clinicaltrials"),
    ("Registered as ISRCTN10175490 too.", "clinicalTrial", "ISRCTN10175490", "isrctn"),
    ("Registered as CTRI/2023/04/052053 too.", "clinicalTrial", "CTRI/2023/04/052053", "ctri"),
    ("Antibody (RRID:AB_2298772) was used.", "rrid", "AB_2298772", "rrid"),
    ("Protein UniProt P12345 binds.", "uniprot", "P12345", "uniprot"),
    ("Structure PDB 4HHB was used.", "pdb", "4HHB", "pdb"),
    ("Deposited in GenBank under accession number MW342606.", "insdc", "MW342606", "insdc"),
    ("EudraCT 2008-005144-16 was the trial.", "clinicalTrial", "2008-005144-16", "euclinicaltrials"),
    ("Cite doi:10.1093/nar/gkab1081.", "doi", "10.1093/nar/gkab1081", "doi"),
    ("Code at https://github.com/x/y.", "url", "https://github.com/x/y", ""),
])
def test_each_kind_is_found_with_its_registry(text: str, kind: str, value: str, registry: str) -> None:
    links = find_links(text, ("Methods",))
    assert [(link.kind, link.value, link.registry) for link in links] == [(kind, value, registry)]
    assert links[0].section_path == ("Methods",) and links[0].sentence == text and not links[0].marked
    assert kind in LINK_KINDS


@pytest.mark.parametrize("text", [
    "We used 1ABC cells and 2XYZ buffers in 1999.",  # PDB-like, no PDB named
    "Strain X58356 grew on P12345 medium.",  # GenBank-like, UniProt-like, no database named
    "The PDB holds 200,000 structures such as 3DEF.",  # a number between the name and the code
    "The trial ran 2008-005144-16 days.",  # EudraCT form without EudraCT
])
def test_an_ambiguous_form_counts_only_next_to_its_database(text: str) -> None:
    assert [k for k, _ in _found(text) if k in ("pdb", "insdc", "uniprot", "clinicalTrial")] == []


def test_an_ambiguous_form_counts_next_to_its_database_and_in_a_list_after_it() -> None:
    text = ("Sequences were deposited in GenBank under accession numbers MN908947, MN938384 and MN975262. "
            "The structures PDB:1ABC and PDB entry 2XYZ were compared.")
    assert _found(text) == [("insdc", "MN908947"), ("insdc", "MN938384"), ("insdc", "MN975262"),
                            ("pdb", "1ABC"), ("pdb", "2XYZ")]


def test_a_marked_value_takes_any_form_of_its_kind() -> None:
    assert marked_link("pdb", "1ABC") == ("pdb", "1ABC", "pdb")
    assert marked_link("", "1ABC") == ("pdb", "1ABC", "pdb")
    assert marked_link("insdc", "X58356", "https://www.ncbi.nlm.nih.gov/nuccore/X58356") == ("insdc", "X58356", "insdc")
    assert marked_link("url", "the site", "https://doi.org/10.1080/2380.1911705") == ("doi", "10.1080/2380.1911705",
                                                                                      "doi")
    assert marked_link("url", "www.example.org", "") == ("url", "www.example.org", "")
    assert marked_link("url", "github.com/x/tool", "") == ("url", "github.com/x/tool", "")  # a <uri> without target
    assert marked_link("pdb", "not an id") is None


def test_urls_and_dois_leave_the_sentence_punctuation_out() -> None:
    text = ("Tools (see https://example.org/a_(b)), www.tool.org/x; and http://x.org/y. "
            "Also 10.1371/journal.pone.0213978, and github.com/user/repo.")
    assert _found(text) == [("url", "https://example.org/a_(b)"), ("url", "www.tool.org/x"), ("url", "http://x.org/y"),
                            ("doi", "10.1371/journal.pone.0213978"), ("url", "github.com/user/repo")]


def test_a_doi_url_is_a_doi_and_a_doi_inside_another_url_is_not_found_twice() -> None:
    assert _found("At https://doi.org/10.5281/zenodo.123 and https://x.com/article/10.3390/plants10040775/s1 .") == [
        ("doi", "10.5281/zenodo.123"), ("url", "https://x.com/article/10.3390/plants10040775/s1")]


def test_grant_numbers_are_found_in_funding_sentences_only() -> None:
    assert _found("This work was supported by NIH grant R01GM123456 and project No. PJ016185022021.") == [
        ("grant", "R01GM123456"), ("grant", "PJ016185022021")]
    assert _found("Funded by Science Foundation Ireland (SFI08/IN.1/B1916).") == [("grant", "SFI08/IN.1/B1916")]
    assert _found("The project No. 12345 sample was measured (n = 30).") == []


def test_funding_words_are_found_in_capitals_and_capitalised_but_not_in_other_cases() -> None:
    assert _found("THIS WORK WAS SUPPORTED BY GRANT R01GM123456.") == [("grant", "R01GM123456")]
    assert _found("Sponsor: award ABC12345.") == [("grant", "ABC12345")]
    assert _found("It was sUpported by the NIH (R01GM123456).") == []  # no funding word as the finder spells them
    assert _found("It was Supported by the NIH (R01GM123456).") == [("grant", "R01GM123456")]


def test_the_sentence_is_the_one_around_the_link() -> None:
    text = "Methods were standard, e.g. as in Fig. 2. Data are at GSE12345. The rest is in J. Smith's notes."
    (link,) = find_links(text)
    assert link.sentence == "Data are at GSE12345."
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "Methods were standard, e.g. as in Fig. 2.", "Data are at GSE12345.", "The rest is in J. Smith's notes."]


def test_record_links_follow_the_sections_a_page_marks() -> None:
    sections = [Section("Methods", 1, "We used GSE1."), Section("Data", 2, "At SRR1234567."),
                Section("Results", 1, "See www.x.org/a")]
    links = record_links("Abstract with NCT01234567.", "", sections)
    assert [(link.value, link.section_path) for link in links] == [
        ("NCT01234567", ("Abstract",)), ("GSE1", ("Methods",)), ("SRR1234567", ("Methods", "Data")),
        ("www.x.org/a", ("Results",))]
    assert [link.value for link in record_links("At GSE1.", "Title\n\nAt GSE1.\n\nMore at GSE2.")] == ["GSE1", "GSE2"]


def test_a_marked_link_stands_for_the_same_link_in_the_words() -> None:
    links = LinkSet()
    links.add(TextLink("url", "http://a.org", "", ("M",), "See a.org here."))
    links.add(TextLink("url", "http://a.org", "", ("M",), "See http://a.org.", marked=True))
    links.add(TextLink("url", "http://a.org", "", ("M",), "Again http://a.org."))
    links.add(TextLink("url", "http://a.org", "", ("R",), "Again http://a.org."))
    assert [(link.section_path, link.marked) for link in links.links()] == [(("M",), True), (("R",), False)]


def test_passages_end_where_sentences_end_and_fit_the_limit() -> None:
    sentence = "This sentence has exactly some words in it. "
    text = sentence * 100
    passages = pack(text.strip(), 200)
    assert all(len(p) <= 200 and p.endswith(".") for p in passages)
    assert " ".join(passages) == text.strip()
    long_one = "word " * 100
    assert [len(p) <= 120 for p in pack(long_one.strip(), 120)] == [True] * 5


def test_a_marked_value_of_no_said_kind_is_not_taken_by_a_form_any_word_takes() -> None:
    assert marked_link("", "12345") is None  # Ensembl's catch-all would take it: an ext-link-type="pubmed" value
    assert marked_link("", "here") is None
    assert marked_link("ensembl", "ENSMUSG00000017167") == ("ensembl", "ENSMUSG00000017167", "ensembl")


@pytest.mark.parametrize(("text", "links"), [
    ("Antibody RRID :AB_2298772 was used.", [("rrid", "AB_2298772")]),  # a space between the name and the colon
    ("Registered at \u212aCRIS: KCT0001234.", [("clinicalTrial", "KCT0001234")]),  # the Kelvin sign lower-cases to k
    ("Trial ISRCTN: ISRCTN12345678 (follow-up: 2 years).", [("clinicalTrial", "ISRCTN12345678")]),
    ("See WWW.example.org and Www.test.com today.", [("url", "WWW.example.org"), ("url", "Www.test.com")]),
    ("From example.org/data and doi 10.1000/xyz.", [("url", "example.org/data"), ("doi", "10.1000/xyz")]),
    ("Supported by the NIH (R01GM123456).", [("grant", "R01GM123456")]),
    ("We thank the funders for support of this study.", []),
])
def test_the_quick_tests_before_each_kind_of_finding_let_every_link_through(text: str,
                                                                           links: list[tuple[str, str]]) -> None:
    """Each kind is looked for only in texts holding what its matches hold (a colon after a registry's name, ``://``
    or ``www.``, ``/``, ``10.``, a digit in a funding sentence): the links at those tests' edges are still found."""
    assert [(link.kind, link.value) for link in find_links(text)] == links
