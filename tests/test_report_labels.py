"""Report labels come from the database: a publisher host containing ``$...$`` crashed
``-report`` in matplotlib's mathtext parser. Every label is drawn as plain text."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="the report needs matplotlib (the [report] extra, also in [test])")

import pubfetch
from pubfetch.model.part_type import PartType
from pubfetch.output.report_plots import stacked_bars
from pubfetch.store import init_store
from support.publications import fetched_publication

MATH = "$\\frac{$"  # not a formula mathtext can parse: it raises


def test_labels_with_dollar_signs_are_plain_text() -> None:
    uri = stacked_bars(f"Title {MATH}", [f"host{MATH}.example", "$x^2$"], [(f"seg {MATH}", "#000000", [1, 2])],
                       f"x {MATH}")
    assert uri.startswith("data:image/png;base64,")


def test_a_report_of_a_database_with_such_hosts(tmp_path: Path) -> None:
    db = tmp_path / "pubs.db"
    pub = fetched_publication("31111111", "10.1000/dollar", "A title with $x$ in it",
                              fulltext=(PartType.doi, "https://www.example.org/a"),
                              visited=(f"https://pub{MATH}lisher.example/article",))
    with init_store(db) as store:
        assert store.put_publication(pub)
        store.commit()
    page = pubfetch.report(tmp_path / "report.html", db=db).read_text(encoding="utf-8")
    assert "lisher.example" in page
