"""The rich parts in both stores: kept with their provenance, and entries written before they existed still read (the
JSON entry simply lacks their keys) and gain them when fetched again."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from pubfetch.model import PartType
from pubfetch.model.retraction import RetractionSource, RetractionVerdict
from pubfetch.model.rich import RichName
from pubfetch.store import init_store, open_store
from support.publications import rich_publication


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return str(tmp_path / "rich.db") if request.param == "sqlite" else request.getfixturevalue("pg_url")


def test_rich_parts_round_trip_through_the_store(target: str) -> None:
    pub = rich_publication()
    with init_store(target) as store:
        assert store.put_publication(pub)
    with open_store(target) as store:
        again = store.get_publication("22528466")
    assert again is not None
    assert again == pub
    assert again.references.type is PartType.europepmc_xml and again.references.url == "u2"
    assert again.retracted and again.retraction_notices() == ["456"]


def test_an_entry_written_before_the_rich_parts_reads_and_gains_them(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with init_store(str(db)) as store:
        store.put_publication(rich_publication())
    with sqlite3.connect(db) as conn:  # the entry as an older pubfetch wrote it: none of the new keys
        doc = json.loads(conn.execute("SELECT json FROM publications").fetchone()[0])
        for key in ("funding", "links", "updates", "references", "sections", "license", "retracted"):
            doc.pop(key)
        doc["pubTypes"] = ["Retracted Publication"]
        conn.execute("UPDATE publications SET json = ?", (json.dumps(doc),))
    with open_store(str(db)) as store:
        old = store.get_publication("22528466")
        assert old is not None
        assert all(old.rich(name).is_empty() for name in RichName)
        assert old.retracted  # from its publication types
        old.set_rich(RichName.license, "cc by", PartType.europepmc, "u3")
        assert store.put_publication(old)
        assert store.get_publication("22528466").license.content == "cc by"  # type: ignore[union-attr]


def _drop_retraction_flags(target: str) -> None:
    """The stored entry as a pubfetch before per-source retraction flags wrote it: ``retracted`` alone."""
    if target.startswith("postgresql"):
        import psycopg

        with psycopg.connect(target, autocommit=True) as conn:
            conn.execute("UPDATE publications SET json = json - 'retractionFlags'")
        return
    with sqlite3.connect(target) as conn:
        doc = json.loads(conn.execute("SELECT json FROM publications").fetchone()[0])
        del doc["retractionFlags"]
        conn.execute("UPDATE publications SET json = ?", (json.dumps(doc),))


def test_an_entry_stored_before_per_source_retraction_flags_reads_as_retracted(target: str) -> None:
    with init_store(target) as store:
        store.put_publication(rich_publication())
    _drop_retraction_flags(target)
    with open_store(target) as store:
        old = store.get_publication("22528466")
        assert old is not None and old.retracted
        assert old.retraction.sources() == [RetractionSource.earlier]
        old.set_retraction(RetractionVerdict(RetractionSource.pubmed, False))  # PubMed answers again: not retracted
        assert store.put_publication(old)
        again = store.get_publication("22528466")
    assert again is not None and not again.retracted
    assert again.to_json()["retractionFlags"] == {"pubmed": False}
