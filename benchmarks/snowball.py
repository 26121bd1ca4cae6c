"""The depth-2 snowball benchmark: ``pubfetch -pub SEED... -db-fetch-end DB --citations --depth 2`` in a child
process against the hosted synthetic services whose papers cite one another (tests/support/citation_graph.py), with
the services' real rate limits and latency, its wall time against the lower bound its own requests allow
(bound.py: the busiest documented rate window, or host connection).

A snowball fetches level by level: the links of a level are read (Europe PMC's citations, one request a paper;
ELink, many PMIDs a request) only once the level is fetched, and the next level is fetched only once its links are
read, so the hosts a level's fetch leaves idle wait for those requests. The benchmark measures what that costs
against the bound: besides wall / bound it gives the time to the first request (the child's start-up) and how long
Europe PMC's connection stood idle between its first and last request. ``python benchmarks/snowball.py [--fanout 10]
[--latency 0.1]`` prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bound import lower_bound  # noqa: E402
from fetchbench import child_env, run_pubfetch  # noqa: E402
from services import SERVER_LIMITS, HostedServices  # noqa: E402
from support.citation_graph import CitingServices  # noqa: E402

#: Europe PMC's citations endpoint is answered at Europe PMC's rate, as its search and full texts are
LIMITS = {**SERVER_LIMITS, "citations": 10.0}
#: the services of www.ebi.ac.uk, whose one connection is the bound of this run: how long it stood idle between its
#: first and last request says what the snowball's depth-by-depth order cost
EBI = frozenset({"europepmc_search", "europepmc_fulltext", "citations", "annotations"})
#: a gap between two requests to www.ebi.ac.uk longer than this is the connection waiting for work (a depth's end,
#: say), not the turnaround of one request to the next
LONG_GAP_S = 0.25


def snowball_run(fanout: int, latency: float, workdir: Path, seeds: int = 3, depth: int = 2) -> dict:
    """One snowball of ``depth`` from ``seeds`` papers each cited by ``fanout`` (so 3 + 30 + 300 papers at 10)."""
    papers = seeds * sum(fanout ** d for d in range(depth + 1))
    services = CitingServices(papers, seeds=seeds, fanout=fanout, latency=latency, limits=LIMITS)
    with HostedServices(papers, services=services) as hosted:
        db = workdir / "snowball.db"
        env = child_env(hosted, workdir / "rates.sqlite")
        argv = ["-pub", *services.pmids(seeds), "-db-fetch-end", str(db), "--citations", "--depth", str(depth),
                "--allow-private-addresses", "--quiet"]
        services.timeline = []
        load_before, started = os.getloadavg(), time.time()
        child = run_pubfetch(argv, env, 3600)
        load_after = os.getloadavg()
        first = min(start for _, start, _ in services.timeline) - started
        ebi = sorted((a, b) for s, a, b in services.timeline if s in EBI)
        idle, long_idle, end = 0.0, 0.0, ebi[0][1]
        for a, b in ebi[1:]:
            gap = max(0.0, a - end)
            idle, end = idle + gap, max(end, b)
            long_idle += gap if gap > LONG_GAP_S else 0.0
        if child.exit_status != 0:
            raise RuntimeError(f"pubfetch exited with {child.exit_status}: {child.stderr_tail}")
        counts = dict(services.counts)
        wasted = services.repeats + services.too_many + services.injected
        bound = lower_bound(counts, dict(wasted), latency)
    return {"papers": papers, "fanout": fanout, "depth": depth, "latency_s": latency, "wall_s": round(child.wall_s, 2),
            "bound_s": round(bound.seconds, 2), "binding": bound.binding,
            "wall_over_bound": round(child.wall_s / bound.seconds, 3), "cpu_s": round(child.cpu_s, 2),
            "first_request_s": round(first, 2), "ebi_idle_s": round(idle, 2), "ebi_long_gaps_s": round(long_idle, 2),
            "after_first_request_over_bound": round((child.wall_s - first) / bound.seconds, 3),
            "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in load_after], "too_many": sum(services.too_many.values()),
            "repeats": sum(services.repeats.values()), "requests": counts,
            "summary": child.stderr_tail.strip().splitlines()[-1] if child.stderr_tail.strip() else ""}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fanout", type=int, default=10, help="papers citing each paper (default 10)")
    parser.add_argument("--latency", type=float, default=0.1, help="seconds every answer takes (default 0.1)")
    opts = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(snowball_run(opts.fanout, opts.latency, Path(tmp))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
