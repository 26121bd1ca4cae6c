"""Publication IDs as people paste them, at every entry point: the table of docs/command-line.md read row by row
(so the docs and the code cannot drift), then ``-pub``, ``-pub-file``, ``-pub-json`` and the library's ``fetch()`` and
``fetch_many()`` given pasted IDs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NamedTuple

import pytest

import pubfetch
from pubfetch import ids
from pubfetch.pasted import clean_tail, doi_in_page_url, unpasted
from support.cli import Cli
from support.synthetic import Article, SyntheticServices

DOCS = Path(__file__).resolve().parent.parent / "docs" / "command-line.md"
_MARK = "<!-- pasted-ids table: tests/test_pasted.py reads it -->"
_ROW = re.compile(r"^\| `(?P<given>[^`]+)` \| (?:(?P<kind>PMID|PMCID|DOI) `(?P<id>[^`]+)`|(?P<refused>refused.*)) \|$")


class Row(NamedTuple):
    given: str
    #: (pmid, pmcid, doi) the row is read as; None when it is refused
    expected: tuple[str, str, str] | None


def _table_rows() -> list[Row]:
    lines = DOCS.read_text(encoding="utf-8").split(_MARK, 1)[1].lstrip("\n").splitlines()
    rows: list[Row] = []
    for line in lines[2:]:  # after the header and its rule
        if not line.startswith("|"):
            break
        match = _ROW.match(line)
        assert match is not None, f"a row of the pasted-IDs table is not of the form the test reads: {line}"
        if match["refused"]:
            rows.append(Row(match["given"], None))
        else:
            found = {match["kind"]: match["id"]}
            rows.append(Row(match["given"], (found.get("PMID", ""), found.get("PMCID", ""), found.get("DOI", ""))))
    return rows


ROWS = _table_rows()
READ = [row for row in ROWS if row.expected is not None]


def test_the_table_is_there_and_covers_each_kind_of_paste() -> None:
    assert len(ROWS) >= 40
    assert {row.expected is None for row in ROWS} == {True, False}
    assert any("biorxiv" in row.given for row in READ) and any("SICI" in row.given for row in READ)


@pytest.mark.parametrize("row", ROWS, ids=[row.given for row in ROWS])
def test_each_row_of_the_docs_table(row: Row) -> None:
    if row.expected is None:
        with pytest.raises(ids.InvalidId):
            ids.classify(row.given)
    else:
        assert ids.classify(row.given).ids == row.expected
        assert pubfetch.fetcher.to_ids(row.given).ids == row.expected  # what fetch() and fetch_many() read


@pytest.mark.parametrize("row", READ, ids=[row.given for row in READ])
def test_each_read_row_in_its_id_file_column(row: Row) -> None:
    """The three-column form of an ID file (and a queued job's IDs) reads each column as pasted too."""
    pmid, pmcid, doi = row.expected  # type: ignore[misc]
    column = [pmid, pmcid, doi].index(next(i for i in (pmid, pmcid, doi) if i))
    fields = ["", "", ""]
    fields[column] = row.given
    assert ids.check_publication_ids(*fields).ids == row.expected


def test_clean_tail_keeps_the_brackets_an_id_opens() -> None:
    assert clean_tail("10.1016/0009-2614(95)00123-1") == "10.1016/0009-2614(95)00123-1"
    assert clean_tail("10.1016/0009-2614(95)00123-1)") == "10.1016/0009-2614(95)00123-1"
    assert clean_tail("10.1000/a<b>") == "10.1000/a<b>"
    assert clean_tail("10.1000/ab>.") == "10.1000/ab"
    assert clean_tail("123.,;") == "123"


def test_unpasted_leaves_bare_ids_and_links_as_they_are() -> None:
    for value in ("22351513", "PMC8071313", "10.1093/nar/gkz369", "https://example.org/a(b)", "pmc123"):
        assert unpasted(value) == value
    assert unpasted("  PMCID:  PMC 8071313 ") == "PMC8071313"


@pytest.mark.parametrize("url", [
    "https://www.nature.com/articles/s41586-020-2012-7",
    "https://www.sciencedirect.com/science/article/pii/S0092867420300623",
    "https://elifesciences.org/articles/49658",
    "https://example.org/10.1234",  # a registrant without a suffix is no DOI
    "https://journals.plos.org/plosone/article?id=12345",
])
def test_a_page_whose_address_holds_no_doi_gives_none(url: str) -> None:
    assert doi_in_page_url(url) == ""
    assert ids.ids_from_url(url) is None


def test_a_webpage_url_stays_a_url(cli: Cli) -> None:
    """-web takes a publisher's page as a web page: the DOI in its address is read for publications only."""
    url = "https://www.biorxiv.org/content/10.1101/696633v1"
    assert cli("-web", url, "-out-ids", "--plain") == (0, url + "\n", "")


# --- the entry points --------------------------------------------------------------------------------------------


def _expected_lines(rows: list[Row]) -> str:
    return "".join("\t".join(row.expected) + "\n" for row in rows)  # type: ignore[arg-type]


def test_pub_reads_every_row(cli: Cli) -> None:
    distinct = list({row.expected: row for row in READ}.values())
    code, out, err = cli("-pub", *(row.given for row in distinct), "-out-ids", "--plain")
    assert (code, err) == (0, "")
    assert out == _expected_lines(distinct)


def test_pub_refuses_a_page_without_an_id_and_says_what_to_do(cli: Cli) -> None:
    code, out, lines = cli.lines("-pub", "https://www.nature.com/articles/s41586-020-2012-7", "PMID: 22351513.",
                                 "-out-ids", "--plain")
    assert (code, out) == (0, "22351513\t\t\n")
    assert lines == [
        "pubfetch: warning: -pub: 'https://www.nature.com/articles/s41586-020-2012-7' is a URL but not a PubMed, PMC, "
        "Europe PMC or doi.org link, nor a publisher's page with a DOI in its address (a web page is fetched as a "
        "webpage: -web)",
        "pubfetch: warning: -pub: 1 of 2 publication IDs invalid, 1 skipped"]


def test_pub_file_reads_single_ids_and_columns_as_pasted(cli: Cli, tmp_path: Path) -> None:
    distinct = list({row.expected: row for row in READ}.values())
    single = tmp_path / "single.txt"
    single.write_text("".join(row.given + "\n" for row in distinct), encoding="utf-8")
    assert cli("-pub-file", single, "-out-ids", "--plain") == (0, _expected_lines(distinct), "")
    columns = tmp_path / "columns.txt"
    columns.write_text("PMID: 22351513\tPMC 8071313\tdoi: 10.1038/nature12373.\n"
                       "pmid 24073682,\t\thttps://www.biorxiv.org/content/10.1101/696633v1\n", encoding="utf-8")
    assert cli("-pub-file", columns, "-out-ids", "--plain") == (
        0, "22351513\tPMC8071313\t10.1038/NATURE12373\n24073682\t\t10.1101/696633\n", "")


def test_pub_json_entries_get_the_bare_ids(cli: Cli, tmp_path: Path) -> None:
    source = tmp_path / "pasted.json"
    source.write_text(json.dumps([
        {"pmid": "PMID: 22351513", "pmcid": "PMC 8071313", "doi": "https://doi.org/10.1038/nature12373.",
         "title": "A pasted paper"},
        {"doi": "doi: 10.1016/j.cell.2019.04.011,"},
    ]), encoding="utf-8")
    code, out, err = cli("-pub-json", source, "-out-ids", "--plain")
    assert (code, err) == (0, "")
    assert out == "22351513\tPMC8071313\t10.1038/NATURE12373\n\t\t10.1016/J.CELL.2019.04.011\n"
    code, out, err = cli("-pub-json", source, "-out", "--format", "json")
    assert code == 0, err
    first = json.loads(out)["publications"][0]
    assert (first["pmid"]["content"], first["pmcid"]["content"], first["doi"]["content"]) == (
        "22351513", "PMC8071313", "10.1038/NATURE12373")


def test_the_library_reads_pasted_ids(services: SyntheticServices) -> None:
    one, two, three = Article(0), Article(1), Article(2)
    pub = pubfetch.fetch(f"PMID: {one.pmid}.")
    assert pub.pmid.content == one.pmid and pub.title.content == one.title
    pasted = [f"pmid {two.pmid},", f"doi: {three.doi};", f"https://example.org/doi/full/{one.doi}"]
    pubs = list(pubfetch.fetch_many(pasted, errors="raise"))
    assert [p.title.content for p in pubs] == [two.title, three.title, one.title]
    assert pubs[1].doi.content == three.doi.upper() and pubs[2].doi.content == one.doi.upper()


@pytest.mark.parametrize("space", ["\u00a0", "\u2009", "\u3000", "\u200b", "\ufeff", "&nbsp;", " \u200b\u00a0"])
def test_invisible_space_around_an_id_is_cut(space: str) -> None:
    """The spaces the docs table cannot show: a no-break, thin or ideographic space, zero-width characters."""
    assert ids.classify(f"{space}10.1038/nature12373{space}").ids == ("", "", "10.1038/NATURE12373")
    assert ids.classify(f"PMID:{space}22351513{space}").ids == ("22351513", "", "")
