"""PostgreSQL outages: an 8 s outage failed 13 of 15 batches at once, with no retry. An open store
rides out a lost connection or an unreachable server for minutes (``PUBFETCH_DB_OUTAGE_S``), trying again on a new
connection; a longer outage fails the read or put with one line. The outage is made by a proxy on 127.0.0.1 between
the store and the machine's PostgreSQL (which is never stopped), or by ending the store's sessions on the server."""

from __future__ import annotations

import contextlib
import socket
import threading

import pytest

from pubfetch.store import PostgresStore, StoreError, init_store, open_store
from support.store_worker import make_pub
from support.waits import within

psycopg = pytest.importorskip("psycopg", reason='PostgreSQL tests need psycopg (pip install ".[test]")')

SERVER = ("127.0.0.1", 5432)


class OutageProxy:
    """Forwards connections to PostgreSQL; ``cut()`` ends them all and turns new ones away (accepted, then closed at
    once, as a restarting server does), ``restore()`` forwards again."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.down = False
        self.turned_away = 0
        self.tried_during_outage = threading.Event()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def port(self) -> int:
        return self.listener.getsockname()[1]

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.down:
                # counted before the close: the client sees the close and the test may read the count at once
                with self._lock:
                    self.turned_away += 1
                    if self.turned_away >= 2:
                        self.tried_during_outage.set()
                client.close()
                continue
            server = socket.create_connection(SERVER)
            with self._lock:
                self._pairs.append((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._copy, args=(a, b), daemon=True).start()

    @staticmethod
    def _copy(a: socket.socket, b: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := a.recv(65536):
                b.sendall(data)
        for s in (a, b):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.down = True
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for pair in pairs:
            for s in pair:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def restore(self) -> None:
        self.down = False

    def close(self) -> None:
        self.cut()
        self.listener.close()


@pytest.fixture
def proxy():
    p = OutageProxy()
    yield p
    p.close()


def through(proxy: OutageProxy, pg_url: str) -> str:
    return pg_url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")


def test_a_put_waits_through_an_outage_and_lands(pg_url: str, proxy: OutageProxy) -> None:
    url = through(proxy, pg_url)
    with init_store(url) as store:
        assert store.put_publication(make_pub(pmid="101", doi="10.5/before", title="Before the outage"))
        proxy.cut()
        box: dict[str, object] = {}
        putter = threading.Thread(target=lambda: box.update(
            put=store.put_publication(make_pub(pmid="102", doi="10.5/during", title="During the outage"))))
        putter.start()
        assert proxy.tried_during_outage.wait(60)  # the put tried again on new connections, and was turned away
        assert putter.is_alive()  # ... and waits, rather than failing its batch
        proxy.restore()
        putter.join(120)
        assert box == {"put": True}
        assert store.get_publication("102").title.content == "During the outage"  # reads too
    with open_store(pg_url) as direct:
        assert direct.publications_size() == 2


def test_sessions_ended_on_the_server_are_replaced(pg_url: str) -> None:
    with init_store(pg_url) as store:
        assert store.put_publication(make_pub(pmid="201", doi="10.5/one", title="One"))
        dbname = pg_url.rsplit("/", 1)[1]
        with psycopg.connect(pg_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
            ended = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
                                  "AND pid <> pg_backend_pid()", (dbname,)).fetchall()
        assert ended and all(row[0] for row in ended)
        assert store.put_publication(make_pub(pmid="202", doi="10.5/two", title="Two"))
        assert store.publications_size() == 2


def test_an_outage_longer_than_the_setting_fails_in_one_line(pg_url: str, proxy: OutageProxy,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PUBFETCH_DB_OUTAGE_S", "1")
    url = through(proxy, pg_url)
    init_store(url).close()
    with open_store(url) as store:
        assert isinstance(store, PostgresStore) and store.outage_s == 1.0
        proxy.cut()
        with pytest.raises(StoreError) as caught:
            within(60, lambda: store.put_publication(make_pub(pmid="301", doi="10.5/x", title="Lost")))
    message = str(caught.value)
    assert "\n" not in message and f"PostgreSQL database '{url}'" in message
    assert message.endswith("of trying again; PUBFETCH_DB_OUTAGE_S sets how long)")


def test_a_server_that_is_down_at_opening_is_said_at_once(proxy: OutageProxy, pg_url: str) -> None:
    url = through(proxy, pg_url)
    init_store(url).close()
    proxy.cut()
    with pytest.raises(StoreError, match="^cannot connect to PostgreSQL database"):
        within(60, lambda: open_store(url))
    assert proxy.turned_away == 1  # no trying again before the store is open


def test_a_bad_outage_setting_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PUBFETCH_DB_OUTAGE_S", "soon")
    with pytest.raises(StoreError, match="^PUBFETCH_DB_OUTAGE_S must be a number of seconds >= 0, not 'soon'$"):
        PostgresStore("postgresql://postgres@127.0.0.1:1/none")
