"""Workers that tests/test_pdf.py injects into extract_pdf in place of the extraction.

They live in a module of their own that imports next to nothing: the worker process imports the module to unpickle
the function, and that import counts against the extraction's time limit. Importing the test module itself there
(pytest and all) could take seconds on a loaded machine, so a worker could be killed before it had even started.
"""

from __future__ import annotations

import os
import time
from pathlib import Path


def slow_worker(data: bytes, max_pages: int) -> object:
    """Record the worker's pid in the file named after the PDF header, then spin far beyond any time limit."""
    Path(data.split(b"\n", 1)[1].decode()).write_text(str(os.getpid()))
    time.sleep(600)
    return None


def crashing_worker(data: bytes, max_pages: int) -> object:
    os._exit(7)


def raising_worker(data: bytes, max_pages: int) -> object:
    raise RuntimeError("worker bug")


def hungry_worker(data: bytes, max_pages: int) -> object:
    """Ask for 8 GiB at once: more than the worker's address-space cap allows."""
    return bytearray(8 * 1024**3)
