"""Processes started together that all open the same new limiter file (tests/test_ratelimit.py), run in a small
process of their own: forked from an xdist worker, whose heap holds the whole suite, the 180 processes cost 5
CPU-seconds, forked from this one about 2. Prints the answers, one a process, as a JSON list."""

from __future__ import annotations

import json
import multiprocessing
import sys
from pathlib import Path
from typing import Any

from pubfetch.net.ratelimit import SharedRateLimiter


def _open_limiter_when_told(path: Path, start: Any, answers: Any) -> None:
    start.wait()
    try:
        SharedRateLimiter(path)
        answers.put("ok")
    except Exception as e:  # the answer is the test's evidence, whatever went wrong
        answers.put(repr(e))


def race(directory: Path, rounds: int, processes: int) -> list[str]:
    """Each round a fresh file and ``processes`` processes released by one event; every process's answer."""
    context = multiprocessing.get_context("fork")
    answers: list[str] = []
    for round_ in range(rounds):
        start, queue = context.Event(), context.Queue()
        workers = [context.Process(target=_open_limiter_when_told, args=(directory / f"rl{round_}.sqlite", start, queue))
                   for _ in range(processes)]
        for w in workers:
            w.start()
        start.set()
        answers += [queue.get(timeout=60) for _ in workers]
        for w in workers:
            w.join(timeout=60)
    return answers


if __name__ == "__main__":
    json.dump(race(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])), sys.stdout)
