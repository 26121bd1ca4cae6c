"""Celery workers on one machine: a worker fetching 1, 2 and 4 batches at a time (``--pool threads``, pubfetch's
default, or ``--pool prefork``) into PostgreSQL, and a run in which one of two workers is killed with SIGKILL (its
whole process group, as a lost machine) a third of the way.

The services are the hosted synthetic ones (100 ms latency, 429 beyond each service's documented rate); a third of the
publications are closed-access papers whose DOI leads to a publisher page with a 10-page PDF, so a third of the work is
CPU-bound PDF extraction. Workers share the rate limits in Redis. Needs the machine's PostgreSQL (127.0.0.1:5432) and
Redis (127.0.0.1:6379, DB 12, keys under a prefix of the run's own, deleted afterwards).

    python benchmarks/cluster.py                 # 150 IDs; prints the table of benchmarks/README.md
    python benchmarks/cluster.py --ids 300 --workers 1,2,4 --pool prefork
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from bound import least_seconds
from documents import text_pdf
from fetchbench import SERVICES
from services import HostedServices
from support.procs import stop_process_groups
from support.synthetic import SCHOLARLY_OFF_ENV, Article, Reply

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pubfetch.config.limits import DOCUMENTED  # noqa: E402
from pubfetch.distributed.submit import Job, submit, wait  # noqa: E402
from pubfetch.store import init_store, open_store  # noqa: E402

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS = "redis://127.0.0.1:6379/12"
PDF_PAGES = 10


@dataclass
class ClusterRun:
    label: str
    ids: int
    wall_s: float
    per_pub: dict[str, float]
    too_many: int
    bound_s: float
    stored: int
    distinct: int
    killed: str = ""
    recover_s: float = 0.0  # from the kill until every batch the killed worker held was done by another
    redone: int = 0  # batches given again after the loss


def add_pdf_mix(hosted: HostedServices, n: int) -> int:
    """A third of the publications (closed access, index % 6 in 1, 3) get a DOI page linking a 10-page PDF."""
    services = hosted.services
    base = hosted.endpoint_env()["PUBFETCH_DOI_URL"].rsplit("/doi/", 1)[0]
    count = 0
    for i in range(n):
        if i % 6 not in (1, 3):
            continue
        a = Article(i)
        page = (f'<html><head><title>{a.title}</title><meta name="citation_title" content="{a.title}">'
                f'<meta name="citation_pdf_url" content="{base}/files/{i}.pdf"></head>'
                f"<body><h1>{a.title}</h1><p>Landing page.</p></body></html>")
        services.extra[f"/doi/{a.doi.upper()}"] = Reply(302, "", "text/plain", {"Location": f"{base}/article/{i}"})
        services.extra[f"/article/{i}"] = Reply(200, page)
        services.extra[f"/files/{i}.pdf"] = Reply(200, text_pdf(i, PDF_PAGES), "application/pdf")
        count += 1
    return count


def rate_bound(counts: Counter[str]) -> float:
    """Seconds the busiest service needs at pubfetch's own limits for the requests the run made (the floor of any run
    that gets no 429); the publisher pages and PDFs share one host's limit."""
    per_key = Counter[str]()
    for service, n in counts.items():
        if service in ("ncbi", "other"):
            per_key["ncbi"] += n
        elif service.startswith("europepmc"):
            per_key["europepmc"] += n
        elif service == "annotations":
            per_key["europepmc_annotations"] += n
        elif service.startswith("extra:/doi/") or service == "doi":
            per_key["doi"] += n
        elif service.startswith("extra:"):
            per_key["host"] += n
        elif service in DOCUMENTED:
            per_key[service] += n
    return max((least_seconds(n, DOCUMENTED[key].windows) for key, n in per_key.items()), default=0.0)


def worker_cmd(broker: str, db: str, concurrency: int, name: str, grace: float, pool: str) -> list[str]:
    return [sys.executable, "-m", "pubfetch", "worker", "--broker", broker, "--db", db, "--concurrency",
            str(concurrency), "--pool", pool, "--name", f"{name}@%h", "--allow-private-addresses", "--loglevel",
            "WARNING", "--grace-period", str(grace)]


def start_workers(cmds: list[list[str]], env: dict[str, str], logdir: Path) -> list[subprocess.Popen[bytes]]:
    procs = []
    for k, cmd in enumerate(cmds):
        with open(logdir / f"worker{k}.log", "wb") as log:
            procs.append(subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
    time.sleep(3)  # pool processes forked and connected
    return procs



def one_run(hosted: HostedServices, label: str, worker_specs: list[int], batch: int, logdir: Path,
            kill_after: int = 0, grace: float = 60.0, pool: str = "threads") -> ClusterRun:
    """Fetch every ID with workers of the given pool sizes (batches at a time, as ``pool`` threads or processes); with
    ``kill_after``, SIGKILL the first worker (its whole process group) once that many batches are done and it holds a
    batch, and time until the batches it held are done by the other worker."""
    import psycopg

    tag = uuid.uuid4().hex[:8]
    dbname = f"pubfetch_bench_{tag}"
    broker = f"{REDIS}?prefix=bench-{tag}:"
    db = f"postgresql://postgres@127.0.0.1:5432/{dbname}"
    init_store(db).close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PUBFETCH_") and k != "NCBI_API_KEY"}
    env.update(hosted.endpoint_env())
    env.update(SCHOLARLY_OFF_ENV)  # PMIDs only, as before the scholarly APIs (benchmarks/scholarly.py: those)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    procs = start_workers([worker_cmd(broker, db, c, f"w{k}-{tag}", grace, pool)
                           for k, c in enumerate(worker_specs)], env, logdir)
    pmids = hosted.services.pmids()
    hosted.reset()
    killed, recover = "", 0.0
    try:
        started = time.monotonic()
        job = submit(pmids, db, broker, batch_size=batch)
        if kill_after:
            victim = f"w0-{tag}@"
            with Job(broker) as follow:
                while True:
                    state = follow.status(job)
                    held = {b.number for b in state.open_batches if b.state == "running" and b.holding is not None
                            and b.holding.worker.startswith(victim)}
                    if state.done >= kill_after and held:
                        break
                    time.sleep(0.2)
                os.killpg(procs[0].pid, signal.SIGKILL)
                killed_at = time.monotonic()
                killed = (f"worker 1 of {len(procs)} killed after {kill_after} batches, holding {len(held)}; "
                          f"grace {grace:.0f} s")
                while held & {b.number for b in follow.status(job).open_batches}:
                    time.sleep(0.2)
                recover = time.monotonic() - killed_at
        status = wait(job, broker, timeout=3600)
        wall = time.monotonic() - started
    finally:
        stop_process_groups(procs)
    with open_store(db) as store:
        stored = store.publications_size()
        distinct = len({ids.pmid for ids in store.publication_ids()})
    with psycopg.connect(PG_ADMIN, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
    import redis

    client = redis.Redis.from_url(REDIS)
    keys = list(client.scan_iter(match=f"bench-{tag}:*"))
    if keys:
        client.delete(*keys)
    if status.failed:
        raise RuntimeError(f"{label}: {status}")
    run = _result(label, hosted, len(pmids), wall, stored, distinct, killed)
    run.recover_s, run.redone = recover, status.redone
    return run


def single_process_run(hosted: HostedServices, batch: int, workdir: Path) -> ClusterRun:
    """The same IDs fetched by one ``pubfetch -db-fetch-end`` process without a queue: the requests per publication a
    cluster must not exceed."""
    pmids = hosted.services.pmids()
    ids = workdir / "ids.txt"
    ids.write_text("".join(p + "\n" for p in pmids), encoding="utf-8")
    db = workdir / f"single-{uuid.uuid4().hex[:8]}.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PUBFETCH_") and k != "NCBI_API_KEY"}
    env.update(hosted.endpoint_env())
    env.update(SCHOLARLY_OFF_ENV)  # PMIDs only, as before the scholarly APIs (benchmarks/scholarly.py: those)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["PUBFETCH_RATE_DB"] = str(workdir / f"rates-{uuid.uuid4().hex[:8]}.sqlite")
    hosted.reset()
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "pubfetch", "-pub-file", str(ids), "-db-fetch-end", str(db), "--batch-size",
                    str(batch), "--allow-private-addresses", "--quiet"], env=env, capture_output=True, check=False)
    wall = time.monotonic() - started
    with open_store(db) as store:
        stored = store.publications_size()
        distinct = len({i.pmid for i in store.publication_ids()})
    return _result("1 process, no queue", hosted, len(pmids), wall, stored, distinct)


def _result(label: str, hosted: HostedServices, n: int, wall: float, stored: int, distinct: int,
            killed: str = "") -> ClusterRun:
    counts = Counter(hosted.services.counts)
    per_pub = {SERVICES[s]: counts[s] / n for s in SERVICES}
    per_pub[SERVICES["doi"]] += sum(v for k, v in counts.items() if k.startswith("extra:/doi/")) / n
    per_pub["publisher pages+PDFs"] = sum(v for k, v in counts.items() if k.startswith(("extra:/article", "extra:/files"))) / n
    return ClusterRun(label, n, wall, per_pub, sum(hosted.services.too_many.values()), rate_bound(counts), stored,
                      distinct, killed)


def table(runs: list[ClusterRun]) -> list[str]:
    services = list(runs[0].per_pub)
    head = ["run", "IDs", "wall", "bound", "wall / bound", "429s", "stored", "lost", "duplicated", "recovered after",
            "batches redone", *services]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in runs:
        cells = [r.label + (f" ({r.killed})" if r.killed else ""), str(r.ids), f"{r.wall_s:.1f} s", f"{r.bound_s:.1f} s",
                 f"{r.wall_s / r.bound_s:.2f}" if r.bound_s else "-", str(r.too_many), str(r.stored),
                 str(r.ids - r.distinct), str(r.stored - r.distinct), f"{r.recover_s:.1f} s" if r.killed else "",
                 str(r.redone) if r.killed else "", *(f"{r.per_pub[s]:.2f}" for s in services)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ids", type=int, default=150)
    p.add_argument("--workers", default="1,2,4", help="a worker's batches at a time (--concurrency) to compare")
    p.add_argument("--pool", choices=("threads", "prefork"), default="threads",
                   help="the workers' --pool (default: pubfetch's, threads)")
    p.add_argument("--batch-size", type=int, default=10)
    p.add_argument("--latency", type=float, default=0.1)
    p.add_argument("--no-kill", action="store_true", help="skip the SIGKILL run")
    p.add_argument("--grace", type=float, default=60.0, help="the workers' --grace-period (default: pubfetch's, 60)")
    p.add_argument("--json", type=Path, help="also write the rows here")
    opts = p.parse_args(argv)
    logdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"pubfetch-cluster-bench-{os.getpid()}"
    logdir.mkdir(parents=True, exist_ok=True)
    runs = []
    with HostedServices(opts.ids, latency=opts.latency) as hosted:
        pdfs = add_pdf_mix(hosted, opts.ids)
        print(f"{opts.ids} IDs, {pdfs} with a {PDF_PAGES}-page PDF, batches of {opts.batch_size}", file=sys.stderr)
        runs.append(single_process_run(hosted, opts.batch_size, logdir))
        print("\n".join(table(runs[-1:])), file=sys.stderr)
        for k in (int(x) for x in opts.workers.split(",") if x):
            label = f"1 worker, {k} batch{'es' if k > 1 else ''} at a time ({opts.pool})"
            runs.append(one_run(hosted, label, [k], opts.batch_size, logdir, pool=opts.pool))
            print("\n".join(table(runs[-1:])), file=sys.stderr)
        if not opts.no_kill:
            batches = -(-opts.ids // opts.batch_size)
            runs.append(one_run(hosted, f"2 workers x 2 batches ({opts.pool})", [2, 2], opts.batch_size, logdir,
                                kill_after=batches // 3, grace=opts.grace, pool=opts.pool))
    print("\n".join(table(runs)))
    if opts.json:
        opts.json.write_text(json.dumps([asdict(r) for r in runs], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
