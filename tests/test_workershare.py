"""A worker's large byte arguments go through memory the parent and the worker both map: the worker gets the same
bytes as through the pipe, whatever their size, the memory file grows for a large one and shrinks back after it, and
where the memory cannot be shared the pipe carries them as before."""

from __future__ import annotations

import hashlib
import os

import pytest

from pubfetch.extract import workershare
from pubfetch.extract.workerpool import WorkerPool
from pubfetch.extract.workershare import KEPT, MIN_SHARED, SharedArgs, SharedBytes

pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="no memfd_create on this platform")


def digest(data: bytes, label: str) -> tuple[str, int, str]:
    """What the worker received: a checksum, the length, and the other argument as given."""
    return hashlib.sha256(data).hexdigest(), len(data), label


def kinds(*args: object) -> list[str]:
    return [type(a).__name__ for a in args]


def text_digest(job: tuple[str, str], options: dict) -> tuple[str, int, str, dict]:
    """What a page reader's worker receives: its arguments in a tuple (the HTML, the address) and its options."""
    html, url = job
    return hashlib.sha256(html.encode("utf-8", "surrogatepass")).hexdigest(), len(html), url, options


@pytest.mark.parametrize("size", [0, 100, MIN_SHARED - 1, MIN_SHARED, 740_000, KEPT + 1, 3 * KEPT + 12345])
def test_the_worker_gets_the_bytes_as_given(size: int) -> None:
    data = os.urandom(size)
    with WorkerPool(1) as pool:
        outcome = pool.run(digest, data, "label", time_limit=60)
        assert outcome.kind == "ok"
        assert outcome.value == (hashlib.sha256(data).hexdigest(), size, "label")


@pytest.mark.parametrize("html", ["<p>" + "\u00e9t\u00e9 " * 40_000 + "</p>", "\ud800 a lone surrogate " * 5000,
                                  "short"])
def test_a_text_inside_the_jobs_tuple_arrives_as_given(html: str) -> None:
    """A page's HTML (a str, inside the tuple of the reader's own arguments) goes the same way; any str does, a lone
    surrogate included, as pickle would carry it."""
    with WorkerPool(1) as pool:
        outcome = pool.run(text_digest, (html, "https://example.org/a"), {"meta": True}, time_limit=60)
        assert outcome.value == (hashlib.sha256(html.encode("utf-8", "surrogatepass")).hexdigest(), len(html),
                                 "https://example.org/a", {"meta": True})


def test_what_is_shared_is_the_first_large_value_top_level_or_one_level_down(monkeypatch: pytest.MonkeyPatch
                                                                            ) -> None:
    shared = SharedArgs()
    monkeypatch.setattr(workershare.reduction, "send_handle", lambda conn, fd, pid: None)

    class Conn:
        def send(self, message: object) -> None:
            pass

    big = "x" * MIN_SHARED
    try:
        packed = shared.pack((len, ("small", 1), (big, "url"), b"y" * MIN_SHARED), Conn(), None)
        assert packed[0] is len and packed[1] == ("small", 1) and packed[3] == b"y" * MIN_SHARED
        assert isinstance(packed[2][0], SharedBytes) and packed[2][0].text and packed[2][1] == "url"
        deep = (((big,),),)
        assert shared.pack(deep, Conn(), None) is deep  # two levels down: the pipe
    finally:
        shared.close()


def test_the_memory_file_grows_for_a_large_argument_and_shrinks_back() -> None:
    with WorkerPool(1) as pool:
        small, large = os.urandom(MIN_SHARED), os.urandom(2 * KEPT + 1)
        for data in (small, large, small, large, small):
            assert pool.run(digest, data, "x", time_limit=60).value[0] == hashlib.sha256(data).hexdigest()
        worker = pool._idle[0]
        assert worker.shared._map is not None and len(worker.shared._map) == KEPT


def test_only_large_bytes_are_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    shared = SharedArgs()
    sent: list[object] = []

    class Conn:
        def send(self, message: object) -> None:
            sent.append(message)

    monkeypatch.setattr(workershare.reduction, "send_handle", lambda conn, fd, pid: sent.append(fd))
    try:
        assert shared.pack((b"x" * (MIN_SHARED - 1), 3), Conn(), None) == (b"x" * (MIN_SHARED - 1), 3)
        assert sent == []
        packed = shared.pack(("name", b"y" * MIN_SHARED), Conn(), None)
        assert packed[0] == "name" and isinstance(packed[1], SharedBytes) and packed[1].size == MIN_SHARED
        assert sent[0] == workershare.ATTACH and len(sent) == 2  # the descriptor follows, once
        shared.pack((b"z" * MIN_SHARED,), Conn(), None)
        assert len(sent) == 2
    finally:
        shared.close()


def test_without_shared_memory_the_pipe_carries_the_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object) -> int:
        raise OSError("memfd_create refused")

    monkeypatch.setattr(os, "memfd_create", refused)
    data = os.urandom(740_000)
    with WorkerPool(1) as pool:
        assert pool.run(digest, data, "pipe", time_limit=60).value == (hashlib.sha256(data).hexdigest(), 740_000,
                                                                      "pipe")
        assert pool.run(kinds, data, time_limit=60).value == ["bytes"]
        assert not pool._idle[0].shared._usable
