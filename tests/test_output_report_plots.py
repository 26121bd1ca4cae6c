"""The report's plots: PNG ``data:`` URIs of stacked bars, one per section that has something to show, with every
label (hosts come from the database) drawn as plain text, never read as a mathtext formula."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="the report needs matplotlib (the [report] extra, also in [test])")

import pubfetch
from pubfetch.model import Publication
from pubfetch.model.part_type import PartType
from pubfetch.output import report_plots
from pubfetch.output.report import gather
from pubfetch.output.report_plots import plots, stacked_bars
from pubfetch.store import init_store
from support.publications import fetched_publication, rich_publication
from support.reports import report_data

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


def png(uri: str) -> bytes:
    prefix = "data:image/png;base64,"
    assert uri.startswith(prefix)
    return base64.b64decode(uri[len(prefix):])


def png_height(data: bytes) -> int:
    return int.from_bytes(data[20:24], "big")  # the height field of the PNG header (IHDR)


def test_every_section_with_data_gets_a_png() -> None:
    images = plots(report_data())
    assert set(images) == {"coverage", "sources", "requests", "publishers"}
    assert all(png(uri).startswith(b"\x89PNG\r\n\x1a\n") for uri in images.values())


def test_sections_without_data_get_no_plot() -> None:
    assert plots(report_data(publications=0, requests=None, publishers=[])) == {}
    assert set(plots(report_data(requests={}, publishers=[]))) == {"coverage", "sources"}


def test_more_bars_make_a_taller_image() -> None:
    few = png(stacked_bars("t", ["a"], [("s", "#000000", [1])], "x"))
    many = png(stacked_bars("t", [f"host{i}" for i in range(10)], [("s", "#000000", list(range(10)))], "x"))
    assert png_height(many) > png_height(few)



def test_the_coverage_plot_has_a_bar_for_every_rich_part(monkeypatch: pytest.MonkeyPatch) -> None:
    """Funding, updates, references, sections and licence are bars of the coverage plot beside PubFetcher's parts,
    each counted final / missing over the publications."""
    drawn: dict[str, tuple[list[str], dict[str, list[int]]]] = {}

    def capture(title, labels, segments, xlabel):  # type: ignore[no-untyped-def]
        drawn[title] = (list(labels), {name: list(values) for name, _, values in segments})
        return "data:image/png;base64,"

    monkeypatch.setattr(report_plots, "stacked_bars", capture)
    report_plots.coverage_plot(gather([rich_publication(), Publication()]))
    [(labels, segments)] = drawn.values()
    for label in ("Funding", "Updates", "References", "Sections", "License"):
        i = labels.index(label)
        assert (segments["final"][i], segments["missing"][i]) == (1, 1), label
    assert "Title" in labels  # beside PubFetcher's parts
