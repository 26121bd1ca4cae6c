"""The run report: exact numbers in its tables (from a database built with the store API, and from a CLI run against
the loopback services), escaping of stored text, and the page rendered by Chromium with its plots loaded."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from support.cli import Cli
from support.publications import ABSTRACT, EPMC, checked_publication, fetched_publication
from support.synthetic import SyntheticServices

pytest.importorskip("matplotlib", reason="the report needs matplotlib (the [report] extra, also in [test])")

import pubfetch
from pubfetch.model.part_type import PartType
from pubfetch.model.publication import Publication
from pubfetch.net.client import HttpClient
from pubfetch.net.config import HttpConfig
from pubfetch.net.mapping_transport import Canned, MappingTransport
from pubfetch.output.report import ReportUnavailable, gather
from pubfetch.store import init_store

HOSTILE_TITLE = "Tags <script>alert('x')</script> & <img src=x onerror=alert(1)> in a title"


def corpus() -> list[Publication]:
    oup = "https://academic.oup.com/nar/article/47/W1/W636/5446251"
    return [
        # full text from Europe PMC's XML; no publisher page needed
        fetched_publication("31114920", "10.1093/nar/gkz369", "EDAM: an ontology of bioinformatics operations",
                            fulltext=(PartType.europepmc_xml, f"{EPMC}PMC6602485/fullTextXML")),
        # full text from the publisher's article page (final, from academic.oup.com)
        fetched_publication("30357393", "10.1093/nar/gky1046", "The Pfam protein families database in 2019",
                            fulltext=(PartType.doi, oup), visited=(oup,)),
        # the publisher page was read, but only its PDF gave a full text (partial)
        fetched_publication("29140475", "10.1093/nar/gkx1095", "UniProt: the universal protein knowledgebase",
                            fulltext=(PartType.pdf_doi,
                                      "https://academic.oup.com/nar/article-pdf/46/5/2699/gkx1095.pdf"),
                            visited=("https://academic.oup.com/nar/article/46/5/2699/4657096",)),
        # bioRxiv page read, full text from Europe PMC instead; no abstract; a hostile title
        fetched_publication("25555555", "10.1101/2020.01.01.000001", HOSTILE_TITLE, abstract=False,
                            fulltext=(PartType.europepmc_xml, f"{EPMC}PMC7000001/fullTextXML"),
                            visited=("https://www.biorxiv.org/content/10.1101/2020.01.01.000001v1",
                                     "https://www.biorxiv.org/content/10.1101/2020.01.01.000001v1.full")),
        # a publisher that failed: nothing but the search, a fetch exception
        fetched_publication("24444444", "10.1016/j.cell.2014.01.001", "Cell paper behind a failing site", mesh=False,
                            fulltext=None, visited=("https://www.cell.com/cell/fulltext/S0092-8674(14)00001-1",),
                            fetch_exception=True),
    ]


def tables(page: str) -> dict[str, dict[str, list[str]]]:
    """table id -> first cell of each row -> the other cells (header and body rows; tfoot under 'tfoot')."""
    soup = BeautifulSoup(page, "lxml")
    out: dict[str, dict[str, list[str]]] = {}
    for table in soup.find_all("table"):
        rows: dict[str, list[str]] = {}
        for tr in table.find_all("tr"):
            cells = [c.get_text() for c in tr.find_all(["td", "th"])]
            key = "tfoot" if tr.find_parent("tfoot") else cells[0]
            rows[key] = cells[1:]
        out[table["id"]] = rows
    return out


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "pubs.db"
    with init_store(path) as store:
        for pub in corpus():
            assert store.put_publication(pub)
        store.commit()
    return path


def test_database_report_counts_parts_sources_and_publisher_hosts(database: Path, tmp_path: Path) -> None:
    out = pubfetch.report(tmp_path / "report.html", db=database)
    page = out.read_text(encoding="utf-8")
    t = tables(page)

    overview = BeautifulSoup(page, "lxml").find(id="overview").get_text()
    assert overview.startswith(f"On database {database}: 5 publications, 2 final (40.0 %)")

    coverage = t["coverage"]
    assert coverage["part"] == ["final", "partial", "missing", "final share"]
    assert coverage["PMID"] == ["5", "0", "0", "100.0 %"]
    assert coverage["PMCID"] == ["0", "0", "5", "0.0 %"]
    assert coverage["Title"] == ["5", "0", "0", "100.0 %"]
    assert coverage["Abstract"] == ["4", "0", "1", "80.0 %"]
    assert coverage["MeSH terms"] == ["4", "0", "1", "80.0 %"]
    assert coverage["Fulltext"] == ["3", "1", "1", "60.0 %"]

    sources = t["sources"]
    header = sources["part type"]
    fulltext, mesh = header.index("Fulltext"), header.index("MeSH terms")
    assert sources["Europe PubMed Central fulltext XML"][0] == "yes"
    assert sources["Europe PubMed Central fulltext XML"][fulltext] == "2"
    assert sources["DOI"][fulltext] == "1"
    assert sources["PDF DOI"][0] == "no" and sources["PDF DOI"][fulltext] == "1"
    assert sources["PubMed XML"][mesh] == "4"
    assert sources["Europe PubMed Central"][-1] == "19"  # 5 PMIDs, 5 DOIs, 5 titles, 4 abstracts

    assert t["publishers"] == {
        "host": ["publications", "full text from host", "full text from elsewhere", "no final full text", "success"],
        "academic.oup.com": ["2", "1", "0", "1", "50.0 %"],
        "biorxiv.org": ["1", "0", "1", "0", "0.0 %"],
        "cell.com": ["1", "0", "0", "1", "0.0 %"],
    }
    not_final = t["not-final"]
    assert not_final == {
        "IDs": ["title", "not final", "fetch exception"],
        "PMID:29140475 DOI:10.1093/NAR/GKX1095": ["UniProt: the universal protein knowledgebase", "Fulltext", "no"],
        "PMID:25555555 DOI:10.1101/2020.01.01.000001": [HOSTILE_TITLE, "Abstract", "no"],
        "PMID:24444444 DOI:10.1016/J.CELL.2014.01.001": ["Cell paper behind a failing site", "Fulltext", "yes"],
    }
    assert "requests" not in t  # a database alone: no request was counted, and the page says so
    assert "No requests were counted" in page


def test_stored_text_is_escaped(database: Path, tmp_path: Path) -> None:
    page = pubfetch.report(tmp_path / "report.html", db=database).read_text(encoding="utf-8")
    assert "<script>" not in page and "<img src=x" not in page
    assert "Tags &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;" in page
    soup = BeautifulSoup(page, "lxml")
    assert soup.find_all("script") == []
    assert all(img["src"].startswith("data:image/png;base64,") for img in soup.find_all("img"))


def test_request_counts_per_host_count_every_attempt() -> None:
    """The client's counters: a 429 retried to success is two requests, one failed; a redirect hop is a request."""
    pages = {
        "https://busy.example/a": [Canned(429, "slow down", "text/plain", {"Retry-After": "0"}), Canned(200, "ok")],
        "https://gone.example/b": [Canned(503, "down", "text/plain", {"Retry-After": "0"})] * 3,
    }

    def answer(request):
        return pages[request.url].pop(0)

    transport = MappingTransport({
        "https://busy.example/a": answer, "https://gone.example/b": answer,
        "https://moved.example/c": Canned(301, "", "text/plain", {"Location": "https://www.busy.example/d"}),
        "https://www.busy.example/d": Canned(404, "not here", "text/plain"),
    })
    client = HttpClient(HttpConfig(busy_retries=2, busy_backoff_s=0.0), transport=transport, sleep=lambda s: None)
    assert client.get("https://busy.example/a").ok
    assert not client.get("https://gone.example/b").ok
    assert not client.get("https://moved.example/c").ok
    by_host = {h: vars(c) for h, c in client.counts.by_host().items()}
    assert by_host == {
        "busy.example": {"requests": 3, "failed": 2, "too_many": 1, "unavailable": 0, "no_answer": 0},
        "gone.example": {"requests": 3, "failed": 3, "too_many": 0, "unavailable": 3, "no_answer": 0},
        "moved.example": {"requests": 1, "failed": 0, "too_many": 0, "unavailable": 0, "no_answer": 0},
    }


@pytest.mark.services(4)
def test_cli_report_of_a_fetching_run_has_its_requests(services: SyntheticServices, tmp_path: Path,
                                                       cli: Cli) -> None:
    services.failing = {"unpaywall"}  # the closed-access publications (1 and 3) ask Unpaywall and get 503s
    ids = tmp_path / "ids.txt"
    ids.write_text("\n".join(services.pmids()) + "\n")
    db, out = tmp_path / "pubs.db", tmp_path / "run.html"
    code = cli("-pub-file", ids, "-db-fetch-end", db, "-report", out, "--allow-private-addresses",
               "--no-javascript", "--retryLimit", "1").code
    assert code == 3  # two publications failed
    t = tables(out.read_text(encoding="utf-8"))
    asked = sum(n for k, n in services.counts.items() if not k.startswith("efetch_"))  # efetch counted twice there
    unpaywall, doi = services.counts["unpaywall"], services.counts["doi"]  # 503s; 404s (no publisher pages here)
    assert unpaywall > 0 and doi > 0
    failed = unpaywall + doi
    assert t["requests"]["127.0.0.1"] == [str(asked), str(failed), "0", str(unpaywall), "0",
                                          f"{100 * failed / asked:.1f} %"]
    assert t["run"]["publications"] == ["4"] and t["run"]["final"] == ["2"] and t["run"]["failed"] == ["2"]
    assert t["coverage"]["Title"] == ["4", "0", "0", "100.0 %"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM publications").fetchone() == (4,)


def test_cli_report_of_a_database_alone(database: Path, tmp_path: Path, cli: Cli) -> None:
    out = tmp_path / "db.html"
    assert cli("-db", database, "-report", out) == (0, "", "")
    assert tables(out.read_text(encoding="utf-8"))["coverage"]["Fulltext"] == ["3", "1", "1", "60.0 %"]


def test_without_matplotlib_the_cli_says_so_in_one_line(database: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        cli: Cli) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    with pytest.raises(ReportUnavailable, match=r"pip install 'pubfetch\[report\]'"):
        pubfetch.report(tmp_path / "r.html", db=database)
    assert cli("-db", database, "-report", tmp_path / "r.html") == (
        2, "", "pubfetch: error: the report needs matplotlib: pip install 'pubfetch[report]'\n")
    assert not (tmp_path / "r.html").exists()


# --- the page in a browser -------------------------------------------------------------------------------------------


def chromium() -> str:
    from pubfetch.net.browser import find_chromium

    path = find_chromium()
    if path is None:
        pytest.skip("no Chromium found (apt-get install chromium): the report page is not rendered")
    return path


def test_chromium_renders_the_page_with_every_plot_loaded(database: Path, tmp_path: Path) -> None:
    executable = chromium()
    from playwright.sync_api import sync_playwright

    page_file = tmp_path / "report.html"
    counts = {"academic.oup.com": _counts(12, 3, 2), "www.ebi.ac.uk": _counts(30, 0, 0)}
    pubfetch.report(page_file, db=database, requests=counts)
    shot = tmp_path / "report.png"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True,
                                     args=["--headless", "--no-sandbox", "--disable-gpu",
                                           "--disable-background-networking"])
        try:
            page = browser.new_page()
            outside: list[str] = []
            page.on("request", lambda r: None if r.url.startswith(("file:", "data:")) else outside.append(r.url))
            page.goto(page_file.as_uri())
            images = page.eval_on_selector_all(
                "img.plot", "els => els.map(e => [e.id, e.complete, e.naturalWidth, e.naturalHeight])")
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert [i[0] for i in images] == ["plot-coverage", "plot-sources", "plot-requests", "plot-publishers"]
    assert all(complete and width > 0 and height > 0 for _, complete, width, height in images), images
    assert outside == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_pages_rendered_in_chromium_count_with_the_requests(tmp_path: Path) -> None:
    executable = chromium()
    from pubfetch.net.browser import BrowserRenderer
    from pubfetch.net.counts import RequestCounts
    from support.loopback import LoopbackServer, Reply

    counts = RequestCounts()
    article = "<html><head><title>An article</title></head><body><p>" + ABSTRACT + "</p></body></html>"
    with LoopbackServer({"/article": Reply(200, article), "/gone": Reply(404, "<p>gone</p>")}) as server, \
            BrowserRenderer(executable=executable, allow_private_addresses=True, counts=counts) as renderer:
        assert renderer.render(f"{server.base}/article").ok
        assert not renderer.render(f"{server.base}/gone").ok
        assert renderer.render("ftp://127.0.0.1/article.pdf").kind.name == "BAD_SCHEME"  # refused: never sent
    assert {h: vars(c) for h, c in counts.by_host().items()} == {
        "127.0.0.1": {"requests": 2, "failed": 1, "too_many": 0, "unavailable": 0, "no_answer": 0}}


def _counts(requests: int, failed: int, too_many: int):
    from pubfetch.net.counts import HostCounts

    return HostCounts(requests=requests, failed=failed, too_many=too_many)


def test_a_report_file_that_cannot_be_written_is_one_line_and_status_2(
        database: Path, tmp_path: Path, cli: Cli) -> None:
    (tmp_path / "a file").write_text("not a directory\n")
    target = tmp_path / "a file" / "r.html"
    assert cli("-db", database, "-report", target) == (2, "", f"pubfetch: error: cannot write output file '{target}' "
                                                              f"(-report): '{tmp_path / 'a file'}' is not a directory\n")
    missing = tmp_path / "no such directory" / "r.html"  # made, as for every output file
    assert cli("-db", database, "-report", missing).code == 0
    assert missing.is_file()


def test_report_needs_exactly_one_of_publications_and_database(database: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="exactly one of publications and db"):
        pubfetch.report(tmp_path / "r.html")
    with pytest.raises(ValueError, match="exactly one of publications and db"):
        pubfetch.report(tmp_path / "r.html", corpus(), db=database)


def test_report_on_publications_given(tmp_path: Path) -> None:
    page = pubfetch.report(tmp_path / "one.html", corpus()[:1]).read_text(encoding="utf-8")
    overview = BeautifulSoup(page, "lxml").find(id="overview").get_text()
    assert overview.startswith("On the publications given: 1 publication, 1 final (100.0 %); made ")
    assert "not-final" not in tables(page) and tables(page)["coverage"]["Fulltext"] == ["1", "0", "0", "100.0 %"]


@pytest.mark.services(4)
def test_a_library_run_reports_its_requests_and_its_summary_still_encodes(services: SyntheticServices,
                                                                          tmp_path: Path) -> None:
    import dataclasses

    summary = pubfetch.BatchSummary()
    pubs = list(pubfetch.fetch_many(services.pmids()[:2], summary=summary, allow_private_addresses=True,
                                    javascript=False))
    asked = sum(n for k, n in services.counts.items() if not k.startswith("efetch_"))
    assert summary.requests is not None and summary.requests.total().requests == asked
    assert "requests" not in dataclasses.asdict(summary)  # what the distributed workers send as JSON
    t = tables(pubfetch.report(tmp_path / "lib.html", pubs, summary=summary).read_text(encoding="utf-8"))
    assert t["requests"]["127.0.0.1"][0] == str(asked) and t["run"]["publications"] == ["2"]


def test_the_report_counts_and_lists_the_rejected_sites_of_the_publications() -> None:
    data = gather([checked_publication(), *corpus()])
    assert data.rejected_total == 1
    assert [(r.ids, r.url, r.claimed, r.reason) for r in data.rejected] == [
        ("DOI:10.5555/IDENTITY.REDIRECT", "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0213978",
         "DOI:10.1371/JOURNAL.PONE.0213978", "id")]
