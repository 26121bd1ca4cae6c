"""A chunk of bulk records merged as their resource would merge them (pubfetch/bulk/apply.py): into what a fetch
stored, by PMID or by DOI, with the PubMed parts final."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.cli.errors import EXIT_OK
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartName, PartType
from pubfetch.model.publication import Publication
from pubfetch.store import open_or_init_store, open_store
from support.bulkfiles import CORPUS, medline_set, pubmed_articles, renumbered, write_medline
from support.bulkstore import entries


def test_what_a_fetch_added_stays_through_a_new_version(cli, tmp_path: Path, either_db: str) -> None:
    files = medline_set(tmp_path)
    assert cli("-db-import-medline", either_db, files.baseline, "--workers", "1").code == EXIT_OK
    with open_or_init_store(either_db) as store:
        pub = store.get_publication(files.revised_pmid)
        assert pub is not None
        assert pub.set_fulltext("A full text from Europe PMC. " * 40, PartType.europepmc_xml, "https://epmc/x",
                                FetcherArgs())
        store.put_publication(pub)
    assert cli("-db-import-medline", either_db, files.update, "--workers", "1").code == EXIT_OK
    entry = entries(either_db)[files.revised_pmid]
    assert entry["title"]["content"].startswith("REVISED ")
    assert entry["fulltext"]["type"] == PartType.europepmc_xml.value
    assert entry["fulltext"]["content"].startswith("A full text from Europe PMC.")
    assert entry["mesh"]["type"] == PartType.pubmed_xml.value


def test_the_pubmed_parts_of_an_imported_record_are_final_for_a_later_fetch(cli, tmp_path: Path) -> None:
    """A later -db-fetch asks efetch only for entries whose PubMed parts are not final (resources/ncbi.py)."""
    files = medline_set(tmp_path)
    db = str(tmp_path / "pubs.db")
    assert cli("-db-import-medline", db, files.baseline, "--workers", "1").code == EXIT_OK
    with open_store(db, readonly=True) as store:
        pub = store.get_publication("23121403")
    assert pub is not None
    for name in (PartName.pmid, PartName.doi, PartName.title, PartName.mesh, PartName.theAbstract):
        assert pub.part(name).is_final(FetcherArgs()), name


def test_a_record_whose_doi_an_entry_holds_joins_that_entry(cli, tmp_path: Path, either_db: str) -> None:
    """New records go in together; one meeting an entry a fetch made (by its DOI) is merged into it as a put would."""
    files = medline_set(tmp_path)
    record = parse_pubmed_xml((CORPUS / "pubmed_efetch" / "pmid_23121403.xml").read_bytes())[0]
    with open_or_init_store(either_db) as store:
        pub = Publication()
        pub.set_doi(record.doi, PartType.doi, "https://doi.org/x", FetcherArgs())
        pub.set_fulltext("A full text from the publisher. " * 40, PartType.doi, "https://doi.org/x", FetcherArgs())
        store.put_publication(pub)
    assert cli("-db-import-medline", either_db, files.baseline, "--workers", "1").code == EXIT_OK
    stored = entries(either_db)
    assert len(stored) == len(files.pmids)
    joined = stored[record.pmid]
    assert joined["doi"]["content"].lower() == record.doi.lower()
    assert joined["fulltext"]["content"].startswith("A full text from the publisher.")
    assert joined["title"]["type"] == PartType.pubmed_xml.value


@pytest.mark.parametrize("together", [True, False], ids=["one file", "two files"])
def test_two_records_naming_one_doi_are_two_entries(cli, tmp_path: Path, either_db: str, together: bool) -> None:
    """PubMed names some DOIs for two records of two papers (PMIDs 420122 and 420123 both name
    10.1093/ajcn/32.2.277 in MEDLINE's 2020 baseline): each PMID keeps its own entry and parts, the first the DOI,
    and the second is said to be stored without it; merged, the second paper had been counted as stored and lost."""
    first, second = (renumbered(article, pmid) for article, pmid in zip(pubmed_articles()[:2], (91_000_001, 91_000_002),
                                                                       strict=True))
    second = second.replace("10.5555/bulk.91000002", "10.5555/bulk.91000001")
    files = ([write_medline(tmp_path / "pubmed26n0001.xml.gz", [first, second])] if together else
             [write_medline(tmp_path / "pubmed26n0001.xml.gz", [first]),
              write_medline(tmp_path / "pubmed26n0002.xml.gz", [second])])
    titles = [parse_pubmed_xml(f"<PubmedArticleSet>{a}</PubmedArticleSet>".encode())[0].title for a in (first, second)]
    assert titles[0] != titles[1]
    run = cli("-db-import-medline", either_db, *map(str, files), "--workers", "1")
    assert run.code == EXIT_OK, run.err
    assert "PMID 91000002 names DOI 10.5555/bulk.91000001, as does PMID 91000001 in the database" in run.err
    stored = entries(either_db)
    assert [stored[p]["title"]["content"] for p in ("91000001", "91000002")] == titles
    assert stored["91000001"]["doi"]["content"] == "10.5555/BULK.91000001"
    assert stored["91000002"]["doi"]["content"] == ""
