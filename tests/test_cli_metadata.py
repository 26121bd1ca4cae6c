"""ArticleMetadata records from the command line: -extract-au and the metadata output formats."""

from __future__ import annotations

import json
from pathlib import Path

AU = Path(__file__).parent / "data" / "archival_units"
FIXTURES = Path(__file__).parent / "data" / "cli" / "entries.json"


def test_extract_au_from_a_mirror_with_parameters(cli):
    code, out, err = cli("-extract-au", "ojs", AU / "ojs_mirror", "--au-param",
                         "base_url=https://journal.example.org/ojs/", "journal_id=joe", "--format", "metadata-jsonl")
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["cooked"].get("doi") for r in records] == ["10.5555/joe.2020.17", "10.5555/joe.2020.18", None]
    assert records[0]["cooked"]["author"] == ["Ana Example", "Bo Sample"]
    assert "issn" in records[0]["invalid"]  # the page's 'not_an_issn' is kept aside, not dropped


def test_extract_au_from_the_title_database(cli):
    code, out, err = cli("-extract-au", "ojs", AU / "ojs_mirror", "--tdb", AU / "ojs.tdb", "--au",
                         "Journal of Examples Volume 16")
    assert code == 0, err
    records = json.loads(out)
    assert records[0]["cooked"]["issn"] == "0740-2783"


def test_extract_au_errors_are_one_line(cli):
    code, out, err = cli("-extract-au", "nosuch", AU / "ojs_mirror")
    assert code == 2 and out == ""
    assert err == ("pubfetch: error: -extract-au: nosuch: no shipped plugin of that name; shipped: highwire, "
                   "jats_delivery, ojs\n")
    code, out, err = cli("-extract-au", "ojs", AU / "ojs_mirror", "--tdb", AU / "ojs.tdb")
    assert code == 2
    assert "lists 2 AUs; name one of them: 'Journal of Examples Volume 16', 'Journal of Examples Volume 17'" in err


def test_pipeline_output_as_metadata_records(cli):
    code, out, err = cli("-pub-json", FIXTURES, "-web-json", FIXTURES, "-out", "--format", "metadata")
    assert code == 0, err
    doc = json.loads(out)
    pub = doc["publications"][0]
    assert set(pub) == {"cooked", "raw", "invalid"}
    assert pub["cooked"]["pubtype"] == "journal" and pub["cooked"]["articletype"] == "journal_article"
    assert [pub["cooked"]["article.title"]] == pub["raw"]["title"]  # raw values are lists
    page = doc["webpages"][0]
    assert [page["cooked"]["access.url"]] == page["raw"]["finalurl"]
    code, out, err = cli("-pub-json", FIXTURES, "-out", "--format", "metadata-jsonl")
    assert [set(json.loads(line)) for line in out.splitlines()] == [{"cooked", "raw", "invalid"}] * 3
