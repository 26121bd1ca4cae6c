"""The 50,000-hit search on both services with their real limits, in simulated time: how close does it come to the
least time the limits allow?

The search services of tests/support/search_services.py (built from the recorded answers) answer in this process;
the shared rate limiter (its real code, with the documented windows: Europe PMC 10/s and 500/min, NCBI 3/s) runs on a
simulated clock that moves only when it sleeps, so the figure is the schedule's own, free of this machine's speed.
The bound is benchmarks/bound.py's: the least time the service's windows allow for the requests made.

    python benchmarks/searchbench.py [--hits 50000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bound import least_seconds  # noqa: E402
from pubfetch.config.limits import DOCUMENTED  # noqa: E402
from pubfetch.net.ratelimit import SharedRateLimiter, default_limits  # noqa: E402
from pubfetch.searching import open_search  # noqa: E402
from support.limiters import FakeTime  # noqa: E402
from support.search_services import SearchServices, search_context  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus"


def run(source: str, hits: int) -> tuple[int, int, float, float]:
    """(IDs found, requests, simulated seconds, bound seconds) of one search."""
    fake = FakeTime()
    services = SearchServices(CORPUS, hits, per_day=40, clock=fake.clock)
    with tempfile.TemporaryDirectory() as tmp:
        limiter = SharedRateLimiter(Path(tmp) / "rates.sqlite", default_limits(), clock=fake.clock, sleep=fake.sleep)
        ctx = search_context(services, limiter=limiter, sleep=fake.sleep)
        started = fake.now
        found = sum(1 for _ in open_search(ctx, source, "benchmark"))
        took = fake.now - started
    key = "europepmc" if source == "europepmc" else "ncbi"
    requests = len(services.requests)
    # the first request goes at once: the bound is the spacing of the others
    return found, requests, took, least_seconds(requests - 1, DOCUMENTED[key].windows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hits", type=int, default=50_000)
    hits = parser.parse_args().hits
    print("| search | hits found | requests | simulated wall | rate-limit bound | wall / bound |")
    print("|---|---|---|---|---|---|")
    for source in ("europepmc", "pubmed"):
        found, requests, took, bound = run(source, hits)
        print(f"| {source} | {found:,} | {requests} | {took:.1f} s | {bound:.1f} s | {took / bound:.2f} |")


if __name__ == "__main__":
    main()
