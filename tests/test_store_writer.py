"""Tests for pubfetch.store.writer: the puts and commits of many threads made on one thread of the writer's own,
each caller waiting for its write and getting the store's errors back."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from pubfetch.model import Publication
from pubfetch.store import StoreError, init_db, open_db
from pubfetch.store.writer import StoreWriter
from support.store_worker import make_pub


def test_every_write_of_many_threads_happens_on_the_writers_one_thread(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    store = init_db(tmp_path / "pubs.db")
    writing_threads: set[int] = set()
    put = store.put_publication

    def recorded_put(pub: Publication) -> bool:
        writing_threads.add(threading.get_ident())
        return put(pub)

    monkeypatch.setattr(store, "put_publication", recorded_put)
    stored: list[bool] = []
    with store, StoreWriter(store) as writer:
        callers = [threading.Thread(target=lambda k=k: stored.append(writer.put_publication(make_pub(pmid=str(k)))))
                   for k in range(1, 21)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()
        writer.commit()
        assert stored == [True] * 20  # each caller had its answer when its thread ended
        assert len(writing_threads) == 1 and threading.get_ident() not in writing_threads
    with open_db(tmp_path / "pubs.db", readonly=True) as reread:
        assert reread.publications_size() == 20


def test_a_publication_without_ids_is_refused_and_the_stores_errors_come_back(tmp_path: Path) -> None:
    init_db(tmp_path / "pubs.db").close()
    with open_db(tmp_path / "pubs.db") as store, StoreWriter(store) as writer:
        assert writer.put_publication(make_pub()) is False
    with open_db(tmp_path / "pubs.db", readonly=True) as readonly, StoreWriter(readonly) as writer:
        with pytest.raises(StoreError, match="read-only"):
            writer.put_publication(make_pub(pmid="1"))
        with pytest.raises(StoreError, match="read-only"):
            writer.put_publication(make_pub(pmid="2"))  # the writer's thread outlives an error


def test_a_closed_writer_takes_no_more_writes(tmp_path: Path) -> None:
    with init_db(tmp_path / "pubs.db") as store:
        writer = StoreWriter(store)
        assert writer.put_publication(make_pub(pmid="1"))
        writer.close()
        with pytest.raises(RuntimeError):
            writer.put_publication(make_pub(pmid="2"))
        assert store.publications_size() == 1
