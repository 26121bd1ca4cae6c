"""The writes of a fetch run's many threads, made on one thread, so through one database connection.

A fetch run stores each publication as soon as it is complete, from the publication's own thread (a thread per
publication, hundreds alive with two batches in flight). A connection per thread, for its one write, would hold a
schema and page cache per thread and pay a connect per publication (docs/benchmarks.md has what that cost). The
writes wait for the database's write lock one at a time anyway, so making them on one thread loses no parallelism;
each caller still waits for its write, so an entry is stored before it is reported, and an interrupted run loses only
what was in flight.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Self

from pubfetch.model import Publication
from pubfetch.model.webpage import Webpage
from pubfetch.store.base import Store

__all__ = ["StoreWriter"]


class StoreWriter:
    """``put_publication``, ``put_page``, the DOI agencies and ``commit`` of ``store``, on one thread of its own (a
    context manager)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="pubfetch-store")

    def put_publication(self, pub: Publication) -> bool:
        return self._thread.submit(self.store.put_publication, pub).result()

    def put_page(self, kind: str, page: Webpage) -> bool:
        return self._thread.submit(self.store.put_page, kind, page).result()

    def get_agencies(self, prefixes: Sequence[str]) -> dict[str, str]:
        return self._thread.submit(self.store.get_agencies, prefixes).result()

    def put_agencies(self, agencies: Mapping[str, str]) -> None:
        self._thread.submit(self.store.put_agencies, dict(agencies)).result()

    def commit(self) -> None:
        self._thread.submit(self.store.commit).result()

    def close(self) -> None:
        self._thread.shutdown(wait=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
