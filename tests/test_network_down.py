"""A network that accepts connections but never answers: the run stops at the first silence of a second host (before
anything answered, a publication-fetching run does not retry a timeout), so after two timeouts, with one line, exit
status 75, and the database as it was (no retry budget spent, no end-of-run retry). Then the rule itself, on a
scripted network: no timeout retry before the first answer in a watched run, PubFetcher's retry after one and
outside such runs."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pubfetch.cli.main import main
from pubfetch.config import FetchConfig
from pubfetch.fetcher import fetch_many, init_publication
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.ids import PublicationIds, classify
from pubfetch.net.client import HttpClient
from pubfetch.net.config import HttpConfig
from pubfetch.net.mapping_transport import Canned, MappingTransport
from pubfetch.net.outcome import OutcomeKind
from pubfetch.net.reachability import NetworkWatch
from pubfetch.net.retry import ExchangeFailed
from pubfetch.net.transport import Request
from pubfetch.store import init_store, open_store
from support.fetchrun import run_context
from support.netsupport import Sleeps

TIMEOUT_MS = 1000


class Silent:
    """A TCP server that accepts every connection and never answers (a black-holing proxy or firewall)."""

    def __init__(self, host: str) -> None:
        self.sock = socket.create_server((host, 0))
        self.host, self.port = host, self.sock.getsockname()[1]
        self.accepted = 0
        #: time.monotonic() of each accepted connection
        self.times: list[float] = []
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.times.append(time.monotonic())
            self.accepted += 1
            self._held.append(conn)

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"

    def close(self) -> None:
        self.sock.close()
        for conn in self._held:
            conn.close()


@pytest.fixture
def silent_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[Silent]]:
    try:
        servers = [Silent("127.0.0.1"), Silent("127.0.0.2")]
    except OSError as e:
        pytest.skip(f"cannot listen on 127.0.0.2 ({e}): a second loopback host is needed")
    monkeypatch.setenv("PUBFETCH_RATE_DB", str(tmp_path / "rates.sqlite"))
    for service in ("NCBI", "EUROPEPMC", "UNPAYWALL"):  # no warning about a missing e-mail
        monkeypatch.setenv(f"PUBFETCH_{service}_EMAIL", "someone@example.org")
    first, second = servers
    for name, server in (("EUROPEPMC", first), ("EUROPEPMC_ANNOTATIONS", first), ("EUTILS", second),
                         ("PUBMED", second), ("DOI", first), ("UNPAYWALL", second)):
        monkeypatch.setenv(f"PUBFETCH_{name}_URL", server.url(f"/{name.lower()}/"))
    yield servers
    for s in servers:
        s.close()


def _database_with_entries(path: Path, ids: list[str]) -> None:
    with init_store(path) as store:
        for value in ids:
            store.put_publication(init_publication(classify(value), FetcherArgs()))
        store.commit()


def _run(ids: Path, db: Path) -> int:
    return main(["-pub-file", str(ids), "-db-fetch", str(db), "--timeout", str(TIMEOUT_MS)])


@pytest.mark.parametrize("given", [["22338609", "31114920", "25605792"],
                                   ["22338609", "PMC6198355", "10.1093/nar/gkz369"]], ids=["pmids", "mixed"])
def test_silent_network_stops_the_run_with_one_line_and_leaves_the_entries_as_they_were(
        silent_network, tmp_path: Path, capsys: pytest.CaptureFixture[str], given: list[str]) -> None:
    """Europe PMC's host is asked once: its search times out and is not retried, and the searches for the other
    kinds of ID (and the DOI's resolution, on the same host here) are not sent to a host that was just silent while
    nothing has answered. Then E-utilities' host once, which finds the network down: nothing more is sent, no
    end-of-run retry, and the requests not sent make no warnings."""
    ids = tmp_path / "ids.txt"
    ids.write_text("\n".join(given) + "\n")
    db = tmp_path / "pubs.db"
    _database_with_entries(db, given)

    code = _run(ids, db)
    err = capsys.readouterr().err.splitlines()
    assert code == 75
    assert err == ["pubfetch: warning: 127.0.0.1: GET /europepmc/search: timed out; a later run retries it",
                   "pubfetch: error: network unreachable: 127.0.0.1, 127.0.0.2 did not answer (timed out); check your "
                   f"connection or HTTPS_PROXY, or give a longer timeout than {TIMEOUT_MS / 1000:g} s (--timeout is "
                   "in milliseconds)"]
    assert [s.accepted for s in silent_network] == [1, 1]
    with open_store(db) as store:
        for value in given:
            pub = store.get_publication(classify(value))
            assert (pub.state.fetch_time, pub.state.retry_counter, pub.state.fetch_exception) == (0, 0, False)


@pytest.mark.timing
def test_silent_network_stops_the_process_within_two_timeouts(silent_network, tmp_path: Path) -> None:
    """Measured on the process a user runs, with a PMID, a PMCID and a DOI (three Europe PMC searches that would
    queue for one connection). From its first request to its exit: two timeouts and what little the stop costs (the
    run's end, thread joins, the interpreter's exit; measured 60-120 ms over two timeouts on a quiet machine, the
    interpreter's exit alone about 50 ms). From its start: the start-up too (imports of the fetching stack, config,
    database; 0.5-0.65 s measured before the first request, 0.4 s of it imports). What the test tells apart is a
    third timeout (a retry or a third silent request would add one): the allowances are that third timeout less a
    quarter of it, since CI's loaded machine has taken 0.52 s over two timeouts for the stop alone."""
    timeout_ms = 2000
    ids = tmp_path / "ids.txt"
    ids.write_text("22338609\nPMC6198355\n10.1093/nar/gkz369\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (str(Path(__file__).parents[1]),
                                                                    os.environ.get("PYTHONPATH")))))
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pubfetch", "-pub-file", str(ids), "-db-fetch",
                           str(tmp_path / "pubs.db"), "--timeout", str(timeout_ms)],
                          env=env, capture_output=True, text=True, timeout=60)
    ended = time.monotonic()
    assert done.returncode == 75, done.stderr
    assert [s.accepted for s in silent_network] == [1, 1]
    first_request = min(t for s in silent_network for t in s.times)
    two_timeouts = 2 * timeout_ms / 1000
    allowance = 0.75 * timeout_ms / 1000
    assert two_timeouts <= ended - first_request < two_timeouts + allowance
    assert ended - started < two_timeouts + allowance + 1.5


# --- the rule, on a scripted network ------------------------------------------------------------------------------

SILENT_A, SILENT_B, ANSWERS = "http://a.test/slow", "http://b.test/slow", "http://c.test/ok"


def _no_answer(_: Request) -> Canned:
    raise ExchangeFailed(OutcomeKind.TIMEOUT, "read timed out", retryable=True)


def _client() -> tuple[HttpClient, MappingTransport]:
    network = MappingTransport({SILENT_A: _no_answer, SILENT_B: _no_answer, ANSWERS: Canned(200, "ok")})
    return HttpClient(HttpConfig(), transport=network, sleep=Sleeps()), network


def _outcome(client: HttpClient, url: str) -> tuple[OutcomeKind, int]:
    result = client.get(url, publication=True)
    return result.kind, result.attempts


def test_a_watched_run_retries_a_timeout_only_once_something_answered() -> None:
    client, network = _client()
    with client.watch.watching():
        assert _outcome(client, SILENT_A) == (OutcomeKind.TIMEOUT, 1)
        assert _outcome(client, ANSWERS) == (OutcomeKind.OK, 1)
        assert _outcome(client, SILENT_A) == (OutcomeKind.TIMEOUT, 2)
    assert network.counts == {SILENT_A: 3, ANSWERS: 1}
    assert not client.watch.down


def test_outside_a_watched_run_a_timeout_is_retried_before_any_answer() -> None:
    client, network = _client()
    assert _outcome(client, SILENT_A) == (OutcomeKind.TIMEOUT, 2)
    with client.watch.watching():
        pass
    assert _outcome(client, SILENT_A) == (OutcomeKind.TIMEOUT, 2)  # the run is over: PubFetcher's retry again
    assert network.counts == {SILENT_A: 4}


def test_before_any_answer_the_first_silence_of_a_second_host_means_the_network_is_down() -> None:
    client, network = _client()
    with client.watch.watching():
        assert _outcome(client, SILENT_A) == (OutcomeKind.TIMEOUT, 1)
        assert not client.watch.down
        assert _outcome(client, SILENT_B) == (OutcomeKind.TIMEOUT, 1)
        assert client.watch.down
        assert _outcome(client, ANSWERS) == (OutcomeKind.CONNECTION, 0)  # not sent
    assert network.counts == {SILENT_A: 1, SILENT_B: 1}
    assert str(client.watch.error()) == ("network unreachable: a.test, b.test did not answer (timed out); check your "
                                         "connection or HTTPS_PROXY, or give a longer timeout than 15 s (--timeout "
                                         "is in milliseconds)")


def test_unwatched_the_first_host_is_retried_and_the_second_host_is_not_once_the_network_is_down() -> None:
    """A timeout that finds the network down is not retried (the retry would not be sent): it stays a timeout."""
    client, network = _client()
    assert _outcome(client, SILENT_A) == (OutcomeKind.TIMEOUT, 2)
    assert not client.watch.down  # two silences of one host: that host's problem
    assert _outcome(client, SILENT_B) == (OutcomeKind.TIMEOUT, 1)
    assert client.watch.down
    assert network.counts == {SILENT_A: 2, SILENT_B: 1}


def test_after_an_answer_four_silences_on_two_hosts_mean_the_network_is_down() -> None:
    client, network = _client()
    with client.watch.watching():
        assert _outcome(client, ANSWERS) == (OutcomeKind.OK, 1)
        assert _outcome(client, SILENT_A) == (OutcomeKind.TIMEOUT, 2)
        assert not client.watch.down
        assert _outcome(client, SILENT_B) == (OutcomeKind.TIMEOUT, 2)
        assert client.watch.down
    assert network.counts == {ANSWERS: 1, SILENT_A: 2, SILENT_B: 2}


def test_fetch_many_watches_its_run_and_only_while_it_runs() -> None:
    """The IDs are read inside the run: there the watch does not retry a timeout (nothing answered); after it does."""
    _, network = _client()
    seen: list[bool] = []
    with run_context(FetchConfig(), transport=network) as ctx:
        def ids() -> Iterator[PublicationIds]:
            seen.append(ctx.client.watch.retries_timeout())
            yield from ()

        assert list(fetch_many(ids(), context=ctx)) == []
        assert seen == [False]
        assert ctx.client.watch.retries_timeout()


def test_a_fresh_watch_retries_timeouts() -> None:
    watch = NetworkWatch()
    assert watch.retries_timeout()
    with watch.watching():
        assert not watch.retries_timeout()
        with watch.watching():  # nested runs sharing one client
            assert not watch.retries_timeout()
        assert not watch.retries_timeout()
        watch.answered()
        assert watch.retries_timeout()


def test_before_any_answer_a_watched_run_does_not_ask_a_silent_host_again(
        caplog: pytest.LogCaptureFixture) -> None:
    client, network = _client()
    with caplog.at_level("INFO", logger="pubfetch.net.client"), client.watch.watching():
        assert _outcome(client, SILENT_A) == (OutcomeKind.TIMEOUT, 1)
        again = client.get(SILENT_A, publication=True)
        assert not client.watch.down  # one host: that host's problem
        assert _outcome(client, ANSWERS) == (OutcomeKind.OK, 1)
        assert _outcome(client, SILENT_A) == (OutcomeKind.TIMEOUT, 2)  # the network works: asked, and retried
    assert (again.kind, again.attempts, again.not_sent, again.fetch_exception) == (OutcomeKind.CONNECTION, 0, True,
                                                                                   True)
    assert again.message == "not sent: a.test did not answer before, and nothing has answered in this run yet"
    assert network.counts == {SILENT_A: 3, ANSWERS: 1}
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warned == ["a.test: GET /slow: timed out; a later fetch retries it"] * 2  # the library's words


def test_the_exchanges_in_flight_are_cut_when_the_network_is_found_down() -> None:
    """A request to a silent server is in flight (its timeout far away) when two other hosts refuse connections:
    the network is found down, and the request in flight ends at once instead of at its timeout."""
    try:
        silent = Silent("127.0.0.1")
        refusing = [_closed_port(host) for host in ("127.0.0.2", "127.0.0.3")]
    except OSError as e:
        pytest.skip(f"cannot listen on 127.0.0.2 and 127.0.0.3 ({e}): three loopback hosts are needed")
    client = HttpClient(HttpConfig(timeout=60_000))
    results = []
    try:
        in_flight = threading.Thread(target=lambda: results.append(client.get(silent.url("/slow"))))
        in_flight.start()
        while not silent.accepted:
            time.sleep(0.01)
        for url in refusing:
            assert client.get(url).kind is OutcomeKind.CONNECTION
        assert client.watch.down
        in_flight.join()
    finally:
        silent.close()
        client.close()
    (cut,) = results
    assert (cut.kind, cut.status, cut.attempts, cut.not_sent) == (OutcomeKind.CONNECTION, None, 1, False)
    assert cut.message == "not answered: the network seems down"
    assert silent.accepted == 1
    assert str(client.watch.error()) == ("network unreachable: 127.0.0.2, 127.0.0.3 did not answer (could not "
                                         "connect); check your connection or HTTPS_PROXY")


def _closed_port(host: str) -> str:
    """A URL on ``host`` where nothing listens (the connection is refused)."""
    with socket.create_server((host, 0)) as sock:
        port = sock.getsockname()[1]
    return f"http://{host}:{port}/"
