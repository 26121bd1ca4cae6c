"""Two fetching runs on one SQLite database: the second waits for the first (saying so at once), then finds what the
first stored and fetches nothing twice. Two real processes, as two terminals would run them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.synthetic import Article, SyntheticServices, hold_searches, use_services

REPO = Path(__file__).resolve().parents[1]


def start(ids: Path, db: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "pubfetch", "-pub-file", str(ids), "-db-fetch-end", str(db),
                             "--allow-private-addresses", "--no-javascript"],
                            env=env, cwd=db.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_second_run_waits_for_the_first_and_fetches_nothing_twice(tmp_path: Path, monkeypatch) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text(f"{Article(0).pmid}\n{Article(2).pmid}\n")  # open access: final after the first run
    db = tmp_path / "pubs.db"
    with SyntheticServices(3) as services:
        use_services(monkeypatch, tmp_path, services)
        searching, release = hold_searches(services)
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        first = start(ids, db, env)
        second = None
        try:
            assert searching.wait(300), first.communicate()
            second = start(ids, db, env)
            assert second.stderr is not None
            waiting = second.stderr.readline()  # said before it waits, not after
            release.set()
            first_err = first.communicate(timeout=300)[1]
            second_err = waiting + second.communicate(timeout=300)[1]
        finally:
            release.set()
            for proc in (first, second):
                if proc is not None and proc.poll() is None:
                    proc.kill()
        searches = services.counts["europepmc_search"]
        fulltexts = services.counts["europepmc_fulltext"]
    assert waiting == (f"pubfetch: warning: another fetching run is using database {db}: waiting for it to end (what "
                       "it stores is then not fetched again; Ctrl-C stops)\n")
    assert (first.returncode, first_err.splitlines()[-1]) == (
        0, "pubfetch: 2 publications: 2 fetched, 0 skipped; 2 final, 0 partial, 0 failed"), first_err
    assert (second.returncode, second_err.splitlines()[-1]) == (
        0, "pubfetch: 2 publications: 0 fetched, 2 skipped; 2 final, 0 partial, 0 failed"), second_err
    assert (searches, fulltexts) == (1, 2)  # every request of the first run only
