"""Progress that moves: each publication is stored and reported as soon as it is complete, so the bar advances per
publication and an interrupt (SIGINT) mid-batch keeps every publication completed before it."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from functools import partial
from pathlib import Path

import pytest

import pubfetch
from pubfetch.cli.main import main
from support.loopback import Reply, Request
from support.synthetic import Article, SyntheticServices, use_services

REPO = Path(__file__).resolve().parents[1]
N = 6  # articles 0, 2, 4 are open access (complete after the services); 1, 3, 5 follow a slow Unpaywall PDF link
SLOW_S = 5.0


def slow_links(services: SyntheticServices, until: threading.Event | None) -> None:
    """Unpaywall points the closed-access articles at a PDF that is gone (404), said only once ``until`` is set
    (``None``: never, while the client waits for it), on a host of its own (``localhost``, the same server), as a
    publisher's would be: the services' host is not held up by it."""
    for i in range(1, N, 2):
        doi = Article(i).doi.upper()
        pdf = services.server.url(f"/slow/{i}.pdf").replace("//127.0.0.1:", "//localhost:")
        record = {"doi": doi.lower(), "is_oa": True, "title": None,
                  "best_oa_location": {"url_for_pdf": pdf}, "oa_locations": []}
        services.extra[f"/unpaywall/{doi}"] = Reply(200, json.dumps(record), "application/json")
        services.extra[f"/slow/{i}.pdf"] = Reply(hold=True) if until is None else partial(_gone_once, until)


def _gone_once(until: threading.Event, _request: Request) -> Reply:
    assert until.wait(300)  # a ceiling only a run that never reports the others reaches
    return Reply(404, "gone", "text/plain")


def stored_pmids(db: Path) -> set[str]:
    if not db.exists():
        return set()
    with sqlite3.connect(db, timeout=5) as conn:
        try:
            return {r[0] for r in conn.execute("SELECT json_extract(json, '$.pmid.content') FROM publications")}
        except sqlite3.OperationalError:  # the schema is being created
            return set()


def test_each_publication_is_stored_and_reported_when_it_completes_not_when_its_batch_does(
        env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = env / "pubs.db"
    reports: list[tuple[int, str, bool]] = []
    # the closed-access ones' PDFs answer once three publications were reported: events, not a delay, decide that the
    # open-access ones come first (a loaded machine could take longer than any delay to complete them)
    three_reported = threading.Event()

    def progress(done: int, pub: pubfetch.Publication) -> None:
        reports.append((done, pub.pmid.content, pub.pmid.content in stored_pmids(db)))
        if done == 3:
            three_reported.set()

    with SyntheticServices(N) as services:
        use_services(monkeypatch, env, services)
        slow_links(services, three_reported)
        pubs = list(pubfetch.fetch_many([Article(i).pmid for i in range(N)], db=db, progress=progress,
                                        allow_private_addresses=True, threads=N,
                                        # no waiting for company: the open-access ones' requests would wait for the
                                        # closed ones' (the slow PDFs bound the run), and finish with them
                                        hold_margin_ms=-1))
    assert [p.pmid.content for p in pubs] == [Article(i).pmid for i in range(N)]  # input order within the batch
    assert [done for done, _, _ in reports] == list(range(1, N + 1))
    # the open-access ones were reported first, while the closed ones still waited for their PDFs, and each
    # publication was already in the database when it was reported
    assert {pmid for _, pmid, _ in reports[:3]} == {Article(i).pmid for i in (0, 2, 4)}
    assert all(in_db for _, _, in_db in reports)


def test_sigint_mid_batch_keeps_the_completed_publications(env: Path) -> None:
    """The closed-access PDFs never come, so the interrupt lands mid-batch however slow the machine is; the run
    stops with the summary of what was stored and one line saying it was interrupted, nothing else."""
    db = env / "pubs.db"
    ids = env / "ids.txt"
    ids.write_text("".join(Article(i).pmid + "\n" for i in range(N)))
    with SyntheticServices(N) as services:
        slow_links(services, None)
        child_env = dict(os.environ)
        for name, value in vars(services.endpoints()).items():
            child_env[f"PUBFETCH_{name.upper()}_URL"] = value
        child_env["PYTHONPATH"] = str(REPO) + os.pathsep + child_env.get("PYTHONPATH", "")
        proc = subprocess.Popen([sys.executable, "-m", "pubfetch", "-pub-file", str(ids), "-db-fetch-end", str(db),
                                 "--allow-private-addresses", "--threads", str(N), "--timeout", "600000"],
                                env=child_env, cwd=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        open_access = {Article(i).pmid for i in (0, 2, 4)}
        deadline = time.monotonic() + 300  # a ceiling: the loop ends as soon as the first ones are stored
        while not open_access <= stored_pmids(db) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err
    assert err.splitlines()[-2:] == ["pubfetch: 3 publications: 3 fetched, 0 skipped; 3 final, 0 partial, 0 failed",
                                     "pubfetch: error: interrupted"], err
    assert "Traceback" not in err and "never retrieved" not in err and "Chromium" not in err, err
    # kept: the publications completed before the interrupt (each is stored as it completes, not with its batch);
    # the closed-access ones, still waiting for their PDFs, were not completed
    stored = stored_pmids(db)
    assert open_access <= stored and len(stored) < N, stored


def test_progress_bar_advances_with_counts_and_warnings_print_above_it(
        env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with SyntheticServices(4) as services:
        use_services(monkeypatch, env, services)
        services.failing = {"unpaywall"}
        ids = env / "ids.txt"
        ids.write_text("# four papers\n" + "".join(Article(i).pmid + "\n" for i in range(4)))
        code = main(["-pub-file", str(ids), "-db-fetch-end", str(env / "pubs.db"), "--progress", "--retryLimit", "0"])
    err = capsys.readouterr().err
    assert code == 3  # Unpaywall failed the closed-access ones
    screens = [part for line in err.split("\n") for part in line.split("\r") if part.strip()]
    bars = [s for s in screens if s.startswith("publications:")]
    assert bars[-1].startswith("publications: 100%") and "4/4" in bars[-1]
    assert "final=2, partial=0, failed=2" in bars[-1]
    assert any(" 2/4 " in s or "2/4 [" in s for s in bars)  # it moved through the middle
    warnings = [s for s in screens if "warning:" in s]
    assert warnings and all(s.startswith("pubfetch: warning: ") for s in warnings)  # never glued to the bar
