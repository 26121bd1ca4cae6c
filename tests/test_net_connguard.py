"""Tests for pubfetch.net.connguard: a guarded exchange refuses a socket that reached a forbidden address, and an
exchange's connection is cut at its deadline or when it is aborted, whatever urllib3 is waiting for."""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator

import pytest
import requests

from pubfetch.net import connguard
from pubfetch.net.connguard import ForbiddenPeer, GuardedAdapter, GuardedHTTPConnection
from support.loopback import LoopbackServer, Reply


@pytest.fixture
def silent() -> Iterator[tuple[str, int]]:
    """A loopback port whose connections complete (the kernel's backlog) and never get an answer."""
    with socket.create_server(("127.0.0.1", 0), backlog=8) as server:
        yield server.getsockname()


def test_a_guarded_exchange_refuses_a_socket_that_reached_a_loopback_address(silent: tuple[str, int]) -> None:
    with connguard.exchange(True, None) as state:
        connection = GuardedHTTPConnection(*silent, timeout=5)
        with pytest.raises(ForbiddenPeer):
            connection.connect()
    assert state.refused is not None and state.refused.startswith("127.0.0.1 connected to 127.0.0.1, a ")


def test_outside_an_exchange_or_unguarded_any_peer_is_allowed(silent: tuple[str, int]) -> None:
    for guarded in (None, False):
        connection = GuardedHTTPConnection(*silent, timeout=5)
        if guarded is None:
            connection.connect()
        else:
            with connguard.exchange(guarded, None) as state:
                connection.connect()
            assert state.refused is None
        assert connection.sock is not None
        connection.close()


def test_the_exchange_is_current_only_inside_and_nests() -> None:
    assert connguard.current() is None
    with connguard.exchange(False, None) as outer:
        assert connguard.current() is outer
        with connguard.exchange(True, None) as inner:
            assert connguard.current() is inner and inner.guarded
        assert connguard.current() is outer and inner.done and not outer.done
    assert connguard.current() is None and outer.done


def test_the_deadline_cuts_a_request_waiting_for_its_answer(silent: tuple[str, int]) -> None:
    """The socket timeout (a minute) would wait; the exchange's deadline shuts the connection down instead."""
    with connguard.exchange(False, 0.2) as state:
        connection = GuardedHTTPConnection(*silent, timeout=60)
        connection.request("GET", "/slow")
        with pytest.raises(http.client.RemoteDisconnected):  # the status line never came: the connection was cut
            connection.getresponse()
    assert state.expired and state.aborted is None
    connection.close()


def test_an_abort_cuts_the_connection_in_use_and_its_watched_sockets(silent: tuple[str, int]) -> None:
    with connguard.exchange(False, None) as state:
        connection = GuardedHTTPConnection(*silent, timeout=60)
        connection.request("GET", "/slow")  # the connection is now the exchange's
        extra = socket.create_connection(silent, timeout=60)
        state.watch_socket(extra)
        state.abort("the network seems down")
        state.abort("a second reason is not kept")
        assert connection.sock.recv(1) == b"" and extra.recv(1) == b""  # shut down: nothing to wait for
    assert state.aborted == "the network seems down" and not state.expired
    connection.close()
    extra.close()


def test_a_connection_made_after_its_exchange_was_cut_is_cut_at_once(silent: tuple[str, int]) -> None:
    """The cut may come while the exchange still connects (no socket to shut down yet): the new socket is shut
    down as soon as it exists, and so is a socket watched after the cut."""
    with connguard.exchange(False, None) as state:
        state.abort("not answered: the network seems down")
        connection = GuardedHTTPConnection(*silent, timeout=60)
        connection.connect()
        assert connection.sock.recv(1) == b""
        late = socket.create_connection(silent, timeout=60)
        state.watch_socket(late)
        assert late.recv(1) == b""
    connection.close()
    late.close()


def guarded_session() -> requests.Session:
    session = requests.Session()
    session.mount("http://", GuardedAdapter())
    return session


def test_the_adapter_guards_each_new_connection_requests_makes() -> None:
    with LoopbackServer({"/a": Reply(200, "fine")}) as server:
        with guarded_session() as session, connguard.exchange(True, None) as state:
            with pytest.raises(requests.exceptions.ConnectionError):
                session.get(server.url("/a"), timeout=10)
            assert state.refused is not None and "127.0.0.1" in state.refused
        assert server.count("/a") == 0  # refused before a byte was sent
        with guarded_session() as session, connguard.exchange(False, None):
            assert session.get(server.url("/a"), timeout=10).text == "fine"
