"""What a thread opens for itself (its database connection, its HTTP session) is closed once the thread has ended, and
HTTP connections are shared by the threads.

A fetch run starts a thread per publication, batch after batch; before, each thread's SQLite connection and HTTP
session stayed open to the end of the run, so a 200,000-ID run held hundreds of thousands of descriptors (it stopped
with "unable to open database file") and its memory grew by ~180 KB a publication. Linux only (/proc/self/fd).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

import pubfetch
from pubfetch.fetcher import init_publication
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds
from pubfetch.net import connguard, requests_transport
from pubfetch.net.config import HttpConfig
from pubfetch.net.transport import Request
from pubfetch.store import init_db, open_db
from pubfetch.store.base import StoreError
from pubfetch.store.writer import StoreWriter
from support.synthetic import SyntheticServices, use_services

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc/self/fd")


def open_descriptors(name: str) -> int:
    """Descriptors of this process open on files whose path contains ``name``."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if name in os.readlink(f"/proc/self/fd/{fd}"):
                count += 1
        except OSError:
            continue
    return count


def in_threads(work, count: int) -> None:
    """``work`` in ``count`` threads that are all alive until each has done it."""
    together = threading.Barrier(count)

    def then_wait() -> None:
        work()
        together.wait()

    threads = [threading.Thread(target=then_wait) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_the_database_connections_of_ended_threads_are_closed_as_new_threads_connect(tmp_path: Path) -> None:
    db = tmp_path / "pubs.db"
    store = init_db(str(db))
    try:
        in_threads(lambda: store.get_publication("1"), 20)
        # one connection per thread (each with a descriptor on the write-ahead log), and init_db's of this thread
        assert open_descriptors(str(db) + "-wal") == 21
        held = []
        for _ in range(100):
            in_threads(lambda: store.get_publication("1"), 1)
            held.append(open_descriptors(str(db) + "-wal"))
        # the ended threads' connections are closed a few at a time (PerThread): never more than a quarter of the
        # registry (at least 16) waits, and this thread's stays open
        assert max(held) <= 21 + 16
        assert min(held) == 2
        assert max(held[-50:]) <= 2 + 16
    finally:
        store.close()
    assert open_descriptors(str(db)) == 0


def test_threads_share_the_transport_s_connections(monkeypatch) -> None:
    """A thread per publication, but not a connection per publication: twenty threads asking the same host one after
    the other use one connection (over HTTPS, one TLS handshake instead of twenty), five at once at most five, and
    the sessions of ended threads are dropped. Closing the transport closes the pooled connections."""
    opened: list[int] = []
    original = connguard.GuardedHTTPConnection._new_conn

    def counting_new_conn(self):
        sock = original(self)
        opened.append(sock.fileno())
        return sock

    monkeypatch.setattr(connguard.GuardedHTTPConnection, "_new_conn", counting_new_conn)
    with SyntheticServices(1) as services:
        transport = requests_transport.RequestsTransport(HttpConfig(allow_private_addresses=True))
        url = services.base + "/epmc/rest/search?query=EXT_ID:1"
        for _ in range(20):
            in_threads(lambda: transport.send(Request("GET", url)), 1)
        assert len(opened) == 1
        in_threads(lambda: transport.send(Request("GET", url)), 5)
        assert 1 <= len(opened) <= 5
        # the sessions of the twenty-five threads that ended are dropped a few at a time, not kept
        for _ in range(20):
            in_threads(lambda: transport.send(Request("GET", url)), 1)
        assert len(transport._sessions) <= 16
        sockets_before = open_descriptors("socket:")
        transport.close()
        assert open_descriptors("socket:") < sockets_before


def test_a_run_of_many_batches_holds_two_database_connections_whatever_its_threads(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "pubs.db"
    batch = 10
    held: list[int] = []
    with SyntheticServices(60) as services:
        use_services(monkeypatch, tmp_path, services)
        pubs = list(pubfetch.fetch_many(services.pmids(), db=db, batch_size=batch, linger_ms=100, rate_limits=False,
                                        allow_private_addresses=True,
                                        progress=lambda done, pub: held.append(open_descriptors(str(db) + "-wal"))))
    assert len(pubs) == 60 and len(held) == 60
    # the publications' threads write their entries through one thread (store/writer.py), so one connection: with
    # the one that reads the batches, two (the -wal file: one descriptor per open connection), whatever the batches
    assert max(held) == 2
    assert open_descriptors(str(db)) == 0


def test_the_store_writer_writes_on_its_own_thread_and_hands_back_the_store_s_errors(tmp_path: Path) -> None:
    db = tmp_path / "pubs.db"
    init_db(str(db)).close()
    pub = init_publication(PublicationIds("12345", "", ""), FetcherArgs())
    store = open_db(str(db))
    try:
        with StoreWriter(store) as writer:
            writers = [threading.Thread(target=writer.put_publication, args=(pub,)) for _ in range(10)]
            for thread in writers:
                thread.start()
            for thread in writers:
                thread.join()
            writer.commit()
            # the connection open_db checked the file with, and the writer's thread's: not eleven
            assert open_descriptors(str(db) + "-wal") == 2
        assert store.get_publication("12345") is not None
    finally:
        store.close()
    readonly = open_db(str(db), readonly=True)
    try:
        with StoreWriter(readonly) as writer, pytest.raises(StoreError, match="read-only"):
            writer.put_publication(pub)
    finally:
        readonly.close()
