"""``pubfetch worker --broker redis://... --db postgresql://...``: a Celery worker that fetches queued batches.

It fetches ``--concurrency`` batches at a time into the worker's own database, waiting on the cluster-wide rate limits
(``--rate-db``, by default the broker's Redis, or the results' Redis with a RabbitMQ broker, so that machines added to
a cluster share the limits without being told). By default its batches are threads of one process that gather their
requests together (``--pool threads``, :mod:`.sharedrun`): a cluster then asks the services no more often per
publication than one process does, but one worker's parsing uses one CPU at a time (run a worker per CPU to use more).
``--pool prefork`` gives each batch a process of its own, which uses every CPU but pays each batch's last requests
alone. Every worker has a name of its own by default (``pubfetch-PID@HOST``), so that several can run on one machine
with either broker (RabbitMQ gives a name's control queue to one worker only); a name chosen with ``--name`` is refused
while a live worker has it. A worker renews the batches it holds while it is alive (:mod:`.liveness`).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Sequence

from pubfetch.distributed.app import GRACE_S, MIN_GRACE_S, default_backend, is_redis, make_app
from pubfetch.distributed.tasks import WorkerSettings
from pubfetch.net.urls import shown_url

#: Batches a threaded worker fetches at a time by default: the two in flight of one process.
THREADS = 2


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pubfetch worker", description="Fetch batches of publications sent to a queue "
                                "(pubfetch -pub-file IDS -db-fetch DB --queue URL) into a shared database.")
    p.add_argument("--broker", required=True, help="the queue: redis://host:6379/N or amqp://user:pass@host// "
                   "(RabbitMQ, with PUBFETCH_RESULT_BACKEND=redis://host:6379/N for the job results)")
    p.add_argument("--db", required=True, help="the database this worker writes to, and the only one: "
                   "postgresql://user@host/dbname, or a SQLite file on this machine (a job naming another is refused)")
    p.add_argument("--rate-db", help="shared rate limits: redis://host:6379/N (default: the broker if it is Redis, "
                   "else the results' Redis, $PUBFETCH_RESULT_BACKEND), or a SQLite file for workers of one machine")
    p.add_argument("--concurrency", type=int, help="batches fetched at a time; the worker takes no more than this "
                   f"from the queue (default: {THREADS} with --pool threads, as one process has in flight; the "
                   f"machine's CPUs, {os.cpu_count() or 1} here, with --pool prefork)")
    p.add_argument("--pool", choices=("threads", "prefork"), default="threads",
                   help="threads (the default): the batches are threads of one process that ask the services "
                   "together, as one process does (one CPU at a time: run a worker per CPU to use more); prefork: a "
                   "process per batch (every CPU, but each batch's last requests are its own)")
    p.add_argument("--grace-period", type=float, default=GRACE_S, metavar="SECONDS",
                   help="a worker silent for longer (machine lost, process group killed) has its batches given to "
                   "another worker; give every worker of a queue the same value (default %(default).0f)")
    p.add_argument("--allow-private-addresses", action="store_true", help="let links and redirects taken from pages "
                   "point at loopback and private addresses (intranets, tests)")
    p.add_argument("--name", "--hostname", dest="name", help="the worker's name in -job-status, unique in the "
                   "cluster (NAME, or NAME@HOST; %%h is this machine's host name, added when no @HOST is given; a name "
                   "a running worker has is refused; default: pubfetch-PID@HOST)")
    p.add_argument("--import-dir", metavar="DIR", help="the bulk files a queued -db-import-medline or -db-import-jats "
                   "names are read in this directory (by name only), and those it gives by HTTPS URL downloaded into "
                   "it; without it the worker refuses imports (default $PUBFETCH_IMPORT_DIR)")
    p.add_argument("--loglevel", default="INFO")
    return p


def main(argv: Sequence[str]) -> int:
    opts = parser().parse_args(list(argv))
    if opts.concurrency is None:
        opts.concurrency = THREADS if opts.pool == "threads" else os.cpu_count() or 1
    if opts.concurrency < 1:
        return _usage("--concurrency must be at least 1")
    if opts.grace_period < MIN_GRACE_S:
        return _usage(f"--grace-period must be at least {MIN_GRACE_S:.0f} s (workers renew their batches every "
                      "quarter of it)")
    try:
        backend = default_backend(opts.broker)
        # the tasks (threads, or processes forked from this one after the app is made) read these settings from the app
        worker = WorkerSettings(opts.db, shared_rate_db(opts.rate_db, opts.broker, backend),
                                opts.allow_private_addresses, _import_dir(opts.import_dir))
        app = make_app(opts.broker, grace=opts.grace_period, worker=worker)
    except ValueError as e:
        return _usage(str(e))
    from pubfetch.distributed.liveness import NameTaken, install

    name = node_name(opts.name) if opts.name else f"pubfetch-{os.getpid()}@%h"
    try:
        # only a chosen name is claimed: the default one is unique by construction
        install(app, opts.broker, backend, opts.grace_period, node_name(opts.name) if opts.name else "")
    except NameTaken as e:
        return _usage(str(e))
    except Exception as e:  # redis-py's connection errors
        return _usage(f"cannot reach the results' Redis {shown_url(backend)} to claim the name {name} "
                      f"({type(e).__name__}); start it, or leave --name out")
    # a refused or failed batch is logged once, by the task, in one line; Celery's own line about it would repeat it
    logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
    if opts.pool == "threads":
        from celery.signals import worker_ready, worker_shutting_down

        worker_ready.connect(_end_at_sigquit, weak=False)
        worker_shutting_down.connect(_end_at_next_interrupt, weak=False)
    celery_argv = ["worker", f"--loglevel={opts.loglevel}", f"--concurrency={opts.concurrency}", f"--pool={opts.pool}",
                   "--without-gossip", "--without-mingle", f"--hostname={name}"]
    app.worker_main(celery_argv)
    return 0


def _import_dir(given: str | None) -> str | None:
    """The worker's directory of bulk files: the option, else the setting (``$PUBFETCH_IMPORT_DIR``, config file)."""
    if given:
        return os.path.abspath(given)
    from pubfetch.config import FetchConfig

    configured = FetchConfig.from_env().bulk.import_dir
    return os.path.abspath(configured) if configured else None


def shared_rate_db(rate_db: str | None, broker: str, backend: str) -> str | None:
    """Where the worker keeps the rate limits: ``--rate-db``, else the queue's Redis, else the results' one (which a
    RabbitMQ queue needs anyway), so that every worker of a cluster shares them without being told."""
    return rate_db or next((url for url in (broker, backend) if is_redis(url)), None)


def node_name(name: str) -> str:
    """The worker's full name as Celery will give it: NAME@HOST, ``%h`` (and Celery's ``%n``, ``%d``) expanded."""
    from celery.utils.nodenames import host_format

    return host_format(name if "@" in name else f"{name}@%h")


def _end_at_sigquit(**_: object) -> None:
    _ending_on("SIGQUIT")


def _end_at_next_interrupt(how: str = "", **_: object) -> None:
    if how == "Warm":  # the first Ctrl-C or a SIGTERM: the batches in hand are finished, unless interrupted again
        _ending_on("SIGINT", "SIGQUIT")


def _ending_on(*names: str) -> None:
    """A threads worker ends at once on these signals (SIGQUIT, or Ctrl-C once a warm shutdown has begun). Threads
    cannot be killed, so Celery's cold shutdown would wait for the batches in hand to end while saying it terminates
    them, and log its pool's failure to. Ending the process leaves them unacknowledged: they go back to the queue as a
    lost worker's do (at once on RabbitMQ, after the grace period on Redis) and are stored once by whoever fetches
    them. Signal handlers are set from the main thread only, where Celery sends these events."""
    for name in names:
        with contextlib.suppress(ValueError):
            signal.signal(getattr(signal, name), _end_now)


def _end_now(signum: int, _frame: object) -> None:
    print(f"pubfetch worker: stopped by {signal.Signals(signum).name}: the batches it held go back to the queue (at "
          "once on RabbitMQ, after the grace period on Redis)", file=sys.stderr, flush=True)
    os._exit(1)


def _usage(message: str) -> int:
    print(f"pubfetch: error: {message}", file=sys.stderr)
    return 2
