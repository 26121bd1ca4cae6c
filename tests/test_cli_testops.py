"""The -test-* operations: rule test entries offline (--replay with ../shared/corpus) and live (loopback pages),
resource tests over synthetic services, and the operations that are not offered."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import hostile_pages
from support.loopback import LoopbackServer, Reply
from support.synthetic import SyntheticServices


def live_site_test(env: Path, cli, page: str, rule: str, entry: str, javascript: bool = False
                   ) -> tuple[int, str, str, str, int]:
    """``-test-site-regex loopsite`` live, with a user rule file whose site ``loopsite`` covers a loopback page.

    ``rule``: the site's selector lines; ``entry``: the lines of its one test entry after the URL. Returns the exit
    status, stdout, stderr, the page URL and how often the page was fetched."""
    with LoopbackServer({"/article/1": Reply(200, page)}) as server:
        url = server.url("/article/1")
        regex = "'^http://127\\.0\\.0\\.1:[0-9]+/article/'"
        javascript_section = f"---\n- {regex}\n" if javascript else ""
        user = env / "journals.yaml"
        user.write_text(f"{regex}: loopsite\n---\nloopsite:\n{rule}  tests:\n    - url: '{url}'\n{entry}"
                        f"{javascript_section}")
        code, out, err = cli("-test-site-regex", "loopsite", "--journalsYaml", user,
                             "--allow-private-addresses", "--no-javascript")
        return code, out, err, url, server.count("/article/1")


def test_test_site_regex_offline_on_the_corpus(env, cli, corpus_dir: Path) -> None:
    code, out, err = cli("-test-site-regex", "^(cambridge|lww)$", "--replay", corpus_dir)
    assert code == 0, err
    assert out.splitlines() == [
        "# journal sites matching ^(cambridge|lww)$",
        "cambridge",
        "  PASS     https://www.cambridge.org/core/journals/global-sustainability/article/wellbeing-cost-of-carbon/TOKEN",
        "lww",
        "  PASS     https://journals.lww.com/inpj/fulltext/2009/18010/event_related_potential__an_overview.15.aspx",
        "2 tests: 2 pass",
    ]


def test_a_failing_entry_says_what_differed_and_exits_3(env, cli, corpus_dir: Path) -> None:
    user = env / "journals.yaml"
    user.write_text("{}\n---\ncambridge:\n  title: '#maincontent hgroup h1'\n  abstract: '.no-such-abstract'\n"
                    "  tests:\n    - url: 'https://www.cambridge.org/core/journals/global-sustainability/article/"
                    "wellbeing-cost-of-carbon/TOKEN'\n      title: 'Wellbeing cost of carbon'\n      abstract: 2171\n")
    code, out, err = cli("-test-site-regex", "^cambridge$", "--replay", corpus_dir, "--journalsYaml", user)
    assert code == 3  # EXIT_SOME_FAILED
    assert "  FAIL     https://www.cambridge.org/core/journals/global-sustainability/article/" in out
    assert "           abstract: expected 2171 characters (±10%), got 0" in out
    assert out.endswith("1 tests: 1 fail\n")


def test_test_webpage_offline(env, cli, corpus_dir: Path) -> None:
    code, out, err = cli("-test-webpage-regex", "zenodo", "--replay", corpus_dir)
    assert code == 0, err
    assert "  PASS     https://zenodo.org/records/1196821" in out
    assert out.endswith("1 tests: 1 pass\n")


def test_test_site_live_fetches_each_entry(env, cli) -> None:
    page = ("<html><head><title>x</title></head><body><h1 class='t'>A title</h1><div class='abs'><p>"
            + "An abstract. " * 20 + "</p></div></body></html>")
    code, out, err, url, fetched = live_site_test(env, cli, page, "  title: 'h1.t'\n  abstract: '.abs'\n",
                                                  "      title: 'A title'\n      abstract: 259\n      fulltext: 0\n")
    assert code == 0, out + err
    assert f"  PASS     {url}" in out
    assert fetched == 1


def test_bad_regex_and_missing_replay_directory_are_usage_errors(env, cli) -> None:
    assert cli("-test-site-regex", "(", "--replay", env)[0] == 2
    code, out, err = cli("-test-site-regex", "(", "--replay", env / "none")
    assert code == 2
    assert "--replay" in err and "no manifest.jsonl or pages.jsonl" in err


def test_resource_test_prints_a_row_per_id(env, cli, monkeypatch) -> None:
    with SyntheticServices(2) as services:
        for name, value in vars(services.endpoints()).items():
            monkeypatch.setenv(f"PUBFETCH_{name.upper()}_URL", value)
        pmids = services.pmids()
        code, out, err = cli("-test-europepmc", "--test-ids", *pmids, "--allow-private-addresses",
                             "--no-javascript", "--quiet")
    lines = out.splitlines()
    assert lines[0].startswith("# test-europepmc: what europepmc gives for each test ID")
    assert lines[1].split("\t") == ["id", "status", "pmid", "pmcid", "doi", "title", "keywords", "mesh", "efo", "go",
                                    "abstract", "fulltext", "types"]
    rows = [line.split("\t") for line in lines[2:]]
    assert [r[0] for r in rows] == pmids
    for row in rows:
        assert row[1] == "ok"
        assert row[5] == str(len(services.article(pmid=row[0]).title))
        assert "europepmc" in row[-1]


@pytest.mark.parametrize("op", ["-test-europepmc-html", "-test-pmc-html"])
def test_html_resource_tests_are_not_offered(env, cli, op: str) -> None:
    code, out, err = cli(op)
    assert code == 2
    assert f"{op} is not offered" in err


def test_test_site_live_falls_back_to_a_plain_fetch_without_a_browser(env, cli) -> None:
    page = "<html><body><h1 class='t'>Rendered title</h1></body></html>"
    code, out, err, url, _ = live_site_test(env, cli, page, "  title: 'h1.t'\n", "      title: 'Rendered title'\n",
                                            javascript=True)
    assert code == 0, out + err
    assert f"  PASS     {url}" in out
    assert "JavaScript" in err  # the browser step was refused (switched off), and said so


def test_a_broken_replay_manifest_is_a_usage_error_naming_the_line(env, cli) -> None:
    (env / "pages.jsonl").write_text('{"resource": "publisher_page", "url": "https://a.org/1", "body": "x.html"}\n{oops\n')
    code, out, err = cli("-test-site", "--replay", env)
    assert code == 2
    assert f"{env / 'pages.jsonl'}:2: not JSON" in err


def test_an_entry_expecting_nothing_shows_what_the_rule_got(env, cli) -> None:
    page = "<html><body><h1 class='t'>Only a title</h1></body></html>"
    code, out, err, _, _ = live_site_test(env, cli, page, "  title: 'h1.t'\n", "      untested: true\n")
    assert code == 0, err
    assert ("           nothing expected yet; got: title 'Only a title', doi '', abstract 0, fulltext 0, keywords 0"
            in out)


def test_test_site_over_a_page_over_its_time_limit_fails_that_entry_and_goes_on(env, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test entry's page that would take a minute to read (20 MB of tiny paragraphs) is abandoned at the page time
    limit with one warning and fails its test; the next entry's page is read and passes."""
    # no memory cap: a page's tree, made from lxml's, reaches the default 1 GiB within seconds on a quiet machine,
    # and the time limit is what this test is about
    monkeypatch.setenv("PUBFETCH_PAGE_MEMORY_LIMIT", "0")
    page = "<html><body><h1 class='t'>A title</h1></body></html>"
    routes = {"/article/1": Reply(200, hostile_pages.tag_dense(20_000_000)), "/article/2": Reply(200, page)}
    with LoopbackServer(routes) as server:
        hung, good = server.url("/article/1"), server.url("/article/2")
        user = env / "journals.yaml"
        user.write_text("'^http://127\\.0\\.0\\.1:[0-9]+/article/': loopsite\n---\nloopsite:\n  title: 'h1.t'\n"
                        f"  tests:\n    - url: '{hung}'\n      title: 'A title'\n"
                        f"    - url: '{good}'\n      title: 'A title'\n")
        code, out, err = cli("-test-site-regex", "loopsite", "--journalsYaml", user, "--page-time-limit", "3",
                             "--allow-private-addresses", "--no-javascript")
    assert code == 3, out + err
    why = "not read within the page time limit of 3 s (page_time_limit; raise it to give pages longer)"
    assert out.splitlines()[1:] == ["loopsite", f"  FAIL     {hung}", f"           page abandoned: {why}",
                                    f"  PASS     {good}", "2 tests: 1 fail, 1 pass"]
    assert [line for line in err.splitlines() if "abandoned" in line] == [
        f"pubfetch: warning: page {hung} abandoned: {why}; its test failed"], err
