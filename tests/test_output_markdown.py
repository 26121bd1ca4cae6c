"""``--format markdown``: a paper as headed Markdown with its tables as GitHub tables, checked by parsing the output
with markdown-it-py (CommonMark with GFM tables): every table of a recorded paper renders as a table whose cells are
the part's (header rows flattened by the stated rule), and the layout's parts are where the format says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubfetch.extract.jats import parse_jats
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.output.markdown import flat_header, publication_markdown
from pubfetch.output.writer import format_entries
from pubfetch.store import init_store
from support.publications import structured_publication

markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py (pubfetch[test]) renders the Markdown")


def _parser():  # type: ignore[no-untyped-def]
    return markdown_it.MarkdownIt("commonmark").enable("table")


def _cells(text: str) -> list[tuple[list[str], list[list[str]]]]:
    tables: list[tuple[list[str], list[list[str]]]] = []
    depth = 0
    row: list[str] = []
    head = False
    for token in _parser().parse(text):
        depth += token.type == "table_open"
        if token.type == "table_open":
            tables.append(([], []))
        elif token.type == "table_close":
            depth -= 1
        elif token.type in ("thead_open", "thead_close"):
            head = token.type == "thead_open"
        elif token.type == "tr_open":
            row = []
        elif token.type == "inline" and depth:
            row.append(token.content)
        elif token.type == "tr_close":
            if head:
                tables[-1][0].extend(row)
            else:
                tables[-1][1].append(row)
    return tables


def _unescaped(cell: str) -> str:
    return cell.replace("\\|", "|").replace("\\\\", "\\")


def _corpus_publication(corpus: Path, body: str) -> Publication:
    (record,) = parse_jats((corpus / body).read_bytes())
    pub = Publication()
    apply_record(pub, record, PartType.europepmc_xml, "https://www.ebi.ac.uk/", FetcherArgs())
    return pub


@pytest.mark.parametrize("body", ["files/europepmc_fulltext/PMC3320746.xml", "files/pmc_efetch/PMC3299399.xml",
                                  "files/europepmc_fulltext/PMC8158497.xml"])
def test_a_recorded_paper_renders_with_its_tables_as_tables(corpus_dir: Path, body: str) -> None:
    pub = _corpus_publication(corpus_dir, body)
    text = format_entries([pub], fmt="markdown")
    rendered = _cells(text)
    tables = [t for t in pub.tables.items if t.width]
    assert len(rendered) == len(tables) > 0
    read = sorted(json.dumps(([_unescaped(c) for c in header], [[_unescaped(c) for c in row] for row in rows]))
                  for header, rows in rendered)  # in the order the sections place them
    assert read == sorted(json.dumps((flat_header(t.header, t.width), t.rows)) for t in tables)
    html = _parser().render(text)
    assert html.count("<h1>") == 1 and "<h2>Abstract</h2>" in html and "<h2>References</h2>" in html


def test_several_header_rows_flatten_column_by_column() -> None:
    assert flat_header([["Group", "Dose", "Dose"], ["Group", "mg", "mL"]], 3) == ["Group", "Dose / mg", "Dose / mL"]
    assert flat_header([["", "a"], ["x", "a"]], 2) == ["x", "a"]


def test_the_layout_of_a_paper() -> None:
    text = publication_markdown(structured_publication())
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == ["# Tables as data", "## Abstract", "## Results", "### Dose", "## Figures",
                        "## Supplementary material", "## Statements", "### Data availability", "### Funding",
                        "## References"]
    html = _parser().render(text)
    # the table sits in its section (Results > Dose), its pipe and line break kept inside the cell
    dose = html.split("<h3>Dose</h3>", 1)[1].split("<h2>", 1)[0]
    assert "<th>Dose / mg</th>" in dose and "<td>A | B</td>" in dose and "<td>2<br>3</td>" in dose
    assert '<img src="https://europepmc.org/articles/PMC7/bin/f1.jpg" alt="Figure 1"' in html
    assert '<a href="https://europepmc.org/articles/PMC7/bin/s1.csv">S1</a> (text/csv, 12 bytes)' in html
    assert "<p>In Zenodo.</p>" in html


def test_markup_in_the_text_stays_text() -> None:
    pub = structured_publication()
    pub.abstract.content = "# not a heading\n\n- not a list\n\n<script>x</script> and p < 0.05"
    html = _parser().render(publication_markdown(pub))
    assert "<p># not a heading</p>" in html and "<p>- not a list</p>" in html
    assert "&lt;script&gt;x&lt;/script&gt; and p &lt; 0.05" in html


def test_the_command_line_writes_markdown(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "pubs.db")
    with init_store(db) as store:
        store.put_publication(structured_publication())
    code, out, err = cli("-pub", "77", "-db", db, "-out", "--format", "markdown")
    assert code == 0, err
    assert out.startswith("# Tables as data\n") and len(_cells(out)) == 1


def test_id_lists_and_top_hosts_are_markdown_lists() -> None:
    from pubfetch.ids import PublicationIds
    from pubfetch.output.summary import format_ids, format_top_hosts

    ids = format_ids([PublicationIds("123", "PMC7", "")], ["https://a.org/x"], fmt="markdown", plain=True)
    html = _parser().render(ids)
    assert html.count("<li>") == 2 and '<a href="https://a.org/x">' in html
    assert _parser().render(format_top_hosts({"doi.org": 3}, fmt="markdown")).count("<li>") == 1


def test_terminal_controls_from_fetched_text_are_not_written() -> None:
    pub = structured_publication()
    pub.abstract.content = "Found \x1b[2Jit."
    assert "\x1b" not in format_entries([pub], fmt="markdown")
