"""Tests for pubfetch.extract.workerpool: reusable worker processes with a time limit per job, and their end.

The jobs are functions of the standard library (os.getpid, time.sleep, threading.Lock), which the worker imports for
free; PDF extraction through the pool is tested in tests/test_pdf.py.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pubfetch.config import FetchConfig
from pubfetch.extract.pdf import extract_pdf
from pubfetch.extract.workerpool import SEND_BUFFER, Outcome, WorkerPool
from support.daemon_pools import hang_a_pdf, limits_in_a_daemon
from support.fetchrun import run_context
from support.procs import children_supported, descendants, process_gone
from support.sockets import largest_send_buffer_allowed, send_buffers
from support.waits import wait_until

PDF = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj "
       b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Resources<</Font<</F1 4 0 R>>>>/Contents 5 0 R>>endobj "
       b"4 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj "
       b"5 0 obj<</Length 44>>stream\nBT /F1 12 Tf 20 100 Td (Pooled text) Tj ET\nendstream endobj\n"
       b"trailer<</Root 1 0 R>>\n%%EOF\n")


def _pid(pool: WorkerPool) -> int:
    outcome = pool.run(os.getpid, time_limit=60)
    assert outcome.kind == "ok"
    return outcome.value


def test_one_process_serves_many_jobs() -> None:
    with WorkerPool(1) as pool:
        pids = {_pid(pool) for _ in range(5)}
        assert len(pids) == 1 and os.getpid() not in pids
        assert pool.started == 1


def test_callers_wait_for_the_only_worker() -> None:
    with WorkerPool(1) as pool:
        found: list[int] = []
        threads = [threading.Thread(target=lambda: found.append(_pid(pool))) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert len(found) == 4 and len(set(found)) == 1
        assert pool.started == 1


def test_timeout_kills_and_the_next_job_gets_a_new_worker() -> None:
    with WorkerPool(1) as pool:
        pid = _pid(pool)
        assert pool.run(time.sleep, 600, time_limit=2) == Outcome("timeout", pid=pid)
        assert process_gone(pid)
        assert _pid(pool) != pid
        assert pool.started == 2


def test_worker_replaced_after_max_jobs() -> None:
    with WorkerPool(1, max_jobs=2) as pool:
        first, second, third = _pid(pool), _pid(pool), _pid(pool)
        assert first == second != third
        assert pool.started == 2


def test_unsendable_value_is_an_answer() -> None:
    with WorkerPool(1) as pool:
        pid = _pid(pool)
        assert pool.run(threading.Lock, time_limit=60) == Outcome(
            "unsendable", message="TypeError: cannot pickle '_thread.lock' object", pid=pid)
        assert _pid(pool) == pid


@pytest.mark.skipif(not hasattr(__import__("resource"), "RLIMIT_AS"), reason="no address-space cap on this platform")
def test_a_system_error_under_the_memory_cap_is_memory_and_without_it_the_jobs_error() -> None:
    """An extension's C code that fails an allocation under the cap returns without an exception (a SystemError):
    that is the cap reached, not a bug of the job; without a cap, a SystemError stays the job's error."""
    raising = "raise SystemError('error return without exception set')"
    with WorkerPool(1) as pool:
        assert pool.run(exec, raising, time_limit=60, memory_limit=4 * 2 ** 30).kind == "memory"
        assert pool.run(exec, raising, time_limit=60).message == "SystemError: error return without exception set"


def test_each_end_of_a_workers_pipe_sends_a_large_message_in_one_write() -> None:
    """A job's PDF (a megabyte or more) and its answer fit each end's send buffer, so the other side is woken once
    for the message, not once per default-sized chunk (about 200 KB)."""
    granted = largest_send_buffer_allowed(SEND_BUFFER)
    if granted is None or granted <= 2 * 1024 * 1024:
        pytest.skip(f"net.core.wmem_max allows no send buffer larger than the default here ({granted})")
    with WorkerPool(1) as pool:
        outcome = pool.run(send_buffers, time_limit=60)
        assert outcome.kind == "ok"
        assert granted in outcome.value  # the worker's end of its pipe
        assert granted in send_buffers()  # the parent's end


def test_closed_pool_runs_nothing() -> None:
    pool = WorkerPool(1)
    pid = _pid(pool)
    pool.close()
    pool.close()  # idempotent
    assert process_gone(pid)
    assert pool.run(os.getpid, time_limit=60) == Outcome("closed")
    assert pool.started == 1


def test_context_close_leaves_no_worker_process() -> None:
    if not children_supported():
        pytest.skip("no /proc/<pid>/task/<tid>/children on this system")
    assert extract_pdf(PDF).text == "Pooled text"  # the fork server (a child that lives with this process) runs
    before = descendants()
    with run_context(FetchConfig().with_changes(threads=3)) as ctx:
        workers = ctx.pdf_workers
        assert ctx.pdf_workers is workers
        assert workers.size == 3  # the run's CPU slots
        assert extract_pdf(PDF, workers=workers).text == "Pooled text"
        assert extract_pdf(PDF, workers=workers).text == "Pooled text"
        assert workers.started == 1
        assert set(workers.pids()) == descendants() - before
    assert workers.pids() == []
    assert descendants() - before == set()  # processes of other tests may have ended meanwhile


_KILLED_PARENT = """
import sys, threading, time
from pathlib import Path
from support.pdf_workers import slow_worker
from pubfetch.extract.workerpool import WorkerPool

if __name__ == "__main__":
    pool = WorkerPool(1)
    pid_file = Path(sys.argv[1])
    threading.Thread(target=pool.run, args=(slow_worker, b"%PDF-1.4\\n" + bytes(pid_file), 0),
                     kwargs={"time_limit": 600}, daemon=True).start()
    time.sleep(600)
"""


def test_hung_worker_ends_when_its_run_is_killed(tmp_path: Path) -> None:
    """SIGKILL leaves nobody to enforce the time limit: the worker notices its parent went and ends itself."""
    pid_file = tmp_path / "worker.pid"
    tests = Path(__file__).resolve().parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tests.parent), str(tests)])}
    run = subprocess.Popen([sys.executable, "-c", _KILLED_PARENT, str(pid_file)], env=env)
    try:
        deadline = time.monotonic() + 60
        while not (pid_file.is_file() and pid_file.read_text()):
            assert run.poll() is None, "the run ended before its worker started"
            assert time.monotonic() < deadline, "the worker never started"
            time.sleep(0.05)
        worker = int(pid_file.read_text())
    finally:
        run.kill()
        run.wait(60)
    assert process_gone(worker), f"worker {worker} outlived its killed run"


@pytest.mark.parametrize("maker", ["billiard", "multiprocessing"])
def test_a_daemonic_process_has_its_jobs_time_limited(maker: str, tmp_path: Path) -> None:
    """A Celery ``--pool prefork`` child (billiard's) and a ``multiprocessing.Pool`` worker are daemonic, which
    multiprocessing forbids to have children: they start their workers all the same, and a hung job or PDF ends at its
    limit instead of holding the process."""
    if maker == "billiard":
        billiard = pytest.importorskip("billiard", reason='Celery\'s pool needs billiard (pip install ".[test]")')
        pool = billiard.Pool(1)
    else:
        pool = multiprocessing.get_context("spawn").Pool(1)  # no fork of this threaded process
    try:
        result = pool.apply_async(limits_in_a_daemon, (str(tmp_path / "pdf.pid"),)).get(timeout=300)
    finally:
        pool.terminate()
        pool.join()
    assert result == (True, ["ok", "ok", "ok"], True, "timeout", "timeout", True)


def test_a_worker_of_a_killed_prefork_child_ends_itself(tmp_path: Path) -> None:
    """What makes children safe for a daemonic process: the child killed (as Celery ends a pool process, or its
    machine's OOM killer does) while its worker runs a hung job, the worker notices and ends."""
    billiard = pytest.importorskip("billiard", reason='Celery\'s pool needs billiard (pip install ".[test]")')
    pid_file, child_file = tmp_path / "worker.pid", tmp_path / "child.pid"
    pool = billiard.Pool(1)
    try:
        pool.apply_async(hang_a_pdf, (str(pid_file), str(child_file)))
        worker = int(wait_until(lambda: pid_file.is_file() and pid_file.read_text(), 120, "the worker to start"))
        os.kill(int(child_file.read_text()), signal.SIGKILL)
        assert process_gone(worker), f"worker {worker} outlived its killed pool process"
    finally:
        pool.terminate()
        pool.join()
