"""Tests for pubfetch.net.body: a response body read within a size cap on the wire and decoded, a decompression-bomb
ratio and a deadline; and a bounded piece of a body nobody needs in full."""

from __future__ import annotations

import gzip
import io
import time
import zlib
from collections.abc import Callable

import pytest
import requests
import urllib3

from pubfetch.net.body import (
    CHUNK_SIZE,
    BodyTooLarge,
    DeadlineExceeded,
    declared_length,
    read_capped,
    read_some,
)


def response(body: bytes, headers: dict[str, str] | None = None) -> requests.Response:
    """A streamed response over ``body`` as it came over the wire (no socket: urllib3 reads from memory)."""
    raw = urllib3.HTTPResponse(body=io.BytesIO(body), headers=headers or {}, status=200, preload_content=False,
                               decode_content=False)
    answer = requests.Response()
    answer.raw = raw
    answer.status_code = 200
    answer.headers = requests.structures.CaseInsensitiveDict(headers or {})
    return answer


@pytest.mark.parametrize(("value", "length"), [("120", 120), (" 7 ", 7), ("0", 0), ("-1", None), ("ten", None),
                                               (None, None)])
def test_declared_length(value: str | None, length: int | None) -> None:
    assert declared_length(response(b"", {} if value is None else {"Content-Length": value})) == length


def test_a_plain_body_is_read_whole_up_to_the_cap() -> None:
    body = b"x" * (3 * CHUNK_SIZE + 5)
    assert read_capped(response(body), max_bytes=len(body)) == body
    with pytest.raises(BodyTooLarge, match=f"body exceeds the cap of {len(body) - 1} bytes"):
        read_capped(response(body), max_bytes=len(body) - 1)


def test_a_declared_length_over_the_cap_is_refused_before_reading() -> None:
    with pytest.raises(BodyTooLarge, match="Content-Length 5000 exceeds the cap of 100 bytes"):
        read_capped(response(b"small", {"Content-Length": "5000"}), max_bytes=100)


@pytest.mark.parametrize(("encoding", "encode"), [
    ("gzip", gzip.compress), ("deflate", zlib.compress), ("identity", lambda data: data)])
def test_an_encoded_body_is_decoded(encoding: str, encode: Callable[[bytes], bytes]) -> None:
    text = b"<html>" + b"tide table " * 20_000 + b"</html>"
    assert read_capped(response(encode(text), {"Content-Encoding": encoding}), max_bytes=len(text)) == text


def test_a_gzip_bomb_is_stopped_by_the_ratio_and_else_by_the_cap() -> None:
    bomb = gzip.compress(b"\0" * (20 * 1024 * 1024))
    with pytest.raises(BodyTooLarge, match="decompression bomb"):
        read_capped(response(bomb, {"Content-Encoding": "gzip"}), max_bytes=64 * 1024 * 1024, max_ratio=100)
    with pytest.raises(BodyTooLarge, match="body exceeds the cap of 1048576 bytes"):
        read_capped(response(bomb, {"Content-Encoding": "gzip"}), max_bytes=1024 * 1024)


def test_compressed_bytes_on_the_wire_count_against_the_cap_too() -> None:
    noise = gzip.compress(bytes(range(256)) * 4096, compresslevel=0)  # stored: the wire is larger than the page
    with pytest.raises(BodyTooLarge, match="compressed body exceeds the cap of 1000000 bytes on the wire"):
        read_capped(response(noise, {"Content-Encoding": "gzip"}), max_bytes=1_000_000)


def test_a_body_that_does_not_decode_is_a_decode_error() -> None:
    with pytest.raises(urllib3.exceptions.DecodeError):
        read_capped(response(b"this is not gzip at all", {"Content-Encoding": "gzip"}), max_bytes=1000)


def test_a_passed_deadline_stops_the_read() -> None:
    with pytest.raises(DeadlineExceeded, match="body not read within the deadline"):
        read_capped(response(b"x" * 10), max_bytes=100, deadline=time.monotonic() - 1)


def test_read_some_gives_a_bounded_piece_and_says_whether_it_is_all() -> None:
    assert read_some(response(b"short body")) == (b"short body", False)
    piece, truncated = read_some(response(b"y" * 5000), limit=1000)
    assert (piece, truncated) == (b"y" * 1000, True)
    page = gzip.compress(b"<p>moved</p>")
    assert read_some(response(page, {"Content-Encoding": "gzip"})) == (b"<p>moved</p>", False)


def test_read_some_keeps_what_it_read_when_the_body_breaks() -> None:
    assert read_some(response(b"not gzip", {"Content-Encoding": "gzip"})) == (b"", True)
