"""Entries read from PubFetcher JSON files in every shape pubfetch and PubFetcher write (a document, an array, one
object, JSON Lines, plain or full): a file that is not JSON or an entry of the wrong shape is one error naming the file
and line or entry; an entry with invalid IDs is reported and skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubfetch.cli.errors import InputError
from pubfetch.cli.jsonsource import read_json_entries
from pubfetch.model import PartType
from support.cli import Cli

FIXTURE = Path(__file__).parent / "data" / "cli" / "entries.json"


def test_json_files_that_are_not_json(tmp_path: Path, cli: Cli) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"publications": [', encoding="utf-8")
    assert cli("-pub-json", bad, "-count") == (
        2, "", f"pubfetch: error: {bad}: invalid JSON: Expecting value (line 1, column 19)\n")
    lines = tmp_path / "bad.jsonl"
    lines.write_text('{"pmid": "1"}\n{"pmid": \n', encoding="utf-8")
    assert cli("-pub-json", lines, "-count") == (
        2, "", f"pubfetch: error: {lines}:2: invalid JSON: Expecting value (column 10)\n")
    numbers = tmp_path / "numbers.json"
    numbers.write_text("[1, 2]", encoding="utf-8")
    assert cli("-pub-json", numbers, "-count") == (
        2, "", f"pubfetch: error: {numbers}: entry 1: expected a JSON object, found int\n")
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"publications": {}}', encoding="utf-8")
    assert cli("-pub-json", wrong, "-count") == (
        2, "", f"pubfetch: error: {wrong}: \"publications\" is not an array\n")
    bad_type = tmp_path / "type.json"
    bad_type.write_text('[{"pmid": {"content": "1", "type": "bogus"}}]', encoding="utf-8")
    assert cli("-pub-json", bad_type, "-count") == (
        2, "", (f"pubfetch: error: {bad_type}: entry 1: not a publication in PubFetcher's JSON form ('bogus' is not a "
               "valid PartType)\n"))


def test_json_entries_without_valid_ids_are_skipped(tmp_path: Path, cli: Cli) -> None:
    doc = json.loads(FIXTURE.read_text(encoding="utf-8"))
    doc["publications"][1]["doi"]["content"] = "10.1000 /with space"
    doc["publications"][2]["pmid"]["content"] = ""
    path = tmp_path / "some.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = cli("-pub-json", path, "-out-ids", "--plain")
    assert (code, out) == (0, "39466770\tPMC11516011\t10.1371/JOURNAL.PONE.0311879\n")
    assert err.splitlines() == [
        f"pubfetch: warning: {path}: publications[1]: invalid DOI '10.1000 /with space': a DOI cannot contain spaces",
        f"pubfetch: warning: {path}: publications[2]: publication has no PMID, PMCID or DOI",
        f"pubfetch: warning: {path}: 2 of 3 publications invalid, 2 skipped",
    ]


def test_json_shapes(tmp_path: Path, cli: Cli) -> None:
    doc = json.loads(FIXTURE.read_text(encoding="utf-8"))
    single = tmp_path / "single.json"
    single.write_text(json.dumps(doc["webpages"][0]), encoding="utf-8")
    array = tmp_path / "array.json"
    array.write_text(json.dumps(doc["docs"]), encoding="utf-8")
    empty = tmp_path / "empty.json"
    empty.write_text("", encoding="utf-8")
    code, out, err = cli("-web-json", single, "-doc-json", array, "-pub-json", empty, "-out-ids", "-count")
    assert (code, err) == (0, "")
    assert out == ("https://github.com/edamontology/pubfetcher\nhttps://pubfetcher.readthedocs.io/en/latest/cli.html\n"
                   "Webpages     : 1\nDocs         : 1\n")


def test_json_ids_go_through_the_id_filters(cli: Cli) -> None:
    code, out, _ = cli("-pub-json", FIXTURE, "-has-pmid", "-head-ids", "1", "-out", "--plain", "--out-part",
                       "title")
    assert (code, out) == (0, ("Ranking publication sources by provenance: a test record with <angle brackets> & "
                              "ampersands\n"))


def test_json_content_is_found_by_any_of_its_ids(cli: Cli) -> None:
    code, out, _ = cli("-pub-json", FIXTURE, "-pub", "PMC11516011", "-head-ids", "1", "-out", "--plain",
                       "--out-part", "pmid")
    assert (code, out) == (0, "39466770\t\t\n")


def test_json_lines_pass_over_lines_of_another_kind(tmp_path: Path) -> None:
    stream = tmp_path / "mixed.jsonl"
    stream.write_text('{"kind": "publication", "pmid": "1", "title": "One"}\n'
                      '{"kind": "webpage", "startUrl": "https://a.example/"}\n\n'
                      '{"pmid": "2", "title": ""}\n', encoding="utf-8")
    pubs = read_json_entries(str(stream), "publications")
    assert [(p.pmid.content, p.title.content) for p in pubs] == [("1", "One"), ("2", "")]
    assert pubs[0].title.type is PartType.external  # plain content comes from outside
    assert pubs[1].title.type is PartType.na


def test_a_webpage_with_a_bad_start_url_is_skipped_or_with_strict_an_error(tmp_path: Path) -> None:
    pages = tmp_path / "pages.json"
    pages.write_text(json.dumps([{"startUrl": "https://a.example/"}, {"startUrl": "a.example/x"}]), encoding="utf-8")
    assert [p.start_url for p in read_json_entries(str(pages), "webpages")] == ["https://a.example/"]
    with pytest.raises(InputError, match=r": entry 2: start URL: malformed URL 'a.example/x': no scheme"):
        read_json_entries(str(pages), "webpages", strict=True)


def test_deeply_nested_json_is_one_error(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(InputError, match=f"^{deep}: JSON nested too deeply$"):
        read_json_entries(str(deep), "publications")
