"""What a benchmark's worker process runs: the benchmarks compare code in workers with code in process, so both must
be the same checkout's.

Python 3.11's fork server imports its preloaded modules (pubfetch's readers) before it applies the parent's
``sys.path``, so a benchmark run from a checkout that puts itself first on ``sys.path`` alone gets its workers' code
from the installed pubfetch instead (the editable install of another checkout, here). :func:`share_checkout` puts the
checkout on ``PYTHONPATH``, which the fork server inherits; :func:`module_file` runs in a worker to check it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def share_checkout() -> None:
    """Put the checkout of the pubfetch this process imported first on ``PYTHONPATH``, for processes started later."""
    import pubfetch

    root = str(Path(pubfetch.__file__).resolve().parents[1])
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if paths[0] != root:
        os.environ["PYTHONPATH"] = os.pathsep.join([root, *(p for p in paths if p)])


def module_file(name: str) -> str:
    """The file the module ``name`` was imported from in this process (run in a worker)."""
    __import__(name)
    return str(Path(sys.modules[name].__file__ or "").resolve())
