"""The citation edges of a database, on SQLite and PostgreSQL: made when first put (a database without them opens and
works as before), an edge met again by another form of its papers' IDs completed rather than repeated, read back in
the order first stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.ids import PublicationIds
from pubfetch.model.edges import CitationEdge
from pubfetch.store import init_store, open_store


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return str(tmp_path / "pubs.db") if request.param == "sqlite" else request.getfixturevalue("pg_url")


def edge(citing: tuple[str, str, str], cited: tuple[str, str, str], source: str = "references") -> CitationEdge:
    return CitationEdge(PublicationIds(*citing), PublicationIds(*cited), source)


def test_a_database_made_without_edges_has_none_and_takes_them(target: str) -> None:
    init_store(target).close()
    with open_store(target, readonly=True) as store:
        assert list(store.citation_edges()) == []
    with open_store(target) as store:
        assert store.put_edges([edge(("1", "", ""), ("2", "", ""))]) == 1
    with open_store(target, readonly=True) as store:
        assert [e.row() for e in store.citation_edges()] == [("1", "", "", "2", "", "", "references")]


def test_an_edge_met_by_other_id_forms_is_completed_not_repeated(target: str) -> None:
    with init_store(target) as store:
        store.put_edges([edge(("1", "", ""), ("2", "", "")), edge(("1", "", ""), ("2", "", ""), "pubmed_citedin")])
        # the citing paper by its PMCID and DOI, the cited one by its DOI: the same edges, now with every form
        added = store.put_edges([edge(("1", "PMC5", "10.1/a"), ("", "", "10.2/b")),
                                 edge(("", "PMC5", ""), ("2", "", "10.2/b"))])
        assert added == 1  # the first of the two was new until the second showed 10.2/B to be paper 2
        rows = [e.row() for e in store.citation_edges()]
    # the completed edge keeps its place, before the one of the other source
    assert rows == [("1", "PMC5", "10.1/A", "2", "", "10.2/B", "references"),
                    ("1", "", "", "2", "", "", "pubmed_citedin")]


def test_edges_are_read_in_the_order_first_stored(target: str) -> None:
    with init_store(target) as store:
        store.put_edges([edge((str(i), "", ""), ("9", "", "")) for i in (3, 1, 2)])
        assert [e.citing.pmid for e in store.citation_edges()] == ["3", "1", "2"]


def test_a_copy_of_the_database_keeps_its_edges(target: str, tmp_path: Path) -> None:
    from pubfetch.store.copy import copy_database

    with init_store(target) as store:
        store.put_edges([edge(("1", "", "10.1/a"), ("2", "PMC2", ""), "europepmc_citations")])
        with init_store(str(tmp_path / "copy.db")) as copy:
            counts = copy_database(store, copy)  # type: ignore[arg-type]
            assert counts.rows["citation edges"] == 1
            assert [e.row() for e in copy.citation_edges()] == [e.row() for e in store.citation_edges()]
