"""Fetching behaviour checked against PubFetcher's code over loopback servers:
a webpage's status, visited sites told apart as PubFetcher's Link does, Europe PMC's fullTextXML when the search gave
no answer, and the connections allowed per host."""

from __future__ import annotations

import json
import threading
import time

import pytest

from pubfetch.cli.main import main
from pubfetch.config import FetchConfig
from pubfetch.fetcher import fetch_many
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.part_type import PartType
from pubfetch.model.parts import VisitedSite
from pubfetch.model.publication import Publication
from pubfetch.model.webpage import Webpage
from pubfetch.net.config import http_config
from pubfetch.webfetch import fetch_pages
from support.fetchrun import run_context
from support.loopback import LoopbackServer, Reply, Request
from support.synthetic import SCHOLARLY_OFF, Article, SyntheticServices

ARGS = FetcherArgs()


def chain_config(services: SyntheticServices, **changes: object) -> FetchConfig:
    values: dict[str, object] = {"endpoints": services.endpoints(), "allow_private_addresses": True,
                                 "javascript": False, "threads": 2,
                                 "busy_retries": 0, "timeout": 5000}
    values.update(changes)
    return FetchConfig().with_changes(**SCHOLARLY_OFF, **values)


def fetch_ids(services: SyntheticServices, ids: list[str], **changes: object) -> list[Publication]:
    cfg = chain_config(services, **changes)
    with run_context(cfg) as ctx:
        return list(fetch_many(ids, config=cfg, context=ctx))


# --- "broken" only when broken and not usable -------------------------------------------------------------------------


def test_a_broken_webpage_is_reported_broken_only_when_it_is_not_usable() -> None:
    """PubFetcher's Webpage.getStatusString. pubfetch keeps no content from an error response, so a broken page
    that is usable comes from PubFetcher itself (its JavaScript fetch keeps the rendered page with the status code):
    one such entry of a PubFetcher JSON export, and a 404 fetched over loopback."""
    exported = {
        "fetchTime": 1729928071000, "retryCounter": 0, "fetchException": False,
        "startUrl": "https://seqtool.example.org/", "finalUrl": "https://seqtool.example.org/moved",
        "contentType": "text/html", "statusCode": 404, "contentTime": 1729928071100, "license": "", "language": "",
        "titleLength": 13, "contentLength": 118, "title": "SeqTool moved",
        "empty": False, "usable": True, "final": False, "broken": True,
        "content": "SeqTool aligns protein and nucleotide sequences; this page moved but its text is still served "
                   "here in full.",
    }
    moved = Webpage.from_json(exported)
    assert (moved.is_broken(), moved.is_usable(ARGS), moved.is_final(ARGS)) == (True, True, False)
    assert moved.status(ARGS) == "non-final"  # usable, so not reported as broken; broken pages are never final
    cfg = FetchConfig().with_changes(**SCHOLARLY_OFF, javascript=False, allow_private_addresses=True, busy_retries=0)
    with LoopbackServer({"/gone": Reply(404, "<html><title>404</title></html>")}) as server:
        [gone] = fetch_pages([server.url("/gone")], config=cfg)
    assert (gone.status_code, gone.is_broken(), gone.is_usable(ARGS)) == (404, True, False)
    assert gone.status(ARGS) == "broken"
    short = Webpage.from_json({**exported, "content": "moved"})
    assert short.status(ARGS) == "broken"


# --- visited sites told apart by host, path and query -----------------------------------------------------------------


@pytest.mark.parametrize(("first", "second", "same"), [
    ("https://example.org/a?x=1", "http://example.org/a?x=1", True),   # the scheme does not count
    ("https://example.org/a?x=1", "https://example.org/a?x=1#sec2", True),  # nor the fragment
    ("https://example.org/a?x=1", "https://example.org/a?x=2", False),
    ("https://example.org/a", "https://example.org/b", False),
    ("https://example.org/a", "https://example.org:8443/a", False),  # the port is part of the authority
    ("https://example.org/a", "https://Example.org/a", False),  # as written: Java's URL.getAuthority
])
def test_visited_sites_are_equal_when_host_path_and_query_are(first: str, second: str, same: bool) -> None:
    pub = Publication()
    pub.add_visited_site(VisitedSite(first, PartType.doi))
    pub.add_visited_site(VisitedSite(second, PartType.link))
    assert [s.url for s in pub.visited_sites] == ([first] if same else [first, second])


def test_a_link_back_to_the_doi_page_with_a_fragment_is_one_visited_site() -> None:
    """The DOI page names itself (with #main) as its full text; PubFetcher's Link equality makes that one site."""
    with SyntheticServices(1) as services:
        article = services.base + "/article/7"
        page = ("<html><head><title>Seven</title><meta name='citation_title' content='A study of seven things'>"
                f"<meta name='citation_fulltext_html_url' content='{article}#main'></head><body><main><p>"
                + "Seven. " * 40 + "</p></main></body></html>")
        services.extra["/doi/10.5555/SEVEN"] = Reply(302, "", headers={"Location": article})
        services.extra["/article/7"] = Reply(200, page)
        [pub] = fetch_ids(services, ["10.5555/seven"])
    assert [(s.url, s.type) for s in pub.visited_sites] == [(article, PartType.doi)]


# --- fullTextXML when the search gave no answer -----------------------------------------------------------------------


def _empty_search() -> Reply:
    body = {"version": "6.9", "hitCount": 0, "request": {}, "resultList": {"result": []}}
    return Reply(200, json.dumps(body), "application/json;charset=UTF-8")


def test_fulltext_xml_is_asked_for_a_known_pmcid_when_the_search_failed() -> None:
    """Beyond PubFetcher on purpose (docs/limits.md): it would never ask, as no search result said "full text"."""
    with SyntheticServices(1) as services:
        services.failing.add("europepmc_search")
        [pub] = fetch_ids(services, [Article(0).pmcid])
        asked = services.ids_asked.get("europepmc_fulltext")
    assert asked is not None and list(asked) == [Article(0).pmcid]
    assert pub.fulltext.type is PartType.europepmc_xml and pub.title.content == Article(0).title
    assert pub.state.fetch_exception, "the failed search still makes the entry retryable"


def test_fulltext_xml_is_asked_when_the_search_found_no_record_and_a_404_is_no_failure() -> None:
    """Beyond PubFetcher on purpose (docs/limits.md): an article not indexed by the search yet."""
    with SyntheticServices(2) as services:
        services.extra["/epmc/rest/search"] = _empty_search()  # not indexed yet
        found, missing = fetch_ids(services, [Article(0).pmcid, "PMC" + str(int(Article(0).pmcid[3:]) + 1)])
        asked = services.ids_asked["europepmc_fulltext"]
    assert sorted(asked) == sorted([Article(0).pmcid, missing.pmcid.content])
    assert found.fulltext.type is PartType.europepmc_xml
    assert missing.fulltext.is_empty()
    assert not missing.state.fetch_exception, "no full text is an answer, not a failure"


def test_fulltext_xml_keeps_pubfetchers_rule_when_the_search_answered() -> None:
    """The search found the article and said it is not open access: fullTextXML is not asked (Fetcher.java)."""
    with SyntheticServices(1) as services:
        record = services.search_record(Article(0))
        record["isOpenAccess"] = "N"
        body = {"version": "6.9", "hitCount": 1, "request": {}, "resultList": {"result": [record]}}
        services.extra["/epmc/rest/search"] = Reply(200, json.dumps(body), "application/json;charset=UTF-8")
        [pub] = fetch_ids(services, [Article(0).pmcid])
        assert services.counts["europepmc_fulltext"] == 0
    assert pub.title.type is PartType.europepmc and pub.fulltext.type is PartType.pmc_xml


# --- --connections-per-host -------------------------------------------------------------------------------------------


class Gate:
    """Holds each request until ``want`` requests are in at once (or all ``total`` have come: the last ones may have
    no company), then a little longer, so that a request the client should have held back has the time to come in
    too: the most seen at once is ``want`` exactly when the client keeps to it (the pass does not depend on timing;
    only a client letting too many through shows more)."""

    def __init__(self, want: int, total: int) -> None:
        self.want, self.total = want, total
        self.cond = threading.Condition()
        self.inside = self.arrived = self.most = 0

    def __call__(self, req: Request) -> Reply:
        with self.cond:
            self.inside += 1
            self.arrived += 1
            self.most = max(self.most, self.inside)
            self.cond.notify_all()
            # events, not a time: on a loaded machine the next request may take seconds to come in (the ceiling is
            # for a client that never sends it)
            self.cond.wait_for(lambda: self.inside >= self.want or self.arrived >= self.total, timeout=300)
        time.sleep(0.1)
        with self.cond:
            self.inside -= 1
        return Reply(200, f"<html><title>{req.path}</title><body><p>{'page text ' * 10}</p></body></html>")


@pytest.mark.parametrize("per_host", [1, 2])
def test_connections_per_host_bounds_concurrent_requests_to_one_host(capsys, tmp_path, monkeypatch,
                                                                     per_host: int) -> None:
    """The seed's one connection per host by default; more only when asked (a documented difference from
    PubFetcher's develop branch, which lets four through: docs/limits.md)."""
    monkeypatch.setenv("PUBFETCH_RATE_DB", str(tmp_path / "rates.sqlite"))
    gate = Gate(want=per_host, total=4)
    with LoopbackServer({"/p*": gate}) as server:
        urls = [server.url(f"/p{i}") for i in range(4)]
        code = main(["-web", *urls, "-fetch", "--threads", "4", "--connections-per-host", str(per_host), "-count",
                     "--quiet"])
    assert (code, capsys.readouterr().out) == (0, "Webpages     : 4\n")
    assert gate.most == per_host


def test_connections_per_host_is_a_config_setting_and_must_be_positive(tmp_path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("per_host_connections: 3\n", encoding="utf-8")
    cfg = FetchConfig.from_env({}, config_file=config)
    assert cfg.http.per_host_connections == 3 and http_config(cfg).per_host_connections == 3
    assert FetchConfig().http.per_host_connections == 1, "one connection per host by default, as the seed says"
    with pytest.raises(ValueError, match="per_host_connections must be between 1 and 1024"):
        FetchConfig().with_changes(per_host_connections=0)
