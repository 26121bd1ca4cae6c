"""A new bulk record's stored JSON written straight from the record (pubfetch/bulk/entryjson.py) is the merge's: the
same text, key order and part timestamps included, as an empty Publication given the record by apply_record and
serialised; a record the merge would warn about is left to the merge."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from pathlib import Path

import pytest

from pubfetch.bulk.apply import pubmed_url
from pubfetch.bulk.entryjson import pubmed_entry
from pubfetch.bulk.medline import Citation, read_medline
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.links import TextLink
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartType
from pubfetch.model.parts import Author, CorrespAuthor, MeshTerm, MinedTerm
from pubfetch.model.publication import Publication
from pubfetch.model.record import ArticleRecord
from pubfetch.model.retraction import RetractionSource, RetractionVerdict
from pubfetch.model.rich import Grant, Reference, Relation, Section, Update
from pubfetch.model.structure import Figure, Statement, Supplement, Table
from pubfetch.store.sql import dumps
from support.bulkfiles import medline_set

URL = " https://eutils.example/efetch.fcgi?retmode=xml&db=pubmed&id=1 "


def clock() -> itertools.count:
    """A clock a millisecond later at each reading, so that every part's timestamp tells which reading set it."""
    return itertools.count(1_700_000_000_000)


def merged(record: ArticleRecord, url: str = URL) -> str:
    pub = Publication(clock=clock().__next__)
    apply_record(pub, record, PartType.pubmed_xml, url, FetcherArgs(), force_corresp=True)
    return dumps(pub.to_json(computed=False))


def written(record: ArticleRecord, url: str = URL) -> str | None:
    entry = pubmed_entry(record, url, clock().__next__)
    return None if entry is None else dumps(entry)


def test_the_corpus_records_are_written_as_the_merge_stores_them(tmp_path: Path) -> None:
    files = medline_set(tmp_path)
    records = [i.record for i in read_medline(str(files.baseline), files.baseline.name) if isinstance(i, Citation)]
    assert records
    for record in records:
        url = pubmed_url("https://eutils.ncbi.nlm.nih.gov/entrez/eutils/", record.pmid)
        assert written(record, url) == merged(record, url)


FULL = ArticleRecord(
    pmid=" 12345 ", pmcid="PMC777", doi=" https://doi.org/10.1000/abc.DEF ", title="  A title  ",
    abstract=" An abstract. ", fulltext=" Text ", keywords=[" b ", "a", "", "b", "  "],
    mesh=[MeshTerm("M", True, "D1"), MeshTerm(""), MeshTerm("N")], efo=[MinedTerm("e", 2, "u"), MinedTerm("")],
    go=[MinedTerm("g")], journal_title=" J ", pub_date="2020-02-29", citations_count=" 7 ", oa=True, preprint=True,
    corresp_author=[CorrespAuthor(), CorrespAuthor("C", email="c@x")],
    authors=[Author("F", "G", "", "0000", ["Aff 1", "Aff 2"]), Author(literal="Group")],
    volume=" 1 ", issue="2", pages=" 3-4 ", issn="1111-2222", eissn=" ", publisher="P",
    pub_types=[" Journal Article ", "", "Review", "Journal Article"],
    funding=[Grant("NIH", "R01"), Grant("NIH", "r01", "USA"), Grant("NIH"), Grant("Wellcome")],
    text_links=[TextLink("url", "https://x.org", "", ("Methods",), "See https://x.org.", True)],
    updates=[Update("ErratumIn", "1"), Update("ErratumIn", "1"), Update("RetractionIn", "2")],
    references=[Reference("1", "", "10.1/x", "T", "Text"), Reference(text="Only text")],
    sections=[Section("Intro", 1, "S")], license=" CC BY ",
    tables=[Table("t1", "Table 1", "Cap", [["h"]], [["c"]], ["f"], ["Results"], True)],
    figures=[Figure("f1", "Figure 1", "Cap", "https://img")],
    supplements=[Supplement("s1", "S1", "Cap", "https://file", "text/csv", 12)],
    statements=[Statement("funding", "Funding", "Paid.")],
    relations=[Relation("has-preprint", "10.1101/1"), Relation("has-preprint", "10.1101/1")],
    retraction=RetractionVerdict(RetractionSource.pubmed, True))


@pytest.mark.parametrize("record", [
    FULL,
    ArticleRecord(pmid="1"),
    ArticleRecord(doi="10.1000/ONLY", title="   ", license="   ", citations_count=0,
                  retraction=RetractionVerdict(RetractionSource.pubmed, False)),
    replace(FULL, pmcid="", doi="", keywords=[], mesh=[], updates=[Update("ErratumIn", "9")], funding=[],
            retraction=None, oa=None, preprint=False, citations_count=None, pub_date=""),
], ids=["every-field", "pmid-only", "doi-and-blanks", "few-fields"])
def test_a_record_is_written_as_the_merge_stores_it(record: ArticleRecord) -> None:
    text = written(record)
    assert text is not None
    assert text == merged(record)
    assert list(json.loads(text)) == list(json.loads(merged(record)))


@pytest.mark.parametrize("change", [
    {"pmid": "0123"}, {"pmid": "12a"}, {"pmcid": "777"}, {"doi": "10.1000/a b"}, {"doi": "not a doi"},
    {"pub_date": "2020-02-30"}, {"pub_date": "2020"}, {"citations_count": -1}, {"citations_count": "many"},
], ids=lambda change: "-".join(f"{k}={v}" for k, v in change.items()))
def test_a_record_the_merge_warns_about_is_left_to_the_merge(change: dict) -> None:
    """What the merge logs a warning for (and then leaves out) is not written here: the caller merges it."""
    assert written(replace(FULL, **change)) is None
