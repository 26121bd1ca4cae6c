"""PubMed article page parser: a hand-written page in the current pubmed.ncbi.nlm.nih.gov layout, variants of it,
non-article pages and mutated pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from pubfetch.extract.errors import ParseError
from pubfetch.extract.pubmed_html import parse_cit, parse_pubmed_html
from pubfetch.model.parts import Author, MeshTerm
from pubfetch.model.record import ArticleRecord
from support.mutations import MUTATIONS, mutate

PAGE = Path(__file__).parent / "data" / "documents" / "pubmed" / "article_page.html"


def test_article_page() -> None:
    r = parse_pubmed_html(PAGE.read_bytes())
    assert (r.pmid, r.pmcid, r.doi) == ("33300001", "PMC8000001", "10.1093/bioinformatics/btab999")
    assert r.title == "Tracing tool mentions in abstracts with a rule-based tagger"
    assert r.abstract == (
        "Motivation: Tool names in abstracts are hard to find, because they look like ordinary words & acronyms.\n\n"
        "Results: A rule-based tagger finds 92% of tool mentions (F1 = 0.88).\n\n"
        "Availability and implementation: Source code is at https://example.org/tagger.")
    assert r.keywords == ["Bioinformatics tools", "Named entity recognition", "text mining"]
    assert r.mesh == [MeshTerm("Computational Biology"), MeshTerm("Data Mining", True), MeshTerm("Humans"),
                      MeshTerm("Software", True)]
    assert r.journal_title == "Bioinformatics (Oxford, England)"
    assert (r.volume, r.issue, r.pages, r.pub_date) == ("37", "6", "812-818", "2021-03-15")
    assert r.authors == [
        Author(family="Tamm", given="Kadri", affiliations=["Institute of Computer Science, University of Tartu, Tartu, Estonia."]),
        Author(family="Saar", given="Mari", affiliations=["Institute of Computer Science, University of Tartu, Tartu, "
                                                          "Estonia.", "Estonian Biocentre, Tartu, Estonia."]),
        Author(family="Mets", given="Jaan", affiliations=["Estonian Biocentre, Tartu, Estonia."]),
    ]
    assert r.flags["source"] == "pubmed_html"


def test_str_input_and_other_language_abstract_only() -> None:
    html = PAGE.read_text(encoding="utf-8").replace('id="eng-abstract"', 'id="xxx-abstract"').replace(
        'class="abstract-content selected"', 'class="abstract-content"')
    r = parse_pubmed_html(html)
    assert r.abstract.startswith("Motivation: Tool names")  # the first abstract-content block


def test_doi_from_citation_line_when_identifiers_lack_it() -> None:
    html = PAGE.read_text(encoding="utf-8")
    start = html.index('<li>\n          <span class="identifier doi">')
    end = html.index("</li>", start) + len("</li>")
    r = parse_pubmed_html(html[:start] + html[end:])
    assert r.doi == "10.1093/bioinformatics/btab999"  # from "doi: 10.1093/bioinformatics/btab999." in the heading


def test_page_without_abstract() -> None:
    html = ('<html><body><header id="heading"><div id="full-view-heading"><h1 class="heading-title"> Letter. </h1>'
            '<ul class="identifiers" id="full-view-identifiers"><li><span class="identifier pubmed">'
            '<span class="id-label">PMID:</span><strong class="current-id">123</strong></span></li></ul></div></header>'
            '<div class="abstract" id="abstract"><em class="empty-abstract">No abstract available</em></div>'
            "</body></html>")
    r = parse_pubmed_html(html)
    assert (r.pmid, r.title, r.abstract, r.keywords) == ("123", "Letter.", "", [])


@pytest.mark.parametrize("html", [
    "",
    "<html><body><p>Page not found</p></body></html>",
    '<html><body><a class="docsum-title" href="/1/">A search result</a></body></html>',
])
def test_non_article_pages_raise(html: str) -> None:
    with pytest.raises(ParseError):
        parse_pubmed_html(html)


def test_a_page_cut_short_is_refused_wherever_it_was_cut() -> None:
    """A page whose answer ended where the connection closed (no length said) can stop inside its heading: the title
    read from it would be a final part. Cut anywhere before its closing tag, the page is refused as unreadable; the
    whole page, with the tag in upper case or trailing blank lines, is read."""
    page = PAGE.read_bytes()
    title_at = page.index(b"Tracing tool mentions")
    for cut in (title_at + 12, page.index(b"</h1>"), len(page) // 2, page.rindex(b"</body>")):
        with pytest.raises(ParseError, match="cut short"):
            parse_pubmed_html(page[:cut])
        with pytest.raises(ParseError, match="cut short"):
            parse_pubmed_html(page[:cut].decode("utf-8", "ignore"))
    assert parse_pubmed_html(page.replace(b"</html>", b"</HTML>") + b"\n\n").title == (
        "Tracing tool mentions in abstracts with a rule-based tagger")


def test_non_text_input_raises() -> None:
    with pytest.raises(ParseError):
        parse_pubmed_html(3.14)  # type: ignore[arg-type]


@pytest.mark.parametrize(("cit", "expected"), [
    ("2019 Jul 2;47(W1):W256-W259.", ("2019 Jul 2", "47", "W1", "W256-W259")),
    ("2012 Dec;21(6):1349-57.", ("2012 Dec", "21", "6", "1349-57")),
    ("1975;3:94-104.", ("1975", "3", "", "94-104")),
    ("2018 Jun 4;9:576.", ("2018 Jun 4", "9", "", "576")),
    ("nonsense", ("", "", "", "")),
])
def test_citation_line(cit: str, expected: tuple[str, str, str, str]) -> None:
    assert parse_cit(cit) == expected




@settings(max_examples=150, deadline=None)
@given(cuts=MUTATIONS)
def test_mutated_page_only_raises_value_error(cuts: list[tuple[int, int, int]]) -> None:
    try:
        record = parse_pubmed_html(mutate(PAGE.read_bytes(), cuts))
    except ValueError:
        return
    assert isinstance(record, ArticleRecord)
