"""A network that accepts connections but never answers: the run stops at the first silence of a second host (the
first host had its request and PubFetcher's timeout retry), with one line, exit status 75, and the database as it was
(no retry budget spent)."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest

from pubfetch.cli.main import main
from pubfetch.fetcher import init_publication
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import classify
from pubfetch.store import init_store, open_store

TIMEOUT_MS = 1000


class Silent:
    """A TCP server that accepts every connection and never answers (a black-holing proxy or firewall)."""

    def __init__(self, host: str) -> None:
        self.sock = socket.create_server((host, 0))
        self.host, self.port = host, self.sock.getsockname()[1]
        self.accepted = 0
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self._held.append(conn)

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"

    def close(self) -> None:
        self.sock.close()
        for conn in self._held:
            conn.close()


@pytest.fixture
def silent_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    try:
        servers = [Silent("127.0.0.1"), Silent("127.0.0.2")]
    except OSError as e:
        pytest.skip(f"cannot listen on 127.0.0.2 ({e}): a second loopback host is needed")
    monkeypatch.setenv("PUBFETCH_RATE_DB", str(tmp_path / "rates.sqlite"))
    first, second = servers
    for name, server in (("EUROPEPMC", first), ("EUROPEPMC_ANNOTATIONS", first), ("EUTILS", second),
                         ("PUBMED", second), ("DOI", first), ("UNPAYWALL", second)):
        monkeypatch.setenv(f"PUBFETCH_{name}_URL", server.url(f"/{name.lower()}/"))
    yield servers
    for s in servers:
        s.close()


def _database_with_entries(path: Path, pmids: list[str]) -> None:
    with init_store(path) as store:
        for pmid in pmids:
            store.put_publication(init_publication(classify(pmid), FetcherArgs()))
        store.commit()


def _run(ids: Path, db: Path) -> int:
    return main(["-pub-file", str(ids), "-db-fetch", str(db), "--timeout", str(TIMEOUT_MS)])


def test_silent_network_stops_the_run_with_one_line_and_leaves_the_entries_as_they_were(
        silent_network, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pmids = ["22338609", "31114920", "25605792"]
    ids = tmp_path / "ids.txt"
    ids.write_text("\n".join(pmids) + "\n")
    db = tmp_path / "pubs.db"
    _database_with_entries(db, pmids)

    code = _run(ids, db)
    err = capsys.readouterr().err.splitlines()
    assert code == 75
    assert err[-1] == ("pubfetch: error: network unreachable: 127.0.0.1, 127.0.0.2 did not answer (timed out); "
                       "check your connection or HTTPS_PROXY")
    # Europe PMC's host: the search and its timeout retry; then E-utilities' host once, and nothing after the stop
    assert [s.accepted for s in silent_network] == [2, 1]
    with open_store(db) as store:
        for pmid in pmids:
            pub = store.get_publication(classify(pmid))
            assert (pub.state.fetch_time, pub.state.retry_counter, pub.state.fetch_exception) == (0, 0, False)


@pytest.mark.timing
def test_silent_network_stops_the_run_within_three_timeouts(silent_network, tmp_path: Path) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("22338609\n31114920\n")
    started = time.monotonic()
    assert _run(ids, tmp_path / "pubs.db") == 75
    assert time.monotonic() - started < 3 * TIMEOUT_MS / 1000 + 1.5  # first host twice, second host once
