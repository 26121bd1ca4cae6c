"""The stored JSON is the same text whether orjson (the ``fast`` extra) or the standard library writes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubfetch.bulk.apply import pubmed_url
from pubfetch.bulk.medline import Citation, read_medline
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.merge import apply_record
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.store import sql
from support.bulkfiles import pubmed_articles, write_medline

orjson = pytest.importorskip("orjson")


def _entries(tmp_path: Path) -> list[dict]:
    path = write_medline(tmp_path / "pubmed26n0001.xml.gz", pubmed_articles())
    out = []
    for item in read_medline(str(path), path.name):
        assert isinstance(item, Citation)
        pub = Publication()
        apply_record(pub, item.record, PartType.pubmed_xml, pubmed_url("https://eutils.example/", item.record.pmid),
                     FetcherArgs(), force_corresp=True)
        out.append(pub.to_json(computed=False))
    return out


def test_corpus_entries_are_written_byte_for_byte_as_the_standard_library_writes_them(tmp_path: Path) -> None:
    entries = _entries(tmp_path)
    assert len(entries) >= 5
    for entry in entries:
        assert orjson.dumps(entry).decode() == sql._stdlib_dumps(entry)
        assert sql.dumps(entry) == sql._stdlib_dumps(entry)


def test_non_ascii_control_characters_and_numbers_are_written_alike() -> None:
    doc = {"title": "Ångström \u00e9t\u00e9 \u4e2d\u6587 \U0001f600 \"quoted\" back\\slash", "nul": "a\u0000b\u001fc\u2028",
           "count": -1, "big": 2**62, "flag": True, "none": None, "list": [1, "x", {}], "empty": ""}
    assert sql.dumps(doc) == sql._stdlib_dumps(doc)
    assert json.loads(sql.dumps(doc)) == doc


def test_an_integer_orjson_refuses_goes_through_the_standard_library() -> None:
    doc = {"huge": 2**70}
    with pytest.raises(TypeError):
        orjson.dumps(doc)
    assert sql.dumps(doc) == '{"huge":1180591620717411303424}'


def test_the_utf8_form_is_the_text_encoded_with_and_without_orjson(tmp_path: Path, monkeypatch) -> None:
    entries = [*_entries(tmp_path), {"title": "Ångström \U0001f600 back\\slash \u0000", "huge": 2**70}]
    for entry in entries:
        assert sql.dumps_utf8(entry) == sql._stdlib_dumps(entry).encode()
    monkeypatch.setattr(sql, "_orjson", None)
    for entry in entries:
        assert sql.dumps_utf8(entry) == sql._stdlib_dumps(entry).encode()
