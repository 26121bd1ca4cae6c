"""The same paper given by its PMID, PMCID and DOI in one input is fetched once, stored once and counted once."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.cli.main import main
from pubfetch.store import open_store
from support.synthetic import Article, SyntheticServices, use_services


@pytest.mark.parametrize(("batch_size", "summary"), [
    # in one batch: one publication, fetched, stored and counted once
    ("200", "2 publications: 2 fetched, 0 skipped; 2 final, 0 partial, 0 failed"),
    # one ID per batch: the later lines find the paper complete in the database (fetched and stored once), and are
    # counted as skipped (only a batch's IDs are remembered, so that memory stays flat for any stream)
    ("1", "5 publications: 2 fetched, 3 skipped; 5 final, 0 partial, 0 failed"),
])
def test_pmid_pmcid_and_doi_of_one_paper_are_one_publication(
        batch_size: str, summary: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paper, other = Article(0), Article(2)  # both open access
    ids = tmp_path / "ids.txt"
    ids.write_text(f"{paper.pmid}\n{other.pmid}\n{paper.pmcid}\n{paper.doi.lower()}\n{paper.pmid}\n")
    db = tmp_path / "pubs.db"
    with SyntheticServices(3) as services:
        use_services(monkeypatch, tmp_path, services)
        code = main(["-pub-file", str(ids), "-db-fetch-end", str(db), "--batch-size", batch_size])
        err = capsys.readouterr().err
        fulltext_asked = services.ids_asked["europepmc_fulltext"]
    assert code == 0, err
    assert err.splitlines()[-1] == f"pubfetch: {summary}"
    assert fulltext_asked[paper.pmcid] == 1 and fulltext_asked[other.pmcid] == 1
    with open_store(db) as store:
        assert sorted(i.pmid for i in store.publication_ids()) == sorted([paper.pmid, other.pmid])
