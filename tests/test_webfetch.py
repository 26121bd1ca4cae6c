"""Webpages and docs through the library: rules, automatic cleaning, JavaScript re-fetch, PDFs, the overwrite rule."""

from __future__ import annotations

import logging
import threading
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from pubfetch import webfetch
from pubfetch.config import FetchConfig
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.caps import entry_bytes
from pubfetch.model.webpage import Webpage
from pubfetch.net.browser import find_chromium
from pubfetch.resources.base import Context
from pubfetch.store import init_db, open_store
from pubfetch.webfetch import fetch_pages, fetch_webpage, get_webpage
from support import hostile_pages
from support.fetchrun import run_context
from support.loopback import LoopbackServer, Reply, Request
from support.waits import within

JS_PAGE = (Path(__file__).parent / "data" / "pages" / "js" / "article.html").read_text()
LONG = "Sequence alignment tool documentation. " * 10


def context(javascript: bool = False, **args: object) -> AbstractContextManager[Context]:
    return run_context(FetchConfig().with_changes(fetching=FetcherArgs(**args), allow_private_addresses=True,
                                                  javascript=javascript, threads=2))


def test_user_webpage_rule_gives_title_content_license_language(tmp_path):
    rules = tmp_path / "webpages.yaml"
    rules.write_text('"^http://127\\\\.0\\\\.0\\\\.1:[0-9]+/tool":\n  title: "h1.name"\n  content: "div.readme"\n'
                     '  license: "span.license"\n  language: "li.lang"\n')
    page = ("<html><head><title>ignored</title></head><body><h1 class='name'>AlignIt</h1><div class='readme'>"
            f"<p>{LONG}</p></div><span class='license'>MIT</span><ul><li class='lang'>Python</li>"
            "<li class='lang'>C</li></ul><nav>menu</nav></body></html>")
    with LoopbackServer({"/tool": Reply(200, page)}) as site, context(webpages_yaml=str(rules)) as ctx:
        [result] = list(fetch_pages([site.url("/tool")], context=ctx, config=ctx.config))
    assert result.title == "AlignIt"
    assert result.content == LONG.strip()
    assert (result.license, result.language) == ("MIT", "Python, C")
    assert result.is_final(FetcherArgs())


def test_library_webpages_wait_for_the_shared_rate_limits_unless_told_not_to(tmp_path, monkeypatch):
    import sqlite3

    rates = tmp_path / "rates.sqlite"
    monkeypatch.setenv("PUBFETCH_RATE_DB", str(rates))
    config = FetchConfig().with_changes(allow_private_addresses=True, javascript=False)
    with LoopbackServer({"/tool": Reply(200, f"<html><body><main>{LONG}</main></body></html>")}) as site:
        assert fetch_webpage(site.url("/tool"), config=config, rate_limits=False).content
        assert not rates.exists()
        assert fetch_webpage(site.url("/tool"), config=config).content
    with sqlite3.connect(rates) as db:
        booked = {key for (key,) in db.execute("SELECT key FROM schedule")}
    assert booked == {"host:127.0.0.1"}  # the page's host took its permit from the file every pubfetch process shares


def test_pdf_webpage_is_read_as_pdf(corpus_dir):
    pdf = (corpus_dir / "files" / "pdf" / "peerj.1120.pdf").read_bytes()
    with LoopbackServer({"/paper": Reply(200, pdf, "application/octet-stream")}) as site, context() as ctx:
        [page] = list(fetch_pages([site.url("/paper")], context=ctx, config=ctx.config))
    assert page.status_code == 200 and page.content_type == "application/octet-stream"
    assert len(page.content) > 10_000


def test_a_worse_fetch_does_not_replace_a_good_page():
    with LoopbackServer({"/tool": Reply(503, "down", "text/plain")}) as site, context(non_final_cooldown=0) as ctx:
        # a short (non-final) page fetched long ago: the non-final cooldown allows a fetch
        old = Webpage(start_url=site.url("/tool"), final_url=site.url("/tool"), status_code=200, title="AlignIt",
                      content="Aligns sequences.")
        old.state.fetch_time = 1
        kept, fetched = get_webpage(ctx, old, site.url("/tool"))
    assert fetched and kept is old
    assert kept.content == "Aligns sequences." and kept.status_code == 200
    assert kept.state.fetch_exception and kept.state.fetch_time > 1  # the failed attempt is recorded


def test_second_fetch_within_cooldown_is_skipped(tmp_path):
    db = tmp_path / "pages.db"
    init_db(db).close()
    page = f"<html><head><title>Doc</title></head><body><main><p>{LONG}</p></main></body></html>"
    with LoopbackServer({"/doc": Reply(200, page)}) as site:
        cfg = FetchConfig().with_changes(allow_private_addresses=True, javascript=False)
        first = fetch_webpage(site.url("/doc"), db=str(db), config=cfg)
        second = fetch_webpage(site.url("/doc"), db=str(db), config=cfg)
        assert site.count("/doc") == 1
    assert first.title == second.title == "Doc"
    assert second.state.fetch_time == first.state.fetch_time


@pytest.mark.skipif(find_chromium() is None, reason="no Chromium found: apt-get install chromium")
def test_short_page_is_fetched_again_with_javascript():
    with LoopbackServer({"/article": Reply(200, JS_PAGE)}) as site:
        with context(javascript=False) as ctx:
            [plain] = list(fetch_pages([site.url("/article")], context=ctx, config=ctx.config))
        with context(javascript=True) as ctx:
            [rendered] = list(fetch_pages([site.url("/article")], context=ctx, config=ctx.config))
    assert "Results: without a browser only the shell is seen" not in plain.content
    assert rendered.title == "A JavaScript-rendered article page for testing"
    assert "Results: without a browser only the shell is seen; with one the abstract appears." in rendered.content


def test_an_interrupted_batch_keeps_what_it_stored_cuts_the_rest_and_leaves_the_context_usable(tmp_path):
    """Ctrl-C (here raised by the progress callback of the first page got) while another page never answers: the
    page got is stored at once, the held one is cut instead of waited for and not stored, and the caller's context
    serves the next call."""
    held = threading.Event()

    def hold(_request: Request) -> Reply:
        held.set()
        return Reply(hold=True)

    def interrupt(_done: int, _page: Webpage) -> None:
        assert held.wait(60)  # the other page is in flight
        raise KeyboardInterrupt

    db = tmp_path / "pages.db"
    init_db(db).close()
    with LoopbackServer({"/tool": Reply(200, f"<html><body><p>{LONG}</p></body></html>"), "/held": hold}) as site, \
            context(timeout=600_000) as ctx:
        with pytest.raises(KeyboardInterrupt):
            within(60, lambda: list(fetch_pages([site.url("/tool"), site.url("/held")], "webpages", str(db),
                                                context=ctx, config=ctx.config, progress=interrupt)))
        store = open_store(str(db))
        try:
            assert store.get_page("webpages", site.url("/tool")) is not None
            assert store.get_page("webpages", site.url("/held")) is None
        finally:
            store.close()
        [again] = list(fetch_pages([site.url("/tool")], context=ctx, config=ctx.config, use_stored=False))
    assert again.content == LONG.strip()


def test_a_page_whose_cut_fetch_ends_after_the_interrupt_is_not_counted(monkeypatch):
    """The interrupted batch waits only a while for its cut fetches before giving the context back; one that ends
    later (on a loaded machine) is still the interrupt's: not counted (the command's summary counts through
    ``progress``), as if it had ended at once."""
    held = threading.Event()
    given_back = threading.Event()  # set once the interrupt has reached the caller, the context given back
    real_get_webpage = webfetch.get_webpage

    def hold(_request: Request) -> Reply:
        held.set()
        return Reply(hold=True)

    def ends_late(ctx: Context, old: Webpage | None, url: str) -> tuple[Webpage, bool]:
        got = real_get_webpage(ctx, old, url)
        if url.endswith("/held"):
            assert given_back.wait(60)
        return got

    counted: list[str] = []

    def interrupt(_done: int, page: Webpage) -> None:
        counted.append(page.start_url)
        assert held.wait(60)  # the other page is in flight
        raise KeyboardInterrupt

    monkeypatch.setattr(webfetch, "get_webpage", ends_late)
    monkeypatch.setattr(webfetch, "_DRAIN_S", 0.0)  # the wait for the cut fetches runs out at once
    with LoopbackServer({"/tool": Reply(200, f"<html><body><p>{LONG}</p></body></html>"), "/held": hold}) as site:
        with context(timeout=600_000) as ctx:
            with pytest.raises(KeyboardInterrupt):
                within(60, lambda: list(fetch_pages([site.url("/tool"), site.url("/held")], context=ctx,
                                                    config=ctx.config, progress=interrupt)))
            given_back.set()
            # both of the context's threads free at once: the held page's fetch has ended, the context still open
            both = threading.Barrier(2)
            within(60, lambda: ctx.map(lambda _: both.wait(60), [0, 1]))
            assert site.count("/held") == 1
    assert counted == [site.url("/tool")]


def test_a_webpage_over_its_page_time_limit_is_abandoned_counted_failed_and_the_next_is_read(
        caplog: pytest.LogCaptureFixture) -> None:
    """A webpage that would take a minute to read (20 MB of tiny paragraphs) costs the run its page time limit: one
    warning naming the setting, nothing taken from it, its fetch counted as failed; the next webpage is read."""
    routes = {"/hung": Reply(200, hostile_pages.tag_dense(20_000_000)),
              "/doc": Reply(200, f"<html><head><title>Doc</title></head><body><main><p>{LONG}</p></main></body></html>")}
    caplog.set_level(logging.WARNING, logger="pubfetch")
    config = FetchConfig().with_changes(allow_private_addresses=True, javascript=False, threads=1, page_time_limit=3.0,
                                        page_memory_limit=0)
    with LoopbackServer(routes) as site:
        hung, doc = fetch_pages([site.url("/hung"), site.url("/doc")], config=config)
    assert hung.state.fetch_exception and (hung.title, hung.content) == ("", "") and hung.status_code == 200
    assert not hung.is_final(FetcherArgs())
    assert not doc.state.fetch_exception and (doc.title, doc.content) == ("Doc", LONG.strip())
    assert [r.getMessage() for r in caplog.records if "abandoned" in r.getMessage()] == [
        f"webpage {site.url('/hung')} abandoned: not read within the page time limit of 3 s (page_time_limit; raise "
        "it to give pages longer); nothing taken from it, a later fetch retries it"]


def test_a_page_over_the_entry_size_cap_is_stored_with_its_content_cut_to_it(tmp_path, caplog):
    paragraph = "Sequence alignment tool documentation, with many details on every option of the tool. "
    page = f"<html><head><title>AlignIt</title></head><body><main><p>{paragraph * 20_000}</p></main></body></html>"
    db = str(tmp_path / "pages.db")
    init_db(db)
    config = FetchConfig().with_changes(allow_private_addresses=True, javascript=False, threads=2,
                                        max_entry_bytes=1024 * 1024)
    with LoopbackServer({"/tool": Reply(200, page)}) as site, run_context(config) as ctx, \
            caplog.at_level(logging.WARNING, logger="pubfetch"):
        [got] = list(fetch_pages([site.url("/tool")], db=db, context=ctx, config=config))
    with open_store(db) as store:
        stored = store.get_webpage(site.url("/tool"))
    assert stored is not None and stored.content == got.content and stored.title == "AlignIt"
    assert len(got.content) < 1024 * 1024 < len(paragraph * 20_000)
    assert got.content.startswith(paragraph)
    assert entry_bytes(stored) <= 1024 * 1024
    [line] = [r.getMessage() for r in caplog.records if "max_entry_bytes" in r.getMessage()]
    assert line.startswith(f"{site.url('/tool')}: entry of ") and "characters of content" in line


@pytest.mark.parametrize(("rules", "promised"), [({}, True), ({"retry_limit": 0, "fetch_exception_cooldown": -1}, False)])
def test_a_failed_webpage_s_line_says_what_its_entry_s_retry_rules_make_of_the_mark(caplog, rules, promised):
    """The line of a webpage's failed request promises a later fetch only when the entry's retry rules let one come
    (no retry left under retryLimit and a negative fetchExceptionCooldown: none does), as a publication's says."""
    from pubfetch.console import LATER_FETCH, LATER_RUN, NEVER_LATER

    caplog.set_level(logging.INFO, logger="pubfetch")
    with LoopbackServer({"/tool": Reply(503, "down", "text/plain")}) as site, context(**rules) as ctx:
        kept, fetched = get_webpage(ctx, None, site.url("/tool"))
    assert fetched and kept.state.fetch_exception
    assert kept.state.retried_later(ctx.args) is promised
    [line] = [r.getMessage() for r in caplog.records if r.name == "pubfetch.net.client" and "GET /tool" in
              r.getMessage()]
    assert line.endswith((LATER_FETCH, LATER_RUN) if promised else (NEVER_LATER,)), line
