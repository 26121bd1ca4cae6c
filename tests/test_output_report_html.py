"""The report page: one HTML file whose policy loads nothing and runs nothing, every value from the database escaped,
tables of coverage, sources, requests, publishers and publications not final, and a note where a section has no
data."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from pubfetch.engine.summary import BatchSummary
from pubfetch.model.part_type import PartName
from pubfetch.net.counts import HostCounts
from pubfetch.output.report_data import NotFinal, PublisherRow, Rejected
from pubfetch.output.report_html import MAX_ROWS, render_page
from support.reports import report_data

#: no publications, hosts or requests: the page draws no plot (and needs no matplotlib)
BARE = {"publications": 0, "final": 0, "parts": [], "publishers": [], "requests": None}


def rows(page: str, table_id: str) -> list[list[str]]:
    table = BeautifulSoup(page, "html.parser").find("table", id=table_id)
    assert table is not None, table_id
    return [[c.get_text() for c in tr.find_all(("td", "th"))] for tr in table.find_all("tr")]


def test_the_page_loads_nothing_and_runs_nothing() -> None:
    page = render_page(report_data(**BARE))
    assert page.startswith("<!DOCTYPE html>")
    assert "default-src 'none'; img-src data:; style-src 'unsafe-inline'" in page
    assert "<script" not in page and "src=\"http" not in page


def test_values_from_the_database_are_escaped() -> None:
    page = render_page(report_data(**BARE, title="<b>run</b>", source="<db>", not_final_total=1,
                                   not_final=[NotFinal("<id>", "<script>alert(1)</script>", (PartName.title,), True)]))
    assert "<script>alert" not in page and "<b>run</b>" not in page and "<db>" not in page
    assert rows(page, "not-final")[1] == ["<id>", "<script>alert(1)</script>", "Title", "yes"]


def test_without_requests_or_publishers_the_sections_say_why() -> None:
    page = render_page(report_data(**BARE))
    assert "No requests were counted: this report is on stored publications, not on a run." in page
    assert "No publisher page was read for these publications." in page
    assert 'id="coverage"' in page and 'id="sources"' not in page and 'id="run"' not in page


def test_request_table_totals_and_shares() -> None:
    pytest.importorskip("matplotlib", reason="the report needs matplotlib (the [report] extra, also in [test])")
    page = render_page(report_data(**{**BARE, "requests": {"a.example": HostCounts(4, 1, 1, 0, 0),
                                                           "b.example": HostCounts(6, 2, 0, 1, 1)}}))
    assert rows(page, "requests")[1:] == [["a.example", "4", "1", "1", "0", "0", "25.0 %"],
                                          ["b.example", "6", "2", "0", "1", "1", "33.3 %"],
                                          ["all 2 hosts", "10", "3", "1", "1", "1", "30.0 %"]]


def test_publisher_rows_beyond_the_limit_are_counted_in_a_note() -> None:
    pytest.importorskip("matplotlib", reason="the report needs matplotlib (the [report] extra, also in [test])")
    publishers = [PublisherRow(f"host{i}.example", 2, 1, 0, 1) for i in range(MAX_ROWS + 3)]
    page = render_page(report_data(**{**BARE, "publishers": publishers}))
    assert len(rows(page, "publishers")) == 1 + MAX_ROWS
    assert "3 more hosts not listed." in page


def test_not_final_publications_say_how_many_are_listed() -> None:
    listed = [NotFinal("1", "T", (PartName.theAbstract, PartName.fulltext), False)]
    page = render_page(report_data(**BARE, not_final=listed, not_final_total=7))
    assert "The first 1 of 7." in page
    assert rows(page, "not-final")[1] == ["1", "T", "Abstract, Fulltext", "no"]
    assert "Publications not final" not in render_page(report_data(**BARE, not_final=[], not_final_total=0))


def test_a_run_summary_gets_its_table_in_the_order_of_the_summary_line() -> None:
    summary = BatchSummary(total=3, fetched=2, skipped=1, final=2, not_final=1, failed=1, rejected_sites=4,
                           retry_limited=1, final_retried=2)
    assert [row[0] for row in rows(render_page(report_data(**BARE, summary=summary)), "run")[1:]] == [
        "publications", "fetched", "skipped (complete or not yet eligible)", "final", "partial", "failed",
        "pages and PDFs rejected as another paper's", "reached the retry limit",
        "final with a failed request, fetched again by later runs"]
    assert ["final with a failed request, fetched again by later runs", "2"] in rows(
        render_page(report_data(**BARE, summary=summary)), "run")


@pytest.mark.parametrize(("publications", "final", "text"), [(1, 1, "1 publication, 1 final (100.0 %)"),
                                                             (0, 0, "0 publications, 0 final (-)")])
def test_the_overview_counts_publications(publications: int, final: int, text: str) -> None:
    page = render_page(report_data(**{**BARE, "publications": publications, "final": final}))
    assert f"On pubs.db: {text}; made 2026-01-02 03:04 UTC by pubfetch" in page


def test_rejected_pages_are_counted_in_the_run_and_listed_with_their_claims() -> None:
    summary = BatchSummary(total=3, fetched=3, rejected_sites=2)
    rejected = [Rejected("DOI:10.5555/A", "https://hal.science/hal-04206682", "DOI:10.1038/NATURE14539", "id"),
                Rejected("DOI:10.5555/B", "https://www.biorxiv.org/content/10.1101/696633v1", "<b>Sub</b>",
                         "preprint")]
    page = render_page(report_data(**BARE, summary=summary, rejected=rejected, rejected_total=3))
    assert ["pages and PDFs rejected as another paper's", "2"] in rows(page, "run")
    assert rows(page, "rejected")[1:] == [
        ["DOI:10.5555/A", "https://hal.science/hal-04206682", "DOI:10.1038/NATURE14539", "another paper's identifier"],
        ["DOI:10.5555/B", "https://www.biorxiv.org/content/10.1101/696633v1", "<b>Sub</b>",
         "a preprint of the paper"]]
    assert "The first 2 of 3." in page and "<b>Sub</b>" not in page
    assert 'id="rejected"' not in render_page(report_data(**BARE))
