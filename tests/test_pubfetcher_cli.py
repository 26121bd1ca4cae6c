"""Command-line answers checked against PubFetcher's code: -scrape-selector for every
ScrapeSiteKey, ``null`` for a look-up that finds nothing, ``--quick`` with and without a value, and the ID order."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pubfetch.cli.options import BY_NAME
from pubfetch.cli.parser import parse_args
from pubfetch.cli.spec import SCRAPE_SELECTOR_KEYS
from pubfetch.config import FetchConfig
from support.loopback import LoopbackServer, Reply

#: A user rule file (--journalsYaml) giving every journal key for one site, so the answers do not depend on the
#: shipped rules.
JOURNALS_YAML = """\
'example\\.org/+article/': testsite
'example\\.org/+bare/': baresite
---
testsite:
  pmid: 'meta[name=citation_pmid]'
  pmcid: 'meta[name=citation_pmcid]'
  doi: 'meta[name=citation_doi]'
  title: 'h1.title'
  subtitle: 'h2.subtitle'
  keywords: 'ul.kwd li'
  keywords_split: 'p.keywords'
  abstract: 'div.abstract p'
  fulltext: 'div.body p'
  fulltext_src: '/article/'
  fulltext_dst: '/full/'
  fulltext_a: 'a.full-text'
  pdf_src: '/article/([0-9]+)$'
  pdf_dst: '/pdf/$1.pdf'
  pdf_a: 'a.pdf'
  corresp_author_names: '.corresp .name'
  corresp_author_emails: '.corresp a.email'
  wait_until: 'div.body'
baresite:
  title: 'h1'
---
---
"""

EXPECTED = {
    "pmid": "meta[name=citation_pmid]", "pmcid": "meta[name=citation_pmcid]", "doi": "meta[name=citation_doi]",
    "title": "h1.title", "subtitle": "h2.subtitle", "keywords": "ul.kwd li", "keywords_split": "p.keywords",
    "theAbstract": "div.abstract p", "fulltext": "div.body p", "fulltext_src": "/article/", "fulltext_dst": "/full/",
    "fulltext_a": "a.full-text", "pdf_src": "/article/([0-9]+)$", "pdf_dst": "/pdf/$1.pdf", "pdf_a": "a.pdf",
    "corresp_author_names": ".corresp .name", "corresp_author_emails": ".corresp a.email", "wait_until": "div.body",
}


@pytest.fixture
def journals(tmp_path: Path) -> Path:
    path = tmp_path / "journals.yaml"
    path.write_text(JOURNALS_YAML, encoding="utf-8")
    return path


# --- -scrape-selector for every key -----------------------------------------------------------------------------------


def test_expected_values_cover_every_scrape_site_key() -> None:
    assert set(EXPECTED) == set(SCRAPE_SELECTOR_KEYS) - {"abstract"}


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_scrape_selector_prints_the_rule_value_of_every_key(cli, journals: Path, key: str) -> None:
    """PubFetcher's Scrape.getSelector: the value as written, also for the URL rewrites and wait_until."""
    code, out, err = cli("-scrape-selector", "https://example.org/article/12", key, "--journalsYaml", journals)
    assert (code, out, err) == (0, EXPECTED[key] + "\n", "")


def test_scrape_selector_accepts_the_rule_file_name_abstract_too(cli, journals: Path) -> None:
    """pubfetch's own help said ``abstract``; it stays accepted beside PubFetcher's ``theAbstract`` (a documented
    addition: docs/limits.md)."""
    assert cli("-scrape-selector", "https://example.org/article/12", "abstract", "--journalsYaml",
               journals) == (0, "div.abstract p\n", "")


def test_scrape_selector_with_an_unknown_key_is_one_clean_line_listing_the_keys(cli, journals: Path) -> None:
    code, out, err = cli("-db-init", journals.parent / "never.db", "-scrape-selector",
                         "https://example.org/article/12", "Abstract", "--journalsYaml", journals)
    assert (code, out) == (2, "")
    assert err == ("pubfetch: error: option -scrape-selector: unknown KEY 'Abstract': expected one of pmid, pmcid, "
                   "doi, title, subtitle, keywords, keywords_split, theAbstract, fulltext, fulltext_src, fulltext_dst, "
                   "fulltext_a, pdf_src, pdf_dst, pdf_a, corresp_author_names, corresp_author_emails, wait_until\n")
    assert not (journals.parent / "never.db").exists(), "the command line is checked before anything runs"


# --- null when nothing matches ----------------------------------------------------------------------------------------


def test_look_ups_that_find_nothing_print_null(cli, journals: Path) -> None:
    """System.out.println(null) in PubFetcher: no site for the URL, a site without the key, no webpage rule."""
    code, out, err = cli("-scrape-site", "https://nowhere.example.net/a", "-scrape-selector",
                         "https://nowhere.example.net/a", "title", "-scrape-webpage", "https://nowhere.example.net/a",
                         "--journalsYaml", journals)
    assert (code, out, err) == (0, "null\nnull\nnull\n", "")
    code, out, _ = cli("-scrape-site", "https://example.org/bare/1", "-scrape-selector",
                       "https://example.org/bare/1", "pdf_src", "--journalsYaml", journals)
    assert (code, out) == (0, "baresite\nnull\n")


# --- --quick with or without a value ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("words", "quick"), [
    ([], False), (["--quick"], True), (["--quick", "true"], True), (["--quick", "false"], False),
    (["--quick=false"], False), (["--quick", "-is-pmcid", "PMC2"], True),
])
def test_quick_is_a_flag_or_takes_true_or_false(words: list[str], quick: bool) -> None:
    """PubFetcher's form (--quick true) and, as pubfetch's documented addition, the bare flag (docs/limits.md)."""
    assert FetchConfig().with_changes(**parse_args(["-is-pmid", "1", *words]).fetcher).fetching.quick is quick


def test_quick_with_a_bad_value_is_a_clean_error(cli) -> None:
    code, out, err = cli("-is-pmid", "1", "--quick", "maybe")
    assert (code, out) == (2, "")
    assert err.startswith("pubfetch: error: option --quick: invalid value 'maybe'") and err.count("\n") == 1


def test_quick_false_retries_a_timeout_and_quick_true_does_not(cli, tmp_path: Path, monkeypatch) -> None:
    """The value reaches the fetcher and does what ``--help`` says of it: a page that times out is asked twice
    without --quick, once with it."""
    assert "Do not retry a request after it timed out" in BY_NAME["--quick"].help
    monkeypatch.setenv("PUBFETCH_RATE_DB", str(tmp_path / "rates.sqlite"))
    # the answer never comes (the server holds the connection until the client gave up and closed it), so however
    # late a loaded machine runs the client's timer it still sees a timeout, and nothing is written to a closed socket
    with LoopbackServer({"/slow": Reply(hold=True)}) as server:
        for words, asked in ((["--quick", "false"], 2), (["--quick", "true"], 1), (["--quick"], 1)):
            before = server.count("/slow")
            code, _out, err = cli("-fetch-document", server.url("/slow"), "--timeout", "150", *words)
            assert code == 2 and "TIMEOUT" in err
            assert server.count("/slow") - before == asked, words
        while server.active:
            time.sleep(0.05)


# --- ID order ---------------------------------------------------------------------------------------------------------


def test_asc_ids_and_desc_ids_follow_publication_ids_compare_to(cli) -> None:
    """PMIDs first (by number, so 9 before 10), then PMCID-only (by number), then DOI-only (as strings, so registrant
    10.1000 sorts before 10.999)."""
    given = ["10.999/b", "PMC20", "10", "10.1000/a", "PMC3", "9", "PMC7 ", "10.1000/a"]
    code, out, _ = cli("-pub", *given, "-asc-ids", "-out-ids", "--plain")
    assert code == 0
    assert out.splitlines() == ["9\t\t", "10\t\t", "\tPMC3\t", "\tPMC7\t", "\tPMC20\t", "\t\t10.1000/A", "\t\t10.999/B"]
    code, out, _ = cli("-pub", *given, "-desc-ids", "-out-ids", "--plain")
    assert out.splitlines() == ["\t\t10.999/B", "\t\t10.1000/A", "\tPMC20\t", "\tPMC7\t", "\tPMC3\t", "10\t\t", "9\t\t"]


# --- what text output says of PubFetcher's placeholder values (docs/limits.md) ------------------------------------------


def test_text_says_unknown_and_given_as_input_where_json_keeps_pubfetchers_values(cli, tmp_path: Path) -> None:
    """PubFetcher writes an unknown date as 1969-12-31, a never-set time as 1970-01-01 and its name and version as the
    URL of an ID given as input; pubfetch's text says what they are, its JSON keeps them."""
    import json

    from pubfetch.cli.idsource import SOURCE
    from pubfetch.model import PartType, Publication

    pub = Publication()
    pub.doi.set("10.1000/X", PartType.external, SOURCE)
    pub.title.set("A title", PartType.europepmc, "https://example.org/")
    source = tmp_path / "pub.json"
    source.write_text(json.dumps({"publications": [pub.to_json()]}), encoding="utf-8")
    code, out, _ = cli("-pub-json", source, "-out", "--format", "text")
    assert code == 0
    assert "PUB. DATE: unknown (-1)\n" in out and "CITATIONS: -1 (unknown (-1))\n" in out
    assert "DOI: 10.1000/X\n    type: Externally supplied\n    url: given as input\n" in out
    assert "PMID: \n    type: NA\n    url: \n    timestamp: unknown (0)\n" in out
    assert "1969-12-31" not in out and "1970-01-01" not in out and SOURCE not in out
    code, out, _ = cli("-pub-json", source, "-out", "--format", "json")
    [stored] = json.loads(out)["publications"]
    assert (stored["pubDateHuman"], stored["doi"]["url"], stored["pmid"]["timestampHuman"]) == (
        "1969-12-31", SOURCE, "1970-01-01T00:00:00Z")


# --- the rule files of a config file ----------------------------------------------------------------------------------


def test_scrape_look_ups_use_the_journals_yaml_of_the_config_file(cli, tmp_path: Path) -> None:
    """A config file's ``fetching: {journalsYaml: ...}`` is the session's, as ``--journalsYaml`` is: the look-ups
    answer with its rule for a page of a loopback server, which no shipped rule knows."""
    with LoopbackServer({"/paper/7": Reply(body=b"<html></html>")}) as server:
        page = server.url("/paper/7")
        rules = tmp_path / "own-journals.yaml"
        rules.write_text("'127\\.0\\.0\\.1:[0-9]+/paper/': loopsite\n---\nloopsite:\n  title: 'h1.own'\n---\n---\n",
                         encoding="utf-8")
        config = tmp_path / "config.yaml"
        config.write_text(f"fetching:\n  journalsYaml: {rules}\n", encoding="utf-8")
        code, out, err = cli("-scrape-site", page, "-scrape-selector", page, "title", "--config", config)
    assert (code, out, err) == (0, "loopsite\nh1.own\n", "")
    assert cli("-scrape-site", page) == (0, "null\n", ""), "without the config file no rule knows the page"
