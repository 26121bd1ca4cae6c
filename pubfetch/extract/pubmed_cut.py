"""Elements of an efetch answer cut out of its bytes before libxml2 parses it, when the run does not ask for
references.

A PubMed record with its reference list is about twice the size of what such a run reads from it: the list and the
``History`` (the dates of each step through PubMed, which no part needs) are a good share of the nodes libxml2 would
build and free (docs/benchmarks.md). A scan of the bytes finds them and leaves them out; when references are read the
scan is not made (the ``History`` alone does not pay for a scan of the whole answer). Nothing is cut from a document
holding a comment or a CDATA section (where the bytes of a tag need not be one), declaring another encoding than
UTF-8, or where an element's end is not found; a reference list holding others is cut whole, to the end of the
outermost. What is cut is not checked to be well-formed: it is never read.
"""

from __future__ import annotations

import re

__all__ = ["cut_unread"]

_ENCODING = re.compile(rb"""^(?:\xef\xbb\xbf)?<\?xml[^>]*encoding\s*=\s*["']([^"']*)["']""")

#: What the scan stops at: a ``History``, a ``ReferenceList``, and ``<!`` (a comment, a CDATA section: nothing is cut
#: from a document holding either, where the bytes of a tag need not be one; or the type declaration).
_MARK = re.compile(rb"<(?:(History)>|(ReferenceList)>|!)")
#: What a reference list dropped unread may not hold: a nested list (its end is not the first) or a ``<!``.
_NOT_DROPPED = re.compile(rb"<(?:ReferenceList|!)")
_HISTORY_END = b"</History>"
_LIST_END = b"</ReferenceList>"


def cut_unread(data: bytes) -> bytes:
    """``data`` without its ``History`` elements and its reference lists; ``data`` itself when nothing can be cut
    safely."""
    encoding = _ENCODING.match(data)
    if encoding is not None and encoding.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        return data
    pieces: list[bytes] = []
    kept = at = 0
    while (mark := _MARK.search(data, at)) is not None:
        start = mark.start()
        if mark.lastindex == 1:  # History
            close = data.find(_HISTORY_END, start)
            if close < 0 or data.find(b"<!", start, close) >= 0:
                return data
            at = close + len(_HISTORY_END)
        elif mark.lastindex == 2:  # ReferenceList
            close = data.find(_LIST_END, start)
            if close < 0:
                return data
            at = close + len(_LIST_END)
            inner = _NOT_DROPPED.search(data, mark.end(), close)
            if inner is not None:
                at = _outer_end(data, start) if inner.group() != b"<!" else -1
                if at < 0:
                    return data
        elif data.startswith(b"<!DOCTYPE", start) and not pieces:
            at = mark.end()
            continue
        else:
            return data
        pieces.append(data[kept:start])
        kept = at
    if not pieces:
        return data
    pieces.append(data[kept:])
    return b"".join(pieces)


def _outer_end(data: bytes, start: int) -> int:
    """Where the reference list opened at ``start``, which holds others, ends (-1 when it does not, or holds a
    ``<!``)."""
    depth = 0
    at = start
    while (close := data.find(_LIST_END, at)) >= 0:
        mark = _NOT_DROPPED.search(data, at, close)
        if mark is not None:
            if mark.group() == b"<!" or data[mark.end():mark.end() + 1] != b">":
                return -1  # a comment, or a list with attributes or none of its own end
            depth += 1
            at = mark.end()
        else:
            depth -= 1
            at = close + len(_LIST_END)
            if depth == 0:
                return at
    return -1
