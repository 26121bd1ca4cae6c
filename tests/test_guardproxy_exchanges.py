"""The browser's guard proxy serves one exchange per plain-HTTP client connection: a second
request on a connection whose first one was checked, pipelined or sent after the answer, must not reach the server or
the upstream proxy unchecked. The server here ignores ``Connection: close`` and answers every request it gets, as a
hostile server (or a keep-alive upstream proxy) would."""

from __future__ import annotations

import socket
import threading

import pytest

from pubfetch.net import addresses, guardproxy
from pubfetch.net.guardproxy import GuardProxy

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok"


class KeepAliveServer:
    """Answers every request head it receives on a connection and keeps the connection open; records the heads."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.heads: list[bytes] = []
        self.received = b""
        self.ended = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def port(self) -> int:
        return self.listener.getsockname()[1]

    def _serve(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        data = b""
        with conn:
            conn.settimeout(60)
            try:
                while chunk := conn.recv(65536):
                    data += chunk
                    self.received += chunk
                    while b"\r\n\r\n" in data:
                        head, _, data = data.partition(b"\r\n\r\n")
                        self.heads.append(head)
                        conn.sendall(ANSWER)
            except OSError:
                pass
        self.ended.set()

    def close(self) -> None:
        self.listener.close()


def read_answer(sock: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"ok"):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(65536) == b""
    except ConnectionResetError:  # closed with the unforwarded request unread
        return True


def request(url: str) -> bytes:
    host = url.split("/")[2]
    return f"GET {url} HTTP/1.1\r\nHost: {host}\r\nProxy-Connection: keep-alive\r\n\r\n".encode()


@pytest.fixture
def server():
    s = KeepAliveServer()
    yield s
    s.close()


@pytest.fixture
def loopback_is_public(monkeypatch: pytest.MonkeyPatch):
    """127.0.0.1 stands for a public site, the name ``internal.example`` for an internal one."""
    monkeypatch.setattr(addresses, "forbidden_ip_reason", lambda ip: None)
    monkeypatch.setattr(guardproxy.addresses, "forbidden_name_reason",
                        lambda host: "internal name" if host == "internal.example" else None)


@pytest.mark.parametrize("through_upstream", [False, True], ids=["direct", "upstream proxy"])
@pytest.mark.parametrize("pipelined", [False, True], ids=["after the answer", "pipelined"])
def test_a_second_request_on_a_connection_is_not_forwarded(server, loopback_is_public, through_upstream, pipelined):
    upstream = (lambda url: f"http://127.0.0.1:{server.port}") if through_upstream else (lambda url: None)
    first = request(f"http://127.0.0.1:{server.port}/first")
    second = request(f"http://internal.example:{server.port}/secret")
    with GuardProxy(upstream=upstream) as proxy:
        browser = socket.create_connection(("127.0.0.1", int(proxy.url.rsplit(":", 1)[1])), timeout=60)
        with browser:
            if pipelined:  # the second request arrives with the first: dropped
                browser.sendall(first + second)
                assert read_answer(browser).endswith(b"ok")
            else:  # the second request ends the connection's one exchange
                browser.sendall(first)
                assert read_answer(browser).endswith(b"ok")
                browser.sendall(second)
                assert closed(browser)
        assert server.ended.wait(60)  # the proxy's connection to the server is closed too
    assert len(server.heads) == 1, server.heads
    assert b"/first" in server.heads[0] and b"connection: close" in server.heads[0].lower()
    assert all(b"secret" not in head for head in server.heads)


def test_a_request_body_is_forwarded_by_its_length_and_nothing_after_it(server, loopback_is_public):
    body = b"a=1&b=2"
    post = (f"POST http://127.0.0.1:{server.port}/form HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode() + body
    with GuardProxy(upstream=lambda url: None) as proxy:
        browser = socket.create_connection(("127.0.0.1", int(proxy.url.rsplit(":", 1)[1])), timeout=60)
        with browser:
            browser.sendall(post + request(f"http://internal.example:{server.port}/secret"))
            assert read_answer(browser).endswith(b"ok")
        assert server.ended.wait(60)
    assert len(server.heads) == 1
    assert server.heads[0].startswith(b"POST /form ")
    assert server.received.endswith(b"\r\n\r\n" + body)  # the body, and nothing after it


def test_the_answer_tells_the_browser_that_the_connection_closes(server, loopback_is_public):
    """The server's keep-alive is replaced by ``Connection: close`` in the answer the browser gets, so the browser opens
    a new connection for its next request instead of sending it on this one and waiting to see it dropped."""
    with GuardProxy(upstream=lambda url: None) as proxy:
        browser = socket.create_connection(("127.0.0.1", int(proxy.url.rsplit(":", 1)[1])), timeout=60)
        with browser:
            browser.sendall(request(f"http://127.0.0.1:{server.port}/first"))
            answer = read_answer(browser)
    head, _, body = answer.partition(b"\r\n\r\n")
    fields = [line.lower() for line in head.split(b"\r\n")[1:]]
    assert body == b"ok" and head.startswith(b"HTTP/1.1 200 OK")
    assert b"connection: close" in fields and b"connection: keep-alive" not in fields
    assert b"content-length: 2" in fields
