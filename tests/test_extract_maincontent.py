"""The body of an article page no rule reads: main content as sections (heading, level, text) and as PubFetcher's
paragraph text, with back matter and the abstract dropped, the title not repeated, and nothing for an empty page."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from pubfetch.extract.maincontent import Body, drop_back_matter, is_back_matter, main_content
from support.article_pages import ABSTRACT, SENTENCE, article_page

TITLE = "Sediment supply controls marsh resilience"


@pytest.fixture(scope="module")
def body() -> Body:
    page = article_page(abstract_block=f'<section class="abstract"><h2>Abstract</h2><p>{ABSTRACT}</p></section>')
    return main_content(page, "https://journal.example/article/1", TITLE)


def test_the_body_is_the_articles_sections_with_their_heading_levels(body: Body) -> None:
    assert [(s.title, s.level) for s in body.sections] == [(f"Part {i}", 2) for i in range(6)]
    assert all(" ".join(s.text.split()) == " ".join((SENTENCE * 5).split()) for s in body.sections)


def test_back_matter_the_abstract_and_the_title_are_not_in_the_body(body: Body) -> None:
    assert "We thank the marsh owners" not in body.text
    assert "Smith, J. (2010)" not in body.text
    assert ABSTRACT[:60] not in body.text
    assert TITLE not in body.text


def test_the_text_is_headings_and_paragraphs_separated_by_blank_lines(body: Body) -> None:
    assert body.text.startswith("Part 0\n\nCoastal wetlands store")
    assert "\n\nPart 1\n\nCoastal wetlands store" in body.text


def test_prose_is_the_running_text_paragraphs(body: Body) -> None:
    assert len(body.prose) == 12
    assert all(p.startswith("Coastal wetlands store") for p in body.prose)


def test_an_empty_page_has_no_body() -> None:
    assert main_content("") == Body()


@pytest.mark.parametrize("heading", ["References", "2. Acknowledgments", "Conflict of interest:", "Abstract",
                                     "Data availability statement", "Supplementary Materials", "LITERATURE CITED"])
def test_back_matter_and_abstract_headings(heading: str) -> None:
    assert is_back_matter(heading)


@pytest.mark.parametrize("heading", ["Results", "References to earlier work in the field", "Methods and materials",
                                     "Notes on sampling", ""])
def test_body_headings(heading: str) -> None:
    assert not is_back_matter(heading)


def test_drop_back_matter_removes_the_section_a_heading_opens() -> None:
    soup = BeautifulSoup(f"<body><section><h2>Results</h2><p>{SENTENCE * 4}</p></section>"
                         "<section><h2>References</h2><ol><li>Smith 2010.</li></ol></section></body>", "html.parser")
    drop_back_matter(soup.body)
    assert "Results" in soup.get_text() and "Smith 2010" not in soup.get_text() and "References" not in soup.get_text()


def test_drop_back_matter_removes_what_a_bare_heading_heads_up_to_the_next_heading_of_its_rank() -> None:
    soup = BeautifulSoup(f"<body><div><h2>Results</h2><p>{SENTENCE * 4}</p><h2>Acknowledgements</h2>"
                         "<p>We thank the owners.</p><h3>Funders</h3><p>A funder.</p><h2>Appendix</h2><p>Tables.</p>"
                         "</div></body>", "html.parser")
    drop_back_matter(soup.body)
    text = soup.get_text(" ", strip=True)
    assert "Results" in text and "Appendix Tables." in text
    assert "We thank" not in text and "A funder" not in text


def test_a_container_holding_most_of_the_page_is_not_dropped_for_its_first_heading() -> None:
    soup = BeautifulSoup(f"<body><div><h2>Abstract</h2><p>A short abstract.</p><h2>Results</h2><p>{SENTENCE * 4}</p>"
                         "</div></body>", "html.parser")
    drop_back_matter(soup.body)
    text = soup.get_text(" ", strip=True)
    assert text.startswith("Results Coastal wetlands") and "A short abstract" not in text
