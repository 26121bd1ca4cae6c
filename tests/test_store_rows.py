"""Stored rows read back (pubfetch/store/rows.py): a row is checked against the JSON shape of a fresh entry of its
kind, and a damaged one is refused with one error line naming it, instead of failing the run far away."""

from __future__ import annotations

import json
import logging

import pytest

from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.store.rows import decode_entry, shape_problem

TEMPLATE = {"title": {"content": "", "size": 0, "final": False, "list": []}, "oa": False, "pmid": {"content": ""}}


@pytest.mark.parametrize(("value", "problem"), [
    ({"title": {"content": "A title", "size": 7}, "oa": True}, None),
    ({"title": {"content": "A", "size": 1.0}}, None),  # a whole number written as 1.0 by another tool
    ({"title": None, "extra": [1, 2]}, None),  # null and unknown keys pass
    ({"title": {"content": 12}}, "title.content is not text"),
    ({"title": {"size": True}}, "title.size is not a number"),  # a bool is no number here
    ({"oa": 1}, "oa is not true/false"),
    ({"title": {"list": {}}}, "title.list is not a list"),
    ({"title": []}, "title is not an object"),
    ([], "the row is not an object"),
])
def test_the_first_value_of_another_kind_is_named(value: object, problem: str | None) -> None:
    assert shape_problem(TEMPLATE, value) == problem


def test_a_sound_row_is_read_and_a_damaged_one_refused_with_one_line(caplog: pytest.LogCaptureFixture) -> None:
    template = Publication().to_json()
    pub = Publication()
    pub.set_title("A stored title", PartType.europepmc, "https://x.example/", FetcherArgs())
    row = json.dumps(pub.to_json())
    assert decode_entry(Publication.from_json, template, row, "publication 1").title.content == "A stored title"
    assert decode_entry(Publication.from_json, template, json.loads(row), "publication 1") is not None  # JSONB
    with caplog.at_level(logging.ERROR, logger="pubfetch.store.rows"):
        assert decode_entry(Publication.from_json, template, "[]", "publication 2") is None
        assert decode_entry(Publication.from_json, template, "{not json", "publication 3") is None
    first, second = (r.getMessage() for r in caplog.records)
    assert first == "database row of publication 2 is damaged (the row is not an object); skipped"
    assert second.startswith("database row of publication 3 is damaged (JSONDecodeError: ")
