"""The rich parts in text, HTML, tables and the run report; a retracted paper says so first and is warned about
when fetched."""

from __future__ import annotations

import io
import logging

import pytest

from pubfetch.fetcher import warn_retracted
from pubfetch.model import Publication
from pubfetch.output import html, text
from pubfetch.output.report import gather
from pubfetch.output.rich import RETRACTED_TEXT
from pubfetch.output.writer import write_entries
from pubfetch.tables import record
from support.publications import rich_publication


def test_text_says_retracted_first_and_lists_the_rich_parts() -> None:
    out = text.publication_text(rich_publication())
    assert out.startswith(RETRACTED_TEXT + " (retraction notice 456)\n\n")
    assert "FUNDING: [NIGMS NIH HHS R01 GM1]\n    type: PubMed XML" in out
    assert "SECTIONS: \n    Introduction\n      Aims\n" in out
    assert "LICENSE: https://creativecommons.org/licenses/by/4.0/\n" in out
    assert text.publication_plain_text(rich_publication()).splitlines()[2].startswith(RETRACTED_TEXT)


def test_a_publication_without_rich_parts_keeps_pubfetchers_layout() -> None:
    out = text.publication_text(Publication())
    assert out.startswith("PMID: ") and "FUNDING" not in out and "RETRACTED" not in out


def test_html_escapes_and_links_the_rich_parts() -> None:
    pub = rich_publication()
    out = html.publication_html(pub)
    assert "<p><strong>" + RETRACTED_TEXT in out
    assert '<h3>References</h3>\n<ol>\n<li>Cited. 2000 [<a href="https' in out
    assert '<a href="https&#58;&#47;&#47;creativecommons' in out


def test_table_columns_and_report_coverage() -> None:
    pub = rich_publication()
    row = record(pub)
    assert (row["retracted"], row["funding"], row["updates"], row["sections"]) == (
        True, ["NIGMS NIH HHS R01 GM1"], ["RetractionIn:456"], ["Introduction"])
    data = gather([pub, Publication()])
    coverage = {c.part.value: (c.final, c.missing) for c in data.parts}
    assert coverage["references"] == (1, 1) and coverage["license"] == (1, 1)


def test_a_retracted_paper_is_warned_about_in_one_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="pubfetch.fetcher"):
        warn_retracted(rich_publication())
    [message] = [r.getMessage() for r in caplog.records]
    assert message == "22528466 is a retracted publication (retraction notice 456)"


def test_json_output_carries_the_rich_parts_in_camel_case() -> None:
    out = io.StringIO()
    write_entries(out, [rich_publication()], fmt="jsonl")
    assert '"grantId":"R01 GM1"' in out.getvalue() and '"retracted":true' in out.getvalue()
