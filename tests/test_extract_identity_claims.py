"""What a page or PDF claims to be: every identifier its tags carry (HighWire, Dublin Core, PRISM, JSON-LD), its
titles (meta tags, first heading, ``<title>``), and a PDF's metadata DOIs, else those of its first page."""

from __future__ import annotations

from pubfetch.extract.identity_claims import page_claims, pdf_claims
from pubfetch.extract.pdf import extract_pdf_in_process
from support.pdfs import make_pdf

URL = "https://journals.example.org/article/1"
PAGE = """<html><head><title>Seeing &amp; believing | Journal of Tests</title>
<meta name="citation_title" content="Seeing &amp; believing">
<meta name="citation_doi" content="doi:10.1000/Journal.2020.1">
<meta name="dc.identifier" content="ISSN 1234-5678">
<meta name="DC.Identifier" content="https://doi.org/10.1000/journal.2020.1">
<meta name="prism.doi" content="10.1000/other.prism">
<meta name="citation_pmid" content="12345">
<meta name="citation_pmid" content="not a pmid">
<script type="application/ld+json">{"@type": "ScholarlyArticle", "headline": "Seeing and believing",
 "sameAs": "https://doi.org/10.1000/jsonld.1"}</script>
</head><body><h1 class="title">Seeing <i>&amp;</i>
believing<sup>*</sup></h1><h1>Another heading</h1></body></html>"""


def test_every_identifier_a_page_carries_is_claimed_best_source_first() -> None:
    claims = page_claims(PAGE, URL)
    assert claims.url == URL
    assert claims.dois == ("10.1000/JOURNAL.2020.1", "10.1000/OTHER.PRISM", "10.1000/JSONLD.1")
    assert claims.pmids == ("12345",) and claims.pmcids == ()


def test_a_pages_titles_are_its_meta_titles_first_heading_and_title_element() -> None:
    assert page_claims(PAGE.encode(), URL).titles == (
        "Seeing & believing", "Seeing and believing", "Seeing & believing *", "Seeing & believing | Journal of Tests")


def test_a_page_without_tags_claims_its_headings_only() -> None:
    claims = page_claims("<html><body><h1>Only a heading</h1><p>Text.</p></body></html>", URL)
    assert (claims.has_ids, claims.titles) == (False, ("Only a heading",))
    assert page_claims("<h1>never closed " + "x " * 5000, URL).titles == ()


def test_a_pdf_claims_its_metadata_doi_before_its_first_page() -> None:
    data = make_pdf(["A study. Cites doi:10.1000/cited.1", "Page two doi:10.1000/later"],
                    info={"Title": b"A study", "Subject": b"Journal of Tests, doi:10.1000/journal.2020.1"})
    claims = pdf_claims(extract_pdf_in_process(data), URL + ".pdf")
    assert claims.dois == ("10.1000/JOURNAL.2020.1",) and claims.titles == ("A study",)
    assert "Cites doi:10.1000/cited.1" in claims.first_page and "Page two" not in claims.first_page


def test_a_pdf_without_metadata_claims_the_dois_of_its_first_page() -> None:
    claims = pdf_claims(extract_pdf_in_process(make_pdf(["A study. doi:10.1000/journal.2020.1", "doi:10.1/x"])), URL)
    assert claims.dois == ("10.1000/JOURNAL.2020.1",) and claims.titles == ()
