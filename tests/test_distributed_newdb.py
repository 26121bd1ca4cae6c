"""The cluster quick path on a new PostgreSQL database: ``-pub-file IDS -db-fetch-end DATABASE --queue URL`` (the
README's example) makes the database as the command without ``--queue`` does, in the submitter, before the first
batch is sent: an empty database gets pubfetch's tables, a database the server lacks is created. The workers only open
their ``--db``, so a batch sent first would fail on every worker ("holds no pubfetch database")."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pubfetch.distributed.submit import cancel
from pubfetch.store import StoreError, open_store
from support.cli import Cli
from support.procs import stop_process_groups
from support.pubfetch_processes import pubfetch_cmd, service_env, start_worker, write_ids
from support.queue_sends import HeldSends
from support.synthetic import SyntheticServices

pytest.importorskip("celery", reason='queued jobs need celery (pip install ".[test]")')

@pytest.fixture
def missing_pg_url(pg_database: str) -> Iterator[str]:
    """The URL of a database the session's PostgreSQL server does not have (a name of this test's own), dropped
    afterwards if the test made it; skips as ``pg_database`` does when the server is unreachable."""
    import psycopg

    server = pg_database.rsplit("/", 1)[0]
    name = f"pubfetch_test_new_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    try:
        yield f"{server}/{name}"
    finally:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _opens(db: str) -> bool:
    try:
        open_store(db, readonly=True).close()
    except StoreError:
        return False
    return True


def _submit_detached(cli: Cli, monkeypatch: pytest.MonkeyPatch, ids: Path, step: str, db: str,
                     queue: str) -> tuple[str, list[bool]]:
    """Send the IDs with ``--detach``; the job id, and whether the database opened as each batch was sent."""
    opened_at_send: list[bool] = []
    HeldSends(monkeypatch, seen=lambda _headers: opened_at_send.append(_opens(db)))
    code, out, lines = cli.lines("-pub-file", ids, step, db, "--queue", queue, "--batch-size", "1", "--detach")
    assert code == 0, lines
    return out.strip(), opened_at_send


@pytest.mark.parametrize("step", ["-db-fetch-end", "-db-fetch"])
def test_an_empty_database_gets_its_tables_before_the_first_batch_is_sent(
        env: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, pg_url: str, redis_url: str, step: str) -> None:
    assert not _opens(pg_url)  # the server has the database, without pubfetch's tables
    ids = write_ids(env / "ids.txt", ["30000000", "30000001"])
    job, opened_at_send = _submit_detached(cli, monkeypatch, ids, step, pg_url, redis_url)
    assert opened_at_send == [True, True]
    with open_store(pg_url) as store:
        assert store.publications_size() == 0  # made, and nothing fetched here: that is the workers' part
    cancel(job, redis_url)


def test_a_database_the_server_lacks_is_created_before_the_first_batch_is_sent(
        env: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, missing_pg_url: str, redis_url: str) -> None:
    assert not _opens(missing_pg_url)
    ids = write_ids(env / "ids.txt", ["30000000"])
    job, opened_at_send = _submit_detached(cli, monkeypatch, ids, "-db-fetch-end", missing_pg_url, redis_url)
    assert opened_at_send == [True]
    cancel(job, redis_url)


def test_a_database_this_user_may_not_create_is_one_line_saying_how_and_nothing_is_sent(
        env: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, missing_pg_url: str, redis_url: str) -> None:
    import psycopg

    server, name = missing_pg_url.rsplit("/", 1)
    role = f"pubfetch_test_nocreate_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE ROLE "{role}" LOGIN NOCREATEDB')
        try:
            sends = HeldSends(monkeypatch)
            url = missing_pg_url.replace("//postgres@", f"//{role}@")
            code, _, lines = cli.lines("-pub-file", write_ids(env / "ids.txt", ["30000000"]), "-db-fetch-end", url,
                                       "--queue", redis_url)
        finally:
            admin.execute(f'DROP ROLE "{role}"')
    assert code == 2 and len(lines) == 1, lines
    assert " does not exist and cannot be created: " in lines[0]
    assert lines[0].endswith(f"create it as a user allowed to (createdb {name}, or CREATE DATABASE), or give this "
                             "user CREATEDB, then run the command again")
    assert sends.sent == []


def test_an_unreachable_queue_makes_no_database(env: Path, cli: Cli, missing_pg_url: str) -> None:
    """Nothing is made for a job that cannot be sent."""
    ids = write_ids(env / "ids.txt", ["30000000"])
    code, _, lines = cli.lines("-pub-file", ids, "-db-fetch-end", missing_pg_url, "--queue", "redis://127.0.0.1:1/0")
    assert code == 2 and lines[-1].startswith("pubfetch: error: cannot reach the queue redis://127.0.0.1:1/0: ")
    assert not _opens(missing_pg_url)


@pytest.mark.slow
def test_the_readmes_cluster_example_works_on_an_empty_database(tmp_path: Path, pg_url: str, redis_url: str) -> None:
    """A worker started on the empty database, then the README's submit command as written: every batch done, every
    publication stored once."""
    count = 6
    with SyntheticServices(count, latency=0.01) as services:
        env = service_env(services)
        ids = write_ids(tmp_path / "ids.txt", services.pmids())
        worker = start_worker(redis_url, pg_url, env, tmp_path / "worker.log")
        try:
            run = subprocess.run(pubfetch_cmd("-pub-file", ids, "-db-fetch-end", pg_url, "--queue", redis_url,
                                              "--batch-size", "2"), env=env, capture_output=True, text=True,
                                 timeout=300)
        finally:
            stop_process_groups([worker])
    assert "holds no pubfetch database" not in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and "batches failed" not in run.stderr, run.stderr
    assert f"pubfetch: {count} publications: {count} fetched, 0 skipped;" in run.stderr, run.stderr
    with open_store(pg_url) as store:
        assert store.publications_size() == count
    log = (tmp_path / "worker.log").read_text(errors="replace")
    assert "refused" not in log, log[-3000:]

