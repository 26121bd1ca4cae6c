"""``-db-import-medline`` (pubfetch/bulk/medline.py): PubMed baseline and update files built from the corpus's efetch
answers, imported on SQLite and PostgreSQL. What the ledger, the merge, the worker processes and the command add are
tested in test_bulk_ledger.py, test_bulk_apply.py, test_bulk_runner.py and test_bulkimport.py."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from pubfetch.bulk.medline import Citation, Damaged, open_bulk_file, read_medline
from pubfetch.cli.errors import EXIT_OK, EXIT_SOME_FAILED
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.pubmed_dtd import DeclaredStream
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from support.bulkfiles import (
    CORPUS,
    medline_set,
    pmid_of,
    pubmed_articles,
    synthetic_records,
    truncated,
    without_times,
    write_medline,
)
from support.bulkstore import entries, ledger
from support.pubmed_indented import as_written, indented_set

EUTILS = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/"



def test_a_baseline_is_stored_as_the_pubmed_xml_resource_stores_it(cli, tmp_path: Path, either_db: str) -> None:
    files = medline_set(tmp_path)
    run = cli("-db-import-medline", either_db, files.baseline, "--workers", "1")
    assert run.code == EXIT_OK, run.err
    assert "imported 1 file: 6 records stored, 0 deleted, 0 unchanged" in run.err
    stored = entries(either_db)
    assert sorted(stored) == sorted(files.pmids)
    # what the efetch resource merges for each answer of the corpus (resources/ncbi.py: fetch_pubmed_xml)
    for path in sorted((CORPUS / "pubmed_efetch").glob("*.xml")):
        for record in parse_pubmed_xml(path.read_bytes()):
            fetched = Publication()
            apply_record(fetched, record, PartType.pubmed_xml,
                         f"{EUTILS}efetch.fcgi?retmode=xml&db=pubmed&id={record.pmid}", FetcherArgs(),
                         force_corresp=True)
            assert without_times(stored[record.pmid]) == without_times(fetched.to_json(computed=False)), record.pmid


def test_an_update_revises_one_record_and_deletes_another(cli, tmp_path: Path, either_db: str) -> None:
    files = medline_set(tmp_path)
    run = cli("-db-import-medline", either_db, files.baseline, files.update, "--workers", "1")
    assert run.code == EXIT_OK, run.err
    stored = entries(either_db)
    assert files.deleted_pmid not in stored
    assert stored[files.revised_pmid]["title"]["content"].startswith("REVISED ")
    assert len(stored) == len(files.pmids) - 1
    names = ledger(either_db, "SELECT name, records, deleted FROM bulk_files ORDER BY name")
    assert names == [("pubmed26n0001.xml.gz", 6, 0), ("pubmed26n0002.xml.gz", 1, 1)]


def test_a_wrong_md5_and_a_truncated_file_are_said_and_the_others_go_on(cli, tmp_path: Path, either_db: str) -> None:
    articles = pubmed_articles()
    good = write_medline(tmp_path / "pubmed26n0001.xml.gz", articles[:3])
    wrong = write_medline(tmp_path / "pubmed26n0002.xml.gz", articles[3:4], md5="0" * 32)
    whole = write_medline(tmp_path / "whole.xml.gz", articles[4:])
    cut = truncated(whole, tmp_path / "pubmed26n0003.xml.gz")
    run = cli("-db-import-medline", either_db, good, wrong, cut, "--workers", "1")
    assert run.code == EXIT_SOME_FAILED
    assert any("pubmed26n0002.xml.gz: MD5" in line and "differs from the published" in line for line in run.lines)
    assert any(line.startswith("pubfetch: error: pubmed26n0003.xml.gz: unreadable") and "record" in line
               for line in run.lines), run.err
    assert "2 failed" in run.err
    names = [r[0] for r in ledger(either_db, "SELECT name FROM bulk_files")]
    assert names == ["pubmed26n0001.xml.gz"]
    # the good file whole; of the cut one, what was read before the damage (it is imported again when whole)
    assert set(entries(either_db)) >= {pmid_of(a) for a in articles[:3]}
    assert pmid_of(articles[3]) not in entries(either_db)


def test_the_records_before_the_damage_of_a_truncated_file_are_kept(cli, tmp_path: Path) -> None:
    whole = write_medline(tmp_path / "whole.xml.gz", list(synthetic_records(40)))
    cut = truncated(whole, tmp_path / "pubmed26n0001.xml.gz")
    db = str(tmp_path / "pubs.db")
    run = cli("-db-import-medline", db, cut, "--workers", "1")  # one chunk (2,000 records) holds them all
    assert run.code == EXIT_SOME_FAILED
    said = next(line for line in run.lines if "pubmed26n0001.xml.gz: unreadable after record " in line)
    kept = int(said.split("after record ", 1)[1].split(" ", 1)[0])
    last = said.split("(PMID ", 1)[1].split(")", 1)[0]
    assert 1 <= kept < 40
    assert len(entries(db)) == kept and last in entries(db)
    assert ledger(db, "SELECT name FROM bulk_files") == []


def test_an_indented_file_is_read_without_its_indentation_to_the_same_records(tmp_path: Path) -> None:
    """MEDLINE's files are indented: the reader gives them PubMed's declarations and drops the indentation, and every
    record (inline markup, MathML, blanks between inline elements) is the one the file parsed as written gives; a
    file broken further on is said to be so at its own line."""
    data = indented_set(records=80)
    path = tmp_path / "pubmed26n0001.xml.gz"
    path.write_bytes(gzip.compress(data))
    with open_bulk_file(str(path)) as stream:
        assert DeclaredStream(stream).declared
    read = [item.record for item in read_medline(str(path), path.name) if isinstance(item, Citation)]
    assert read == as_written(data, True) and len(read) == 80
    assert read[0].title == "Mus musculus and R2 x in record 1000"
    broken = data.replace(b"<PMID Version=\"1\">1050</PMID>", b"<PMID Version=\"1\">1050</PMIX>")
    line = data[:data.index(b"<PMID Version=\"1\">1050</PMID>")].count(b"\n") + 1
    path.write_bytes(gzip.compress(broken))
    with pytest.raises(Damaged, match=f"at line {line}, after record 50 "):
        list(read_medline(str(path), path.name))
