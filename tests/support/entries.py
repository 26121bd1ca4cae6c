"""The entries of tests/data/cli/entries.json (three publications, webpages and docs in PubFetcher's JSON), read as
model objects, for the tests of the output forms."""

from __future__ import annotations

import json
from pathlib import Path

from pubfetch.model import Publication, Webpage

ENTRIES = Path(__file__).resolve().parents[1] / "data" / "cli" / "entries.json"


def entries_document() -> dict:
    return json.loads(ENTRIES.read_text(encoding="utf-8"))


def publications() -> list[Publication]:
    return [Publication.from_json(p) for p in entries_document()["publications"]]


def webpages_and_docs() -> tuple[list[Webpage], list[Webpage]]:
    doc = entries_document()
    return [Webpage.from_json(w) for w in doc["webpages"]], [Webpage.from_json(d) for d in doc["docs"]]
