"""Python's cyclic garbage collector held off while a parser builds a document's records.

A parser of a batch answer makes hundreds of thousands of container objects (records, authors, references and their
lists), none of them in a cycle and all of them kept; every 700 new ones the collector walks the young ones, and every
tenth time the older ones too, finding nothing to free. Held off for the parse, it walks them once afterwards (the
next collection the allocations set off): a PubMed batch with reference lists parses 1.18x as fast
(docs/benchmarks.md). Nothing is leaked: the objects a parse leaves in cycles, if any, are collected then.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collection_paused"]


@contextmanager
def collection_paused() -> Iterator[None]:
    """Hold off the cyclic collector for the block, when it was on (a program that turned it off keeps it off). It is
    one switch for the process: a thread that found it on turns it back on at its block's end, maybe while another
    thread's block runs, which then runs with the collector as a parse did before."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
