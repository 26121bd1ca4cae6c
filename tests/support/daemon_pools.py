"""What a daemonic process (a Celery ``--pool prefork`` child, a ``multiprocessing.Pool`` worker) gets when it reads a
page or extracts a PDF: run in such a process by tests/test_workerpool.py, each returns plain values to compare."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from pathlib import Path

from pubfetch.extract.pdf import extract_pdf
from pubfetch.extract.workerpool import WorkerPool
from support.pdf_workers import slow_worker


def limits_in_a_daemon(pid_file: str) -> tuple[bool, list[str], bool, str, str, bool]:
    """In the calling (daemonic) process: whether it is daemonic; the outcomes of three jobs started from three threads
    at once and whether each ran in another process; a hung job's outcome at a 2 s limit; a hung PDF
    extraction's error kind; and whether the process is still daemonic afterwards."""
    daemonic = multiprocessing.current_process().daemon
    with WorkerPool(3) as pool:
        done = []
        threads = [threading.Thread(target=lambda: done.append(pool.run(os.getpid, time_limit=60))) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        hung = pool.run(time.sleep, 600, time_limit=2)
    pdf = extract_pdf(b"%PDF-1.4\n" + pid_file.encode(), worker=slow_worker, time_limit=2)
    return (daemonic, sorted(o.kind for o in done), all(o.value != os.getpid() for o in done), hung.kind,
            pdf.error_kind, multiprocessing.current_process().daemon)


def hang_a_pdf(pid_file: str, own_pid_file: str) -> None:
    """Extract a PDF that never ends (its worker's pid written to ``pid_file``, this process's to ``own_pid_file``),
    with a limit far beyond the test."""
    Path(own_pid_file).write_text(str(os.getpid()))
    extract_pdf(b"%PDF-1.4\n" + pid_file.encode(), worker=slow_worker, time_limit=600)
