"""The offline pipeline end to end: a database made with -db-init, filled from PubFetcher JSON fixtures, read back with
-pub-db/-db and written with every output operation and format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubfetch.model import Publication, Webpage
from pubfetch.output.writer import format_entries
from pubfetch.store import open_db
from support.cli import Cli

FIXTURE = Path(__file__).parent / "data" / "cli" / "entries.json"
PMID1, PMCID1, DOI1 = "39466770", "PMC11516011", "10.1371/JOURNAL.PONE.0311879"
DOI2 = "10.1007/S00068-014-0450-3"
PMID3 = "26037986"
WEB1, WEB2 = "https://github.com/edamontology/pubfetcher", "http://example.org/gone"
DOC1 = "https://pubfetcher.readthedocs.io/en/latest/cli.html"


def ok(cli: Cli, *argv: str | Path) -> str:
    code, out, err = cli(*argv)
    assert (code, err) == (0, ""), err
    return out


@pytest.fixture(scope="module")
def fixture_doc() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture
def db(tmp_path: Path, cli: Cli) -> Path:
    """A database holding the fixture's 3 publications, 2 webpages and 1 doc, put with the CLI."""
    path = tmp_path / "pubs.db"
    assert ok(cli, "-db-init", path, "-pub-json", FIXTURE, "-web-json", FIXTURE, "-doc-json", FIXTURE,
              "-put", path) == ""
    return path


def everything(db: Path) -> list[str | Path]:
    return ["-pub-db", db, "-web-db", db, "-doc-db", db, "-db", db]


# --- database one-off operations ------------------------------------------------------------------------------------


def test_db_init_makes_an_empty_database(tmp_path: Path, cli: Cli) -> None:
    path = tmp_path / "new.db"
    assert ok(cli, "-db-init", path) == ""
    assert ok(cli, "-db-publications-size", path, "-db-webpages-size", path, "-db-docs-size", path) == "0\n0\n0\n"
    code, out, err = cli("-db-init", path)
    assert (code, out) == (2, "")
    assert err == f"pubfetch: error: database file '{path}' already exists; remove it or use another name\n"


def test_db_sizes_and_maps(db: Path, cli: Cli) -> None:
    assert ok(cli, "-db-publications-size", db, "-db-webpages-size", db, "-db-docs-size", db) == "3\n2\n1\n"
    assert ok(cli, "-db-publications-map", db) == (
        f"{PMID1} -> {PMID1}\n{PMCID1} -> {PMID1}\n{DOI1} -> {PMID1}\n{DOI2} -> {DOI2}\n{PMID3} -> {PMID3}\n")
    epmc = ("https://www.ebi.ac.uk/europepmc/webservices/rest/search?resulttype=core&format=xml&query="
            "ext_id:39466770%20src:med")
    assert ok(cli, "-db-publications-map-reverse", db) == (
        f"{PMID1} -> [{PMID1}, {PMCID1}, {DOI1}] ({epmc}, {epmc}, {epmc})\n"
        f"{DOI2} -> [{DOI2}] (given as input)\n"
        f"{PMID3} -> [{PMID3}] (given as input)\n")


def test_db_commit_and_compact(db: Path, cli: Cli) -> None:
    assert ok(cli, "-db-commit", db, "-db-compact", db) == ""
    assert ok(cli, "-db-publications-size", db) == "3\n"


def test_missing_database_is_a_clear_error(tmp_path: Path, cli: Cli) -> None:
    missing = tmp_path / "missing.db"
    code, out, err = cli("-pub-db", missing, "-out-ids")
    assert (code, out) == (2, "")
    assert err == f"pubfetch: error: database file '{missing}' does not exist (create it with -db-init)\n"


# --- reading back exactly --------------------------------------------------------------------------------------------


def test_json_output_reproduces_the_stored_entries(db: Path, fixture_doc: dict,
                                                   cli: Cli) -> None:
    doc = json.loads(ok(cli, *everything(db), "-out", "--format", "json"))
    assert doc["version"] == {"name": "pubfetch", "url": "https://pypi.org/project/pubfetch/", "version": "0.1.0"}
    assert doc["argv"] == [*map(str, everything(db)), "-out", "--format", "json"]
    for kind in ("publications", "webpages", "docs"):
        assert doc[kind] == fixture_doc[kind], kind


def test_text_and_html_output_reproduce_the_stored_entries(db: Path, fixture_doc: dict,
                                                           cli: Cli) -> None:
    pubs = [Publication.from_json(p) for p in fixture_doc["publications"]]
    webs = [Webpage.from_json(w) for w in fixture_doc["webpages"]]
    docs = [Webpage.from_json(d) for d in fixture_doc["docs"]]
    for fmt in ("text", "html"):
        for plain in ([], ["--plain"]):
            out = ok(cli, *everything(db), "-out", "--format", fmt, *plain)
            assert out == format_entries(pubs, webs, docs, fmt=fmt, plain=bool(plain)), (fmt, plain)


def test_text_output_of_one_entry(db: Path, cli: Cli) -> None:
    out = ok(cli, "-web", WEB2, "-db", db, "-out")
    assert out == (
        "FETCH TIME: 2024-10-26T07:34:31.300Z (1729928071300)\n"
        "RETRY COUNTER: 3\n"
        "FETCH EXCEPTION: false\n\n"
        "START URL: http://example.org/gone\n"
        "FINAL URL: https://www.example.org/gone\n"
        "CONTENT TYPE: text/html\n"
        "STATUS CODE: 404\n"
        "CONTENT TIME: 2024-10-26T07:34:31.200Z (1729928071200)\n\n"
        "LICENSE: \n"
        "LANGUAGE: \n\n"
        "TITLE LENGTH: 0\n"
        "CONTENT LENGTH: 0\n\n"
        "TITLE: \n\n"
        "CONTENT: \n")
    text = ok(cli, "-pub", DOI2, "-db", db, "-out")
    assert ("TITLE: A short title from meta tags\n"
            "    type: HighWire\n"
            "    url: https://link.springer.com/article/10.1007/s00068-014-0450-3\n"
            "    timestamp: 2024-10-25T07:34:32Z (1729841672000)\n"
            "    size: 28\n") in text
    assert text.endswith(
        "VISITED SITES:\n"
        "https://link.springer.com/article/10.1007/s00068-014-0450-3\n"
        "    type: doi\n"
        "    from: https://doi.org/10.1007/s00068-014-0450-3\n"
        "    timestamp: 2024-10-25T07:34:31.500Z (1729841671500)\n"
        "https://link.springer.com/content/pdf/10.1007/s00068-014-0450-3.pdf\n"
        "    type: pdf_doi\n"
        "    from: https://link.springer.com/article/10.1007/s00068-014-0450-3\n"
        "    timestamp: 2024-10-25T07:34:31.600Z (1729841671600)\n")


def test_text_entries_are_separated_by_a_dashed_line(db: Path, cli: Cli) -> None:
    out = ok(cli, "-pub", PMID3, DOI2, "-db", db, "-out", "--plain", "--out-part", "title", "abstract")
    assert out == ("\n\n\n"
                   "\n -----------------------------------------------------------------------------\n\n"
                   "A short title from meta tags\n\nA short description from og:description.\n")


def test_html_output_is_escaped(db: Path, cli: Cli) -> None:
    out = ok(cli, "-pub", PMID1, "-db", db, "-out", "--format", "html")
    assert "<angle brackets>" not in out and "<5%" not in out
    assert "<h3>Title</h3>\n<p>Ranking publication sources by provenance: a test record with &lt;angle brackets&gt; " \
           "&amp; ampersands</p>\n" in out
    assert "markup-like text such as &lt;5% &amp; &gt;95%." in out
    assert '<div><span>URL:</span> <span><a href="https&#58;&#47;&#47;www&#46;ebi&#46;ac&#46;uk&#47;europepmc' in out
    assert ('<a href="https&#58;&#47;&#47;www&#46;ncbi&#46;nlm&#46;nih&#46;gov&#47;mesh&#47;&#63;term&#61;'
            '&#37;22D057225&#37;22">Data Mining*</a>; ') in out
    assert out.startswith("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n")
    assert out.endswith("</ul>\n</body>\n</html>\n")


def test_plain_json_and_parts(db: Path, fixture_doc: dict, cli: Cli) -> None:
    doc = json.loads(ok(cli, "-pub", PMID1, "-web", WEB1, "-db", db, "-out", "--format", "json", "--plain"))
    full = fixture_doc["publications"][0]
    assert list(doc) == ["version", "argv", "publications", "webpages"]
    assert doc["publications"] == [{
        "pmid": PMID1, "pmcid": PMCID1, "doi": DOI1, "title": full["title"]["content"],
        "keywords": ["literature mining", "provenance", "Europe PMC"],
        "mesh": full["mesh"]["list"], "efo": full["efo"]["list"], "go": full["go"]["list"],
        "abstract": full["abstract"]["content"], "fulltext": full["fulltext"]["content"]}]
    assert doc["webpages"] == [{"startUrl": WEB1, "title": fixture_doc["webpages"][0]["title"],
                                "content": fixture_doc["webpages"][0]["content"]}]
    parts = json.loads(ok(cli, "-pub", PMID1, "-db", db, "-out", "--format", "json", "--out-part", "abstract",
                          "pmid"))
    assert parts["publications"] == [{"pmid": full["pmid"], "abstract": full["abstract"]}]


def test_plain_id_parts_give_the_pub_file_form(db: Path, cli: Cli) -> None:
    out = ok(cli, "-pub-db", db, "-db", db, "-out", "--plain", "--out-part", "doi", "pmid")
    assert out == f"{PMID1}\t\t{DOI1}\n\t\t{DOI2}\n{PMID3}\t\t\n"


def test_jsonl_round_trip(db: Path, fixture_doc: dict, tmp_path: Path, cli: Cli) -> None:
    out = ok(cli, *everything(db), "-out", "--format", "jsonl")
    lines = out.splitlines()
    assert len(lines) == 6
    assert [json.loads(line)["kind"] for line in lines] == ["publication"] * 3 + ["webpage"] * 2 + ["doc"]
    stream = tmp_path / "entries.jsonl"
    stream.write_text(out, encoding="utf-8")
    doc = json.loads(ok(cli, "-pub-json", stream, "-web-json", stream, "-doc-json", stream, "-out", "--format",
                        "json"))
    for kind in ("publications", "webpages", "docs"):
        assert doc[kind] == fixture_doc[kind], kind
    single = ok(cli, "-pub-db", db, "-db", db, "-out", "--format", "jsonl")
    assert "kind" not in json.loads(single.splitlines()[0]), "one kind of IDs given: no kind tag"


def test_json_round_trip_through_a_new_database(db: Path, fixture_doc: dict, tmp_path: Path,
                                                cli: Cli) -> None:
    exported = tmp_path / "export" / "pubs.json"
    ok(cli, "-pub-db", db, "-db", db, "-txt-pub", exported, "--format", "json")
    copy = tmp_path / "copy.db"
    ok(cli, "-db-init", copy, "-pub-json", exported, "-put", copy)
    doc = json.loads(ok(cli, "-pub-db", copy, "-db", copy, "-out", "--format", "json"))
    assert doc["publications"] == fixture_doc["publications"]
    with open_db(copy, readonly=True) as store:
        assert [i.ids for i in store.publication_ids()] == [(PMID1, PMCID1, DOI1), ("", "", DOI2), (PMID3, "", "")]


def test_plain_json_is_read_as_external_content(db: Path, tmp_path: Path, cli: Cli) -> None:
    plain = tmp_path / "plain.json"
    ok(cli, "-pub", DOI2, "-db", db, "-txt-pub", plain, "--format", "json", "--plain")
    doc = json.loads(ok(cli, "-pub-json", plain, "-out", "--format", "json"))
    (pub,) = doc["publications"]
    assert pub["doi"]["content"] == DOI2 and pub["doi"]["type"] == "external"
    assert pub["title"] == {"content": "A short title from meta tags", "type": "external", "url": "", "timestamp": 0,
                            "timestampHuman": "1970-01-01T00:00:00Z", "size": 28, "empty": False, "usable": True,
                            "final": False}
    assert pub["pmid"]["type"] == "na" and pub["fetchTime"] == 0


# --- IDs -------------------------------------------------------------------------------------------------------------


def test_out_ids_formats(db: Path, cli: Cli) -> None:
    assert ok(cli, "-pub-db", db, "-doc-db", db, "-out-ids", "--plain") == (
        f"{PMID1}\t{PMCID1}\t{DOI1}\n\t\t{DOI2}\n{PMID3}\t\t\n{DOC1}\n")
    epmc = ("https://www.ebi.ac.uk/europepmc/webservices/rest/search?resulttype=core&format=xml&query="
            "ext_id:39466770%20src:med")
    assert ok(cli, "-pub-db", db, "-out-ids") == (
        f"[{PMID1}, {PMCID1}, {DOI1}] ({epmc}, {epmc}, {epmc})\n[{DOI2}] (given as input)\n[{PMID3}] (given as input)\n")
    doc = json.loads(ok(cli, "-pub", "31114920", "-web-db", db, "-out-ids", "--format", "json", "--plain"))
    assert doc["publicationIds"] == [{"pmid": "31114920", "pmcid": "", "doi": ""}]
    assert doc["webpageUrls"] == [WEB1, WEB2]
    assert "docUrls" not in doc
    lines = ok(cli, "-pub", "31114920", "-out-ids", "--format", "jsonl").splitlines()
    assert [json.loads(line) for line in lines] == [
        {"pmid": "31114920", "pmcid": "", "doi": "", "pmidUrl": "pubfetch 0.1.0", "pmcidUrl": "", "doiUrl": ""}]


def test_txt_ids_files_and_counts(db: Path, tmp_path: Path, cli: Cli) -> None:
    ids_file = tmp_path / "out" / "ids.txt"
    docs_file = tmp_path / "out" / "docs.json"
    out = ok(cli, "-pub-db", db, "-web", WEB1, "-txt-ids-pub", ids_file, "-txt-ids-doc", docs_file, "--plain",
             "-count-ids")
    assert out == "Publication IDs : 3\nWebpage URLs    : 1\n"
    assert ids_file.read_text(encoding="utf-8") == f"{PMID1}\t{PMCID1}\t{DOI1}\n\t\t{DOI2}\n{PMID3}\t\t\n"
    assert docs_file.read_text(encoding="utf-8") == ""
    json_file = tmp_path / "docs.json"
    ok(cli, "-pub", "1", "-txt-ids-doc", json_file, "--format", "json")
    assert json.loads(json_file.read_text(encoding="utf-8"))["docUrls"] == []
    assert ok(cli, "-pub-file", ids_file, "-count-ids") == "Publication IDs : 3\n"


def test_ids_sort_and_limit(cli: Cli) -> None:
    """PubFetcher's PublicationIds.compareTo: PMIDs first (by number), then PMCID-only, then DOI-only (by string)."""
    ids = ["10.1093/nar/gkz369", "PMC6198355", "31114920", "9999", "10.12688/f1000research.1", "PMC17"]
    assert ok(cli, "-pub", *ids, "-asc-ids", "-out-ids", "--plain") == (
        "9999\t\t\n31114920\t\t\n\tPMC17\t\n\tPMC6198355\t\n\t\t10.1093/NAR/GKZ369\n\t\t10.12688/F1000RESEARCH.1\n")
    assert ok(cli, "-pub", *ids, "-desc-ids", "-head-ids", "2", "-out-ids", "--plain") == (
        "\t\t10.12688/F1000RESEARCH.1\n\t\t10.1093/NAR/GKZ369\n")
    assert ok(cli, "-pub", *ids, "-tail-ids", "2", "-out-ids", "--plain") == (
        "\t\t10.12688/F1000RESEARCH.1\n\tPMC17\t\n")
    assert ok(cli, "-web", "https://b.org/", "https://a.org/", "https://b.org/", "-asc-ids", "-out-ids") == (
        "https://a.org/\nhttps://b.org/\n")


def test_pipeline_order_does_not_depend_on_argument_order(db: Path, cli: Cli) -> None:
    forward = ok(cli, "-pub-db", db, "-db", db, "-desc", "-head", "2", "-out", "--plain", "--out-part", "pmid",
                 "doi", "-count")
    backward = ok(cli, "-count", "--out-part", "pmid", "doi", "--plain", "-out", "-head", "2", "-desc", "-db", db,
                  "-pub-db", db)
    assert forward == backward == f"\t\t{DOI2}\n{PMID1}\t\t{DOI1}\nPublications : 2\n"


def test_remove_ids(db: Path, cli: Cli) -> None:
    assert ok(cli, "-pub", PMCID1, "-web", WEB2, "-remove-ids", db) == ""
    assert ok(cli, "-db-publications-size", db, "-db-webpages-size", db) == "2\n1\n"
    assert ok(cli, "-db-publications-map", db) == f"{DOI2} -> {DOI2}\n{PMID3} -> {PMID3}\n"
    code, _, err = cli("-pub", "31114920", "-remove-ids", db)
    assert code == 0
    assert err == f"pubfetch: warning: Could not remove 1 of 1 publication from database {db} (not there)\n"


# --- content ---------------------------------------------------------------------------------------------------------


def test_db_reports_entries_not_found(db: Path, cli: Cli) -> None:
    code, out, err = cli("-pub", PMID1, "31114920", "-db", db, "-count")
    assert (code, out) == (0, "Publications : 1\n")
    assert err == f"pubfetch: warning: Got 1 publication from database {db}, 1 not found\n"


def test_content_sort_limit_and_counts(db: Path, cli: Cli) -> None:
    def ids(*extra: str) -> str:
        return ok(cli, "-pub-db", db, "-db", db, *extra, "-out", "--plain", "--out-part", "pmid", "doi")

    assert ids() == f"{PMID1}\t\t{DOI1}\n\t\t{DOI2}\n{PMID3}\t\t\n"
    assert ids("-asc") == f"{PMID3}\t\t\n{PMID1}\t\t{DOI1}\n\t\t{DOI2}\n"  # PMIDs first, as PubFetcher
    assert ids("-desc") == f"\t\t{DOI2}\n{PMID1}\t\t{DOI1}\n{PMID3}\t\t\n"
    assert ids("-asc-time") == f"\t\t{DOI2}\n{PMID3}\t\t\n{PMID1}\t\t{DOI1}\n"
    assert ids("-desc-time", "-tail", "1") == f"\t\t{DOI2}\n"
    assert ids("--limit", "2") == f"{PMID1}\t\t{DOI1}\n\t\t{DOI2}\n"
    counts = ok(cli, *everything(db), "--limit", "1", "-count")
    assert counts == "Publications : 1\nWebpages     : 1\nDocs         : 1\n"
    web = ok(cli, "-web-db", db, "-db", db, "-desc", "-out", "--plain", "--format", "json")
    assert [w["startUrl"] for w in json.loads(web)["webpages"]] == [WEB1, WEB2], "http:// sorts before https://"
    web = ok(cli, "-web-db", db, "-db", db, "-desc-time", "-out", "--plain", "--format", "json")
    assert [w["startUrl"] for w in json.loads(web)["webpages"]] == [WEB2, WEB1]
    web = ok(cli, "-web-db", db, "-db", db, "-asc", "-out", "--plain", "--format", "json")
    assert [w["startUrl"] for w in json.loads(web)["webpages"]] == [WEB2, WEB1]


def test_put_and_remove_content(db: Path, tmp_path: Path, cli: Cli) -> None:
    other = tmp_path / "other.db"
    ok(cli, "-db-init", other, *everything(db), "-usable", "-put", other)
    assert ok(cli, "-db-publications-size", other, "-db-webpages-size", other, "-db-docs-size", other) == (
        "2\n1\n1\n")
    ok(cli, "-pub-db", other, "-db", other, "-oa", "-remove", other)
    assert ok(cli, "-db-publications-map", other) == f"{DOI2} -> {DOI2}\n"


def test_top_hosts_and_part_table(db: Path, tmp_path: Path, cli: Cli) -> None:
    out = ok(cli, *everything(db), "-out-top-hosts", "-count-top-hosts")
    assert out == ("link.springer.com\t2\njournals.plos.org\t1\n"
                   "github.com\t1\nexample.org\t1\n"
                   "pubfetcher.readthedocs.io\t1\n"
                   "Publications top hosts : 2\nWebpages top hosts     : 2\nDocs top hosts         : 1\n")
    assert ok(cli, *everything(db), "-out-top-hosts", "-head", "1") == (
        "link.springer.com\t2\ngithub.com\t1\npubfetcher.readthedocs.io\t1\n")
    hosts_file = tmp_path / "hosts.json"
    ok(cli, "-pub-db", db, "-db", db, "-txt-top-hosts-web", hosts_file, "--format", "json")
    assert json.loads(hosts_file.read_text(encoding="utf-8"))["webpageTopHosts"] == []
    table = ok(cli, "-pub-db", db, "-db", db, "-part-table").splitlines()
    assert table[0] == "type,pmid,pmcid,doi,title,keywords,mesh,efo,go,theAbstract,fulltext,total"
    assert table[1] == "europepmc,1,1,1,1,1,0,1,1,1,0,8"
    assert "external,1,0,1,0,0,0,0,0,0,0,2" in table
    assert table[-1] == "na,1,2,1,1,2,2,2,2,1,1,15"
    assert len(table) == 38  # a header and a row per part type (37, with the scholarly APIs' four)


def test_txt_outputs_write_their_kind_even_when_empty(db: Path, tmp_path: Path,
                                                      cli: Cli) -> None:
    pubs, webs = tmp_path / "p.json", tmp_path / "w.json"
    ok(cli, "-pub", PMID1, "-db", db, "-txt-pub", pubs, "-txt-web", webs, "--format", "json")
    assert [p["pmid"]["content"] for p in json.loads(pubs.read_text(encoding="utf-8"))["publications"]] == [PMID1]
    assert json.loads(webs.read_text(encoding="utf-8"))["webpages"] == []
    code, out, err = cli("-pub", "31114920", "-db", db, "-out", "--format", "json")
    assert code == 0 and list(json.loads(out)) == ["version", "argv"]
    assert err == f"pubfetch: warning: Got 0 publications from database {db}, 1 not found\n"


def test_html_plain_id_table(db: Path, cli: Cli) -> None:
    out = ok(cli, "-pub", PMID3, "-db", db, "-out", "--format", "html", "--plain", "--out-part", "pmid")
    assert '<table border="1">\n<tr><td><a href="https&#58;&#47;&#47;www&#46;ncbi&#46;nlm&#46;nih&#46;gov&#47;pubmed' \
           '&#47;&#63;term&#61;26037986">26037986</a></td><td></td><td></td></tr>\n</table>\n' in out


# --- the network door ---------------------------------------------------------------------------------------------------


class FakeFetcher:
    """Stands in for the fetch functions of cli/fetching: records each call and returns canned entries."""

    def __init__(self, result: dict[str, list] | None = None, text: str | None = None) -> None:
        self.calls: list[dict] = []
        self.result = result or {}
        self.text = text

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from pubfetch.cli import fetching
        from pubfetch.cli import main as main_module

        monkeypatch.setattr(fetching, "get_publications", self.publications)
        monkeypatch.setattr(fetching, "get_pages", self.pages)
        monkeypatch.setattr(fetching, "fetch_document", self.document)
        monkeypatch.setattr(fetching, "post_document", self.post)
        monkeypatch.setattr(fetching, "fetch_webpage_selector", self.selector)
        monkeypatch.setattr(main_module, "test_operation", self.test_operation)

    def _entries(self, kind: str, call: dict) -> list:
        self.calls.append(call)
        keep = call.get("keep")
        entries = [e for e in self.result.get(kind, []) if keep is None or keep(e)]
        return entries if call.get("keep_entries", True) else []

    def publications(self, sess, ids, store=None, **options):  # type: ignore[no-untyped-def]
        return self._entries("publications", {"kind": "publications", "ids": list(ids), "store": store,
                                               "sess": sess, **options})

    def pages(self, sess, kind, urls, store=None, **options):  # type: ignore[no-untyped-def]
        return self._entries(kind, {"kind": kind, "ids": list(urls), "store": store, "sess": sess, **options})

    def document(self, sess, url, javascript=False):  # type: ignore[no-untyped-def]
        self.calls.append({"op": "fetch-document", "ids": [url], "javascript": javascript})
        return self.text

    def post(self, sess, url, pairs):  # type: ignore[no-untyped-def]
        self.calls.append({"op": "post-document", "ids": [url], "extra": list(pairs)})
        return self.text

    def selector(self, sess, url, title="", content="", javascript=""):  # type: ignore[no-untyped-def]
        self.calls.append({"op": "fetch-webpage-selector", "ids": [url], "extra": (title, content, javascript)})
        return self.result["webpages"][0]

    def test_operation(self, sess, operation, target):  # type: ignore[no-untyped-def]
        self.calls.append({"op": operation, "ids": [target]})
        return self.result["webpages"][0]


def test_network_steps_go_through_the_fetch_functions(db: Path, fixture_doc: dict, monkeypatch: pytest.MonkeyPatch,
                                                      cli: Cli) -> None:
    from pubfetch.ids import PublicationIds
    from pubfetch.model import PartName
    from pubfetch.store import Store

    fetched = [Publication.from_json(p) for p in fixture_doc["publications"]]
    fake = FakeFetcher({"publications": fetched})
    fake.install(monkeypatch)
    out = ok(cli, "-pub", "31114920", PMID1, "-web", WEB1, "-db-fetch", db, "--threads", "3", "--limit", "2",
             "--progress", "--not-fetch-part", "fulltext", "efo", "go", "--timeout", "20s", "-usable", "--pre-filter",
             "-count")
    assert out == "Publications : 2\nWebpages     : 0\n"
    (pubs_call, web_call) = fake.calls
    assert pubs_call["kind"] == "publications" and (pubs_call["use_stored"], pubs_call["keep_entries"]) == (True, True)
    assert pubs_call["ids"] == [PublicationIds("31114920"), PublicationIds(PMID1)]
    assert isinstance(pubs_call["store"], Store) and pubs_call["sess"].args.timeout == 20000
    assert (pubs_call["sess"].config.run.threads, pubs_call["limit"], pubs_call["progress"]) == (3, 2, True)
    assert pubs_call["parts"] == frozenset(PartName) - {PartName.fulltext, PartName.efo, PartName.go}
    assert pubs_call["keep"] is not None
    assert web_call["kind"] == "webpages" and web_call["ids"] == [WEB1] and "parts" not in web_call
    assert web_call["sess"] is pubs_call["sess"], "one session for the whole command"


def test_fetch_steps_run_in_order_with_limits(db: Path, fixture_doc: dict, monkeypatch: pytest.MonkeyPatch,
                                              cli: Cli) -> None:
    fake = FakeFetcher({"publications": [Publication.from_json(fixture_doc["publications"][2])]})
    fake.install(monkeypatch)
    argv = ["-db-fetch-end", db, "-fetch-put", db, "-fetch", "-db", db, "-pub", PMID1, PMID3, "31114920", "-count"]
    code, out, err = cli(*argv)
    assert (code, out) == (0, "Publications : 4\n"), "2 from -db, 1 from -fetch, 1 from -fetch-put, 0 from -db-fetch-end"
    assert err == f"pubfetch: warning: Got 2 publications from database {db}, 1 not found\n"
    # -fetch: no database; -fetch-put: fetched afresh, written; -db-fetch-end: database first, nothing kept
    assert [(c["use_stored"], c["keep_entries"], c["limit"], c["store"] is None) for c in fake.calls] == [
        (False, True, 3, True), (False, True, 3, False), (True, False, 3, False)]
    fake.calls.clear()
    assert cli(*argv, "--limit", "3")[1] == "Publications : 3\n"
    assert [(c["store"] is None, c["limit"]) for c in fake.calls] == [(True, 1)]


def test_one_off_fetch_operations_go_through_the_fetch_functions(monkeypatch: pytest.MonkeyPatch,
                                                                 cli: Cli) -> None:
    fake = FakeFetcher({"webpages": [Webpage(start_url="https://a.org/", title="A", content="<b>")]},
                       text="<html>raw</html>")
    fake.install(monkeypatch)
    out = ok(cli, "-fetch-document", "https://a.org/", "-post-document", "https://a.org/form", "q", "x y",
             "-fetch-webpage-selector", "https://a.org/", "h1", "", "false", "--format", "html", "--plain",
             "-print-webpage", "https://a.org/")
    assert out == ("<html>raw</html>\n<html>raw</html>\n"
                   + format_entries(None, fake.result["webpages"], None, fmt="html", plain=True) * 2)
    ops = [(c["op"], c["ids"], c.get("extra", ())) for c in fake.calls]
    assert ops == [("fetch-document", ["https://a.org/"], ()),
                   ("post-document", ["https://a.org/form"], ["q", "x y"]),
                   ("fetch-webpage-selector", ["https://a.org/"], ("h1", "", "false")),
                   ("print-webpage", ["https://a.org/"], ())]
    assert cli("-post-document", "https://a.org/", "q")[2] == (
        "pubfetch: error: option -post-document needs a URL followed by NAME VALUE pairs; the last NAME has no "
        "VALUE\n")
    assert cli("-fetch-webpage-selector", "https://a.org/", "h1", "", "maybe")[2] == (
        "pubfetch: error: option -fetch-webpage-selector: invalid value 'maybe': expected true, false or an empty "
        "string\n")
