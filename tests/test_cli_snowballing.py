"""The command line's snowball: --citations, --expand-references, --depth and --max-hits, -out --format edges read back
with csv (SQLite and PostgreSQL), the report's flow table, and what is refused before any request."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from pubfetch.model.edges import EDGE_COLUMNS
from pubfetch.store import open_or_init_store
from support.citation_graph import CitingServices
from support.synthetic import Article


def test_the_command_line_snowballs_and_prints_the_edges_as_csv_later(cli, citation_graph: CitingServices,
        tmp_path: Path) -> None:
    db = str(tmp_path / "pubs.db")
    code, _, err = cli("-pub", *citation_graph.pmids(3), "-db-fetch-end", db, "--citations", "--depth", "2",
                       "--allow-private-addresses", "--no-javascript")
    assert code == 0, err
    assert "39 publications: 39 fetched" in err
    assert "identified 77 (3 given, 10 Europe PMC citations at depth 1, 10 PubMed citations at depth 1" in err
    assert "38 duplicates removed, 0 already in the database" in err
    code, out, err = cli("-pub-db", db, "-out", "--format", "edges")
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert tuple(rows[0]) == EDGE_COLUMNS
    assert len(rows) - 1 == 2 * 37
    assert [Article(3).pmid, "", Article(3).doi.upper(), Article(0).pmid, Article(0).pmcid, Article(0).doi.upper(),
            "europepmc_citations"] in rows


def test_the_command_line_refuses_a_depth_over_max_hits_naming_the_count(cli, citation_graph: CitingServices,
        tmp_path: Path) -> None:
    code, _, err = cli("-pub", *citation_graph.pmids(3), "-db-fetch-end", str(tmp_path / "pubs.db"), "--citations",
                       "--max-hits", "10", "--allow-private-addresses", "--no-javascript")
    assert code == 2
    assert "depth 1 would bring the run to as many as 16 publications" in err and "--max-hits 10" in err
    assert "Traceback" not in err


def test_format_edges_is_refused_beside_another_output(cli, tmp_path: Path) -> None:
    db = tmp_path / "pubs.db"
    open_or_init_store(str(db)).close()
    code, _, err = cli("-pub-db", str(db), "-out-ids", "-out", "--format", "edges")
    assert code == 2 and "--format edges is printed by -out only, not by -out-ids" in err


def test_an_older_database_without_the_edges_table_prints_only_the_header(cli, tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    open_or_init_store(str(db)).close()
    code, out, _ = cli("-pub-db", str(db), "-out", "--format", "edges")
    assert code == 0 and out.splitlines() == [",".join(EDGE_COLUMNS)]


def test_the_report_of_a_snowball_has_the_flow_table(cli, citation_graph: CitingServices,
        tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the report needs matplotlib (the [report] extra)")
    from bs4 import BeautifulSoup

    report = tmp_path / "run.html"
    code, _, err = cli("-pub", *citation_graph.pmids(3), "-db-fetch-end", str(tmp_path / "pubs.db"), "--citations",
                       "--expand-references", "--allow-private-addresses", "--no-javascript", "-report", str(report))
    assert code == 0, err
    page = BeautifulSoup(report.read_text(encoding="utf-8"), "html.parser")
    cells = {tuple(td.get_text() for td in tr.find_all("td"))[1:] for tr in page.find("table", id="flow").find_all("tr")}
    assert {("identified: given", "3"), ("identified: Europe PMC citations at depth 1", "10"),
            ("identified: PubMed citations at depth 1", "10"), ("publications after duplicates removed", "12"),
            ("fetched", "12")} <= cells
    assert page.find("img", id="plot-flow") is not None


@pytest.mark.parametrize(("argv", "said"), [
    (["-pub", "123", "-out", "--citations"], "add a fetch step (-db-fetch-end DATABASE"),
    (["-pub", "123", "-fetch", "--depth", "2"], "--depth is how far --citations or --expand-references go"),
    (["-pub", "123", "-fetch", "--citations", "--queue", "redis://127.0.0.1:6379/13"], "without --queue"),
    (["-pub", "123", "-fetch", "--expand-references", "--no-rich-parts"], "which --no-rich-parts leaves out"),
])
def test_a_snowball_that_could_not_run_is_refused_before_any_request(cli, env, argv: list[str], said: str) -> None:
    code, _, err = cli(*argv)
    assert code == 2 and said in err and err.count("\n") == 1


def test_a_snowball_into_postgresql_keeps_its_edges_there(cli, citation_graph: CitingServices, pg_url: str) -> None:
    code, _, err = cli("-pub", *citation_graph.pmids(3), "-db-fetch-end", pg_url, "--citations",
                       "--allow-private-addresses", "--no-javascript")
    assert code == 0, err
    code, out, err = cli("-pub-db", pg_url, "-out", "--format", "edges")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {(r["citing_pmid"], r["cited_pmid"], r["source"]) for r in rows} == {
        (Article(a).pmid, Article(b).pmid, source) for b in range(3) for a in citation_graph.citers(b)
        for source in ("europepmc_citations", "pubmed_citedin")}
