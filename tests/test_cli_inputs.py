"""Adding IDs from the command line, ID files and JSON files: invalid IDs reported with file:line, skipped and
counted (or, with --strict, an error); unreadable and malformed files are one-line errors with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

from pubfetch.cli.idsource import SHOWN_PER_SOURCE
from support.cli import Cli

FIXTURE = Path(__file__).parent / "data" / "cli" / "entries.json"


ID_FILE = (
    "# pmid\tpmcid\tdoi\n"               # 1: comment
    "31114920\t\t\n"                     # 2
    "\tPMC6198355\t10.1093/nar/gkz369\n"  # 3
    "\t6198355\t\n"                      # 4: PMCID without PMC: skipped
    "31114920\t\t\n"                     # 5: duplicate
    "1234\tPMC1\tnot-a-doi\n"            # 6: bad DOI, the rest kept
    "https://doi.org/10.1000/ABC\n"      # 7: a single ID (a DOI link)
    "a\tb\n"                             # 8: two fields
    "\n"                                 # 9: empty
    "   \n"                              # 10: blank
    "9999\r\n"                           # 11: CRLF, a single PMID
)


def test_pub_file_reports_and_skips_invalid_lines(tmp_path: Path, cli: Cli) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text(ID_FILE, encoding="utf-8", newline="")
    code, out, err = cli("-pub-file", ids, "-out-ids", "--plain", "-count-ids")
    assert code == 0
    assert out == ("31114920\t\t\n\tPMC6198355\t10.1093/NAR/GKZ369\n1234\tPMC1\t\n\t\t10.1000/ABC\n9999\t\t\n"
                   "Publication IDs : 5\n")
    assert err.splitlines() == [
        (f"pubfetch: warning: {ids}:4: invalid PMCID '6198355': PMCID must start with PMC; '6198355' looks like a "
        "PMID (did you mean PMC6198355?)"),
        (f"pubfetch: warning: {ids}:6: invalid DOI 'not-a-doi': a DOI is 10.<registrant>/<suffix>, such as "
        "10.1093/nar/gkz369 (kept the valid IDs of the line)"),
        f"pubfetch: warning: {ids}:8: expected 'pmid<TAB>pmcid<TAB>doi' or a single ID, found 2 tab-separated fields",
        f"pubfetch: warning: {ids}: 3 of 8 publication ID lines invalid, 2 skipped, 1 kept with their valid IDs",
    ]


def test_pub_file_strict_fails_at_the_first_bad_line(tmp_path: Path, cli: Cli) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text(ID_FILE, encoding="utf-8")
    assert cli("-pub-file", ids, "-out-ids", "--strict") == (
        2, "", (f"pubfetch: error: {ids}:4: invalid PMCID '6198355': PMCID must start with PMC; '6198355' looks like "
               "a PMID (did you mean PMC6198355?)\n"))


def test_many_problems_are_summarised(tmp_path: Path, cli: Cli) -> None:
    ids = tmp_path / "many.txt"
    ids.write_text("".join(f"0{n}\t\t\n" for n in range(1, 16)) + "5\t\t\n", encoding="utf-8")
    log = tmp_path / "run.log"
    code, out, err = cli("-pub-file", ids, "-out-ids", "--plain", "--log", log)
    assert (code, out) == (0, "5\t\t\n")
    lines = err.splitlines()
    assert len(lines) == SHOWN_PER_SOURCE + 1
    assert lines[0] == f"pubfetch: warning: {ids}:1: invalid PMID '01': a PMID has no leading zeros"
    assert lines[-1] == (f"pubfetch: warning: {ids}: 15 of 16 publication ID lines invalid, 15 skipped; 5 not shown "
                         "above (all are in the --log file)")
    assert f"{ids}:15: invalid PMID '015': a PMID has no leading zeros" in log.read_text(encoding="utf-8")


def test_pub_file_with_bom_and_several_files(tmp_path: Path, cli: Cli) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("\ufeff31114920\t\t\n", encoding="utf-8")
    b.write_text("PMC6198355\n31114920\t\t\n", encoding="utf-8")
    assert cli("-pub-file", a, b, "-out-ids", "--plain") == (0, "31114920\t\t\n\tPMC6198355\t\n", "")


def test_unreadable_files(tmp_path: Path, cli: Cli) -> None:
    missing = tmp_path / "missing.txt"
    assert cli("-pub-file", missing, "-out-ids") == (
        2, "", f"pubfetch: error: cannot read publication ID file '{missing}': No such file or directory\n")
    assert cli("-web-file", tmp_path, "-out-ids") == (
        2, "", f"pubfetch: error: cannot read webpage URL file '{tmp_path}': Is a directory\n")
    latin = tmp_path / "latin1.txt"
    latin.write_bytes(b"31114920\t\t\n\xe9t\xe9\t\t\n")
    code, out, err = cli("-pub-file", latin, "-out-ids")
    assert (code, out) == (2, "")
    assert err == f"pubfetch: error: {latin}:1: publication ID file is not UTF-8 text (invalid continuation byte)\n"


def test_url_files_and_arguments(tmp_path: Path, cli: Cli) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("https://bio.tools/pubfetcher\n# a comment\nbio.tools/edammap\nftp://ftp.ebi.ac.uk/pub/\n",
                    encoding="utf-8")
    code, out, err = cli("-doc-file", urls, "-web", "https://bio.tools/x", "javascript:alert(1)", "-out-ids")
    assert code == 0
    assert out == "https://bio.tools/x\nhttps://bio.tools/pubfetcher\nftp://ftp.ebi.ac.uk/pub/\n"
    assert err.splitlines() == [
        ("pubfetch: warning: -web: malformed URL 'javascript:alert(1)': unsupported scheme 'javascript' (expected "
        "http, https or ftp)"),
        "pubfetch: warning: -web: 1 of 2 URLs invalid, 1 skipped",
        (f"pubfetch: warning: {urls}:3: malformed URL 'bio.tools/edammap': no scheme (expected an absolute URL such "
        "as https://example.org/)"),
        f"pubfetch: warning: {urls}: 1 of 3 doc URLs invalid, 1 skipped",
    ]


def test_pub_arguments_accept_links(cli: Cli) -> None:
    code, out, _ = cli("-pub", "https://pubmed.ncbi.nlm.nih.gov/31114920/",
                       "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6198355/", "doi:10.1093/nar/gkz369", "-out-ids")
    assert (code, out) == (0, ("[31114920] (pubfetch 0.1.0)\n[PMC6198355] (pubfetch 0.1.0)\n"
                              "[10.1093/NAR/GKZ369] (pubfetch 0.1.0)\n"))


# --- JSON files ------------------------------------------------------------------------------------------------------


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
