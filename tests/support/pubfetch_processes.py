"""pubfetch run as processes of their own, as users and clusters run it: the environment that points such a process
at the synthetic services, its command line, its ID file and database, and the Celery worker.

The tests that need more than one process (a shared rate limit, a kill, a cluster) use these; the others run the
command line in-process (tests/support/cli.py).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from support.synthetic import SCHOLARLY_OFF_ENV, SyntheticServices

REPO = Path(__file__).resolve().parents[2]


def service_env(services: SyntheticServices, **extra: str) -> dict[str, str]:
    """The environment of a pubfetch process that talks to the synthetic services only: none of the machine's own
    ``PUBFETCH_*`` settings or NCBI API key, this checkout first on the import path, then ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PUBFETCH_", "NCBI_API_KEY"))}
    for name, value in vars(services.endpoints()).items():
        env[f"PUBFETCH_{name.upper()}_URL"] = value
    env.update(SCHOLARLY_OFF_ENV)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def pubfetch_cmd(*args: object) -> list[str]:
    """``python -m pubfetch ARGS`` with this interpreter."""
    return [sys.executable, "-m", "pubfetch", *(str(a) for a in args)]


def write_ids(path: Path, pmids: list[str]) -> Path:
    """An ID file of ``pmids``, one a line."""
    path.write_text("".join(p + "\n" for p in pmids), encoding="utf-8")
    return path


def init_db(path: Path, env: dict[str, str]) -> Path:
    """A new pubfetch database at ``path``, made by ``pubfetch -db-init`` as a user makes one."""
    subprocess.run(pubfetch_cmd("-db-init", path), env=env, check=True, capture_output=True, timeout=60)
    return path


def start_worker(broker: str, db: str, env: dict[str, str], log: Path, *extra: str) -> subprocess.Popen[bytes]:
    """A ``pubfetch worker`` of two batches at a time under its default name (``pubfetch-PID@HOST``: unique on the
    machine, so test runs at once on one queue server do not share a worker's queue), its output appended to ``log``.

    It runs in a process group of its own, so that the whole worker, pool included, can be killed at once as a lost
    machine is, and stopped by ``support.procs.stop_process_groups``."""
    with open(log, "ab") as out:
        return subprocess.Popen(pubfetch_cmd("worker", "--broker", broker, "--db", db, "--concurrency", "2",
                                             "--loglevel", "INFO", *extra),
                                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


@contextlib.contextmanager
def rabbitmq_queue(redis_url: str) -> Iterator[str]:
    """A RabbitMQ broker URL on this machine whose queue is named after ``redis_url``'s prefix (the test's own), that
    queue deleted afterwards; the test skips when RabbitMQ is not reachable at 127.0.0.1:5672."""
    import socket

    import pytest

    try:
        socket.create_connection(("127.0.0.1", 5672), timeout=2).close()
    except OSError:
        pytest.skip("RabbitMQ not reachable at 127.0.0.1:5672")
    prefix = redis_url.split("prefix=", 1)[1]
    broker = f"amqp://guest:guest@127.0.0.1:5672//?prefix={prefix}"
    try:
        yield broker
    finally:
        from kombu import Connection

        with Connection(broker.split("?", 1)[0]) as conn:
            conn.channel().queue_delete(f"{prefix}pubfetch")
