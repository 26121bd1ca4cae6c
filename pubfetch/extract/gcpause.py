"""Python's cyclic garbage collector held off while a parser builds a document's records or a page is read.

A parser of a batch answer makes hundreds of thousands of container objects (records, authors, references and their
lists), none of them in a cycle and all of them kept; every 700 new ones the collector walks the young ones, and every
tenth time the older ones too, finding nothing to free. Held off for the parse, it walks them once afterwards (the
next collection the allocations set off): a PubMed batch with reference lists parses 1.18x as fast
(docs/benchmarks.md). A page's reading is the same case: its tree and what is read from it, a few hundred thousand
objects that live until the reading ends, over which the collector took as long as the reading itself. Nothing is
leaked: the objects a parse leaves in cycles, if any, are collected then.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collection_paused"]


_PAUSES = threading.Lock()
_paused = [0, False]  # blocks inside collection_paused(), whether the collector was on when the first came in


@contextmanager
def collection_paused() -> Iterator[None]:
    """Hold off the cyclic collector for the block, when it was on (a program that turned it off keeps it off). It is
    one switch for the process, so the blocks are counted across threads: the collector comes back as it was when
    the last block in the process ends, not when the first does while another thread's parse still runs."""
    with _PAUSES:
        if _paused[0] == 0:
            _paused[1] = gc.isenabled()
            gc.disable()
        _paused[0] += 1
    try:
        yield
    finally:
        with _PAUSES:
            _paused[0] -= 1
            if _paused[0] == 0 and _paused[1]:
                gc.enable()
