"""Reading a response body with a size cap, a decompression-bomb guard and a wall-clock deadline.

The body is read RAW (as it came over the wire, transfer coding removed) in bounded chunks and decoded here, so that
both sizes are counted: the wire bytes (urllib3's ``read1`` keeps reading until it has decoded something, so through
it a gzip stream that never yields output would be read for ever) and the decoded bytes (what ends up in memory), each
against the cap, whatever Content-Length says. The decoder is fed one chunk at a time and asked for at most
``CHUNK_SIZE`` bytes per call, so one small chunk cannot expand into gigabytes at once; and a body whose decoded size
outgrows its wire size by more than a ratio no real page reaches is stopped early as a bomb.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any, Final

import requests
import urllib3.exceptions

CHUNK_SIZE: Final = 64 * 1024
#: Wire bytes read of a body nobody needs in full (a redirect's, an error page's): enough for any real one.
SMALL_WIRE_LIMIT: Final = 1024 * 1024


class BodyTooLarge(Exception):
    """The body exceeded ``max_bytes`` or looks like a decompression bomb."""


class DeadlineExceeded(Exception):
    """Reading took longer than the exchange deadline (a server dripping bytes slower than the read timeout)."""


def declared_length(response: requests.Response) -> int | None:
    """Content-Length as an int, ``None`` when absent or garbled."""
    value = response.headers.get("Content-Length")
    if value is None:
        return None
    try:
        length = int(value.strip())
    except ValueError:
        return None
    return length if length >= 0 else None


def _decoder(response: requests.Response) -> Any:
    """urllib3's decoder for the Content-Encoding (``None`` for none or identity)."""
    encoding = (response.headers.get("Content-Encoding") or "").strip().lower()
    if encoding in ("", "identity"):
        return None
    from urllib3.response import _get_decoder

    return _get_decoder(encoding)


def _expand(decoder: Any, data: bytes) -> Iterator[bytes]:
    """Decoded pieces of one raw chunk, at most ``CHUNK_SIZE`` bytes each."""
    try:
        out = decoder.decompress(data, max_length=CHUNK_SIZE)
        while True:
            if out:
                yield out
            if not decoder.has_unconsumed_tail:
                return
            out = decoder.decompress(b"", max_length=CHUNK_SIZE)
    except (zlib.error, OSError, ValueError) as e:
        raise urllib3.exceptions.DecodeError(f"cannot decode the body: {e}") from e


def iter_body(response: requests.Response, wire_limit: int, on_wire: Callable[[int], None] | None = None,
              ) -> Iterator[bytes]:
    """Decoded body pieces, each handed over as soon as one socket read produced it (``read1``; a server sending a
    byte now and then cannot hold a deadline check back for a whole chunk). More than ``wire_limit`` raw bytes of an
    encoded body raise :class:`BodyTooLarge`; ``on_wire`` is told the raw total after every read."""
    raw = response.raw
    read1 = getattr(raw, "read1", None)
    decoder = _decoder(response)
    wire = 0
    while True:
        data = read1(CHUNK_SIZE, decode_content=False) if read1 is not None else raw.read(CHUNK_SIZE,
                                                                                           decode_content=False)
        if not data:
            break
        wire += len(data)
        if decoder is not None and wire > wire_limit:  # unencoded, wire and decoded bytes are the same
            raise BodyTooLarge(f"compressed body exceeds the cap of {wire_limit} bytes on the wire")
        if on_wire is not None:
            on_wire(wire)
        if decoder is None:
            yield data
        else:
            yield from _expand(decoder, data)
    if decoder is not None:
        tail = decoder.flush()
        if tail:
            yield tail


def read_capped(
    response: requests.Response,
    max_bytes: int,
    *,
    deadline: float | None = None,
    max_ratio: float | None = None,
    ratio_floor: int = 1024 * 1024,
) -> bytes:
    """Read the whole (content-decoded) body of a streamed response.

    Args:
        response: a response obtained with ``stream=True``.
        max_bytes: more decoded bytes, or more bytes on the wire, than this raise :class:`BodyTooLarge`.
        deadline: ``time.monotonic()`` value after which :class:`DeadlineExceeded` is raised.
        max_ratio: decoded/wire ratio above which (once ``ratio_floor`` bytes are decoded) :class:`BodyTooLarge` is
            raised; ``None`` disables the check.
        ratio_floor: decoded size below which the ratio is not checked.

    Raises:
        BodyTooLarge, DeadlineExceeded, and whatever requests raises while reading (timeouts, resets).
    """
    length = declared_length(response)
    if length is not None and length > max_bytes:
        raise BodyTooLarge(f"Content-Length {length} exceeds the cap of {max_bytes} bytes")
    chunks: list[bytes] = []
    total = 0
    wire = [0]

    def count(n: int) -> None:
        wire[0] = n
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceeded(f"body not read within the deadline ({n} bytes read)")

    for chunk in iter_body(response, max_bytes, count):
        total += len(chunk)
        if total > max_bytes:
            raise BodyTooLarge(f"body exceeds the cap of {max_bytes} bytes")
        if max_ratio is not None and total > ratio_floor and wire[0] and total / wire[0] > max_ratio:
            raise BodyTooLarge(
                f"decompression bomb: {wire[0]} bytes on the wire expanded to over {total} (ratio > {max_ratio:g})"
            )
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceeded(f"body not read within the deadline ({total} bytes read)")
        chunks.append(chunk)
    return b"".join(chunks)


def read_some(response: requests.Response, limit: int = CHUNK_SIZE) -> tuple[bytes, bool]:
    """Read at most ``limit`` decoded bytes (and ``SMALL_WIRE_LIMIT`` raw ones) of a body nobody needs in full
    (redirects, 503s): enough for the response hook and to let a short body be drained so the connection can be
    reused. Returns ``(bytes, truncated)``; read errors give what was read so far."""
    chunks: list[bytes] = []
    total = 0
    try:
        for chunk in iter_body(response, SMALL_WIRE_LIMIT):
            chunks.append(chunk)
            total += len(chunk)
            if total >= limit:
                return b"".join(chunks)[:limit], True
    except (requests.RequestException, OSError, BodyTooLarge, urllib3.exceptions.HTTPError):
        return b"".join(chunks), True
    return b"".join(chunks), False
