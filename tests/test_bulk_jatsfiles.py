"""``-db-import-jats``: the corpus's full texts as PMC's OA tar.gz and as a Europe PMC bulk gzip, merged into the
entries of their IDs on SQLite and PostgreSQL (pubfetch/bulk/jatsfiles.py, apply.py)."""

from __future__ import annotations

import tarfile
from pathlib import Path

from pubfetch.cli.errors import EXIT_OK, EXIT_SOME_FAILED
from pubfetch.extract.jats import parse_jats
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.store import open_or_init_store, open_store
from support.bulkfiles import fulltexts, jats_bulk, jats_package, without_times

EUTILS = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/"
EUROPEPMC = "https://www.ebi.ac.uk/europepmc/webservices/rest/"


def stored(db: str) -> dict[str, dict]:
    with open_store(db, readonly=True) as store:
        return {ids.pmcid: store.get_publication(ids).to_json(computed=False)  # type: ignore[union-attr]
                for ids in store.publication_ids()}


def test_a_pmc_package_is_merged_as_pmc_efetch_would_merge_it(cli, tmp_path: Path, either_db: str) -> None:
    package = jats_package(tmp_path / "oa_package.tar.gz")
    run = cli("-db-import-jats", either_db, package, "--workers", "1")
    assert run.code == EXIT_OK, run.err
    entries = stored(either_db)
    assert len(entries) == len(fulltexts())
    for path in fulltexts():
        record = parse_jats(path.read_bytes())[0]
        fetched = Publication()
        number = record.pmcid.removeprefix("PMC")
        apply_record(fetched, record, PartType.pmc_xml, f"{EUTILS}efetch.fcgi?retmode=xml&db=pmc&id={number}",
                     FetcherArgs(), force_corresp=True)
        assert without_times(entries[record.pmcid]) == without_times(fetched.to_json(computed=False)), record.pmcid
        assert entries[record.pmcid]["fulltext"]["type"] == PartType.pmc_xml.value


def test_a_europepmc_bulk_file_joins_the_entries_of_its_pmids(cli, tmp_path: Path, either_db: str) -> None:
    first = parse_jats(fulltexts()[0].read_bytes())[0]
    with open_or_init_store(either_db) as store:  # an entry known by its PMID only, as a PubMed import leaves it
        pub = Publication()
        pub.set_pmid(first.pmid, PartType.pubmed_xml, "https://pubmed/x", FetcherArgs())
        pub.set_title("Known from PubMed", PartType.pubmed_xml, "https://pubmed/x", FetcherArgs())
        store.put_publication(pub)
    bulk = jats_bulk(tmp_path / "europepmc_oa.xml.gz")
    run = cli("-db-import-jats", either_db, bulk, "--workers", "1")
    assert run.code == EXIT_OK, run.err
    entries = stored(either_db)
    assert len(entries) == len(fulltexts())  # no second entry for the PMID already held
    joined = entries[first.pmcid]
    assert joined["pmid"]["content"] == first.pmid
    assert joined["fulltext"]["type"] == PartType.europepmc_xml.value
    assert joined["fulltext"]["url"] == f"{EUROPEPMC}{first.pmcid}/fullTextXML"
    with open_store(either_db, readonly=True) as store:
        assert store.get_publication(PublicationIds(first.pmid)) is not None


def test_importing_a_package_twice_changes_nothing(cli, tmp_path: Path) -> None:
    db = str(tmp_path / "pubs.db")
    package = jats_package(tmp_path / "oa_package.tar.gz")
    assert cli("-db-import-jats", db, package, "--workers", "1").code == EXIT_OK
    before = stored(db)
    copy = tmp_path / "again"
    copy.mkdir()
    (copy / "other_name.tar.gz").write_bytes(package.read_bytes())  # not recorded by name: read and merged again
    run = cli("-db-import-jats", db, copy / "other_name.tar.gz", "--workers", "1")
    assert run.code == EXIT_OK
    assert f"0 records stored, 0 deleted, {len(fulltexts())} unchanged" in run.err
    assert stored(db) == before


def test_a_damaged_member_is_said_with_its_name(cli, tmp_path: Path) -> None:
    package = tmp_path / "broken.tar.gz"
    with tarfile.open(package, "w:gz") as archive:
        archive.add(fulltexts()[0], "good/good.nxml")
        damaged = tmp_path / "bad.nxml"
        damaged.write_text("<article><front><article-meta>")
        archive.add(damaged, "bad/bad.nxml")
    run = cli("-db-import-jats", tmp_path / "pubs.db", package, "--workers", "1")
    assert run.code == EXIT_SOME_FAILED
    assert any("broken.tar.gz: unreadable in member bad/bad.nxml" in line for line in run.lines), run.err


def test_a_truncated_package_keeps_the_articles_before_the_damage_and_says_where(cli, tmp_path: Path) -> None:
    whole = jats_package(tmp_path / "whole.tar.gz").read_bytes()
    package = tmp_path / "oa_package.tar.gz"
    package.write_bytes(whole[:len(whole) * 3 // 4])  # read as a stream, the archive ends early
    db = str(tmp_path / "pubs.db")
    run = cli("-db-import-jats", db, package, "--workers", "1")
    assert run.code == EXIT_SOME_FAILED
    said = [line for line in run.lines if "oa_package.tar.gz: unreadable after article" in line]
    assert said, run.err
    kept = int(said[0].split("after article ", 1)[1].split(":", 1)[0])
    assert 1 <= kept < len(fulltexts())
    assert len(stored(db)) == kept
