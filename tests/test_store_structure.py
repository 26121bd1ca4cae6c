"""The structure parts (tables, figures, supplements, statements) in both stores and in JSON: kept with their
provenance, and an entry written before they existed still reads."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from pubfetch.model import PartType
from pubfetch.model.publication import Publication
from pubfetch.model.rich import RichName
from pubfetch.store import init_store, open_store
from support.publications import structured_publication

STRUCTURE = (RichName.tables, RichName.figures, RichName.supplements, RichName.statements)


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return str(tmp_path / "structure.db") if request.param == "sqlite" else request.getfixturevalue("pg_url")


def test_structure_parts_round_trip_through_the_store(target: str) -> None:
    pub = structured_publication()
    with init_store(target) as store:
        assert store.put_publication(pub)
    with open_store(target) as store:
        again = store.get_publication("77")
    assert again == pub
    assert again is not None and again.tables.items[0].header == [["Group", "Dose", "Dose"], ["Group", "mg", "mL"]]
    assert again.tables.type is PartType.europepmc_xml


def test_the_json_names_of_the_structure_parts() -> None:
    pub = structured_publication()
    doc = pub.to_json(computed=False)
    assert set(doc["tables"]["list"][0]) == {"id", "label", "caption", "header", "rows", "footnotes", "sectionPath",
                                             "truncated"}
    assert doc["supplements"]["list"][0]["mediaType"] == "text/csv" and doc["supplements"]["list"][0]["size"] == 12
    assert doc["statements"]["list"][0] == {"type": "data_availability", "title": "Data availability",
                                            "text": "In Zenodo."}
    assert Publication.from_json(json.loads(json.dumps(doc))) == pub


def test_an_entry_written_before_the_structure_parts_reads(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with init_store(str(db)) as store:
        store.put_publication(structured_publication())
    with sqlite3.connect(db) as conn:  # the entry as an older pubfetch wrote it
        doc = json.loads(conn.execute("SELECT json FROM publications").fetchone()[0])
        for name in STRUCTURE:
            doc.pop(name.value)
        conn.execute("UPDATE publications SET json = ?", (json.dumps(doc),))
    with open_store(str(db)) as store:
        old = store.get_publication("77")
    assert old is not None and old.title.content == "Tables as data"
    assert all(old.rich(name).is_empty() for name in STRUCTURE)
