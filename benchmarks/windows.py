"""Europe PMC's minute window over a long run, in simulated time: does a run at 10 requests a second for 20 minutes
get a 429 from a service enforcing 500 requests a minute?

The run is simulated event by event on a clock of its own, so 20 minutes take seconds: ``--processes`` pubfetch
processes, each with a limiter of its own on one shared store (the SQLite file, or Redis), ask Europe PMC for one
request after another. A process books its permit (the limiter's real code, on the simulated clock), its request
reaches the service after a network delay drawn from 0 to ``--delay-ms`` (the limiter's 50 ms slack covers up to that),
the service (tests/support/synthetic.py's window counting) admits it or answers 429 with Retry-After 1, which the
process passes to the limiter as the HTTP client does, and the answer comes back ``--latency-ms`` later. Each store is
run twice: with Europe PMC's documented windows (10/s and 500/min, pubfetch's limits now) and with the per-second
window alone (its limits before), which the service's minute window refuses.

It also times a permit (``acquire`` on a fake clock, so the time is the limiter's own: one SQLite transaction or one
Redis script; the best of 5 rounds), for a service without a rolling window and for Europe PMC's.

    python benchmarks/windows.py                        # SQLite and Redis (skipped in one line if unreachable)
    python benchmarks/windows.py --minutes 60 --processes 8 --backend sqlite
"""

from __future__ import annotations

import argparse
import heapq
import random
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from pubfetch.net.ratelimit import Limit  # noqa: E402
from support.limiters import FakeTime, book, most_in_any_span, open_limiter  # noqa: E402
from support.synthetic import ServiceLimit  # noqa: E402

#: What the synthetic Europe PMC enforces: its documented 10 a second and 500 a minute, rolling.
SERVICE_WINDOWS = ((10.0, 1.0), (500.0, 60.0))
#: pubfetch's limits for Europe PMC now (every documented window) and before (the per-second window alone).
LIMITS = {"windows": Limit.of([(10, 1), (500, 60)]), "per second only": Limit.of([(10, 1)])}
REDIS_URL = "redis://127.0.0.1:6379/14"


class SimClock:
    """The simulated time every process's limiter reads."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Outcome:
    store: str
    limits: str
    minutes: float
    admitted: int
    too_many: int
    most_per_minute: int
    most_per_second: int
    wall_s: float

    @property
    def rate(self) -> float:
        return self.admitted / (self.minutes * 60)


def simulate(store: str, where: str | Path, limit: Limit, minutes: float, processes: int, latency: float,
             delay: float, seed: int = 1) -> Outcome:
    """``processes`` processes asking one request after another for ``minutes`` of simulated time (see the module
    docstring); what the service admitted and refused."""
    clock = SimClock()
    start = clock.now
    limiters = [open_limiter(store, where, {"europepmc": limit}, clock) for _ in range(processes)]
    service = ServiceLimit.of(SERVICE_WINDOWS)
    rng = random.Random(seed)
    events: list[tuple[float, int, str, int]] = [(start, p, "ask", p) for p in range(processes)]
    heapq.heapify(events)
    order = processes  # ties broken by the order events were made
    admitted: list[float] = []
    too_many = 0
    began = time.perf_counter()
    while events:
        at, _, kind, p = heapq.heappop(events)
        clock.now = at
        if kind == "ask":
            if at >= start + minutes * 60:
                continue
            slot = book(limiters[p], "europepmc")
            heapq.heappush(events, (slot + rng.uniform(0.0, delay), order, "arrive", p))
        elif service.admit(at):
            admitted.append(at)
            heapq.heappush(events, (at + latency, order, "ask", p))
        else:
            too_many += 1
            limiters[p].penalize("europepmc", 1.0)  # the 429's Retry-After, as the client passes it on
            heapq.heappush(events, (at + latency, order, "ask", p))
        order += 1
    wall = time.perf_counter() - began
    for rl in limiters:
        getattr(rl, "close", lambda: None)()
    name = next(k for k, v in LIMITS.items() if v is limit)
    return Outcome(store, name, minutes, len(admitted), too_many, most_in_any_span(admitted, 60.0),
                   most_in_any_span(admitted, 1.0), wall)


def permit_cost(store: str, where: str | Path, limit: Limit, permits: int, rounds: int = 5) -> float:
    """Microseconds per ``acquire`` of one process on a fake clock (the limiter's own work, no waiting): the best of
    ``rounds`` rounds, since other programs on a shared machine only ever add to it."""
    fake = FakeTime()
    rl = open_limiter(store, where, {"x": limit}, fake.clock, fake.sleep)
    rl.acquire("x")
    best = float("inf")
    for _ in range(rounds):
        began = time.perf_counter()
        for _ in range(permits):
            rl.acquire("x")
        best = min(best, (time.perf_counter() - began) / permits)
    return best * 1e6


def _stores(backend: str, workdir: Path) -> list[tuple[str, str | Path]]:
    stores: list[tuple[str, str | Path]] = []
    if backend in ("sqlite", "both"):
        stores.append(("sqlite", workdir / "rates.sqlite"))
    if backend in ("redis", "both"):
        try:
            import redis

            redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
            stores.append(("redis", f"{REDIS_URL}?prefix=bench-windows-{uuid.uuid4().hex[:8]}:"))
        except Exception as e:  # no driver, or no server: the SQLite figures stand alone
            print(f"Redis at {REDIS_URL} not reachable ({type(e).__name__}); its rows are skipped", file=sys.stderr)
    return stores


def _forget(where: str | Path) -> None:
    """Delete a Redis store's keys (the SQLite file goes with its directory)."""
    if isinstance(where, str):
        import redis

        url, prefix = where.split("?prefix=")
        client = redis.Redis.from_url(url)
        keys = list(client.scan_iter(match=prefix + "*"))
        if keys:
            client.delete(*keys)
        client.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=20.0, help="simulated minutes of asking (default 20)")
    parser.add_argument("--processes", type=int, default=4, help="processes sharing the limits (default 4)")
    parser.add_argument("--latency-ms", type=float, default=100.0, help="answer latency (default 100 ms)")
    parser.add_argument("--delay-ms", type=float, default=40.0, help="largest network delay of a request (40 ms)")
    parser.add_argument("--permits", type=int, default=2000,
                        help="permits timed per round (best of 5) per store and limit (2000)")
    parser.add_argument("--backend", choices=("sqlite", "redis", "both"), default="both")
    opts = parser.parse_args(argv)
    rows = ["| store | pubfetch's limits | simulated | requests admitted | 429s | per second overall | most in a "
            "rolling minute | most in a second | wall time |", "|---|---|---|---|---|---|---|---|---|"]
    costs = ["| store | permit of a service without rolling windows | permit of Europe PMC (10/s, 500/min) |",
             "|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for store, where in _stores(opts.backend, Path(tmp)):
            for name, limit in LIMITS.items():
                place = _place(store, where, tmp, name.replace(" ", "-"))
                o = simulate(store, place, limit, opts.minutes, opts.processes, opts.latency_ms / 1000,
                             opts.delay_ms / 1000)
                rows.append(f"| {store} | {name} | {o.minutes:g} min | {o.admitted:,} | {o.too_many:,} | "
                            f"{o.rate:.2f} | {o.most_per_minute} | {o.most_per_second} | {o.wall_s:.1f} s |")
                _forget(place)
            micros = []
            for name, limit in (("plain", Limit.of([(10, 1)])), ("windowed", LIMITS["windows"])):
                place = _place(store, where, tmp, name)
                micros.append(permit_cost(store, place, limit, opts.permits))
                _forget(place)
            costs.append(f"| {store} | {micros[0]:.0f} µs | {micros[1]:.0f} µs |")
    print(f"{opts.processes} processes sharing the limits, {opts.latency_ms:g} ms answers, network delay 0 to "
          f"{opts.delay_ms:g} ms; the service enforces 10/s and 500/min, rolling.\n")
    print("\n".join(rows) + "\n")
    print("\n".join(costs))
    return 0


def _place(store: str, where: str | Path, tmp: str, name: str) -> str | Path:
    return Path(tmp) / f"{name}.sqlite" if store == "sqlite" else f"{where}{name}:"


if __name__ == "__main__":
    sys.exit(main())
