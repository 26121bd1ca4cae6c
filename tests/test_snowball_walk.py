"""A snowball's levels: depth 2 from three seeds stored once with every edge (synthetic and recorded links), a second
snowball adding nothing, references alone, --max-hits refused before a depth, and what it counts as identified."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.extract.citation_links import parse_elink_citedin
from pubfetch.fetcher import BatchSummary
from pubfetch.snowball import SnowballTooLarge
from pubfetch.store import open_store
from support.citation_graph import small_graph
from support.fetchrun import fetch_run
from support.recorded_links import ELINK, recorded, recorded_citers, recorded_links_run
from support.synthetic import Article


def test_depth_two_from_three_seeds_stores_each_paper_once_with_every_edge(tmp_path: Path) -> None:
    services = small_graph()
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


def test_a_depth_two_snowball_over_recorded_links_stores_each_paper_once_with_its_edges(corpus_dir: Path,
                                                                                        tmp_path: Path) -> None:
    """Three seeds whose links were recorded: 15723116's first Europe PMC citations page (25 of 810; its page 2 was
    not recorded, a 404 here, so its list ends there with a warning), 20098740's (none) and 9298984's ELink answer
    (39 citers). Depth 2 asks the citers' links too; none of those was recorded, so it finds nothing more."""
    asked: list[str] = []
    run = recorded_links_run(corpus_dir, asked)
    db = tmp_path / "pubs.db"
    edges: list = []
    summary = BatchSummary()
    pubs = run.fetch(["15723116", "20098740", "9298984"], db=str(db), summary=summary, citations=True, depth=2,
                     edges=edges)
    by_epmc = recorded_citers(corpus_dir, "epmc-citations-med15723116-page1")
    by_elink = parse_elink_citedin(recorded(corpus_dir, ELINK))["9298984"]
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


def test_a_second_snowball_finds_the_final_papers_in_the_database_and_repeats_no_edge(tmp_path: Path) -> None:
    services = small_graph()
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


def test_references_alone_lead_from_papers_to_what_they_cite_met_by_doi(tmp_path: Path) -> None:
    services = small_graph()  # papers 30, 31 and 32 cite paper 9, which cites seed 2: their reference lists say so by DOI
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


def test_a_depth_that_would_pass_max_hits_is_refused_before_it_is_fetched(tmp_path: Path) -> None:
    services = small_graph()
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


def test_seeds_a_search_identified_are_not_counted_again_as_given() -> None:
    services = small_graph()
    summary = BatchSummary(identified={"Europe PMC search: synthetic": 3})
    fetch_run(services).fetch(services.pmids(3), summary=summary, citations=True)
    assert list(summary.identified) == ["Europe PMC search: synthetic", "Europe PMC citations at depth 1",
                                        "PubMed citations at depth 1"]
