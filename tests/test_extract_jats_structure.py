"""Tables, figures, supplements and statements of the JATS reader, against the recorded full texts read here a second
way: each table laid on a dense grid of its own (every position a spanned cell covers holds its text), header rows
and footnotes taken from the XML, figures and supplements from their elements; statements by type for papers whose
back matter was read by hand. The grid rules are also tried on hand-made tables (spans across groups, ``rowspan="0"``,
ragged rows, the cells cap, hostile spans)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from pubfetch.extract.jats import parse_jats
from pubfetch.extract.jats_structure import absolute_media, media_base, statement_type
from pubfetch.extract.jats_text import element_text
from pubfetch.model.part_type import PartType
from pubfetch.model.record import ArticleRecord
from pubfetch.model.structure import Table

XLINK = "{http://www.w3.org/1999/xlink}href"
JATS_RESOURCES = ("europepmc_fulltext", "pmc_efetch")


def _jats_bodies(corpus: Path) -> list[Path]:
    with open(corpus / "manifest.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return sorted(corpus / r["body"] for r in rows if r["resource"] in JATS_RESOURCES and r["status"] == 200)


def _dense(rows: list[etree._Element]) -> list[list[str]]:
    """A row group on a dense grid: a matrix grown as cells are placed, positions taken marked."""
    grid: list[list[str | None]] = [[] for _ in rows]
    for r, tr in enumerate(rows):
        c = 0
        for cell in (x for x in tr if x.tag in ("td", "th")):
            while c < len(grid[r]) and grid[r][c] is not None:
                c += 1
            rowspan = int(cell.get("rowspan", "1") or 1)
            rowspan = len(rows) - r if rowspan == 0 else min(rowspan, len(rows) - r)
            colspan = int(cell.get("colspan", "1") or 1)
            for rr in range(r, r + rowspan):
                for cc in range(c, c + colspan):
                    grid[rr].extend([None] * (cc + 1 - len(grid[rr])))
                    grid[rr][cc] = element_text(cell)
            c += colspan
    return [[v or "" for v in row] for row in grid]


def _expected_table(wrap: etree._Element) -> tuple[list[list[str]], list[list[str]], list[str]]:
    table = wrap.find(".//table")
    header: list[list[str]] = []
    body: list[list[str]] = []
    if table is not None:
        for group in table:
            if group.tag == "thead":
                header += _dense(group.findall("tr"))
            elif group.tag in ("tbody", "tfoot"):
                body += _dense(group.findall("tr"))
        body += _dense(table.findall("tr"))
    width = max((len(r) for r in header + body), default=0)
    header = [r + [""] * (width - len(r)) for r in header]
    body = [r + [""] * (width - len(r)) for r in body]
    notes = []
    for foot in wrap.findall("table-wrap-foot"):  # each fn, else each paragraph
        notes += [element_text(n) for n in (list(foot.iter("fn")) or [c for c in foot if c.tag != "title"])]
    return header, body, [n for n in notes if n]


def _plain(path: Path) -> etree._Element:
    return etree.parse(str(path)).getroot()


def _articles(root: etree._Element) -> list[etree._Element]:
    return [root] if root.tag == "article" else root.findall("article")


def test_every_recorded_table_equals_its_xml_cell_for_cell(corpus_dir: Path) -> None:
    tables_seen = spans_seen = multi_header = footnoted = 0
    for path in _jats_bodies(corpus_dir):
        data = path.read_bytes()
        (record,) = parse_jats(data)
        (article,) = _articles(_plain(path))
        wraps = list(article.iter("table-wrap"))
        assert len(record.tables) == len(wraps), path.name
        for table, wrap in zip(record.tables, wraps, strict=True):
            header, body, notes = _expected_table(wrap)
            assert (table.header, table.rows, table.footnotes) == (header, body, notes), f"{path.name} {table.id}"
            assert table.id == wrap.get("id", "")
            assert table.label == element_text(wrap.find("label"))
            assert table.caption == element_text(wrap.find("caption"))
            assert not table.truncated
            tables_seen += 1
            spans_seen += any(c.get("rowspan", "1") not in ("1", "") or c.get("colspan", "1") not in ("1", "")
                              for c in wrap.iter("td", "th"))
            multi_header += len(table.header) > 1
            footnoted += bool(table.footnotes)
    # the corpus holds what the comparison is about: spans, several header rows, footnotes
    assert tables_seen >= 15 and spans_seen >= 3 and multi_header >= 2 and footnoted >= 5


def test_a_table_knows_the_sections_it_sits_in(corpus_dir: Path) -> None:
    (record,) = parse_jats((corpus_dir / "files/europepmc_fulltext/PMC8222791.xml").read_bytes())
    root = _plain(corpus_dir / "files/europepmc_fulltext/PMC8222791.xml")
    for table, wrap in zip(record.tables, root.iter("table-wrap"), strict=True):
        expected = [element_text(s.find("title")) for s in wrap.iterancestors("sec")][::-1]
        assert table.section_path == expected
    assert any(t.section_path for t in record.tables)


def test_a_float_apart_from_the_body_sits_where_it_is_first_cited(corpus_dir: Path) -> None:
    path = corpus_dir / "files/europepmc_fulltext/PMC8158497.xml"
    (record,) = parse_jats(path.read_bytes())
    root = _plain(path)
    floats = [w for w in root.iter("table-wrap")
              if not any(a.tag in ("sec", "app", "boxed-text") for a in w.iterancestors())]
    assert floats
    for wrap in floats:
        table = next(t for t in record.tables if t.id == wrap.get("id"))
        first = next(x for x in root.iter("xref") if wrap.get("id") in (x.get("rid") or "").split())
        assert table.section_path == [element_text(s.find("title")) for s in first.iterancestors("sec")][::-1]
        assert table.section_path


def test_figures_and_supplements_equal_the_xml(corpus_dir: Path) -> None:
    supplements_seen = 0
    for path in _jats_bodies(corpus_dir):
        (record,) = parse_jats(path.read_bytes())
        (article,) = _articles(_plain(path))
        figs = list(article.iter("fig"))
        assert [(f.id, f.label, f.caption, f.url) for f in record.figures] == [
            (fig.get("id", ""), element_text(fig.find("label")), element_text(fig.find("caption")),
             fig.find(".//graphic").get(XLINK)) for fig in figs]
        expected = []
        for sm in article.iter("supplementary-material"):
            for media in sm.iter("media"):
                caption = element_text(sm.find("caption")) or element_text(media.find("caption"))
                expected.append((element_text(sm.find("label")), caption, media.get(XLINK)))
        assert [(s.label, s.caption, s.url) for s in record.supplements] == expected
        # a figure is never a supplement
        assert not {s.url for s in record.supplements} & {f.url for f in record.figures}
        supplements_seen += len(expected)
    assert supplements_seen >= 10


def test_supplement_media_types_and_stated_sizes(corpus_dir: Path) -> None:
    (record,) = parse_jats((corpus_dir / "files/europepmc_fulltext/PMC3320746.xml").read_bytes())
    first = record.supplements[0]
    assert (first.url, first.media_type, first.size) == ("pr200636x_si_001.pdf", "application/pdf", -1)
    (record,) = parse_jats((corpus_dir / "files/europepmc_fulltext/PMC8164761.xml").read_bytes())
    assert {s.media_type for s in record.supplements} == {
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}
    assert {s.size for s in record.supplements} == {-1}  # not stated


def test_a_size_the_caption_states_is_kept_in_bytes() -> None:
    doc = ("<article><body><supplementary-material id='s1' mimetype='text' mime-subtype='plain'><label>S1</label>"
           "<caption><p>Raw data (CSV, 1.5 MB)</p></caption><media xlink:href='s1.csv' "
           "xmlns:xlink='http://www.w3.org/1999/xlink'/></supplementary-material></body></article>")
    (record,) = parse_jats(doc.encode())
    assert [(s.id, s.media_type, s.size) for s in record.supplements] == [("s1", "text/plain", 1572864)]


def test_figure_and_supplement_urls_are_made_absolute_at_their_service(corpus_dir: Path) -> None:
    (record,) = parse_jats((corpus_dir / "files/pmc_efetch/PMC3299399.xml").read_bytes())
    absolute_media(record, media_base("pmc", record.pmcid))
    assert record.figures[0].url == "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC3299399/bin/fpsyt-03-00018-g001.jpg"
    (record,) = parse_jats((corpus_dir / "files/europepmc_fulltext/PMC3320746.xml").read_bytes())
    absolute_media(record, media_base("europepmc", record.pmcid))
    assert record.supplements[1].url == "https://europepmc.org/articles/PMC3320746/bin/pr200636x_si_002.xls"
    assert record.figures[0].url.startswith("https://europepmc.org/articles/PMC3320746/bin/")
    kept = ArticleRecord(figures=[], supplements=[])
    absolute_media(kept, media_base("pmc", ""))  # no PMCID: nothing to resolve against
    assert kept.figures == []


# statements read by hand from each paper's back matter (types in document order)
STATEMENTS = {
    "files/europepmc_fulltext/PMC8164761.xml": [
        "acknowledgements", "author_contributions", "funding", "data_availability", "ethics", "ethics",
        "competing_interests"],
    "files/europepmc_fulltext/PMC8151036.xml": [
        "acknowledgements", "author_contributions", "funding", "ethics", "ethics", "data_availability",
        "competing_interests"],
    "files/europepmc_fulltext/PMC8118396.xml": ["funding", "competing_interests", "data_availability"],
    "files/europepmc_fulltext/PMC8222791.xml": [
        "data_availability", "author_contributions", "competing_interests", "funding"],
}


@pytest.mark.parametrize("body", sorted(STATEMENTS))
def test_statements_by_type(corpus_dir: Path, body: str) -> None:
    (record,) = parse_jats((corpus_dir / body).read_bytes())
    assert [s.type for s in record.statements] == STATEMENTS[body]
    assert all(s.text for s in record.statements)


def test_statement_text_leaves_its_heading_out(corpus_dir: Path) -> None:
    (record,) = parse_jats((corpus_dir / "files/europepmc_fulltext/PMC8164761.xml").read_bytes())
    competing = next(s for s in record.statements if s.type == "competing_interests")
    assert (competing.title, competing.text) == (
        "Competing interests", "The authors declare that they have no competing interests.")


def test_statement_types_by_attribute_then_title() -> None:
    assert statement_type("COI-statement", "Disclosure statement") == "competing_interests"
    assert statement_type("", "Data and code availability") == "code_availability"
    assert statement_type("", "Availability of data and materials") == "data_availability"
    assert statement_type("", "Institutional Review Board Statement") == "ethics"
    assert statement_type("", "Results") == ""
    assert statement_type("", "Authors' contributions") == "author_contributions"
    assert statement_type("", "Contributions of sleep to memory") == ""  # a section about contributions
    assert statement_type("", "Self-disclosure in adolescents") == ""
    assert statement_type("", "Data analysis") == ""


def test_the_flat_full_text_still_holds_the_tables(corpus_dir: Path) -> None:
    (record,) = parse_jats((corpus_dir / "files/europepmc_fulltext/PMC3320746.xml").read_bytes())
    assert "69040" in record.fulltext and "Quantified Peptides" in record.fulltext


# ------------------------------------------------------------------------------------------------ hand-made tables

def _table(xml: str, max_cells: int = 100_000) -> Table:
    doc = (f"<article><front><article-meta><article-id pub-id-type='pmcid'>PMC1</article-id></article-meta></front>"
           f"<body><sec><title>Results</title><table-wrap id='t'><label>Table 1</label><caption><p>C</p></caption>"
           f"<table>{xml}</table></table-wrap></sec></body></article>")
    (record,) = parse_jats(doc.encode(), max_table_cells=max_cells)
    return record.tables[0]


def test_spans_repeat_their_text_and_end_with_their_row_group() -> None:
    table = _table("<thead><tr><th rowspan='2'>A</th><th colspan='2'>B</th></tr><tr><th>b1</th><th>b2</th></tr>"
                   "</thead><tbody><tr><td rowspan='5'>x</td><td>1</td></tr><tr><td>2</td><td>3</td></tr></tbody>")
    assert table.header == [["A", "B", "B"], ["A", "b1", "b2"]]
    assert table.rows == [["x", "1", ""], ["x", "2", "3"]]  # the row span stops at the group's end
    assert table.section_path == ["Results"]


def test_rowspan_zero_reaches_the_end_of_its_group_and_bad_spans_count_as_one() -> None:
    table = _table("<tbody><tr><td rowspan='0'>a</td><td colspan='x'>b</td></tr><tr><td>c</td></tr>"
                   "<tr><td>d</td></tr></tbody>")
    assert table.rows == [["a", "b"], ["a", "c"], ["a", "d"]]


def test_rows_past_the_cells_cap_are_left_out_and_the_table_says_so() -> None:
    rows = "".join(f"<tr><td>{i}</td><td>{i}</td></tr>" for i in range(10))
    table = _table(f"<thead><tr><th>a</th><th>b</th></tr></thead><tbody>{rows}</tbody>", max_cells=7)
    assert table.truncated and table.header == [["a", "b"]] and table.rows == [["0", "0"], ["1", "1"]]


def test_a_hostile_span_costs_no_more_than_the_cap() -> None:
    table = _table("<tbody><tr><td rowspan='65534' colspan='999999'>x</td></tr><tr><td>y</td></tr></tbody>",
                   max_cells=50)
    assert table.truncated and table.rows == []
    table = _table("<tbody><tr><td colspan='999999'>x</td></tr></tbody>")
    assert table.rows == [["x"] * 1000]  # HTML's column limit


def test_a_fetch_through_the_recorded_services_keeps_the_structure(replay_server) -> None:  # type: ignore[no-untyped-def]
    """PMID 22338609 fetched as in production (the corpus replayed for every service): its Europe PMC full text's
    tables, figures (at Europe PMC's address), supplements and statements are the publication's parts."""
    from support.replayrun import fetch_all

    _, server = replay_server
    [pub] = fetch_all(server, ["22338609"])
    assert pub.pmcid.content == "PMC3320746"
    assert pub.tables.type is PartType.europepmc_xml and len(pub.tables.items) == 4
    assert pub.tables.items[0].header[1][:2] == ["q-value threshold", "Target"]
    assert [f.url for f in pub.figures.items][0] == "https://europepmc.org/articles/PMC3320746/bin/pr-2011-00636x_0003.jpg"
    assert [s.url.rsplit("/", 1)[-1] for s in pub.supplements.items] == [
        "pr200636x_si_001.pdf", "pr200636x_si_002.xls", "pr200636x_si_003.pdf", "pr200636x_si_004.pdf"]
    assert {s.type for s in pub.statements.items} == {"author_contributions", "competing_interests",
                                                     "acknowledgements"}
