"""The run report: one self-contained HTML page with coverage, requests per host and full text by publisher host,
its plots embedded; rendered in the system Chromium (headless, through Playwright) to check the plots are there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from chaos import ChaosServices
from loopback import Reply, Request
from synthetic import Article, use_services

import pubfetch
from pubfetch.cli.main import main

matplotlib = pytest.importorskip("matplotlib", reason="the report's plots need matplotlib (the [report] extra)")

N = 6


class OneGonePage(ChaosServices):
    """Healthy services whose last publisher page is gone (404): one failure for the host table."""

    def _publisher(self, req: Request) -> Reply:
        if req.path == f"/publisher/{N - 1}":
            return Reply(404, "gone", "text/plain")
        return super()._publisher(req)


@pytest.fixture(scope="module")
def fetched_run(tmp_path_factory: pytest.TempPathFactory):
    """A -db-fetch run over healthy services with publisher pages, writing its report (shared by the tests)."""
    tmp_path = tmp_path_factory.mktemp("report")
    ids = tmp_path / "ids.txt"
    ids.write_text("".join(Article(i).pmid + "\n" for i in range(N)))
    db, page = tmp_path / "pubs.db", tmp_path / "report.html"
    with pytest.MonkeyPatch.context() as monkeypatch, OneGonePage(N, seed=1, rate=0.0) as services:
        services.heal()
        use_services(monkeypatch, tmp_path, services)
        code = main(["-pub-file", str(ids), "-db-fetch", str(db), "--allow-private-addresses", "--no-javascript",
                     "--quiet", "-report", str(page)])
    assert code == 1
    return db, page


def test_report_of_a_run_counts_parts_requests_and_publisher_full_texts(fetched_run) -> None:
    db, page = fetched_run
    text = page.read_text(encoding="utf-8")
    assert "<p>6 publications, 3 final;" in text
    assert len(re.findall(r'<img class="plot" alt="[^"]+" src="data:image/png;base64,', text)) == 3
    assert "http://" not in text.replace("http://www.w3.org", "")  # self-contained: nothing fetched when opened
    # the fulltext row: 3 final (Europe PMC XML for the open-access half), the closed half from publisher pages
    row = re.search(r"<tr><td>fulltext</td>(.*?)</tr>", text).group(1)
    assert "<td>3</td>" in row
    host = re.search(r"<tr><td>127\.0\.0\.1</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td></tr>", text)
    requests, failed, too_many, busy = map(int, host.groups())
    assert requests > N and failed == 2 and too_many == 0 and busy == 0  # the 404 page, asked again at the end
    # two of the closed-access half reached their publisher pages (all on 127.0.0.1; the third page is gone), and
    # none got a final full text there (the synthetic pages are too short)
    assert "<tr><td>127.0.0.1</td><td>2</td><td>0</td></tr>" in text
    # the library call over the database gives the same coverage, without requests
    again = pubfetch.report(db, page.with_name("db.html"))
    db_text = Path(again).read_text(encoding="utf-8")
    assert "<p>6 publications, 3 final;" in db_text and "No requests in this report" in db_text


def test_report_renders_in_chromium_with_its_plots(fetched_run, tmp_path: Path) -> None:
    from pubfetch.net.browser import find_chromium

    chromium = find_chromium()
    if chromium is None:
        pytest.skip("no Chromium found to render the report (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright drives Chromium")
    _, page_file = fetched_run
    shot = tmp_path / "report.png"
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.goto(page_file.as_uri())
            plots = page.eval_on_selector_all(
                "img.plot", "imgs => imgs.map(i => [i.complete, i.naturalWidth, i.naturalHeight, i.alt])")
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert [alt for *_, alt in plots] == ["coverage by part and part type", "requests, failures and 429s per host",
                                          "full-text success by publisher host"]
    assert all(complete and width > 300 and height > 100 for complete, width, height, _ in plots), plots
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
