"""The counts a review reports: the summary line's clause, and the report's table from identification to full text
(one row per box of a PRISMA flow diagram) with its plot."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from pubfetch.engine.summary import BatchSummary
from pubfetch.output.report_flow import flow_rows
from pubfetch.output.report_html import render_page
from support.reports import report_data


def snowballed() -> BatchSummary:
    return BatchSummary(total=39, fetched=30, skipped=9, final=20, not_final=19, failed=2, with_fulltext=18,
                        duplicates=48, identified={"given": 3, "Europe PMC citations at depth 1": 10,
                                                   "PubMed citations at depth 1": 10, "references at depth 1": 64})


def test_the_summary_line_ends_with_what_was_identified_and_removed() -> None:
    assert snowballed().line().endswith(
        "; identified 87 (3 given, 10 Europe PMC citations at depth 1, 10 PubMed citations at depth 1, "
        "64 references at depth 1), 48 duplicates removed, 9 already in the database; 18 with full text")


def test_a_run_that_identified_nothing_beyond_its_ids_has_no_such_clause() -> None:
    line = BatchSummary(total=2, fetched=2, final=2, with_fulltext=1).line()
    assert line == "2 publications: 2 fetched, 0 skipped; 2 final, 0 partial, 0 failed"


def test_the_flow_goes_from_each_source_to_full_text_and_adds_up() -> None:
    rows = flow_rows(snowballed())
    assert [(stage, what) for stage, what, _ in rows] == [
        ("identification", "identified: given"), ("identification", "identified: Europe PMC citations at depth 1"),
        ("identification", "identified: PubMed citations at depth 1"),
        ("identification", "identified: references at depth 1"), ("identification", "identified in all"),
        ("identification", "duplicates removed"), ("screening", "publications after duplicates removed"),
        ("screening", "already in the database (not fetched again)"), ("screening", "fetched"),
        ("retrieval", "final"), ("retrieval", "partial"), ("retrieval", "failed"), ("retrieval", "with full text")]
    count = {what: n for _, what, n in rows}
    assert count["identified in all"] - count["duplicates removed"] == count["publications after duplicates removed"]
    assert count["already in the database (not fetched again)"] + count["fetched"] == 39
    assert count["final"] + count["partial"] + count["failed"] == 39


def test_a_run_given_ids_only_identified_them_as_given() -> None:
    rows = flow_rows(BatchSummary(total=5, fetched=5, final=5))
    assert ("identification", "identified: given", 5) in rows


def test_the_report_shows_the_flow_table_and_its_plot() -> None:
    pytest.importorskip("matplotlib", reason="the report's plots need matplotlib (the [report] extra)")
    page = BeautifulSoup(render_page(report_data(summary=snowballed(), parts=[], publishers=[], requests=None)),
                         "html.parser")
    table = page.find("table", id="flow")
    assert table is not None
    cells = [[c.get_text() for c in tr.find_all("td")] for tr in table.find_all("tr")][1:]
    assert ["identification", "identified: references at depth 1", "64"] in cells
    assert ["retrieval", "with full text", "18"] in cells
    image = page.find("img", id="plot-flow")
    assert image is not None and image["src"].startswith("data:image/png;base64,")


def test_a_report_without_a_run_has_no_flow() -> None:
    assert 'id="flow"' not in render_page(report_data(summary=None, publications=0, final=0, parts=[],
                                                      publishers=[], requests=None))
