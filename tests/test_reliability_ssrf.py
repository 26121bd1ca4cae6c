"""Where pubfetch may go: links and redirects taken from pages, rules and Unpaywall never reach loopback, private,
link-local or cloud-metadata addresses unless ``allow_private_addresses`` (``--allow-private-addresses``) says so; the
configured endpoints stay trusted; and no API key reaches a log, the database, the JSON output or a WARC file.

The trusted endpoints run on 127.0.0.1. The publisher's page must be reachable as an *untrusted* URL while private
addresses are refused, so it lives at ``http://publisher.example/`` and is reached through an HTTP proxy -- the same
loopback server, which therefore sees every request the client sends, forbidden targets included. The address check
is told that ``publisher.example`` does not resolve (no DNS query leaves the machine), as an unknown host would not.
(ftp links are checked on the client alone: ftp does not go through the proxy, so the allowed control run would
really connect.)
"""

from __future__ import annotations

import json
import logging
import os
import socket
from pathlib import Path

import pytest

from pubfetch.cli.main import main
from pubfetch.config import Endpoints, FetchConfig
from pubfetch.fetcher import fetch_many
from pubfetch.net import addresses
from pubfetch.net.client import HttpClient
from pubfetch.net.config import HttpConfig
from pubfetch.net.outcome import OutcomeKind
from pubfetch.store import init_db
from support.fetchrun import run_context
from support.loopback import LoopbackServer, Reply, Request
from support.synthetic import SCHOLARLY_OFF, SyntheticServices

PUBLISHER = "http://publisher.example"
METADATA = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"
HOSTILE = ("169.254.169.254", "10.0.0.1", "::ffff:169.254.169.254", "localhost", "/internal")
RULES = """'^https?://publisher\\.example/': evilpub
---
evilpub:
  title: 'h1'
  pdf_a: 'a.pdf-link'
"""


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every network address a socket of this process tries to connect to (local Unix sockets, such as the one that
    starts the page and PDF worker processes, are not the network)."""
    attempts: list[object] = []
    original = socket.socket.connect

    def record(self: socket.socket, address: object) -> None:
        if self.family != socket.AF_UNIX:
            attempts.append(address)
        return original(self, address)

    monkeypatch.setattr(socket.socket, "connect", record)
    return attempts


@pytest.fixture
def unresolvable_publisher(monkeypatch: pytest.MonkeyPatch) -> None:
    """publisher.example does not resolve (as an unknown host would not), without asking a DNS server."""
    real = addresses._resolve
    monkeypatch.setattr(addresses, "_resolve", lambda host: () if host.endswith(".example") else real(host))


# ---------------------------------------------------------------------------------------------- the client's check

FORBIDDEN_URLS = [
    (METADATA, "cloud metadata address"),
    ("http://10.0.0.1/admin", "private address"),
    ("http://192.168.1.1/", "private address"),
    ("http://172.16.0.1/", "private address"),
    ("http://100.64.0.1/", "shared (carrier-grade NAT) address"),
    ("http://100.100.100.200/latest/meta-data/", "cloud metadata address"),
    ("http://169.254.170.2/v2/credentials", "cloud metadata address"),
    ("http://169.254.1.1/", "link-local address"),
    ("http://metadata.google.internal/computeMetadata/v1/", "cloud metadata host name"),
    ("http://2852039166/", "cloud metadata address (169.254.169.254)"),  # decimal
    ("http://0xa9fea9fe/", "cloud metadata address (169.254.169.254)"),  # hexadecimal
    ("http://0251.0376.0251.0376/", "cloud metadata address (169.254.169.254)"),  # octal
    ("http://[::ffff:169.254.169.254]/", "cloud metadata address"),  # IPv4-mapped IPv6
    ("http://[fd00:ec2::254]/", "cloud metadata address"),
    ("http://169.254.169.254.:80/", "cloud metadata address"),  # trailing dot
    ("http://user:password@10.0.0.1/", "private address"),
    ("http://127.0.0.1:9/", "loopback address"),
    ("http://127.1/", "loopback address (127.0.0.1)"),
    ("http://localhost:9/", "loopback address"),
    ("http://sub.localhost/", "loopback address"),
    ("http://[::1]/", "loopback address"),
    ("http://0.0.0.0/", "unspecified address"),
    ("http://224.0.0.1/", "multicast address"),
    ("ftp://10.0.0.1/paper.pdf", "private address"),
]
BAD_SCHEMES = ["file:///etc/passwd", "gopher://127.0.0.1:70/_", "dict://127.0.0.1:11211/stat", "javascript:alert(1)",
               "data:text/html,<p>hi</p>", "jar:http://10.0.0.1/x.jar!/", "ldap://10.0.0.1/"]


@pytest.mark.parametrize(("url", "reason"), FORBIDDEN_URLS)
def test_untrusted_urls_to_internal_addresses_are_refused_before_any_connection(url, reason, connects):
    result = HttpClient(HttpConfig(timeout=500)).get(url, untrusted=True, publication=True)
    assert result.kind is OutcomeKind.FORBIDDEN_ADDRESS
    assert result.message.endswith(f"is a {reason}")
    assert connects == []
    assert not result.fetch_exception  # permanent: retrying cannot change it


@pytest.mark.parametrize("url", BAD_SCHEMES)
def test_only_http_and_https_are_fetched(url, connects):
    result = HttpClient(HttpConfig(timeout=500)).get(url, untrusted=True, publication=True)
    assert result.kind in (OutcomeKind.BAD_SCHEME, OutcomeKind.BAD_URL)
    assert "only http and https URLs are fetched" in result.message
    assert connects == []


def test_ftp_only_for_pdfs_and_configured_endpoints_stay_trusted(connects):
    with LoopbackServer({"/api": Reply(200, "{}", "application/json")}) as server:
        client = HttpClient(HttpConfig(timeout=60_000))  # the loopback answer may be slow on a loaded machine
        assert client.get("ftp://10.0.0.1/page.html", accept_pdf=False).kind is OutcomeKind.BAD_SCHEME
        assert client.get(server.url("/api")).ok  # a trusted (configured) endpoint on loopback
        assert client.get(server.url("/api"), untrusted=True).kind is OutcomeKind.FORBIDDEN_ADDRESS
        assert server.count("/api") == 1
    assert [a[0] for a in connects] == ["127.0.0.1"]


# ---------------------------------------------------------------------------------------------- through a fetch

PAGE = f"""<!DOCTYPE html><html><head><title>A hostile article</title>
<meta name="citation_title" content="Hostile links in an article page">
<meta name="citation_pdf_url" content="{METADATA}">
<meta name="citation_fulltext_html_url" content="http://10.0.0.1/admin/fulltext">
</head><body><h1>Hostile links in an article page</h1>
<a class="pdf-link" href="http://10.0.0.1/rule-link.pdf">PDF</a></body></html>"""


def hostile_services(proxy_port: list[int]) -> dict:
    """Routes of the loopback server: trusted endpoints, and (reached as a proxy) the publisher's pages."""

    def doi(req: Request) -> Reply:
        target = {"/doi/10.5555/ssrf.1": f"{PUBLISHER}/article/1", "/doi/10.5555/ssrf.2": f"{PUBLISHER}/article/2",
                  "/doi/10.5555/ssrf.3": METADATA}.get(req.path.lower())  # DOIs arrive upper-cased
        return Reply(302, "", headers={"Location": target}) if target else Reply(404, "no DOI", "text/plain")

    def unpaywall(req: Request) -> Reply:
        if req.path.lower() == "/unpaywall/10.5555/ssrf.3":  # a trusted endpoint redirecting to another host
            return Reply(302, "", headers={"Location": METADATA})
        record = {"doi": req.path.removeprefix("/unpaywall/"), "is_oa": True, "title": None,
                  "best_oa_location": {"url_for_pdf": "http://10.0.0.1/unpaywall.pdf"},
                  "oa_locations": [{"url": "http://[::ffff:169.254.169.254]/oa-location",
                                    "url_for_landing_page": f"http://localhost:{proxy_port[0]}/internal"}]}
        return Reply(200, json.dumps(record), "application/json")

    return {
        "/epmc/rest/search": Reply(200, json.dumps({"hitCount": 0, "resultList": {"result": []}}), "application/json"),
        "/doi/*": doi,
        "/unpaywall/*": unpaywall,
        "/article/1": Reply(200, PAGE),
        "/article/2": Reply(302, "", headers={"Location": "http://10.0.0.1/admin"}),
        "/internal": Reply(200, "internal service"),
    }


def fetch_hostile(tmp_path: Path, allow: bool) -> tuple[LoopbackServer, list]:
    rules = tmp_path / "journals.yaml"
    rules.write_text(RULES)
    port: list[int] = []
    with LoopbackServer() as server:
        port.append(int(server.base.rsplit(":", 1)[1]))
        for path, handler in hostile_services(port).items():
            server.route(path, handler)
        b = server.base
        cfg = FetchConfig().with_changes(**SCHOLARLY_OFF,
            endpoints=Endpoints(europepmc=f"{b}/epmc/rest/", europepmc_annotations=f"{b}/epmc/annotations/",
                                eutils=f"{b}/eutils/", pubmed=f"{b}/pubmed/", doi=f"{b}/doi/",
                                unpaywall=f"{b}/unpaywall/"),
            journals_yaml=str(rules), allow_private_addresses=allow, javascript=False, threads=2,
            timeout=3000, busy_retries=0, proxies={"http": b})
        with run_context(cfg) as ctx:
            pubs = list(fetch_many(["10.5555/ssrf.1", "10.5555/ssrf.2", "10.5555/ssrf.3"], config=cfg, context=ctx))
    return server, pubs


def test_links_and_redirects_from_pages_rules_and_unpaywall_are_refused(tmp_path, caplog, unresolvable_publisher,
                                                                          connects):
    caplog.set_level(logging.DEBUG, logger="pubfetch")  # the refusals' full URLs are in the debug (log file) lines
    server, pubs = fetch_hostile(tmp_path, allow=False)
    targets = [r.target for r in server.requests]
    # the publisher's page was fetched (as an untrusted URL), so its links were in reach ...
    assert f"{PUBLISHER}/article/1" in targets and f"{PUBLISHER}/article/2" in targets
    assert pubs[0].title.content == "Hostile links in an article page"
    # ... but not one request went to a forbidden address, directly or through the proxy
    assert not [t for t in targets if any(h in t for h in HOSTILE)], targets
    assert {a[0] for a in connects} == {"127.0.0.1"}
    # each refusal is one warning naming the refused host and path (meta tags, rule links, Unpaywall, redirects)
    refused = {r.getMessage() for r in caplog.records if r.getMessage().endswith(": internal address refused")}
    for host, path in (("169.254.169.254", "/latest/meta-data/iam/security-credentials/"),
                       ("10.0.0.1", "/admin/fulltext"), ("10.0.0.1", "/rule-link.pdf"), ("10.0.0.1", "/unpaywall.pdf"),
                       ("::ffff:169.254.169.254", "/oa-location"), ("localhost", "/internal"), ("10.0.0.1", "/admin")):
        assert f"{host}: GET {path}: internal address refused" in refused, (host, path, refused)
    for pub in pubs:  # nothing from a forbidden address was stored, and refusals are not retried later
        assert all(not any(h in s.url for h in HOSTILE) for s in pub.visited_sites)
        assert not pub.state.fetch_exception


def test_allow_private_addresses_lets_the_same_links_through(tmp_path, unresolvable_publisher):
    server, _ = fetch_hostile(tmp_path, allow=True)
    targets = [r.target for r in server.requests]
    assert METADATA in targets and "http://10.0.0.1/admin" in targets  # the control: the check is what stops them
    assert any("10.0.0.1/unpaywall.pdf" in t for t in targets)


def test_cli_refuses_private_links_unless_allow_private_addresses(tmp_path, monkeypatch, capsys, unresolvable_publisher):
    port: list[int] = []
    with LoopbackServer() as server:
        port.append(int(server.base.rsplit(":", 1)[1]))
        for path, handler in hostile_services(port).items():
            server.route(path, handler)
        for name in ("europepmc", "europepmc_annotations", "eutils", "pubmed", "doi", "unpaywall"):
            suffix = {"europepmc": "epmc/rest/", "europepmc_annotations": "epmc/annotations/"}.get(name, name + "/")
            monkeypatch.setenv(f"PUBFETCH_{name.upper()}_URL", f"{server.base}/{suffix}")
        monkeypatch.setenv("HTTP_PROXY", server.base)  # honoured like any requests program
        for var in ("NO_PROXY", "no_proxy", "http_proxy"):
            monkeypatch.delenv(var, raising=False)
        argv = ["-pub", "10.5555/ssrf.1", "-fetch", "--no-rate-limit", "--no-javascript", "--quiet"]
        main(argv)
        refused_run = [r.target for r in server.requests]
        server.requests.clear()
        main([*argv, "--allow-private-addresses"])
        allowed_run = [r.target for r in server.requests]
    capsys.readouterr()
    assert f"{PUBLISHER}/article/1" in refused_run and METADATA not in refused_run
    assert METADATA in allowed_run


# ---------------------------------------------------------------------------------------------- credentials

KEY = "ncbi0123456789abcdefSECRETKEY"


@pytest.mark.slow
def test_api_key_reaches_ncbi_but_no_log_database_json_or_warc(tmp_path, monkeypatch, capsys):
    with SyntheticServices(60) as services:
        for name, value in vars(services.endpoints()).items():
            monkeypatch.setenv(f"PUBFETCH_{name.upper()}_URL", value)
        monkeypatch.setenv("NCBI_API_KEY", KEY)
        monkeypatch.setenv("PUBFETCH_RATE_DB", str(tmp_path / "rates.sqlite"))
        ids = tmp_path / "ids.txt"
        ids.write_text("".join(p + "\n" for p in services.pmids()))
        few = tmp_path / "few.txt"
        few.write_text("".join(p + "\n" for p in services.pmids(3)))
        db, log, warc = tmp_path / "pubs.db", tmp_path / "run.log", tmp_path / "run.warc"
        init_db(db).close()
        common = ["--allow-private-addresses", "--no-javascript", "--quiet", "-l", str(log), "--verbose"]
        assert main(["-pub-file", str(ids), "-db-fetch", str(db), "--warc", str(warc), *common]) == 0
        assert main(["-pub-file", str(few), "-fetch", "-out", "--format", "json", *common]) == 0
        assert main(["-pub-db", str(db), "-db", str(db), "-out", "--format", "json", "-l", str(log)]) == 0
        sent = [r.param("api_key") for r in services.server.requests if r.path.startswith("/eutils/")]
        methods = {r.method for r in services.server.requests if r.path.startswith("/eutils/")}
    out, err = capsys.readouterr()
    assert sent and set(sent) == {KEY} and methods == {"POST"}  # NCBI got the key, in no URL
    assert out.count('"publications"') == 2 and out.count(services.pmids()[0]) >= 2  # the JSON was written
    for name, text in (("stdout", out.encode()), ("stderr", err.encode()), ("log", log.read_bytes()),
                       ("warc", warc.read_bytes()), ("database", db.read_bytes())):
        assert KEY.encode() not in text, name
    wal = Path(str(db) + "-wal")
    assert not wal.exists() or KEY.encode() not in wal.read_bytes()


def test_library_fetch_with_api_key_logs_and_stores_no_key(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    with SyntheticServices(4) as services:
        db = tmp_path / "lib.db"
        init_db(db).close()
        cfg = FetchConfig().with_changes(**SCHOLARLY_OFF, endpoints=services.endpoints(), ncbi_api_key=KEY, allow_private_addresses=True,
                          javascript=False, busy_retries=0)
        pubs = list(fetch_many(services.pmids(), db=str(db), config=cfg))
        assert services.ids_asked["efetch_pubmed"]
        assert {r.param("api_key") for r in services.server.requests if r.path.startswith("/eutils/")} == {KEY}
    assert KEY not in caplog.text
    assert all(KEY not in json.dumps(p.to_json()) for p in pubs)
    assert KEY.encode() not in db.read_bytes()
    assert os.environ.get("NCBI_API_KEY") != KEY
