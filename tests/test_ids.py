"""Identifiers: PubFetcher's validation, normalisation, extraction, and the messages for real user mistakes."""

import pytest

from pubfetch import ids
from pubfetch.ids import InvalidId, PublicationIds


@pytest.mark.parametrize("s,ok", [("1", True), ("31114920", True), ("0", False), ("0123", False), ("12a", False),
                                  ("", False), (" 123", False), ("123\n", False), ("\u0661\u0662", False),
                                  ("12\u00b3", False), ("\uff11\uff12", False)])
def test_is_pmid(s, ok):
    assert ids.is_pmid(s) is ok


@pytest.mark.parametrize("s,ok", [("PMC6198355", True), ("PMC0", False), ("pmc123", False), ("123", False),
                                  ("PMC", False), ("PMC12 ", False), ("PMC12\n", False)])
def test_is_pmcid(s, ok):
    assert ids.is_pmcid(s) is ok


@pytest.mark.parametrize("s,ok", [
    ("10.1093/nar/gkz369", True),
    ("https://doi.org/10.1093/nar/gkz369", True),
    ("http://dx.doi.org/10.1093/nar/gkz369", True),
    ("doi:10.1093/nar/gkz369", True),
    ("10.1093/", True),
    ("10./x", False),
    ("11.1093/nar", False),
    ("10.1093", False),
    ("DOI:10.1093/nar/gkz369", False),
    ("10.1000/a\u2028b", False),
    ("10.1000/ünïcode", True),
])
def test_is_doi(s, ok):
    assert ids.is_doi(s) is ok


def test_normalise_doi_strips_first_prefix_and_uppercases_ascii_only():
    assert ids.normalise_doi("https://doi.org/10.1093/nar/gkz369") == "10.1093/NAR/GKZ369"
    assert ids.normalise_doi("doi:10.1000/abcé") == "10.1000/ABCé"
    assert ids.normalise_doi("10.1000/x") == "10.1000/X"


def test_extract_from_text():
    text = "See PMID: 31114920, pmcid:pmc6198355 and DOI:\u00a010.1093/nar/gkz369. Also PMID 123."
    assert ids.extract_pmids(text) == ["31114920", "123"]
    assert ids.extract_pmcids(text) == ["PMC6198355"]
    assert ids.extract_dois(text) == ["10.1093/NAR/GKZ369"]


@pytest.mark.parametrize("url,expected", [
    ("https://doi.org/10.1093/nar/gkz369", ("", "", "10.1093/NAR/GKZ369")),
    ("http://dx.doi.org/10.1371/journal.pone.0311879", ("", "", "10.1371/JOURNAL.PONE.0311879")),
    ("https://pubmed.ncbi.nlm.nih.gov/31114920/", ("31114920", "", "")),
    ("https://www.ncbi.nlm.nih.gov/pubmed/?term=31114920", ("31114920", "", "")),
    ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6198355/", ("", "PMC6198355", "")),
    ("https://pmc.ncbi.nlm.nih.gov/articles/PMC6198355/", ("", "PMC6198355", "")),
    ("https://europepmc.org/article/MED/31114920", ("31114920", "", "")),
    ("https://europepmc.org/article/PMC/PMC6198355", ("", "PMC6198355", "")),
    ("https://europepmc.org/article/PMC/6198355", ("", "PMC6198355", "")),
])
def test_ids_from_url(url, expected):
    assert ids.ids_from_url(url).ids == expected


@pytest.mark.parametrize("url", [
    "https://pubmed.ncbi.nlm.nih.gov/31114920%0A/",
    "https://europepmc.org/article/MED/31114920%0A",
    "https://europepmc.org/article/PMC/6198355%0A",
    "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6198355%0A/",
    "https://www.ncbi.nlm.nih.gov/pubmed/31114920%0A",
])
def test_ids_from_url_take_whole_path_segments(url):
    """An encoded newline after the ID is not the ID (no ``$`` matching before a final newline)."""
    assert ids.ids_from_url(url) is None


def test_whole_string_checks_of_pmcid_number_and_versioned_ids():
    assert ids.extract_pmcid_number("PMC123\n") == ""
    assert ids.extract_pmcid_number("PMC123") == "123"
    from pubfetch.model.publication import F1000_DOI

    assert F1000_DOI.match("10.12688/F1000RESEARCH.1") and not F1000_DOI.match("10.12688/F1000RESEARCH.1\n")


@pytest.mark.parametrize("given", ["PMC6134338.4", "PMC6134338.1", " PMCID: PMC6134338.12 "])
def test_a_versioned_pmcid_is_its_articles(given):
    """PMC keeps each version of some journals' articles (PMC6134338.4: Wellcome Open Research, version 4); the
    article's PMCID is the part before the dot, wherever the ID comes from."""
    article = "PMC6134338"
    assert ids.check_pmcid(given) == article
    assert ids.classify(given).pmcid == article


@pytest.mark.parametrize("given", ["PMC6134338.0", "PMC6134338.04", "PMC6134338.4.1", "PMC0.4",
                                   "6134338.4", "10.12688/wellcomeopenres.14677.4"])
def test_what_is_no_versioned_pmcid(given):
    assert ids.unversioned_pmcid(given) == given
    with pytest.raises(InvalidId):
        ids.check_pmcid(given)


def test_ids_from_other_url_is_none():
    assert ids.ids_from_url("https://academic.oup.com/nar/article/47/W1/W20/5494766") is None


def test_classify():
    assert ids.classify(" 31114920 ").ids == ("31114920", "", "")
    assert ids.classify("PMC6198355").ids == ("", "PMC6198355", "")
    assert ids.classify("10.1093/nar/gkz369").ids == ("", "", "10.1093/NAR/GKZ369")
    assert ids.classify("https://doi.org/10.1093/nar/gkz369").doi == "10.1093/NAR/GKZ369"
    assert ids.classify("https://pubmed.ncbi.nlm.nih.gov/31114920/").pmid == "31114920"


@pytest.mark.parametrize("s,message", [
    ("", "empty publication ID"),
    ("https://example.org/paper", "is a URL but not a PubMed, PMC, Europe PMC or doi.org link"),
    ("pmc123", "PMC must be upper-case (PMC123)"),
    ("0123", "a PMID has no leading zeros"),
    ("10.1093/nar gkz369", "a DOI cannot contain spaces"),
    ("hello", "unknown publication ID 'hello'"),
])
def test_classify_errors(s, message):
    with pytest.raises(InvalidId, match=message.replace("(", r"\(").replace(")", r"\)")):
        ids.classify(s)


def test_pmcid_column_with_digits_says_both_mistakes():
    with pytest.raises(InvalidId) as e:
        ids.check_pmcid("1234567")
    assert "PMCID must start with PMC" in str(e.value)
    assert "looks like a PMID" in str(e.value)


def test_column_mistakes():
    with pytest.raises(InvalidId, match="looks like a PMCID"):
        ids.check_pmid("PMC123")
    with pytest.raises(InvalidId, match="looks like a DOI"):
        ids.check_pmid("10.1093/nar/gkz369")
    with pytest.raises(InvalidId, match="looks like a PMID"):
        ids.check_doi("31114920")
    with pytest.raises(InvalidId, match="cannot contain spaces"):
        ids.check_doi("10.1093/nar gkz369")
    with pytest.raises(InvalidId, match="not a PubMed, PMC, Europe PMC or doi.org link to a DOI"):
        ids.check_doi("https://academic.oup.com/nar/article/47")
    assert ids.check_doi("https://doi.org/10.1/x") == "10.1/X"
    assert ids.check_pmid("https://pubmed.ncbi.nlm.nih.gov/31114920/") == "31114920"


def test_check_publication_ids_row():
    row = ids.check_publication_ids("31114920", "", "10.1093/nar/gkz369")
    assert row.ids == ("31114920", "", "10.1093/NAR/GKZ369")
    with pytest.raises(InvalidId, match="no publication ID given"):
        ids.check_publication_ids(" ", "", "")


def test_publication_ids_trim_normalise_drop_urls_and_equality():
    a = PublicationIds(" 1 ", "", "10.1/ab", pmid_url="u1", pmcid_url="dropped", doi_url="u3")
    assert a.ids == ("1", "", "10.1/AB")
    assert a.pmcid_url == ""
    assert a.pmid_url == "u1"
    b = PublicationIds("1", "", "10.1/AB")
    assert a == b and hash(a) == hash(b)
    assert a != PublicationIds("1", "PMC2", "10.1/AB")
    assert a.primary() == "1"
    assert PublicationIds(doi="10.1/x").primary() == "10.1/X"


def test_publication_ids_sort_order():
    items = [
        PublicationIds(pmid="100"),
        PublicationIds(doi="10.1093/B"),
        PublicationIds(pmid="9"),
        PublicationIds(pmcid="PMC10"),
        PublicationIds(doi="10.200/A"),
        PublicationIds(pmcid="PMC9"),
        PublicationIds(doi="10.1093/A"),
        PublicationIds(),
    ]
    ordered = [i.primary() for i in sorted(items)]
    # PubFetcher's PublicationIds.compareTo: PMIDs first, then PMCID-only, then DOI-only (plain string order), empty last
    assert ordered == ["9", "100", "PMC9", "PMC10", "10.1093/A", "10.1093/B", "10.200/A", ""]
    assert [i.primary() for i in sorted(items, reverse=True)] == list(reversed(ordered))


def test_publication_ids_sort_falls_back_to_strings_like_java():
    """Integer.valueOf fails beyond 32 bits, and PubFetcher then compares the strings; a PMID beats any PMCID."""
    big, small = PublicationIds(pmid="3000000000"), PublicationIds(pmid="9")
    assert sorted([small, big]) == [big, small]  # "3000000000" < "9" as strings
    both = PublicationIds(pmcid="PMC1", doi="10.1/X")
    assert sorted([both, PublicationIds(pmid="5", doi="10.1/Y")])[0].pmid == "5"
    assert sorted([PublicationIds(doi="10.1/X"), both]) == [both, PublicationIds(doi="10.1/X")]
    assert ids.compare_ids(("", "", ""), ("", "", "")) == 0


def test_a_doi_ending_a_sentence_is_not_joined_to_the_next_line() -> None:
    assert ids.dois_in_text("Published online 2 March 2010. doi:10.1038/nature08800.\nReceived 1 May") == [
        "10.1038/NATURE08800"]
    assert ids.dois_in_text("doi:10.1093/bioinfor-\nmatics/btz1 and 10.1016/j.cell.\n2020.01.001") == [
        "10.1093/BIOINFOR-MATICS/BTZ1", "10.1016/J.CELL.2020.01.001"]


@pytest.mark.parametrize(("value", "doi"), [
    ("10.1234/abc", "10.1234/abc"),
    ("doi:10.1234/abc;", "10.1234/abc"),
    ("DOI:10.1234/abc", "10.1234/abc"),
    ("DOI 10.1234/abc.", "10.1234/abc"),
    ("https://www.doi.org/10.1234/abc", "10.1234/abc"),
    ("doi.org/10.1234/abc", "10.1234/abc"),
    ("HTTPS://DX.DOI.ORG/10.1234/abc", "10.1234/abc"),
    ("info:doi/10.1234/abc", "10.1234/abc"),
    ("doi: https://doi.org/10.1101/x)", "10.1101/x"),
    ("https://doi.org/10.1002/%28SICI%291097-4636%28199604%2930%3A4%3C409%3A%3AAID-JBM1%3E3.0.CO%3B2-%23",
     "10.1002/(SICI)1097-4636(199604)30:4<409::AID-JBM1>3.0.CO;2-#"),
    ("10.1016/0009-2614(95)00123-1", "10.1016/0009-2614(95)00123-1"),
    ("10.1234/a b", ""),
    ("see the paper", ""),
    ("11.1234/abc", ""),
])
def test_the_doi_a_value_names(value: str, doi: str) -> None:
    assert ids.doi_in_value(value) == doi
