"""Reading a response body with a size cap, a decompression-bomb guard and a wall-clock deadline.

The cap is enforced while streaming, on DECODED bytes (what ends up in memory), so a lying or absent Content-Length
cannot get past it. Decompression happens in bounded steps (urllib3 >= 2.6 limits each decompression call to the
requested amount; older versions expand at most one raw chunk, ``CHUNK_SIZE`` bytes, at a time). On top of that, a body
whose decoded size outgrows its wire size by more than a ratio no real page reaches is stopped early as a bomb.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Final

import requests

CHUNK_SIZE: Final = 64 * 1024


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


def wire_bytes(response: requests.Response) -> int | None:
    """Bytes pulled over the wire so far (before content decoding), when the transport tells."""
    tell = getattr(response.raw, "tell", None)
    if tell is None:
        return None
    try:
        return int(tell())
    except (TypeError, ValueError, OSError):
        return None


def iter_decoded(response: requests.Response, chunk_size: int = CHUNK_SIZE) -> Iterator[bytes]:
    """Content-decoded body pieces, each handed over as soon as ONE socket read produced it.

    ``iter_content`` fills every chunk completely before returning it, so a server sending a byte now and then would
    keep it (and any deadline check between chunks) waiting for a whole chunk. urllib3's ``read1`` returns after a
    single read; it exists from urllib3 2.3, and older versions fall back to ``iter_content``.
    """
    raw = response.raw
    read1 = getattr(raw, "read1", None)
    if read1 is None:
        yield from response.iter_content(chunk_size)
        return
    while True:
        chunk = read1(chunk_size, decode_content=True)
        if not chunk:
            return
        yield chunk


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
        max_bytes: more decoded bytes than this raise :class:`BodyTooLarge`.
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
    for chunk in iter_decoded(response):
        total += len(chunk)
        if total > max_bytes:
            raise BodyTooLarge(f"body exceeds the cap of {max_bytes} bytes")
        if max_ratio is not None and total > ratio_floor:
            wire = wire_bytes(response)
            if wire and total / wire > max_ratio:
                raise BodyTooLarge(
                    f"decompression bomb: {wire} bytes on the wire expanded to over {total} (ratio > {max_ratio:g})"
                )
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceeded(f"body not read within the deadline ({total} bytes read)")
        chunks.append(chunk)
    return b"".join(chunks)


def read_some(response: requests.Response, limit: int = CHUNK_SIZE) -> tuple[bytes, bool]:
    """Read at most ``limit`` bytes of a body nobody needs in full (redirects, 503s): enough for the response hook and
    to let a short body be drained so the connection can be reused. Returns ``(bytes, truncated)``; read errors give
    what was read so far."""
    chunks: list[bytes] = []
    total = 0
    try:
        for chunk in response.iter_content(CHUNK_SIZE):
            chunks.append(chunk)
            total += len(chunk)
            if total >= limit:
                return b"".join(chunks)[:limit], True
    except (requests.RequestException, OSError):
        return b"".join(chunks), True
    return b"".join(chunks), False
