"""Entries as PubFetcher's text: a part with its provenance, the publication and webpage layouts, the plain forms, and
IDs with and without their URLs."""

from __future__ import annotations

import pytest

from pubfetch.model import CorrespAuthor, FetchState, PartName, PartType, Publication, StringPart, Webpage
from pubfetch.model.parts import Author, VisitedSite
from pubfetch.output import text as t
from support.entries import publications, webpages_and_docs
from support.publications import checked_publication


@pytest.fixture(scope="module")
def pubs() -> list[Publication]:
    return publications()


@pytest.fixture(scope="module")
def pages() -> tuple[list[Webpage], list[Webpage]]:
    return webpages_and_docs()


def test_part_text() -> None:
    part = StringPart(PartName.theAbstract, PartType.pubmed_xml, " https://x/ ", 1500, "An abstract.")
    assert t.part_text(part) == ("ABSTRACT: An abstract.\n"
                                 "    type: PubMed XML\n"
                                 "    url:  https://x/ \n"
                                 "    timestamp: 1970-01-01T00:00:01.500Z (1500)\n"
                                 "    size: 12")


def test_list_parts_as_text(pubs) -> None:
    assert pubs[0].keywords.plain() == "[literature mining; provenance; Europe PMC]"
    assert t.part_text(pubs[0].mesh).startswith("MESH TERMS: [Data Mining; Humans]\n    type: PubMed XML\n")


def test_publication_text_layout(pubs) -> None:
    text = t.publication_text(pubs[0])
    assert text.startswith("PMID: 39466770\n    type: Europe PubMed Central\n")
    assert ("\n\nFETCH TIME: 2024-10-26T07:34:31Z (1729928071000)\nRETRY COUNTER: 0\nFETCH EXCEPTION: false\n\n"
            "OPEN ACCESS: true\nPREPRINT: false\nJOURNAL TITLE: PLoS ONE\nPUB. DATE: 2024-10-28 (1730073600000)\n"
            "CITATIONS: 3 (2024-10-26T07:34:32.200Z (1729928072200))\n"
            "CORRESP. AUTHOR: Jane Q. Example, https://orcid.org/0000-0002-1825-0097, jane@example.org\n\n"
            "VISITED SITES:\nhttps://journals.plos.org/plosone/article?id=10.1371/journal.pone.0311879\n"
            "    type: doi\n    from: https://doi.org/10.1371/journal.pone.0311879\n"
            "    timestamp: 2024-10-26T07:34:36Z (1729928076000)") in text
    assert text.endswith("(1729928076000)")


def test_plain_text(pubs, pages) -> None:
    assert t.publication_plain_text(pubs[2]) == "[26037986]\n\n\n\n[]\n[]\n[]\n[]\n\n\n\n"
    assert t.webpage_plain_text(pages[1][0]) == (
        "https://pubfetcher.readthedocs.io/en/latest/cli.html\n\nCommand-line interface manual\n\n"
        "Parameters with one dash are operations; parameters with two dashes modify them. The pipeline runs in a "
        "fixed order.")


def test_ids_text() -> None:
    assert t.ids_text("1", "", "10.1/X") == "1, 10.1/X"
    assert t.ids_text("1", "", "10.1/X", tab=True) == "1\t\t10.1/X"
    assert t.ids_with_urls_text("1", "PMC2", "", "https://a", "", "") == "[1, PMC2] (https://a)"
    assert t.ids_with_urls_text("1", "PMC2", "", "https://a", "https://b", "") == "[1, PMC2] (https://a, https://b)"


def test_people_state_and_visited_sites() -> None:
    assert t.corresp_text([CorrespAuthor("Ana Silva", email="ana@x.org"), CorrespAuthor("Rui Costa")]) == \
        "Ana Silva, ana@x.org; Rui Costa"
    assert t.authors_text([Author(literal="Ana Silva", orcid="0000-0001"), Author(given="Rui", family="Costa")]) == \
        "Ana Silva, 0000-0001; Rui Costa"
    assert t.state_text(FetchState(1500, 2, True)) == (
        "FETCH TIME: 1970-01-01T00:00:01.500Z (1500)\nRETRY COUNTER: 2\nFETCH EXCEPTION: true")
    assert t.visited_text(VisitedSite("https://a.example/", PartType.doi, "https://doi.org/x", 1000)) == (
        "https://a.example/\n    type: doi\n    from: https://doi.org/x\n    timestamp: 1970-01-01T00:00:01Z (1000)")


def test_chosen_parts_of_a_publication() -> None:
    pub = Publication()
    pub.part(PartName.pmid).content = "1"  # type: ignore[union-attr]
    pub.part(PartName.title).content = "A title"  # type: ignore[union-attr]
    assert t.publication_parts_text(pub, [PartName.pmid, PartName.title], plain=True) == "1\n\nA title"
    assert t.publication_parts_text(pub, [PartName.title]).startswith("TITLE: A title\n    type: NA\n")


def test_webpage_layout() -> None:
    page = Webpage("http://a.example/", "https://a.example/", "text/html", 200, 2000, "MIT", "en", "Title", "Body.",
                   FetchState(1000))
    assert t.webpage_text(page) == (
        "FETCH TIME: 1970-01-01T00:00:01Z (1000)\nRETRY COUNTER: 0\nFETCH EXCEPTION: false\n\n"
        "START URL: http://a.example/\nFINAL URL: https://a.example/\nCONTENT TYPE: text/html\nSTATUS CODE: 200\n"
        "CONTENT TIME: 1970-01-01T00:00:02Z (2000)\n\nLICENSE: MIT\nLANGUAGE: en\n\nTITLE LENGTH: 5\n"
        "CONTENT LENGTH: 5\n\nTITLE: Title\n\nCONTENT: Body.")


def test_an_unfetched_part_is_written_as_not_available() -> None:
    assert t.part_text(StringPart(PartName.doi)).startswith("DOI: \n    type: NA\n")


def test_rejected_and_unverified_sites_follow_the_visited_sites() -> None:
    text = t.publication_text(checked_publication())
    rejected = text.index("\n\nREJECTED SITES (another paper's):\n")
    assert text.index("\nVISITED SITES:") < rejected < text.index("\n\nUNVERIFIED SITES:\n")
    assert text[rejected:].split("\n")[3:10] == [
        "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0213978",
        "    type: doi",
        "    from: https://doi.org/10.5555/identity.redirect",
        "    reason: id",
        "    claimed: DOI 10.1371/JOURNAL.PONE.0213978",
        "    timestamp: 2023-11-14T22:13:20Z (1700000000000)",
        "",
    ]
    assert text.endswith("https://old.example.org/article/7\n    type: link_oadoi\n    titles: An old page; Old\n"
                         "    timestamp: 2023-11-14T22:13:20.500Z (1700000000500)")
    assert "REJECTED SITES" not in t.publication_text(Publication())
