"""The bulk import's speed and memory: a synthetic PubMed baseline made of the corpus's record shapes, parsed alone,
imported into SQLite and PostgreSQL, and imported by two cluster workers; pubmed_parser's parse-only speed on the same
file beside it when it is installed.

```sh
python benchmarks/bulkbench.py --records 1000000      # the issue's size (hours on a busy 2-core machine)
python benchmarks/bulkbench.py --records 60000        # what fits in minutes; the report extrapolates
python benchmarks/bulkbench.py --runs sqlite --records 1000000 --side-records 60000   # SQLite at 1M only
```

Per core is records per second divided by the worker processes parsing and storing (PostgreSQL's own CPU, and the
SQLite writer's waits for the lock, are not taken out). Memory: the peak resident size (VmHWM) of the import's largest
process (the main one or a worker) when 10 % of the records are stored and at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from machine import _version, describe  # noqa: E402
from support.bulkfiles import write_synthetic  # noqa: E402
from support.pgdb import own_database  # noqa: E402

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS = "redis://127.0.0.1:6379/14"
NLM_FILE_RECORDS = 30_000
FULL_BASELINE = 38_000_000


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PUBFETCH_")}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def make_files(directory: Path, records: int, per_file: int) -> list[Path]:
    files = []
    for i, start in enumerate(range(0, records, per_file)):
        n = min(per_file, records - start)
        files.append(write_synthetic(directory / f"pubmed26n{i + 1:04d}.xml.gz", n, 90_000_001 + start))
    return files


def parse_alone(files: list[Path]) -> dict[str, float]:
    from pubfetch.bulk.medline import read_medline

    started, cpu, n = time.perf_counter(), time.process_time(), 0
    for f in files:
        n += sum(1 for _ in read_medline(str(f), f.name))
    took, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"records": n, "seconds": round(took, 1), "per_core": round(n / took, 1),
            "per_cpu_second": round(n / cpu, 1)}


def pubmed_parser_alone(files: list[Path]) -> dict[str, object]:
    try:
        import pubmed_parser
    except ImportError:
        return {"installed": False}
    started, cpu, n = time.perf_counter(), time.process_time(), 0
    for f in files:
        n += sum(1 for _ in pubmed_parser.parse_medline_xml(str(f)))
    took, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"installed": True, "version": _version("pubmed_parser"), "records": n, "seconds": round(took, 1),
            "per_core": round(n / took, 1), "per_cpu_second": round(n / cpu, 1)}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _peak_kb(pid: int) -> int:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def _tree(pid: int) -> list[int]:
    """The process and its descendants (the import's worker processes), from /proc's parent links."""
    parents: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError), open(f"/proc/{entry.name}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
                parents.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo += parents.get(current, [])
    return out


class TreePeak:
    """The largest peak RSS (VmHWM) of any one process of an import (the main one or a worker), sampled."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.per_pid: dict[int, int] = {}

    def sample(self) -> int:
        for pid in _tree(self.pid):
            kb = _peak_kb(pid)
            if kb:
                self.per_pid[pid] = max(self.per_pid.get(pid, 0), kb)
        return max(self.per_pid.values(), default=0)


def _stored(db: Path, table: str) -> int:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
        try:
            return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def import_run(db: str, files: list[Path], workers: int, records: int, watch: Path | None = None,
               operation: str = "-db-import-medline", counted: str = "pubmed_versions") -> dict[str, object]:
    """``pubfetch -db-import-medline`` (or ``operation``) as a user runs it; with ``watch`` (its SQLite file), the peak
    RSS of its largest process (the main one or a worker) when 10 % of the records are stored (rows of ``counted``),
    and at the end."""
    command = [sys.executable, "-m", "pubfetch", operation, db, *map(str, files), "--workers", str(workers)]
    started, cpu = time.perf_counter(), _children_cpu()
    proc = subprocess.Popen(command, env=environment(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    peak = TreePeak(proc.pid)
    at_tenth: list[int] = []
    loads: list[float] = []
    last_check = 0.0
    while proc.poll() is None:
        now_peak = peak.sample()
        loads.append(os.getloadavg()[0])
        if watch is not None and not at_tenth and time.perf_counter() - last_check > 2:
            last_check = time.perf_counter()
            if _stored(watch, counted) >= records // 10:
                at_tenth.append(now_peak)
        time.sleep(0.5)
    _, err = proc.communicate()
    took, cpu = time.perf_counter() - started, _children_cpu() - cpu
    if proc.returncode != 0:
        raise RuntimeError(f"import failed: {err[-2000:]}")
    row: dict[str, object] = {"records": records, "workers": workers, "seconds": round(took, 1),
                              "per_second": round(records / took, 1), "per_core": round(records / took / workers, 1),
                              "cpu_seconds": round(cpu, 1), "per_cpu_second": round(records / cpu, 1),
                              "load_average_mean": round(sum(loads) / max(len(loads), 1), 2)}
    if watch is not None:
        row.update(peak_rss_mb_10pct=round((at_tenth[0] if at_tenth else 0) / 1024, 1),
                   peak_rss_mb_100pct=round(peak.sample() / 1024, 1))
    return row


@contextlib.contextmanager
def pg_database() -> Iterator[str | None]:
    try:
        import psycopg

        admin = psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=5)
    except Exception as e:  # psycopg missing or the server away: said in the report
        print(f"PostgreSQL not reachable ({type(e).__name__}); its rows are left out", file=sys.stderr)
        yield None
        return
    with own_database(admin, f"pubfetch_bulkbench_{os.getpid()}") as url:
        yield url


def _tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process and its live descendants, from /proc."""
    total = 0
    for member in _tree(pid):
        with contextlib.suppress(OSError, ValueError, IndexError), open(f"/proc/{member}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _wait_ready(logs: list[Path], timeout: float = 600) -> None:
    """Until every worker's log says it is ready (a worker's start is not the import's time)."""
    deadline = time.monotonic() + timeout
    while not all(" ready." in p.read_text(errors="replace") for p in logs):
        if time.monotonic() > deadline:
            raise RuntimeError(f"workers not ready after {timeout:.0f} s")
        time.sleep(0.5)


def cluster_run(files: list[Path], records: int) -> dict[str, object]:
    """Two ``pubfetch worker``s importing the files (all of their directory) by name into one PostgreSQL database:
    timed from the submission (the workers ready: their start is not counted) to the submitter's end; per CPU-second
    is over the CPU time the workers' processes spent meanwhile (PostgreSQL's own not counted)."""
    prefix = f"bulkbench-{os.getpid()}:"
    queue = f"{REDIS}?prefix={prefix}"
    logs = [files[0].parent.parent / f"worker{i}.log" for i in range(2)]
    with pg_database() as db:
        if db is None:
            return {}
        workers = [subprocess.Popen([sys.executable, "-m", "pubfetch", "worker", "--broker", queue, "--db", db,
                                     "--import-dir", str(files[0].parent), "--concurrency", "1"],
                                    env=environment(), cwd=REPO, stdout=subprocess.DEVNULL,
                                    stderr=log.open("w"), start_new_session=True) for log in logs]
        try:
            started_up = time.perf_counter()
            _wait_ready(logs)
            start_up = time.perf_counter() - started_up
            cpu_before = sum(_tree_cpu(w.pid) for w in workers)
            started, submitter_cpu = time.perf_counter(), _children_cpu()
            done = subprocess.run([sys.executable, "-m", "pubfetch", "-db-import-medline", db, str(files[0].parent),
                                   "--queue", queue], env=environment(), cwd=REPO, capture_output=True, text=True)
            took, submitter_cpu = time.perf_counter() - started, _children_cpu() - submitter_cpu
            cpu = sum(_tree_cpu(w.pid) for w in workers) - cpu_before
            load = os.getloadavg()[0]
        finally:
            for w in workers:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(w.pid, 15)
            for w in workers:
                w.wait(60)
        if done.returncode != 0:
            raise RuntimeError(f"cluster import failed: {done.stderr[-2000:]}")
    return {"records": records, "files": len(files), "workers": 2, "workers_start_seconds": round(start_up, 1),
            "seconds": round(took, 1), "per_second": round(records / took, 1),
            "per_core": round(records / took / 2, 1), "workers_cpu_seconds": round(cpu, 1),
            "per_cpu_second": round(records / cpu, 1) if cpu else None,
            "submitter_cpu_seconds": round(submitter_cpu, 1), "load_average_at_end": round(load, 2)}


RUNS = ("sqlite_1_worker", "sqlite", "postgresql", "cluster")


def _subset(directory: Path, files: list[Path], records: int, per_file: int) -> tuple[list[Path], int]:
    """The first files holding ``records`` (hard links in a directory of their own, for a smaller side run)."""
    count = max(1, -(-records // per_file))
    if count >= len(files):
        return files, records
    directory.mkdir()
    linked = []
    for f in files[:count]:
        os.link(f, directory / f.name)
        linked.append(directory / f.name)
    return linked, min(records, count * per_file)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=1_000_000)
    p.add_argument("--per-file", type=int, default=NLM_FILE_RECORDS, help="records per file (NLM's: 30,000)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--runs", default=",".join(RUNS), help=f"which imports, of {', '.join(RUNS)}")
    p.add_argument("--side-records", type=int, default=0,
                   help="records of the PostgreSQL and cluster runs when fewer than --records (the first files)")
    p.add_argument("--out", type=Path, default=REPO / "benchmarks" / "bulk_results.json")
    opts = p.parse_args()
    runs = set(opts.runs.split(","))
    results: dict[str, object] = {"machine": describe(), "records": opts.records}

    def save() -> None:
        opts.out.write_text(json.dumps(results, indent=2) + "\n")

    with tempfile.TemporaryDirectory(prefix="bulkbench-") as tmp:
        directory = Path(tmp) / "files"
        directory.mkdir()
        started = time.perf_counter()
        files = make_files(directory, opts.records, opts.per_file)
        results["generated"] = {"seconds": round(time.perf_counter() - started, 1),
                                "bytes": sum(f.stat().st_size for f in files)}
        results["parse_alone"] = parse_alone(files[:1])
        results["pubmed_parser_parse_alone"] = pubmed_parser_alone(files[:1])
        save()
        if "sqlite_1_worker" in runs:
            db = Path(tmp) / "one.db"
            results["sqlite_1_worker"] = import_run(str(db), files, 1, opts.records, watch=db)
            results["sqlite_bytes_per_record"] = round(sum(p.stat().st_size for p in Path(tmp).glob("one.db*"))
                                                       / opts.records)
            save()
        if "sqlite" in runs:
            db = Path(tmp) / "many.db"
            results[f"sqlite_{opts.workers}_workers"] = import_run(str(db), files, opts.workers, opts.records,
                                                                    watch=db)
            results["sqlite_bytes_per_record"] = round(sum(p.stat().st_size for p in Path(tmp).glob("many.db*"))
                                                       / opts.records)
            save()
        side, side_records = _subset(Path(tmp) / "side", files, opts.side_records or opts.records, opts.per_file)
        if "postgresql" in runs:
            with pg_database() as pg:
                if pg is not None:
                    results[f"postgresql_{opts.workers}_workers"] = import_run(pg, side, opts.workers, side_records)
            save()
        if "cluster" in runs:
            results["cluster_2_workers_postgresql"] = cluster_run(side, side_records)
        results["load_average_at_end"] = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    save()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
