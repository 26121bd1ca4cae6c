"""Snowballing: the links read (recorded answers of Europe PMC's citations endpoint and ELink), each paper once
across its ID forms, depth 2 from three seeds stored once with its edges, the requests batched, --max-hits refused
before a depth, the edges read back as CSV, and the counts a review reports."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from pubfetch.extract.citation_links import parse_elink_citedin, parse_europepmc_citations
from pubfetch.extract.errors import ParseError
from pubfetch.fetcher import BatchSummary
from pubfetch.ids import PublicationIds
from pubfetch.model.edges import EDGE_COLUMNS
from pubfetch.net.mapping_transport import Canned
from pubfetch.snowball import PaperIndex, SnowballTooLarge
from pubfetch.snowball.links import citing_europepmc, citing_pubmed
from pubfetch.store import open_or_init_store, open_store
from support.citation_graph import CitingServices
from support.fetchrun import fetch_run
from support.synthetic import Article

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
RECORDED = {json.loads(line)["name"]: json.loads(line) for line in
            (CORPUS / "apis.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()} \
    if (CORPUS / "apis.jsonl").is_file() else {}
needs_corpus = pytest.mark.skipif(not RECORDED, reason="the recorded corpus (../shared/corpus/apis.jsonl) is not here")


def recorded(name: str) -> bytes:
    return (CORPUS / RECORDED[name]["body"]).read_bytes()


def recorded_citers(name: str) -> list[str]:
    """The ``id`` of each entry of a recorded citations page, read with json (not the parser under test)."""
    return [c["id"] for c in json.loads(recorded(name))["citationList"]["citation"]]


# --- the recorded answers ---------------------------------------------------------------------------------------


@needs_corpus
def test_a_recorded_citations_page_lists_its_citers_by_pmid_with_the_announced_count() -> None:
    page = parse_europepmc_citations(recorded("epmc-citations-med15723116-page1"))
    assert [c.pmid for c in page.citing] == recorded_citers("epmc-citations-med15723116-page1")
    assert page.hit_count == 810 and page.listed == 25 and page.unfollowable == 0
    last = parse_europepmc_citations(recorded("epmc-citations-med15723116-page33-last"))
    assert 0 < last.listed < 25
    none = parse_europepmc_citations(recorded("epmc-citations-med20098740-none"))
    assert none.citing == [] and none.hit_count == 0


@needs_corpus
def test_a_recorded_elink_answer_gives_the_citedin_links_only_and_refuses_a_merged_link_set() -> None:
    from lxml import etree

    body = recorded("eutils-elink-pubmed-neighbor-9298984")
    root = etree.fromstring(body)
    expected = root.xpath("//LinkSetDb[LinkName='pubmed_pubmed_citedin']/Link/Id/text()")
    neighbours = root.xpath("//LinkSetDb[LinkName='pubmed_pubmed']/Link/Id/text()")
    assert expected and set(neighbours) - set(expected)
    assert parse_elink_citedin(body) == {"9298984": expected}
    with pytest.raises(ParseError, match="one id parameter per PMID"):
        parse_elink_citedin(recorded("eutils-elink-pubmed-two-ids-mindate"))


def _recorded_links_run(asked: list[str]):
    """A fetch run whose Europe PMC citations and ELink answers are the recorded bodies (the citations endpoint
    recorded in its legacy path form ``/MED/{id}/citations/{page}/json``, served here at today's
    ``?page=&pageSize=&format=json`` form; a page that was not recorded is a 404)."""
    run = fetch_run(3)
    base = run.config.endpoints.europepmc

    def citations(request) -> Canned:
        asked.append(request.url)
        for name, pmid in (("epmc-citations-med15723116-page1", "15723116"),
                           ("epmc-citations-med20098740-none", "20098740")):
            if request.url.startswith(f"{base}MED/{pmid}/citations?page=1&"):
                return Canned(200, recorded(name), "application/json")
        return Canned(404, "{}", "application/json")

    def elink(request) -> Canned:
        asked.append(request.url)
        return Canned(200, recorded("eutils-elink-pubmed-neighbor-9298984"), "text/xml")

    run.transport.answers.update({f"{base}MED/*": citations, f"{run.config.endpoints.eutils}elink.fcgi": elink})
    return run


@needs_corpus
def test_the_links_of_recorded_answers_through_the_client(caplog: pytest.LogCaptureFixture) -> None:
    asked: list[str] = []
    run = _recorded_links_run(asked)
    with run.context() as ctx:
        none = citing_europepmc(ctx, PublicationIds(pmid="20098740"))
        some = citing_europepmc(ctx, PublicationIds(pmid="15723116"))
        cited_by, failed = citing_pubmed(ctx, ["9298984"])
    assert none.found == [] and not none.failed
    # page 2 of 810 citers was not recorded: the 25 of page 1 are kept, and the shortfall is said
    assert [c.pmid for c in some.found] == recorded_citers("epmc-citations-med15723116-page1") and some.failed
    assert "15723116: page 2 failed" in caplog.text
    assert "pageSize=1000&format=json" in asked[0]
    assert len(cited_by["9298984"]) == 39 and failed == []


@needs_corpus
def test_a_depth_two_snowball_over_recorded_links_stores_each_paper_once_with_its_edges(tmp_path: Path) -> None:
    """Three seeds whose links were recorded: 15723116's first Europe PMC citations page (25 of 810; its page 2 was
    not recorded, a 404 here, so its list ends there with a warning), 20098740's (none) and 9298984's ELink answer
    (39 citers). Depth 2 asks the citers' links too; none of those was recorded, so it finds nothing more."""
    asked: list[str] = []
    run = _recorded_links_run(asked)
    db = tmp_path / "pubs.db"
    edges: list = []
    summary = BatchSummary()
    pubs = run.fetch(["15723116", "20098740", "9298984"], db=str(db), summary=summary, citations=True, depth=2,
                     edges=edges)
    by_epmc = recorded_citers("epmc-citations-med15723116-page1")
    by_elink = parse_elink_citedin(recorded("eutils-elink-pubmed-neighbor-9298984"))["9298984"]
    papers = {"15723116", "20098740", "9298984", *by_epmc, *by_elink}
    assert sorted(p.pmid.content for p in pubs) == sorted(papers)
    with open_store(db) as store:
        assert store.publications_size() == len(papers)
        stored = list(store.citation_edges())
    assert sorted((e.citing.pmid, e.cited.pmid, e.source) for e in stored) == sorted(
        [(c, "15723116", "europepmc_citations") for c in by_epmc] + [(c, "9298984", "pubmed_citedin") for c in by_elink])
    assert stored == edges
    # every paper of depth 1 was asked for its citers (one Europe PMC request each, and ELink for all at once)
    citations_asked = {u.split("/MED/")[1].split("/")[0] for u in asked if "/citations?" in u}
    assert citations_asked == papers
    assert summary.identified["Europe PMC citations at depth 1"] == 25
    assert summary.identified["PubMed citations at depth 1"] == 39
    assert "Europe PMC citations at depth 2" not in summary.identified


# --- each paper once ----------------------------------------------------------------------------------------------


def test_a_paper_met_by_two_forms_of_its_id_is_one_paper_once_its_forms_are_known() -> None:
    index = PaperIndex()
    by_pmid, new = index.add(PublicationIds(pmid="123"))
    by_doi, also_new = index.add(PublicationIds(doi="10.1/x"))
    assert new and also_new and len(index) == 2
    joined = index.learn(by_pmid, PublicationIds(pmid="123", pmcid="PMC5", doi="10.1/X"))
    assert index.same(joined, by_doi) and len(index) == 1
    assert index.ids(by_doi) == PublicationIds("123", "PMC5", "10.1/x")
    assert index.add(PublicationIds(pmcid="PMC5")) == (joined, False)
    assert index.roots([by_doi, by_pmid]) == [joined]


# --- depth 2 from three seeds on synthetic services ---------------------------------------------------------------


def _graph() -> CitingServices:
    # paper 4 (open access, cited by Europe PMC as PMC9000004 and by ELink as 30000004) also cites paper 1
    return CitingServices(60, seeds=3, fanout=3, cross=[(4, 1)])


def test_depth_two_from_three_seeds_stores_each_paper_once_with_every_edge(tmp_path: Path) -> None:
    services = _graph()
    run = fetch_run(services)
    db = tmp_path / "pubs.db"
    summary = BatchSummary()
    pubs = run.fetch(services.pmids(3), db=str(db), summary=summary, citations=True, expand_references=True, depth=2)
    reached = services.within(2, citations=True, references=True)
    assert len(reached) == 39
    assert sorted(int(p.pmid.content) - 30_000_000 for p in pubs) == sorted(reached)
    with open_store(db) as store:
        assert store.publications_size() == 39
        edges = list(store.citation_edges())
    tree = {(Article(a).pmid, Article(b).pmid) for b in reached for a in services.citers(b) if a in reached}
    for source in ("europepmc_citations", "pubmed_citedin", "references"):
        got = {(e.citing.pmid, e.cited.pmid) for e in edges if e.source == source}
        assert got == tree, source
    # each end carries every form of its paper known once fetched: the citing open-access paper's PMCID and DOI too
    four = next(e for e in edges if e.citing.pmid == Article(4).pmid and e.source == "europepmc_citations")
    assert (four.citing.pmcid, four.citing.doi) == (Article(4).pmcid, Article(4).doi.upper())
    assert len(edges) == 3 * len(tree)
    # identified: 3 given, then each source's links; every record beyond the 39 papers was a duplicate
    assert sum(summary.identified.values()) - summary.duplicates == 39 == summary.total
    assert summary.identified["given"] == 3
    assert summary.identified["Europe PMC citations at depth 1"] == 10
    assert summary.identified["PubMed citations at depth 2"] == 27


def test_a_second_snowball_finds_the_final_papers_in_the_database_and_repeats_no_edge(tmp_path: Path) -> None:
    services = _graph()
    db = str(tmp_path / "pubs.db")
    fetch_run(services).fetch(services.pmids(3), db=db, citations=True, depth=2)
    with open_store(db) as store:
        first = list(store.citation_edges())
    summary = BatchSummary()
    again = fetch_run(services).fetch(services.pmids(3), db=db, summary=summary, citations=True, depth=2)
    # the final papers are found complete in the database; the partial ones (closed access: no full text) are
    # fetched again as PubFetcher's rules say; none is added a second time
    assert len(again) == 39 and summary.skipped == summary.final == 20 and summary.fetched == 19
    with open_store(db) as store:
        assert list(store.citation_edges()) == first


def test_the_links_are_asked_in_batches_one_citations_request_per_paper_and_elink_for_many(tmp_path: Path) -> None:
    services = _graph()
    run = fetch_run(services, elink_batch=5)
    run.fetch(services.pmids(3), citations=True, depth=2)
    # the seeds and depth 1's 9 papers (paper 4 cites two seeds: it is one paper); depth 2's links are not followed
    assert services.counts["citations"] == 3 + 9
    assert services.ids_asked["citations"] == {Article(i).pmid: 1 for i in range(12)}
    # ELink: the seeds' 3 PMIDs in one request, depth 1's 9 in two (5 and 4)
    assert services.counts["elink"] == 1 + 2
    assert services.ids_asked["elink"] == {Article(i).pmid: 1 for i in range(12)}


def test_a_depth_that_would_pass_max_hits_is_refused_before_it_is_fetched(tmp_path: Path) -> None:
    services = _graph()
    run = fetch_run(services)
    db = str(tmp_path / "pubs.db")
    with pytest.raises(SnowballTooLarge) as refused:
        run.fetch(services.pmids(3), db=db, citations=True, depth=2, max_hits=20)
    assert refused.value.depth == 2 and refused.value.total > 20
    assert str(refused.value.total) in str(refused.value) and "--max-hits 20" in str(refused.value)
    with open_store(db) as store:  # depths 0 and 1 fetched and stored, nothing of depth 2
        assert store.publications_size() == 12
        assert {e.citing.pmid for e in store.citation_edges()} == {Article(i).pmid for i in range(3, 12)}
    assert services.ids_asked["europepmc_search"].keys() == {Article(i).pmid for i in range(12)}


# --- the command line ---------------------------------------------------------------------------------------------


@pytest.fixture
def graph(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    from support.synthetic import use_services

    with _graph() as services:
        use_services(monkeypatch, tmp_path, services)
        yield services


def test_the_command_line_snowballs_and_prints_the_edges_as_csv_later(cli, graph, tmp_path: Path) -> None:
    db = str(tmp_path / "pubs.db")
    code, _, err = cli("-pub", *graph.pmids(3), "-db-fetch-end", db, "--citations", "--depth", "2",
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


def test_the_command_line_refuses_a_depth_over_max_hits_naming_the_count(cli, graph, tmp_path: Path) -> None:
    code, _, err = cli("-pub", *graph.pmids(3), "-db-fetch-end", str(tmp_path / "pubs.db"), "--citations",
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


def test_the_library_call_takes_the_snowball_keyword_only_and_refuses_it_with_a_queue(graph, tmp_path: Path) -> None:
    import inspect

    import pubfetch

    for fetch_many in (pubfetch.fetch_many, __import__("pubfetch.fetcher", fromlist=["fetch_many"]).fetch_many):
        kinds = {name: p.kind for name, p in inspect.signature(fetch_many).parameters.items()}
        assert {kinds[n] for n in ("citations", "expand_references", "depth", "max_hits", "edges")} == {
            inspect.Parameter.KEYWORD_ONLY}
    edges: list = []
    pubs = list(pubfetch.fetch_many(graph.pmids(3), db=str(tmp_path / "pubs.db"), citations=True, edges=edges,
                                    allow_private_addresses=True, javascript=False))
    assert sorted(p.pmid.content for p in pubs) == [Article(i).pmid for i in range(12)]
    assert {(e.citing.pmid, e.cited.pmid) for e in edges} == {
        (Article(a).pmid, Article(b).pmid) for b in range(3) for a in graph.citers(b)}
    with pytest.raises(ValueError, match="cannot snowball"):
        list(pubfetch.fetch_many(graph.pmids(3), db=str(tmp_path / "pubs.db"), queue="redis://127.0.0.1:6379/13",
                                 citations=True))


def test_the_report_of_a_snowball_has_the_flow_table(cli, graph, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the report needs matplotlib (the [report] extra)")
    from bs4 import BeautifulSoup

    report = tmp_path / "run.html"
    code, _, err = cli("-pub", *graph.pmids(3), "-db-fetch-end", str(tmp_path / "pubs.db"), "--citations",
                       "--expand-references", "--allow-private-addresses", "--no-javascript", "-report", str(report))
    assert code == 0, err
    page = BeautifulSoup(report.read_text(encoding="utf-8"), "html.parser")
    cells = {tuple(td.get_text() for td in tr.find_all("td"))[1:] for tr in page.find("table", id="flow").find_all("tr")}
    assert {("identified: given", "3"), ("identified: Europe PMC citations at depth 1", "10"),
            ("identified: PubMed citations at depth 1", "10"), ("publications after duplicates removed", "12"),
            ("fetched", "12")} <= cells
    assert page.find("img", id="plot-flow") is not None


def test_references_alone_lead_from_papers_to_what_they_cite_met_by_doi(tmp_path: Path) -> None:
    services = _graph()  # papers 30, 31 and 32 cite paper 9, which cites seed 2: their reference lists say so by DOI
    summary = BatchSummary()
    edges: list = []
    pubs = fetch_run(services).fetch([Article(i).pmid for i in (30, 31, 32)], db=str(tmp_path / "pubs.db"),
                                     summary=summary, expand_references=True, depth=2, edges=edges)
    assert sorted(p.pmid.content for p in pubs) == sorted(Article(i).pmid for i in (2, 9, 30, 31, 32))
    assert sorted((e.citing.pmid, e.cited.pmid) for e in edges) == sorted(
        [(Article(i).pmid, Article(9).pmid) for i in (30, 31, 32)] + [(Article(9).pmid, Article(2).pmid)])
    assert {e.source for e in edges} == {"references"}
    assert summary.identified == {"given": 3, "references at depth 1": 3, "references at depth 2": 1}
    assert summary.duplicates == 2 and "citations" not in services.counts and "elink" not in services.counts


@pytest.mark.parametrize(("argv", "said"), [
    (["-pub", "123", "-out", "--citations"], "add a fetch step (-db-fetch-end DATABASE"),
    (["-pub", "123", "-fetch", "--depth", "2"], "--depth is how far --citations or --expand-references go"),
    (["-pub", "123", "-fetch", "--citations", "--queue", "redis://127.0.0.1:6379/13"], "without --queue"),
])
def test_a_snowball_that_could_not_run_is_refused_before_any_request(cli, env, argv: list[str], said: str) -> None:
    code, _, err = cli(*argv)
    assert code == 2 and said in err and err.count("\n") == 1


def test_seeds_a_search_identified_are_not_counted_again_as_given() -> None:
    services = _graph()
    summary = BatchSummary(identified={"Europe PMC search: synthetic": 3})
    fetch_run(services).fetch(services.pmids(3), summary=summary, citations=True)
    assert list(summary.identified) == ["Europe PMC search: synthetic", "Europe PMC citations at depth 1",
                                        "PubMed citations at depth 1"]


def test_a_long_citation_list_is_read_page_by_page_to_the_announced_count(tmp_path: Path) -> None:
    services = _graph()
    services.page_size = 2  # the service answers 2 citers a page whatever page size is asked
    edges: list = []
    fetch_run(services).fetch(services.pmids(3), citations=True, edges=edges)
    # seeds 0 and 2 have 3 citers (2 pages each), seed 1 has 4 with paper 4's cross link (2 pages)
    assert services.counts["citations"] == 6
    assert {(e.citing.pmid, e.cited.pmid) for e in edges if e.source == "europepmc_citations"} == {
        (Article(a).pmid, Article(b).pmid) for b in range(3) for a in services.citers(b)}


def test_a_snowball_into_postgresql_keeps_its_edges_there(cli, graph, pg_url: str) -> None:
    code, _, err = cli("-pub", *graph.pmids(3), "-db-fetch-end", pg_url, "--citations", "--allow-private-addresses",
                       "--no-javascript")
    assert code == 0, err
    code, out, err = cli("-pub-db", pg_url, "-out", "--format", "edges")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {(r["citing_pmid"], r["cited_pmid"], r["source"]) for r in rows} == {
        (Article(a).pmid, Article(b).pmid, source) for b in range(3) for a in graph.citers(b)
        for source in ("europepmc_citations", "pubmed_citedin")}
