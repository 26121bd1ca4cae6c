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
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from batchcount import batched_counts, with_smallest_sets
from bound import lower_bound
from idle import idle_with_waiting_work
from services import HOSTS, HostedServices
from support.synthetic import SCHOLARLY_OFF_ENV, SyntheticServices

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
    "publisher": "publisher pages",
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
    #: (fraction of the IDs started, the child's RSS then in MB, its peak RSS so far in MB) at each tenth of the run
    rss_by_tenth: list[tuple[float, float, float]] = field(default_factory=list)
    #: (seconds since the start, fraction of the IDs started, RSS in MB, peak RSS so far in MB) every few seconds:
    #: where in the run (the first pass, the end-of-run retry, the last seconds) the peak was reached
    rss_over_time: list[tuple[float, float, float, float]] = field(default_factory=list)
    #: seconds each host of a batched service was idle while a batch waited for it (idle.py)
    idle: dict[str, float] = field(default_factory=dict)
    #: batched step -> {"requests", "smallest", "ids_by_pass"} (batchcount.py), for the runs that keep their requests
    batched: dict[str, dict] = field(default_factory=dict)
    #: the lower bound with each batched step's requests replaced by its smallest set, and what sets it
    smallest_bound_s: float = 0.0
    smallest_binding: str = ""

    @property
    def idle_fraction(self) -> float:
        """The largest idle time with waiting work of a host, as a fraction of the wall time."""
        return max(self.idle.values(), default=0.0) / self.wall_s if self.wall_s else 0.0

    @property
    def total_requests(self) -> int:
        return sum(self.requests.get(s, 0) for s in SERVICES)

    def per_publication(self, service: str | None = None) -> float:
        count = self.total_requests if service is None else self.requests.get(service, 0)
        return count / self.ids if self.ids else 0.0


#: seconds between two samples of a sampled child's memory over time
SERIES_INTERVAL_S = 5.0


def write_id_file(path: Path, pmids: list[str]) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(pmid + "\n" for pmid in pmids)
    return path


def child_env(hosted: HostedServices, rate_db: Path) -> dict[str, str]:
    """The environment of the pubfetch child: these services, a fresh rate-limit file, nothing of the caller's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PUBFETCH_") and k != "NCBI_API_KEY"}
    env.update(hosted.endpoint_env())
    env.update(SCHOLARLY_OFF_ENV)  # the PMID runs measure what they always did (benchmarks/scholarly.py: the APIs)
    env["PUBFETCH_RATE_DB"] = str(rate_db)
    # doi.org only redirects and takes no connection slot (the unlimited_hosts setting names it); at a loopback
    # address it would take one, and its requests would wait behind each other as they never do in production
    config = rate_db.with_suffix(".config.yaml")
    config.write_text(f"unlimited_hosts: [doi.org, dx.doi.org, {HOSTS['doi'][0]}]\n", encoding="utf-8")
    env["PUBFETCH_CONFIG"] = str(config)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _memory_mb(pid: int) -> tuple[float, float] | None:
    """(VmRSS, VmHWM) of a running process in MB, from /proc (None where there is no /proc or it has ended)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            fields = dict(line.split(":", 1) for line in f if line.startswith(("VmRSS", "VmHWM")))
        return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024
    except (OSError, KeyError, ValueError):
        return None


@dataclass
class ChildRun:
    """What the operating system says of one finished pubfetch child."""

    exit_status: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    stderr_tail: str
    rss_by_tenth: list[tuple[float, float, float]]
    rss_over_time: list[tuple[float, float, float, float]]


#: ``python -m pubfetch``, writing the process's own peak RSS (VmHWM, KiB) at its exit to $PUBFETCH_BENCH_PEAK.
#: ``os.wait4``'s ru_maxrss cannot be used for it: Linux carries the forking parent's RSS at the fork into the child's
#: ru_maxrss across the exec, and the benchmark's parent holds the synthetic services (227 MB after serving a
#: 200,000-ID run; the second long-file run "peaked" at exactly that, its own peak being 144 MB). VmHWM belongs to the
#: process image the exec made.
_CHILD = """
import atexit, os, runpy, sys

def _peak():
    with open("/proc/self/status", encoding="ascii") as status:
        peak = [line.split()[1] for line in status if line.startswith("VmHWM")]
    with open(os.environ["PUBFETCH_BENCH_PEAK"], "w", encoding="ascii") as out:
        out.write(peak[0] if peak else "")

if os.path.exists("/proc/self/status"):
    atexit.register(_peak)
sys.argv[0] = "pubfetch"
runpy.run_module("pubfetch", run_name="__main__", alter_sys=True)
"""


def _own_peak_mb(path: str) -> float | None:
    try:
        with open(path, encoding="ascii") as f:
            return int(f.read().strip()) / 1024
    except (OSError, ValueError):
        return None


def run_pubfetch(argv: list[str], env: dict[str, str], timeout_s: float,
                 progress: Callable[[], float] | None = None) -> ChildRun:
    """Run ``python -m pubfetch argv`` to its end. ``progress`` (fraction of the work started, read while it runs)
    makes the child's memory be sampled each time another tenth is reached, so growth over a run shows, and every
    ``SERIES_INTERVAL_S`` seconds (the tenths are all reached before the end-of-run retry)."""
    samples: list[tuple[float, float, float]] = []
    series: list[tuple[float, float, float, float]] = []
    with tempfile.TemporaryFile() as err, tempfile.TemporaryDirectory() as tmp:
        peak_file = os.path.join(tmp, "peak")
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, *argv], env={**env, "PUBFETCH_BENCH_PEAK": peak_file},
                                stdout=subprocess.DEVNULL, stderr=err)
        deadline = started + timeout_s
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            if progress is not None:
                done = progress()
                if done >= 0.1 * (len(samples) + 1) and (memory := _memory_mb(proc.pid)) is not None:
                    samples.append((done, *memory))
                elapsed = time.monotonic() - started
                if elapsed >= SERIES_INTERVAL_S * len(series) and (memory := _memory_mb(proc.pid)) is not None:
                    series.append((round(elapsed, 1), done, *memory))
            time.sleep(0.05)
        wall = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode("utf-8", "replace")[-2000:]
        # ru_maxrss (KiB on Linux) only where the child could not say (killed, no /proc): it may be the parent's
        peak = _own_peak_mb(peak_file) or usage.ru_maxrss / 1024
    return ChildRun(proc.returncode, wall, usage.ru_utime + usage.ru_stime, peak, tail, samples, series)


def second_passes(services: SyntheticServices, on: bool) -> None:
    """The second-pass scenario (on) or the standard one: Europe PMC's search does not know a third of the PMIDs
    (their PMCID and DOI come from PubMed, and they search again by them), and for a sixth of the open-access ones
    PubMed names no PMCID either: their DOI resolves to a publisher page that does."""
    services.search_misses_pmid = (lambda a: a.index % 3 == 1) if on else (lambda a: False)
    services.pmcid_on_page_only = (lambda a: a.index % 12 == 4) if on else (lambda a: False)


def fetch_run(hosted: HostedServices, pmids: list[str], batch_size: int, workdir: Path, *,
              rate_limits: bool = True, timeout_s: float = 6 * 3600, fail_every_third: bool = False,
              latency: float = 0.1, failing: frozenset[str] = frozenset(), sample_memory: bool = False,
              second_pass: bool = False, parts: tuple[str, ...] = ()) -> FetchRun:
    """Fetch ``pmids`` into a new database with ``--batch-size batch_size``; the server's counts are reset first.
    ``fail_every_third``: the server answers the first try of every third distinct request 503 + Retry-After 1.
    ``failing``: services answering 503 with ``Retry-After: 0`` to every request of the run (without the header the
    client's backoff, 1 + 2 s per request, would make a long run last hours while measuring the same thing: what a
    run holds while everything waits for the end-of-run retry). ``sample_memory``: the child's RSS at each
    tenth of the IDs (counted as the Europe PMC searches asked for them). ``parts``: ``--fetch-part`` these only."""
    tag = (f"{len(pmids)}-{batch_size}-{'limited' if rate_limits else 'free'}-{'flaky' if fail_every_third else 'ok'}"
           f"-{'-'.join(sorted(failing)) or 'none'}-{'second' if second_pass else 'first'}"
           f"{'-subset' if parts else ''}")
    ids = write_id_file(workdir / f"ids-{tag}.txt", pmids)
    db = workdir / f"pubs-{tag}.db"
    env = child_env(hosted, workdir / f"rates-{tag}.sqlite")
    init = run_pubfetch(["-db-init", str(db)], env, 120)
    if init.exit_status != 0:
        raise RuntimeError(f"pubfetch -db-init failed: {init.stderr_tail}")
    hosted.reset()
    services = hosted.services
    services.fail_every_third = fail_every_third
    services.failing = set(failing)
    services.failing_retry_after = "0"
    second_passes(services, second_pass)
    log_file = workdir / f"log-{tag}.txt"
    timed = not sample_memory  # the long file's runs make too many requests to keep each one's times
    services.timeline = [] if timed else None
    argv = ["-pub-file", str(ids), "-db-fetch-end", str(db), "--batch-size", str(batch_size),
            "--allow-private-addresses", "--quiet"] + (["--log", str(log_file)] if timed else [])
    if not rate_limits:
        argv.append("--no-rate-limit")
    if parts:
        argv += ["--fetch-part", *parts]

    def started() -> float:
        return len(services.ids_asked.get("europepmc_search", ())) / len(pmids)

    child = run_pubfetch(argv, env, timeout_s, started if sample_memory else None)
    services.fail_every_third = False
    services.failing, services.failing_retry_after = set(), None
    second_passes(services, False)
    idle = idle_with_waiting_work(log_file, services.timeline) if timed and log_file.exists() else {}
    services.timeline = None
    if child.exit_status not in (0, 1):  # 1: the closed-access half has no full text anywhere, so it is not final
        raise RuntimeError(f"pubfetch exited with {child.exit_status}: {child.stderr_tail}")
    counts = services.counts
    wasted = services.repeats + services.too_many + services.injected
    bound = lower_bound(dict(counts), dict(wasted), latency)
    batched = batched_counts(services, services.server.requests) if timed else {}
    smallest = lower_bound(with_smallest_sets(dict(counts), batched), dict(wasted), latency)
    return FetchRun(len(pmids), batch_size, child.wall_s, child.peak_rss_mb, child.exit_status, child.cpu_s,
                    {s: counts.get(s, 0) for s in SERVICES}, sum(services.too_many.values()), child.stderr_tail,
                    sum(services.repeats.values()), sum(services.injected.values()), bound.seconds, bound.binding,
                    child.rss_by_tenth, child.rss_over_time, idle,
                    {step: asdict(count) for step, count in batched.items()}, smallest.seconds, smallest.binding)
