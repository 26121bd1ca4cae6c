"""The fetching operations of the command line, against loopback servers only."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from support import hostile_pages
from support.dbwait import stored_pages, wait_while_running
from support.loopback import LoopbackServer, Reply, Request
from support.synthetic import Article, SyntheticServices

REPO = Path(__file__).resolve().parents[1]

TOOL_PAGE = ("<html><head><title>SeqTool: fast alignment</title><meta name='description' content='A tool to align "
             "sequences.'></head><body><nav><a href='/'>Home</a> <a href='/docs'>Docs</a></nav><main><h1>SeqTool</h1>"
             "<p>SeqTool aligns protein and nucleotide sequences quickly, with a command line and a Python library. "
             "It is used in annotation pipelines of several genome projects.</p></main>"
             "<footer>Copyright 2024 SeqLab</footer></body></html>")


def test_web_file_db_fetch_fills_the_database_and_a_second_run_fetches_nothing(env, cli):
    routes = {"/tool": Reply(200, TOOL_PAGE), "/gone": Reply(404, "no such page", "text/plain")}
    with LoopbackServer(routes) as site:
        urls = env / "urls.txt"
        urls.write_text(f"{site.url('/tool')}\n{site.url('/gone')}\n")
        db = env / "pages.db"
        assert cli("-db-init", db)[0] == 0
        code, out, err = cli("-web-file", urls, "-db-fetch", db, "--allow-private-addresses",
                             "--no-javascript", "--quiet")
        assert code == 3  # EXIT_SOME_FAILED: the 404 page is broken
        assert "pubfetch: 2 webpages/docs: 1 final, 1 not final\n" in err
        assert site.count("/tool") == 1 and site.count("/gone") == 1
        code, out, err = cli("-web-file", urls, "-db-fetch", db, "--allow-private-addresses",
                             "--no-javascript", "--quiet")
        assert site.count("/tool") == 1  # final and within the cooldowns: not fetched again
        code, out, err = cli("-web-db", db, "-db", db, "-out", "--format", "json")
    doc = json.loads(out)
    pages = {p["startUrl"]: p for p in doc["webpages"]}
    tool = pages[site.url("/tool")]
    assert tool["title"] == "SeqTool: fast alignment"
    assert tool["content"].startswith("A tool to align sequences.\n\nSeqTool\n\nSeqTool aligns protein")
    assert "Home" not in tool["content"] and "Copyright" not in tool["content"]
    assert (tool["statusCode"], tool["final"], tool["broken"]) == (200, True, False)
    assert list(tool)[:6] == ["fetchTime", "fetchTimeHuman", "retryCounter", "fetchException", "startUrl", "finalUrl"]
    gone = pages[site.url("/gone")]
    assert (gone["statusCode"], gone["broken"], gone["content"]) == (404, True, "")


def test_pub_file_db_fetch_then_output_shows_parts_with_types(env, cli, monkeypatch):
    with SyntheticServices(3) as services:
        for name, value in vars(services.endpoints()).items():
            monkeypatch.setenv(f"PUBFETCH_{name.upper()}_URL", value)
        ids = env / "ids.tsv"
        ids.write_text("# pmid\\tpmcid\\tdoi\n" + "".join(f"{p}\t\t\n" for p in services.pmids()) + "not-an-id\n")
        db = env / "pubs.db"
        cli("-db-init", db)
        code, out, err = cli("-pub-file", ids, "-db-fetch", db, "--allow-private-addresses", "--quiet")
        assert code == 0, err  # the closed-access one is partial only in the full text no service had
        assert "pubfetch: 3 publications: 3 fetched, 0 skipped; 2 final, " in err
        assert "ids.tsv:5" in err  # the bad line is reported with its place, and skipped
        assert services.counts["europepmc_search"] == 1
        code, out, err = cli("-pub-db", db, "-db", db, "-out", "--format", "json")
    pubs = json.loads(out)["publications"]
    first = next(p for p in pubs if p["pmid"]["content"] == Article(0).pmid)
    assert first["title"]["content"] == Article(0).title
    assert first["title"]["type"] == "europepmc" and first["title"]["url"].startswith(services.base)
    assert first["fulltext"]["type"] == "europepmc_xml" and first["final"] is True
    assert first["title"]["timestampHuman"].endswith("Z")


def test_fetch_document_and_print_operations(env, cli, monkeypatch):
    with LoopbackServer({"/doc": Reply(200, "<p>plain document</p>")}) as site:
        code, out, err = cli("-fetch-document", site.url("/doc"))
        assert (code, out) == (0, "<p>plain document</p>\n")
    with SyntheticServices(1) as services:
        for name, value in vars(services.endpoints()).items():
            monkeypatch.setenv(f"PUBFETCH_{name.upper()}_URL", value)
        code, out, err = cli("-print-pubmed-xml", Article(0).pmid, "--format", "json", "--plain")
        assert code == 0, err
        assert services.counts["europepmc_search"] == 0 and services.counts["efetch_pubmed"] == 1
        pub = json.loads(out)["publications"][0]
        assert pub["title"] == Article(0).title and pub["mesh"][1]["term"] == "Software"


def test_scrape_rule_lookups(cli):
    assert cli("-scrape-site", "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.1")[1] == (
        "plos\n")
    code, out, _err = cli("-scrape-javascript", "https://example.org/")
    assert (code, out) == (0, "false\n")


def test_pub_file_into_db_fetch_end_streams_the_file(env, cli, monkeypatch):
    """With only -pub-file and -db-fetch-end, the file is read as it is fetched: a bad line (with --strict) stops the
    run after the batches before it were fetched and stored, where the whole-list pipeline would fetch nothing."""
    with SyntheticServices(6) as services:
        for name, value in vars(services.endpoints()).items():
            monkeypatch.setenv(f"PUBFETCH_{name.upper()}_URL", value)
        ids = env / "ids.txt"
        ids.write_text("".join(f"{p}\n" for p in services.pmids(4)) + "PMC-bad\n" + f"{services.pmids()[5]}\n")
        db = env / "pubs.db"
        cli("-db-init", db)
        code, out, err = cli("-pub-file", ids, "-db-fetch-end", db, "--batch-size", "2", "--strict",
                             "--allow-private-addresses", "--quiet")
        assert code == 2 and f"{ids}:5: " in err
        # the two batches of two before line 5 went through (their searches in one request or two: one search batch
        # serves both batches in flight), and nothing after it
        assert services.ids_asked["europepmc_search"] == {pmid: 1 for pmid in services.pmids(4)}
        assert services.counts["europepmc_search"] in (1, 2)
        code, out, err = cli("-db-publications-size", db)
    assert out == "4\n"


def test_ctrl_c_in_a_webpage_step_ends_with_the_pages_summary(tmp_path: Path) -> None:
    """Ctrl-C while a page is being fetched: the run says what it stored by then (as for publications), then
    that it was interrupted."""
    arrived = threading.Event()

    def held(_request: Request) -> Reply:
        arrived.set()
        return Reply(hold=True)  # never answers: the interrupt lands while this page is fetched

    db = tmp_path / "pages.db"
    with LoopbackServer({"/tool": Reply(200, TOOL_PAGE), "/held": held}) as site:
        urls = tmp_path / "urls.txt"
        urls.write_text(f"{site.url('/tool')}\n{site.url('/held')}\n")
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   PUBFETCH_RATE_DB=str(tmp_path / "rates.sqlite"))
        # two connections to the one host: with one, whichever page's thread took it first would have it, and the
        # held page, taking it first on a loaded machine, would keep the tool page from being fetched at all
        proc = subprocess.Popen([sys.executable, "-m", "pubfetch", "-web-file", str(urls), "-db-fetch-end", str(db),
                                 "--allow-private-addresses", "--no-javascript", "--timeout", "600000",
                                 "--connections-per-host", "2"],
                                env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            # the tool page itself, not just one page: the interrupt must come once it is stored
            wait_while_running(proc, lambda: arrived.is_set() and site.url("/tool") in stored_pages(db),
                               ceiling_s=300)
            assert proc.poll() is None, proc.communicate()
            assert stored_pages(db) == {site.url("/tool")}
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 130, err
    assert err.splitlines()[-2:] == ["pubfetch: 1 webpages/docs: 1 final, 0 not final",
                                     "pubfetch: error: interrupted"], err


@pytest.mark.services(4)
def test_a_page_over_its_time_limit_is_abandoned_with_one_line_and_the_command_goes_on(
        services: SyntheticServices, tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """A DOI page that would take a minute to read (a 20 MB page of tiny paragraphs) costs the command its page time
    limit: one warning, the publication counted failed, and the next publication's page read as usual."""
    # no memory cap: a page's tree, made from lxml's, reaches the default 1 GiB within seconds on a quiet machine,
    # and the time limit is what this test is about
    monkeypatch.setenv("PUBFETCH_PAGE_MEMORY_LIMIT", "0")
    hung, other = Article(1), Article(3)  # closed access: their DOI pages are where their text would be
    pages = [(hung, hostile_pages.tag_dense(20_000_000)),
             (other, f"<html><head><meta name='citation_title' content='{other.title}'></head><body><article>"
                     f"<h1>{other.title}</h1>" + "<p>The article as the publisher shows it.</p>" * 30
                     + "</article></body></html>")]
    for article, body in pages:
        services.extra[f"/doi/{article.doi.upper()}"] = Reply(302, "", "text/plain", {
            "Location": f"{services.base}/article/{article.index}"})
        services.extra[f"/article/{article.index}"] = Reply(200, body)
    db = tmp_path / "pubs.db"
    cli("-db-init", db)
    code, out, err = cli("-pub", hung.doi, other.doi, "-db-fetch", db, "--page-time-limit", "3",
                         "--allow-private-addresses", "--no-javascript")
    abandoned = [line for line in err.splitlines() if "abandoned" in line]
    assert len(abandoned) == 1 and f"page {services.base}/article/{hung.index} abandoned: " in abandoned[0], err
    assert "pubfetch: 2 publications: 2 fetched, 0 skipped; " in err and " 1 failed" in err, err
    code, out, err = cli("-pub", other.doi, "-db", db, "-out", "--format", "json")
    (read,) = json.loads(out)["publications"]
    assert "as the publisher shows it" in read["fulltext"]["content"]


def test_a_webpage_over_its_time_limit_is_abandoned_with_one_line_and_the_command_goes_on(env, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """A webpage that would take a minute to read (a 20 MB page of tiny paragraphs) costs the command its page time
    limit: one warning, the page stored as a failed fetch (not final), and the next webpage read as usual."""
    # no memory cap: a page's tree, made from lxml's, reaches the default 1 GiB within seconds on a quiet machine,
    # and the time limit is what this test is about
    monkeypatch.setenv("PUBFETCH_PAGE_MEMORY_LIMIT", "0")
    routes = {"/hung": Reply(200, hostile_pages.tag_dense(20_000_000)), "/tool": Reply(200, TOOL_PAGE)}
    with LoopbackServer(routes) as site:
        urls = env / "urls.txt"
        urls.write_text(f"{site.url('/hung')}\n{site.url('/tool')}\n")
        db = env / "pages.db"
        assert cli("-db-init", db)[0] == 0
        code, out, err = cli("-web-file", urls, "-db-fetch", db, "--page-time-limit", "3",
                             "--allow-private-addresses", "--no-javascript")
    abandoned = [line for line in err.splitlines() if "abandoned" in line]
    assert len(abandoned) == 1 and f"webpage {site.url('/hung')} abandoned: " in abandoned[0], err
    assert "page_time_limit" in abandoned[0]
    assert code == 3 and "pubfetch: 2 webpages/docs: 1 final, 1 not final\n" in err, err
    code, out, err = cli("-web-db", db, "-db", db, "-out", "--format", "json")
    pages = {p["startUrl"]: p for p in json.loads(out)["webpages"]}
    hung, tool = pages[site.url("/hung")], pages[site.url("/tool")]
    assert hung["fetchException"] and hung["content"] == "" and not hung["final"]
    assert tool["title"] == "SeqTool: fast alignment" and tool["final"]
