"""One timed ``python -m pubfetch -pub-file ... -db-fetch-end ...`` run against the hosted synthetic services.

The run is a real child process, as in a pipeline: its wall time includes start-up, its peak RSS is the child's own
``ru_maxrss`` (from ``os.wait4``, so earlier runs do not mask it), and the request counts are the server's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bound import lower_bound
from services import HostedServices

REPO = Path(__file__).resolve().parents[1]

#: Server-side service names -> table column headings, in table order.
SERVICES: dict[str, str] = {
    "europepmc_search": "EPMC search",
    "europepmc_fulltext": "EPMC full text",
    "annotations": "annotations",
    "ncbi": "E-utilities",
    "other": "PubMed pages",
    "doi": "doi.org",
    "unpaywall": "Unpaywall",
}


@dataclass
class FetchRun:
    """What one run cost."""

    ids: int
    batch_size: int
    wall_s: float
    peak_rss_mb: float
    exit_status: int
    cpu_s: float = 0.0
    requests: dict[str, int] = field(default_factory=dict)
    too_many: int = 0
    stderr_tail: str = ""
    repeats: int = 0
    injected: int = 0
    bound_s: float = 0.0
    binding: str = ""

    @property
    def total_requests(self) -> int:
        return sum(self.requests.get(s, 0) for s in SERVICES)

    def per_publication(self, service: str | None = None) -> float:
        count = self.total_requests if service is None else self.requests.get(service, 0)
        return count / self.ids if self.ids else 0.0


def write_id_file(path: Path, pmids: list[str]) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(pmid + "\n" for pmid in pmids)
    return path


def child_env(hosted: HostedServices, rate_db: Path) -> dict[str, str]:
    """The environment of the pubfetch child: these services, a fresh rate-limit file, nothing of the caller's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PUBFETCH_") and k != "NCBI_API_KEY"}
    env.update(hosted.endpoint_env())
    env["PUBFETCH_RATE_DB"] = str(rate_db)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_pubfetch(argv: list[str], env: dict[str, str], timeout_s: float) -> tuple[int, float, float, float, str]:
    """(exit status, wall seconds, CPU seconds, peak RSS in MB, last lines of stderr) of ``python -m pubfetch argv``."""
    with tempfile.TemporaryFile() as err:
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "pubfetch", *argv], env=env, stdout=subprocess.DEVNULL,
                                stderr=err)
        deadline = started + timeout_s
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        wall = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode("utf-8", "replace")[-2000:]
    cpu = usage.ru_utime + usage.ru_stime
    return proc.returncode, wall, cpu, usage.ru_maxrss / 1024, tail  # ru_maxrss is in KiB on Linux


def fetch_run(hosted: HostedServices, pmids: list[str], batch_size: int, workdir: Path, *,
              rate_limits: bool = True, timeout_s: float = 6 * 3600, fail_every_third: bool = False,
              latency: float = 0.1) -> FetchRun:
    """Fetch ``pmids`` into a new database with ``--batch-size batch_size``; the server's counts are reset first.
    ``fail_every_third``: the server answers the first try of every third distinct request 503 + Retry-After 1."""
    tag = f"{len(pmids)}-{batch_size}-{'limited' if rate_limits else 'free'}-{'flaky' if fail_every_third else 'ok'}"
    ids = write_id_file(workdir / f"ids-{tag}.txt", pmids)
    db = workdir / f"pubs-{tag}.db"
    env = child_env(hosted, workdir / f"rates-{tag}.sqlite")
    status, _, _, _, tail = run_pubfetch(["-db-init", str(db)], env, 120)
    if status != 0:
        raise RuntimeError(f"pubfetch -db-init failed: {tail}")
    hosted.reset()
    hosted.services.fail_every_third = fail_every_third
    argv = ["-pub-file", str(ids), "-db-fetch-end", str(db), "--batch-size", str(batch_size),
            "--allow-private-addresses", "--quiet"]
    if not rate_limits:
        argv.append("--no-rate-limit")
    status, wall, cpu, rss, tail = run_pubfetch(argv, env, timeout_s)
    if status not in (0, 1):  # 1: the closed-access half has no full text anywhere, so it is not final
        raise RuntimeError(f"pubfetch exited with {status}: {tail}")
    services = hosted.services
    services.fail_every_third = False
    counts = services.counts
    wasted = services.repeats + services.too_many + services.injected
    bound = lower_bound(dict(counts), dict(wasted), latency)
    return FetchRun(len(pmids), batch_size, wall, rss, status, cpu, {s: counts.get(s, 0) for s in SERVICES},
                    sum(services.too_many.values()), tail, sum(services.repeats.values()),
                    sum(services.injected.values()), bound.seconds, bound.binding)
