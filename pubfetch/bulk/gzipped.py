"""Gzip files read by ISA-L where it is installed (python-isal, the ``fast`` extra), else by the standard library.

PubMed's bulk files (about 1,300 of them for the baseline) and Europe PMC's open-access files come gzipped. ISA-L
inflates them in about half the time zlib takes, the same bytes out (docs/bulk.md); its one error of its own, a
broken deflate stream, is zlib's ``zlib.error`` in the standard library, so a reader catches :data:`DAMAGED` for both.
"""

from __future__ import annotations

import gzip
import typing
import zlib
from typing import IO

_inflate_errors: tuple[type[BaseException], ...]
try:
    from isal import igzip as _gzip
    from isal import isal_zlib

    _inflate_errors = (zlib.error, typing.cast(type[BaseException], isal_zlib.error))
except ImportError:  # the standard library's, without the fast extra
    _gzip = gzip  # type: ignore[misc]
    _inflate_errors = (zlib.error,)

__all__ = ["DAMAGED", "INFLATER", "open_gzip"]

#: The exceptions a damaged gzip file raises while it is read: cut short, a bad header or checksum, a broken stream.
DAMAGED: tuple[type[BaseException], ...] = (EOFError, gzip.BadGzipFile, *_inflate_errors)
#: Which library inflates (``isal.igzip`` or ``gzip``): the benchmarks say it beside their figures.
INFLATER: str = _gzip.__name__


def open_gzip(path: str) -> IO[bytes]:
    """The decompressed bytes of the gzip file at ``path``, as a binary stream."""
    return typing.cast(IO[bytes], _gzip.open(path, "rb"))
