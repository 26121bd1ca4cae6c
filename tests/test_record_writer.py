"""Tests for pubfetch.metadata.record_writer: the records of one archival unit written as JSON or JSON Lines, the AU
chosen from a title database, and unusable input refused before anything is written."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from pubfetch.metadata import fields as mf
from pubfetch.metadata.article_metadata import ArticleMetadata
from pubfetch.metadata.au import AuIdError
from pubfetch.metadata.extractors import HtmlMetaTagExtractor, MetadataTarget
from pubfetch.metadata.plugin import load_plugin
from pubfetch.metadata.record_writer import run_plugin_operation, select_tdb_au
from pubfetch.metadata.tdb import load_tdb

FIXTURES = Path(__file__).parent / "data" / "archival_units"
OJS_MIRROR = FIXTURES / "ojs_mirror"
OJS_TDB = FIXTURES / "ojs.tdb"
JOE = "https://journal.example.org/ojs/index.php/joe/article/"


# --- CLI support ---------------------------------------------------------------------------------------------------


def test_run_plugin_operation_json_and_jsonl() -> None:
    out = io.StringIO()
    code = run_plugin_operation("ojs", None, str(OJS_TDB), "Journal of Examples Volume 16", str(OJS_MIRROR), out,
                                "json")
    assert code == 0
    records = [ArticleMetadata.from_json(r) for r in json.loads(out.getvalue())]
    assert [r.get(mf.FIELD_ACCESS_URL) for r in records] == [JOE + "view/17", JOE + "view/18", JOE + "view/19/50"]
    assert records[0].get(mf.FIELD_ISSN) == "0740-2783"
    lines = io.StringIO()
    params = {"base_url": "https://journal.example.org/ojs/", "journal_id": "joe"}
    assert run_plugin_operation("ojs", params, None, None, str(OJS_MIRROR), lines, "jsonl") == 0
    parsed = [json.loads(line) for line in lines.getvalue().splitlines()]
    assert [p["cooked"]["access.url"] for p in parsed] == [JOE + "view/17", JOE + "view/18", JOE + "view/19/50"]
    assert parsed[0]["invalid"] == {"issn": {"raw": "not_an_issn", "error": "Illegal ISSN: not_an_issn"}}
    empty = io.StringIO()
    assert run_plugin_operation("ojs", {**params, "journal_id": "none"}, None, None, str(OJS_MIRROR), empty,
                                "json") == 0
    assert json.loads(empty.getvalue()) == []


def test_run_plugin_operation_reports_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: HtmlMetaTagExtractor, target: MetadataTarget, cu: Any) -> list[ArticleMetadata]:
        raise RuntimeError("parser bug")

    monkeypatch.setattr(HtmlMetaTagExtractor, "extract", broken)
    out = io.StringIO()
    assert run_plugin_operation("ojs", None, str(OJS_TDB), "Journal of Examples Volume 16", str(OJS_MIRROR), out,
                                "jsonl") == 1
    assert out.getvalue() == ""


def test_run_plugin_operation_input_errors() -> None:
    out = io.StringIO()
    with pytest.raises(ValueError, match="lists 2 AUs; name one of them: 'Journal of Examples Volume 16'"):
        run_plugin_operation("ojs", None, str(OJS_TDB), None, str(OJS_MIRROR), out, "json")
    with pytest.raises(ValueError, match="has no AU named 'Volume 99'"):
        run_plugin_operation("ojs", None, str(OJS_TDB), "Volume 99", str(OJS_MIRROR), out, "json")
    with pytest.raises(ValueError, match="an AU name needs a title database"):
        run_plugin_operation("ojs", None, None, "Volume 16", str(OJS_MIRROR), out, "json")
    with pytest.raises(AuIdError, match="missing definitional parameter"):
        run_plugin_operation("ojs", {}, None, None, str(OJS_MIRROR), out, "json")
    with pytest.raises(ValueError, match="output format must be 'json' or 'jsonl'"):
        run_plugin_operation("ojs", {}, None, None, str(OJS_MIRROR), out, "xml")  # type: ignore[arg-type]
    assert out.getvalue() == ""


def test_select_tdb_au_prefers_the_plugins_only_au() -> None:
    tdb = load_tdb(OJS_TDB)
    with pytest.raises(ValueError, match="lists 2 AUs"):
        select_tdb_au(tdb, load_plugin("ojs"), None)
    tdb.aus.pop()
    assert select_tdb_au(tdb, load_plugin("highwire"), None).name == "Journal of Examples Volume 16"
