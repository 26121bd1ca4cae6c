"""Adding IDs from the command line, ID files and databases: invalid IDs reported with file:line, skipped and counted
(or, with --strict, an error); unreadable files are one-line errors with exit status 2."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pubfetch.cli.errors import InputError
from pubfetch.cli.idsource import (
    SHOWN_PER_SOURCE,
    SOURCE,
    IdSets,
    Problems,
    check_pub_file,
    iter_pub_file,
    pub_ids_from_args,
    pub_ids_from_db,
    with_source,
)
from pubfetch.engine.run_batch import init_publication
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from pubfetch.store import init_db
from support.cli import Cli

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
    assert (code, out) == (0, ("[31114920] (given as input)\n[PMC6198355] (given as input)\n"
                              "[10.1093/NAR/GKZ369] (given as input)\n"))


def test_ids_typed_by_the_user_name_pubfetch_as_their_provenance() -> None:
    assert SOURCE.startswith("pubfetch ")
    ids = with_source(PublicationIds("1", "", "10.1/A"))
    assert (ids.pmid_url, ids.pmcid_url, ids.doi_url) == (SOURCE, "", SOURCE)  # of each ID present
    assert [i.pmid for i in pub_ids_from_args(["1", "PMC2"])] == ["1", ""]


def test_a_source_whose_every_entry_is_invalid_is_an_error() -> None:
    with pytest.raises(InputError, match="^-pub: 2 publication IDs given, none valid"):
        pub_ids_from_args(["x", "PMC"])


def test_problems_are_counted_and_only_the_first_ones_shown(caplog: pytest.LogCaptureFixture) -> None:
    problems = Problems("f.txt", "line")
    problems.total = SHOWN_PER_SOURCE + 3
    with caplog.at_level(logging.INFO, logger="pubfetch.cli.idsource"):
        for n in range(SHOWN_PER_SOURCE + 2):
            problems.report(f"f.txt:{n + 1}", "bad")
        problems.summarise()
    levels = [r.levelno for r in caplog.records]
    assert levels == [logging.WARNING] * SHOWN_PER_SOURCE + [logging.INFO] * 2 + [logging.WARNING]
    assert caplog.records[-1].getMessage() == f"f.txt: {SHOWN_PER_SOURCE + 2} of {SHOWN_PER_SOURCE + 3} lines " \
                                              "invalid, 12 skipped; 2 not shown above (all are in the --log file)"


def test_a_file_is_read_lazily_and_checked_up_to_its_first_valid_line(tmp_path: Path) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("x\n31114920\n" + "y\n" * 3, encoding="utf-8")
    check_pub_file(str(ids))  # a valid line: the run may start
    lines = iter_pub_file(str(ids))
    assert next(lines).pmid == "31114920"
    bad = tmp_path / "bad.txt"
    bad.write_text("x\ny\n", encoding="utf-8")
    with pytest.raises(InputError, match="none valid"):
        check_pub_file(str(bad))


def test_an_endless_line_is_refused(tmp_path: Path) -> None:
    long = tmp_path / "long.txt"
    long.write_text("1" * 100_001, encoding="utf-8")
    with pytest.raises(InputError, match=f"^{long}:1: line longer than 100000 characters; not a publication ID file"):
        list(iter_pub_file(str(long)))


def test_ids_of_a_database(tmp_path: Path) -> None:
    store = init_db(tmp_path / "p.db")
    for pmid in ("2", "1"):
        store.put_publication(init_publication(PublicationIds(pmid), FetcherArgs()))
    store.commit()
    store.close()
    assert sorted(i.pmid for i in pub_ids_from_db(str(tmp_path / "p.db"))) == ["1", "2"]


def test_id_sets_keep_the_first_of_duplicates_in_order() -> None:
    sets = IdSets()
    sets.add("publications", [with_source(PublicationIds("1")), PublicationIds("2")], "-pub")
    sets.add("publications", [PublicationIds("1"), PublicationIds("3")], "-pub-file")
    assert [i.pmid for i in sets.publications] == ["1", "2", "3"]
    assert next(iter(sets.publications)).pmid_url == SOURCE  # the first provenance is kept
    sets.replace("webpages", ["https://b/", "https://a/", "https://b/"])
    assert list(sets.sets()[1]) == ["https://b/", "https://a/"]
