"""A snowball through the library call: its options keyword-only on both fetch_many, the run's database held for
every level, and no queue."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import pubfetch
from pubfetch import fetcher
from support.citation_graph import CitingServices
from support.synthetic import Article


def test_the_library_call_takes_the_snowball_keyword_only_and_refuses_it_with_a_queue(
        citation_graph: CitingServices, tmp_path: Path) -> None:
    for fetch_many in (pubfetch.fetch_many, fetcher.fetch_many):
        kinds = {name: p.kind for name, p in inspect.signature(fetch_many).parameters.items()}
        assert {kinds[n] for n in ("citations", "expand_references", "depth", "max_hits", "edges")} == {
            inspect.Parameter.KEYWORD_ONLY}
    edges: list = []
    pubs = list(pubfetch.fetch_many(citation_graph.pmids(3), db=str(tmp_path / "pubs.db"), citations=True,
                                    edges=edges, allow_private_addresses=True, javascript=False))
    assert sorted(p.pmid.content for p in pubs) == [Article(i).pmid for i in range(12)]
    assert {(e.citing.pmid, e.cited.pmid) for e in edges} == {
        (Article(a).pmid, Article(b).pmid) for b in range(3) for a in citation_graph.citers(b)}
    with pytest.raises(ValueError, match="cannot snowball"):
        list(pubfetch.fetch_many(citation_graph.pmids(3), db=str(tmp_path / "pubs.db"),
                                 queue="redis://127.0.0.1:6379/13", citations=True))
