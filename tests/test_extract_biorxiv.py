"""The bioRxiv/medRxiv parser. No answer of api.biorxiv.org is recorded (../shared/corpus/README.md, "Gaps"): these
answers are synthetic, with exactly the fields ../shared/spec/apis-and-users.md lists for a ``details`` answer's
``collection`` items (doi, title, authors, author_corresponding, author_corresponding_institution, date, version,
type, license, category, jatsxml, abstract, published, server) and the ``messages`` list beside it."""

from __future__ import annotations

import json

import pytest

from pubfetch.extract.biorxiv import parse_biorxiv, split_authors
from pubfetch.extract.errors import ParseError
from pubfetch.model.parts import Author, CorrespAuthor
from pubfetch.model.rich import Relation


def item(version: str, published: str = "NA", **changes: str) -> dict:
    return {"doi": "10.1101/2024.04.01.587366", "title": "High-throughput screening of human genetic variants",
            "authors": "Herger, M.; Kajba, C. M.; The Variant Consortium", "author_corresponding": "Gregory M. Findlay",
            "author_corresponding_institution": "The Francis Crick Institute", "date": "2024-04-0" + version,
            "version": version, "type": "new results", "license": "cc_by", "category": "genomics",
            "jatsxml": f"https://www.biorxiv.org/content/early/2024/04/01/2024.04.01.587366.source.xml?v{version}",
            "abstract": "Understanding the effects of <i>rare</i> genetic variants remains challenging.",
            "published": published, "server": "bioRxiv", **changes}


def answer(*items: dict) -> bytes:
    return json.dumps({"messages": [{"status": "ok"}], "collection": list(items)}).encode()


def test_latest_version_with_every_field():
    (record,) = parse_biorxiv(answer(item("1"), item("2", "10.1016/j.xgen.2025.100814")))
    assert record.doi == "10.1101/2024.04.01.587366"
    assert record.title == "High-throughput screening of human genetic variants"
    assert record.abstract == "Understanding the effects of rare genetic variants remains challenging."
    assert record.authors == [Author(given="M.", family="Herger"), Author(given="C. M.", family="Kajba"),
                              Author(literal="The Variant Consortium")]
    assert record.corresp_author == [CorrespAuthor(name="Gregory M. Findlay")]
    assert (record.pub_date, record.license, record.journal_title, record.preprint) == (
        "2024-04-02", "cc_by", "bioRxiv", True)
    assert record.relations == [Relation("is-preprint-of", "10.1016/J.XGEN.2025.100814")]
    assert record.flags["jatsxml"].endswith("source.xml?v2")


def test_unpublished_preprint_has_no_relation():
    (record,) = parse_biorxiv(answer(item("1", server="medRxiv")))
    assert record.relations == [] and record.journal_title == "medRxiv"


def test_not_found_answer_has_no_records():
    assert parse_biorxiv(json.dumps({"messages": [{"status": "no posts found"}], "collection": []})) == []


def test_not_an_answer():
    with pytest.raises(ParseError):
        parse_biorxiv(b"<html>Just a moment...</html>")


def test_split_authors():
    assert split_authors("Smith, J.; ; Doe, A. B.") == [Author(given="J.", family="Smith"),
                                                       Author(given="A. B.", family="Doe")]
