"""Host idle time with waiting work: seconds a host could have taken a batch's request but had none in flight.

The server records when each request to each host was in flight (``SyntheticServices.timeline``); pubfetch's log
(``--log``, debug) records each batch's timeline: when it opened (its first publication arrived), until when it was held
for company (waiting for more IDs while another host bounds the run, by choice) and when it went
(``pubfetch.engine.service_batcher``). Work waited for a host from the end of that hold to its request. The host could take it
when no request to it was in flight and the service's rate limit allowed one: pubfetch's limits space the requests of
a service ``(1 + jitter) / rate`` seconds apart, so after a request starts its service can take the next only that
much later (with 100 ms answers and 10 requests/s, a host kept busy by one service is idle 5 % of the time by its rate
limit alone; that is not counted), and a rolling window (Europe PMC's 500 a minute) allows none while it is full. The figure is, per host, the measure of (waiting) minus (in flight)
minus (the service's rate limit spacing), counting only idle stretches of at least :data:`TOLERANCE_S`: shorter ones
are the client's per-request overhead between two requests of one connection (handing the connection to the next
thread, taking the rate-limit permit, building and sending the request; a few milliseconds each, more on a loaded
machine), not work left waiting. ``idle_with_waiting_work(..., tolerance=0)`` counts them too.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pubfetch.config.limits import DAY, DOCUMENTED  # noqa: E402

#: The synthetic server's services by the host that serves them in production and pubfetch's rate-limit key.
HOST_OF_SERVICE = {"europepmc_search": ("www.ebi.ac.uk", "europepmc"),
                   "europepmc_fulltext": ("www.ebi.ac.uk", "europepmc"),
                   "annotations": ("www.ebi.ac.uk", "europepmc_annotations"),
                   "ncbi": ("eutils.ncbi.nlm.nih.gov", "ncbi")}
#: Path prefixes of the batched services' URLs by host and rate-limit key.
HOST_OF_PATH = {"/epmc/rest/": ("www.ebi.ac.uk", "europepmc"),
                "/epmc/annotations/": ("www.ebi.ac.uk", "europepmc_annotations"),
                "/eutils/": ("eutils.ncbi.nlm.nih.gov", "ncbi")}
#: Seconds between two requests of a rate-limit key (pubfetch.net.ratelimit.default_limits: rate, 5 % jitter).
SPACING = {"europepmc": 1.05 / 10, "europepmc_annotations": 1.05 / 10, "ncbi": 1.05 / 3}
#: The rolling windows of a rate-limit key (Europe PMC's 500 a minute), each lengthened by the limiter's 50 ms slack.
WINDOWS = {key: [(count, seconds + 0.05) for count, seconds in DOCUMENTED[key].windows if 1 < seconds < DAY]
           for key in SPACING}
#: A batch's timeline; from ``held to`` on (its wait for company is over: docs/throughput.md) it waits for its host.
_BATCH = re.compile(r"batch of \d+ for https?://[^/]+(/\S*): opened [\d.]+, held to ([\d.]+), rate limit ([\d.]+)-([\d.]+)")

Interval = tuple[float, float]

#: Idle stretches shorter than this between two requests are the client's overhead, not work left waiting.
TOLERANCE_S = 0.02


def merged(intervals: Iterable[Interval]) -> list[Interval]:
    out: list[Interval] = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def minus(intervals: list[Interval], holes: list[Interval]) -> list[Interval]:
    """``intervals`` without ``holes`` (both merged)."""
    out: list[Interval] = []
    for start, end in intervals:
        cursor = start
        for h_start, h_end in holes:
            if h_end <= cursor or h_start >= end:
                continue
            if h_start > cursor:
                out.append((cursor, h_start))
            cursor = max(cursor, h_end)
        if cursor < end:
            out.append((cursor, end))
    return out


def window_full(starts: list[float], count: int, span: float) -> list[Interval]:
    """When a rolling window held its ``count`` requests (of ``starts``, sorted): from the last of ``count`` in a row
    until the first of them is ``span`` old, the limiter allowed none."""
    return [(starts[i + count - 1], starts[i] + span) for i in range(len(starts) - count + 1)
            if starts[i] + span > starts[i + count - 1]]


def idle_with_waiting_work(log_file: Path, timeline: list[tuple[str, float, float]],
                           tolerance: float = TOLERANCE_S) -> dict[str, float]:
    """Seconds each host could have taken a waiting batch's request but had none in flight (hosts with batches)."""
    waiting: dict[tuple[str, str], list[Interval]] = {}
    with open(log_file, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = _BATCH.search(line)
            if m is None:
                continue
            where = next((hk for prefix, hk in HOST_OF_PATH.items() if m.group(1).startswith(prefix)), None)
            if where is not None:
                waiting.setdefault(where, []).append((float(m.group(2)), float(m.group(4))))
    busy: dict[str, list[Interval]] = {}
    spaced: dict[str, list[Interval]] = {}
    for service, start, end in timeline:
        where = HOST_OF_SERVICE.get(service)
        if where is not None:
            host, key = where
            busy.setdefault(host, []).append((start, end))
            spaced.setdefault(key, []).append((start, start + SPACING[key]))
    for key, intervals in list(spaced.items()):
        starts = sorted(start for start, _ in intervals)
        intervals += [full for count, span in WINDOWS[key] for full in window_full(starts, count, span)]
    idle: dict[str, list[Interval]] = {}
    for (host, key), intervals in waiting.items():
        free = minus(minus(merged(intervals), merged(busy.get(host, []))), merged(spaced.get(key, [])))
        idle.setdefault(host, []).extend(free)
    return {host: sum(end - start for start, end in merged(free) if end - start >= tolerance)
            for host, free in idle.items()}
