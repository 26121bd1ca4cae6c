"""One-off operations: ID checks and conversions, HTML escaping, database maintenance and scraping-rule look-ups,
answered on stdout exactly as PubFetcher does, before the pipeline and in PubFetcher's order."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.cli.idsource import check_url
from pubfetch.cli.oneoff import doi_registrant_as_given
from pubfetch.engine.run_batch import init_publication
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import InvalidId, PublicationIds
from pubfetch.store import open_store
from support.cli import Cli
from support.cli import usage_error as error

# --- publication ID operations -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "answer"), [
    (["-is-doi", "10.1093/nar/gkz369"], "true"),
    (["-is-doi", "https://doi.org/10.1093/nar/gkz369"], "true"),
    (["-is-doi", "10.1093"], "false"),
    (["-is-doi", "nar/gkz369"], "false"),
    (["-is-pmid", "31114920"], "true"),
    (["-is-pmid", "031114920"], "false"),
    (["-is-pmid", "PMC6198355"], "false"),
    (["-is-pmcid", "PMC6198355"], "true"),
    (["-is-pmcid", "pmc6198355"], "false"),
    (["-is-pmcid", "6198355"], "false"),
    (["-extract-pmcid", "PMC6198355"], "6198355"),
    (["-extract-pmcid", "6198355"], ""),
    (["-normalise-doi", "https://doi.org/10.1093/nar/gkz369"], "10.1093/NAR/GKZ369"),
    (["-normalise-doi", "doi:10.1000/abc-\u00e9"], "10.1000/ABC-\u00e9"),
    (["-normalise-doi", "not a doi"], "NOT A DOI"),
    (["-extract-doi-registrant", "10.1093/nar/gkz369"], "1093"),
    (["-extract-doi-registrant", "doi:10.12688/f1000research.1"], "12688"),
    (["-extract-doi-registrant", "10.1093"], ""),
    # whole strings, as Java's matches(): a trailing newline makes the ID invalid
    (["-is-pmid", "123\n"], "false"),
    (["-is-pmcid", "PMC123\n"], "false"),
    (["-extract-pmcid", "PMC123\n"], ""),
    (["-is-doi", "10.1093/nar\n"], "false"),
])
def test_id_operations_print_pubfetchers_answers(cli: Cli, argv: list[str],
                                                 answer: str) -> None:
    assert cli(*argv) == (0, answer + "\n", "")


def test_one_off_operations_run_in_pubfetchers_order(cli: Cli) -> None:
    code, out, _ = cli("-extract-doi-registrant", "10.1093/nar/gkz369", "-is-doi", "x", "-is-pmid", "1",
                       "-escape-html", "<b>")
    assert (code, out) == (0, "true\nfalse\n1093\n&lt;b&gt;\n")


def test_find_ids_and_url_ids(cli: Cli) -> None:
    code, out, _ = cli("-find-ids", "See PMID: 31114920, PMCID:PMC6198355 and doi:10.1093/nar/gkz369.")
    assert (code, out) == (0, "31114920\t\t\n\tPMC6198355\t\n\t\t10.1093/NAR/GKZ369\n")
    assert cli("-url-ids", "https://pubmed.ncbi.nlm.nih.gov/31114920/") == (0, "31114920\t\t\n", "")
    assert cli("-url-ids", "https://europepmc.org/article/PMC/PMC6198355")[1] == "\tPMC6198355\t\n"
    assert error(cli, "-url-ids", "https://example.org/x") == (
        "pubfetch: error: 'https://example.org/x' is not a PubMed, PMC, Europe PMC or doi.org link to a publication, "
        "nor a publisher's page with a DOI in its address")
    assert cli("-url-ids", "https://www.biorxiv.org/content/10.1101/696633v1")[1] == "\t\t10.1101/696633\n"


# --- miscellaneous operations -----------------------------------------------------------------------------------------


def test_escape_html(cli: Cli) -> None:
    assert cli("-escape-html", '<a href="x">Q&A</a>')[1] == '&lt;a href="x"&gt;Q&amp;A&lt;/a&gt;\n'
    assert cli("-escape-html-attribute", 'a b"<\u00e9')[1] == "a&#32;b&#34;&#60;\u00e9\n"


def test_check_publication_id(cli: Cli) -> None:
    assert cli("-check-publication-id", "31114920")[1] == "31114920\t\t\n"
    assert cli("-check-publication-id", "PMC6198355")[1] == "\tPMC6198355\t\n"
    assert cli("-check-publication-id", "doi:10.1093/nar/gkz369")[1] == "\t\t10.1093/NAR/GKZ369\n"
    assert error(cli, "-check-publication-id", "PMC123x") == (
        "pubfetch: error: unknown publication ID 'PMC123x': expected a PMID (31114920), a PMCID (PMC6198355) or a "
        "DOI (10.1093/nar/gkz369)")


def test_check_publication_ids(cli: Cli) -> None:
    assert cli("-check-publication-ids", "31114920", "", "10.1093/nar/gkz369")[1] == (
        "31114920\t\t10.1093/NAR/GKZ369\n")
    assert error(cli, "-check-publication-ids", "31114920", "6198355", "") == (
        "pubfetch: error: invalid PMCID '6198355': PMCID must start with PMC; '6198355' looks like a PMID "
        "(did you mean PMC6198355?)")
    assert error(cli, "-check-publication-ids", "", "", "") == (
        "pubfetch: error: no publication ID given (all of PMID, PMCID and DOI are empty)")


def test_check_url(cli: Cli) -> None:
    assert cli("-check-url", "https://bio.tools/pubfetcher")[1] == "https://bio.tools/pubfetcher\n"
    assert cli("-check-url", " ftp://ftp.ebi.ac.uk/pub/ ")[1] == "ftp://ftp.ebi.ac.uk/pub/\n"
    assert error(cli, "-check-url", "bio.tools/pubfetcher") == (
        "pubfetch: error: malformed URL 'bio.tools/pubfetcher': no scheme (expected an absolute URL such as "
        "https://example.org/)")
    assert error(cli, "-check-url", "mailto:someone@example.org") == (
        "pubfetch: error: malformed URL 'mailto:someone@example.org': unsupported scheme 'mailto' (expected http, "
        "https or ftp)")


def test_check_url_refuses_what_is_not_an_absolute_web_url() -> None:
    assert check_url("  https://example.org/a?b=c ") == "https://example.org/a?b=c"
    for url, problem in (("https:///path", "no host"), ("https://example.org/a b", "contains white space"),
                         ("http://[::1", "malformed URL")):
        with pytest.raises(InvalidId, match=problem):
            check_url(url)


def test_the_doi_registrant_is_given_as_written() -> None:
    assert doi_registrant_as_given("https://doi.org/10.1093/nar/gkz369") == "1093"
    assert doi_registrant_as_given("doi:10.12688/F1000Research.1") == "12688"
    assert doi_registrant_as_given("10.1093") == ""
    assert doi_registrant_as_given("") == ""


# --- database --------------------------------------------------------------------------------------------------------


def test_database_operations_answer_on_stdout(cli: Cli, tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    assert cli("-db-init", db) == (0, "", "")
    with open_store(db) as store:
        store.put_publication(init_publication(PublicationIds("31114920"), FetcherArgs()))
        store.commit()
    assert cli("-db-publications-size", db, "-db-webpages-size", db, "-db-docs-size", db) == (0, "1\n0\n0\n", "")
    assert cli("-db-publications-map", db) == (0, "31114920 -> 31114920\n", "")
    code, out, _ = cli("-db-publications-map-reverse", db)
    assert code == 0 and out.startswith("31114920 -> ") and out.count("31114920") == 2
    copy = tmp_path / "copy.db"
    code, out, _ = cli("-db-copy", db, copy)
    assert code == 0 and out.startswith("copied ")
    assert cli("-db-publications-size", copy)[1] == "1\n"
    assert cli("-db-commit", db, "-db-compact", db) == (0, "", "")


def test_a_database_that_is_not_there_is_one_line(cli: Cli, tmp_path: Path) -> None:
    line = error(cli, "-db-publications-size", tmp_path / "missing.db")
    assert line.startswith("pubfetch: error: ") and "missing.db" in line


# --- scraping rules ---------------------------------------------------------------------------------------------------


def test_rule_look_ups_print_null_when_no_rule_applies(cli: Cli) -> None:
    assert cli("-scrape-site", "https://peerj.com/articles/4375") == (0, "peerj\n", "")
    assert cli("-scrape-site", "https://unknown.example/x") == (0, "null\n", "")
    assert cli("-scrape-selector", "https://unknown.example/x", "title") == (0, "null\n", "")
    assert cli("-scrape-webpage", "https://unknown.example/x") == (0, "null\n", "")
    assert cli("-scrape-javascript", "https://unknown.example/x") == (0, "false\n", "")


def test_rule_look_ups_read_the_users_rule_files(cli: Cli, tmp_path: Path) -> None:
    journals = tmp_path / "j.yaml"
    journals.write_text("'mine\\.example/': mine\n---\nmine:\n  title: 'h1.t'\n---\n- 'mine\\.example/+js/'\n",
                        encoding="utf-8")
    webpages = tmp_path / "w.yaml"
    webpages.write_text("'tool\\.example/':\n  title: h1\n  javascript: true\n", encoding="utf-8")
    rules = ["--journalsYaml", journals, "--webpagesYaml", webpages]
    assert cli("-scrape-site", "https://mine.example/a", *rules)[1] == "mine\n"
    assert cli("-scrape-selector", "https://mine.example/a", "title", *rules)[1] == "h1.t\n"
    assert cli("-scrape-javascript", "https://mine.example/js/a", *rules)[1] == "true\n"
    assert cli("-scrape-webpage", "https://tool.example/", *rules)[1] == "title: h1\njavascript: True\n"


def test_a_bad_rule_file_is_one_line_naming_it(cli: Cli, tmp_path: Path) -> None:
    journals = tmp_path / "j.yaml"
    journals.write_text("'x\\.example/': undefined\n", encoding="utf-8")
    line = error(cli, "-scrape-site", "https://x.example/", "--journalsYaml", journals)
    assert line.startswith(f"pubfetch: error: scraping rules {journals}:1")
