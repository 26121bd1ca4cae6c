"""``pubfetch worker --broker redis://... --db postgresql://...``: a Celery worker that fetches queued batches.

Each worker process fetches one batch at a time into the shared database, waiting on the cluster-wide rate limits
(``--rate-db``, by default the broker's Redis when the broker is Redis).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from pubfetch.distributed.app import VISIBILITY_TIMEOUT_S, make_app
from pubfetch.distributed.tasks import WorkerSettings


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pubfetch worker", description="Fetch batches of publications sent to a queue "
                                "(pubfetch -pub-file IDS -db-fetch DB --queue URL) into a shared database.")
    p.add_argument("--broker", required=True, help="the queue: redis://host:6379/N or amqp://host (RabbitMQ)")
    p.add_argument("--db", help="database of jobs that name none (postgresql://user@host/dbname, or a SQLite file "
                   "on this machine)")
    p.add_argument("--rate-db", help="shared rate limits: redis://host:6379/N (default: the broker, if Redis), or a "
                   "SQLite file for workers of one machine")
    p.add_argument("--concurrency", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPUs)")
    p.add_argument("--visibility-timeout", type=float, default=VISIBILITY_TIMEOUT_S,
                   help="seconds before a Redis-broker batch of a vanished worker goes to another one (default 3600)")
    p.add_argument("--allow-private-addresses", action="store_true", help="let links and redirects taken from pages "
                   "point at loopback and private addresses (intranets, tests)")
    p.add_argument("--hostname", help="the worker's name (default: celery@HOST)")
    p.add_argument("--loglevel", default="INFO")
    return p


def main(argv: Sequence[str]) -> int:
    opts = parser().parse_args(list(argv))
    rate_db = opts.rate_db or (opts.broker if opts.broker.startswith(("redis://", "rediss://")) else None)
    # the pool processes are forked from this one after the app is made: the task they run holds these settings
    worker = WorkerSettings(opts.db or None, rate_db, opts.allow_private_addresses)
    try:
        app = make_app(opts.broker, visibility_timeout=opts.visibility_timeout, worker=worker)
    except ValueError as e:
        print(f"pubfetch: error: {e}", file=sys.stderr)
        return 2
    celery_argv = ["worker", f"--loglevel={opts.loglevel}", f"--concurrency={opts.concurrency}", "--pool=prefork",
                   "--without-gossip", "--without-mingle"]
    if opts.hostname:
        celery_argv.append(f"--hostname={opts.hostname}")
    app.worker_main(celery_argv)
    return 0
