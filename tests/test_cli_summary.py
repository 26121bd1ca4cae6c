"""The line that closes a fetching run, and the one-sentence warnings of per-item failures."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from support.cli import Cli
from support.synthetic import SyntheticServices


def fetch(cli: Cli, ids: Path, db: Path, *extra: str) -> tuple[int, list[str]]:
    code, _, err = cli.lines("-pub-file", ids, "-db-fetch", db, "--allow-private-addresses", "--no-javascript",
                             "--retryLimit", "1", *extra)
    return code, err


def test_summary_counts_fetched_skipped_final_partial_failed_and_says_when_the_retry_limit_lifts(
        services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    services.failing = {"unpaywall"}  # the closed-access publication (index 1) fails transiently
    ids = tmp_path / "ids.txt"
    ids.write_text("\n".join(services.pmids()) + "\n")
    db = tmp_path / "pubs.db"

    # the run fetches all three, then retries the failed one at its end: that is the one retry --retryLimit 1 allows
    code, err = fetch(cli, ids, db)
    assert code == 3  # EXIT_SOME_FAILED: the closed-access one failed
    with sqlite3.connect(db) as conn:
        (failed_at,) = conn.execute("SELECT max(json_extract(json, '$.fetchTime')) FROM publications").fetchone()
    eligible = datetime.fromtimestamp((failed_at + 1440 * 60_000) / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")
    limit = f"1 reached the retry limit; eligible again after {eligible} or with --fetchExceptionCooldown 0"
    assert err[-1] == f"pubfetch: 3 publications: 3 fetched, 0 skipped; 2 final, 0 partial, 1 failed; {limit}"
    warnings = [line for line in err if line.startswith("pubfetch: warning: ")]
    # asked twice (the end-of-run retry): one line for both, with their count
    assert "pubfetch: warning: 127.0.0.1: GET /unpaywall/10.5555/SYNTH.1: server busy (HTTP 503); a later run " \
           "retries it (and 1 more like it; --log FILE keeps them all)" in warnings, warnings
    assert all(len(line) < 160 and "?" not in line for line in warnings), warnings
    asked = services.counts["unpaywall"]

    code, err = fetch(cli, ids, db)
    assert services.counts["unpaywall"] == asked  # nothing asked: the retry limit is used up
    assert err[-1] == f"pubfetch: 3 publications: 0 fetched, 3 skipped; 2 final, 0 partial, 1 failed; {limit}"

    services.failing = set()
    code, err = fetch(cli, ids, db, "--fetchExceptionCooldown", "0")
    assert services.counts["unpaywall"] == asked + 1
    assert err[-1] == "pubfetch: 3 publications: 1 fetched, 2 skipped; 2 final, 1 partial, 0 failed"


def test_a_run_where_everything_succeeds_still_ends_with_the_summary(
        services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    captured = cli("-pub", services.pmids()[0], services.pmids()[2], "-fetch", "--allow-private-addresses")
    code = captured.code
    assert code == 0
    assert captured.err == "pubfetch: 2 publications: 2 fetched, 0 skipped; 2 final, 0 partial, 0 failed\n"
