"""The SQLite limiter's threads of one process take their permits in turn, before they meet other processes at
SQLite's lock (pubfetch.net.ratelimit._process_lock)."""

from __future__ import annotations

import multiprocessing
import threading

import pytest

from pubfetch.net import ratelimit
from pubfetch.net.ratelimit import Limit, SharedRateLimiter

THREADS = 8
PERMITS = 60


def _hammer(limiters: list[SharedRateLimiter], keys: list[str]) -> tuple[list[float], list[BaseException]]:
    """Every thread (one limiter object each) books ``PERMITS`` permits of its key, all starting together; the
    starts booked and the failures."""
    starts: list[float] = []
    failures: list[BaseException] = []
    ready = threading.Barrier(len(limiters))
    guard = threading.Lock()

    def book(rl: SharedRateLimiter, key: str) -> None:
        ready.wait()
        for _ in range(PERMITS):
            try:
                start = rl.reserve(key)
            except BaseException as exc:  # noqa: BLE001 - what a thread met is the test's answer
                with guard:
                    failures.append(exc)
                return
            with guard:
                starts.append(start)

    threads = [threading.Thread(target=book, args=pair) for pair in zip(limiters, keys, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return starts, failures


def test_threads_never_meet_at_sqlites_lock(tmp_path, monkeypatch):
    """With no busy timeout at all, a thread that found the file locked by another thread's transaction would fail at
    once ("database is locked"); taken in turn, every permit of every thread is booked, each at its own slot."""
    monkeypatch.setattr(ratelimit, "BUSY_TIMEOUT_S", 0.0)
    path = tmp_path / "rl.sqlite"
    now = 1_000_000.0
    limits = {"ncbi": Limit(4.0, jitter=0.0)}
    # each thread its own limiter object on the same file, as several contexts of one process would have
    limiters = [SharedRateLimiter(path, limits, clock=lambda: now) for _ in range(THREADS)]
    starts, failures = _hammer(limiters, ["ncbi"] * THREADS)
    assert failures == []
    # one key, one fixed clock: the permits are the slots now, now + 1/4 s, ... each booked once
    assert sorted(starts) == pytest.approx([now + k / 4 for k in range(THREADS * PERMITS)])


def test_other_services_are_booked_in_turn_too(tmp_path, monkeypatch):
    monkeypatch.setattr(ratelimit, "BUSY_TIMEOUT_S", 0.0)
    rl = SharedRateLimiter(tmp_path / "rl.sqlite", {"host": Limit(2.0, jitter=0.0)}, clock=lambda: 50.0)
    starts, failures = _hammer([rl] * THREADS, [f"host:h{k}.example" for k in range(THREADS)])
    assert failures == []
    assert len(starts) == THREADS * PERMITS
    assert max(starts) == pytest.approx(50.0 + (PERMITS - 1) / 2)  # each host's last slot, as if booked alone


def _reserve_in_child(path: str, answer: multiprocessing.queues.Queue) -> None:
    answer.put(SharedRateLimiter(path, {"ncbi": Limit(3.0)}).reserve("ncbi") > 0)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform")
def test_a_forked_child_does_not_inherit_a_held_turn(tmp_path):
    """A worker forked (Celery's prefork pool) while a thread of its parent held the turn gets a lock of its own: the
    parent's would never be released in the child."""
    path = tmp_path / "rl.sqlite"
    SharedRateLimiter(path)  # the file and its tables
    context = multiprocessing.get_context("fork")
    answer = context.Queue()
    with ratelimit._process_lock(path):
        child = context.Process(target=_reserve_in_child, args=(str(path), answer))
        child.start()
        booked = answer.get(timeout=120)  # a deadlocked child would never answer
    child.join(timeout=120)
    assert booked is True
    assert child.exitcode == 0
