"""Tables and figures of a rule page's body and the statements of the page: a Frontiers page (its built-in rule's
body) with a table of two header rows, a footer and spans, and a figure with a relative image address, merged as the
page's parts; and the rules of a table without ``<thead>``, a caption from the figure around a table, what is no
table or figure, and which sections are statements."""

from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup

from pubfetch.extract.page_structure import page_figures, page_statements, page_tables
from pubfetch.model.part_type import PartType
from pubfetch.net.mapping_transport import Canned
from pubfetch.resources import site
from support.fetchrun import fetch_run

JOURNALS = Path(__file__).resolve().parent / "data" / "pages" / "journals"
URL = "https://www.frontiersin.org/journals/psychology/articles/10.3389/fpsyg.2024.1300123/full"
TABLE = ("<div class='table-container'><table id='T1'><caption>Table 1. Participants by group</caption>"
         "<thead><tr><th rowspan='2'>Group</th><th colspan='2'>Age</th></tr><tr><th>min</th><th>max</th></tr></thead>"
         "<tbody><tr><td>A</td><td>5</td><td>9</td></tr><tr><td>B</td><td colspan='2'>7</td></tr></tbody>"
         "<tfoot><tr><td colspan='3'>Ages in years.</td></tr></tfoot></table></div>"
         "<figure id='F2'><img src='/files/fig2.jpg' alt=''><figcaption>Figure 2. Spindle density.</figcaption>"
         "</figure>")


def _page() -> bytes:
    html = (JOURNALS / "frontiers_2024_article.html").read_text(encoding="utf-8")
    marker = "<p>Forty children took part with the written consent of their parents.</p>"
    assert marker in html
    return html.replace(marker, marker + TABLE).encode("utf-8")


def test_a_rule_page_gives_the_tables_and_figures_of_its_body() -> None:
    doi = "10.3389/fpsyg.2024.1300123"
    run = fetch_run(1, answers={URL: Canned(200, _page(), "text/html; charset=utf-8")})
    state = run.pub_state(doi)
    with run.context() as ctx:
        site.fetch_site(ctx, state, URL, PartType.doi, "https://doi.org/" + doi, meta=True, keywords=True)
    pub = state.pub
    [table] = pub.tables.items
    assert (table.id, table.label, table.caption) == ("T1", "Table 1", "Participants by group")
    assert table.header == [["Group", "Age", "Age"], ["Group", "min", "max"]]
    assert table.rows == [["A", "5", "9"], ["B", "7", "7"]]
    assert table.footnotes == ["Ages in years."]
    assert table.section_path == ["2 Materials and methods", "2.1 Participants"]
    assert (pub.tables.type, pub.tables.url) == (PartType.doi, URL)
    [figure] = pub.figures.items
    assert (figure.label, figure.caption, figure.url) == ("Figure 2", "Spindle density.",
                                                         "https://www.frontiersin.org/files/fig2.jpg")
    # the statements of the whole page: the rule's body leaves the last two out
    assert [(s.type, s.title) for s in pub.statements.items] == [
        ("data_availability", "Data availability statement"), ("author_contributions", "Author contributions"),
        ("competing_interests", "Conflict of interest")]


def test_statements_are_the_sections_a_heading_names() -> None:
    page = BeautifulSoup("<body><h2>Methods</h2><p>We did.</p><h2>Competing interests</h2><p>None.</p>"
                         "<h3>Funding</h3><p>Grant 1.</p><h2>Data availability</h2><h2>Ethics statement</h2>"
                         "<p>Approved.</p></body>", "html.parser").body
    assert [(s.type, s.title, s.text) for s in page_statements(page)] == [
        ("competing_interests", "Competing interests", "None."), ("funding", "Funding", "Grant 1."),
        ("ethics", "Ethics statement", "Approved.")]  # a heading without text is no statement


def test_a_statements_text_ends_at_the_next_heading_with_text() -> None:
    """An empty heading (an anchor, an icon) opens no section: the statement's paragraphs go on past it; a section
    that names no statement keeps its paragraphs out of the one before it."""
    page = BeautifulSoup("<body><p>Before any heading.</p><h2>Funding</h2><p>Grant 1.</p><h2><a id='x'></a></h2>"
                         "<ul><li>Grant 2.</li></ul><h2>Results</h2><p>We found.</p><h2>Competing interests</h2>"
                         "<div><p>None.</p></div></body>", "html.parser").body
    assert [(s.type, s.text) for s in page_statements(page)] == [
        ("funding", "Grant 1.\n\nGrant 2."), ("competing_interests", "None.")]


def _roots(html: str) -> list:  # type: ignore[type-arg]
    return [BeautifulSoup(html, "html.parser").body]


def test_leading_rows_of_header_cells_are_the_header_without_thead() -> None:
    [table] = page_tables(_roots("<body><figure><figcaption>TABLE 2: Doses</figcaption><table>"
                                 "<tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table></figure></body>"))
    assert (table.label, table.caption, table.header, table.rows) == ("TABLE 2", "Doses", [["a", "b"]], [["1", "2"]])


def test_layout_tables_without_cells_and_figures_without_images_are_left_out() -> None:
    roots = _roots("<body><table></table><figure><figcaption>Figure 1. A quote.</figcaption></figure>"
                   "<table><tr><td>x<table><tr><td>inner</td></tr></table></td></tr></table></body>")
    tables = page_tables(roots)
    assert [t.rows for t in tables] == [[["x inner"]]]  # the inner table is its cell's text
    assert page_figures(roots, "https://example.org/") == []


def test_the_cells_cap_holds_on_pages() -> None:
    rows = "".join(f"<tr><td>{i}</td></tr>" for i in range(50))
    [table] = page_tables(_roots(f"<body><table>{rows}</table></body>"), max_cells=10)
    assert table.truncated and len(table.rows) == 10
