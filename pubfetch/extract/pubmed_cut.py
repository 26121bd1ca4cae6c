"""Elements of an efetch answer left out of what libxml2 parses, cut from its bytes as they pass on to the parser.

No part reads a record's ``History`` (the dates of each step through PubMed): it is cut from every answer. A run that
does not ask for references does not read the reference lists either: they are cut too. Both are a good share of the
nodes libxml2 would build and free for a MEDLINE record (docs/benchmarks.md). A run that reads references has each
list written in PubMed's plain form read from its bytes as it passes (:mod:`pubfetch.extract.pubmed_reflist`) and a
placeholder parsed in its place; a list that holds another is parsed as written, and one with attributes (which
PubMed never writes) stops the cutting.

The bytes pass through in pieces, as read (a gzipped file is inflated piece by piece into the parser, never held
whole: a whole file's bytes in one buffer, and a copy of it, cost more than the parse of a tenth of its records), so a
mark may straddle two pieces and a cut element may end pieces later; what may still be the start of a mark waits for
the next piece.

Only elements are cut, never what merely looks like one: a ``<History>`` inside a comment, a CDATA section or a
processing instruction is text. Those three are passed over to their ends, as written (MEDLINE's files hold processing
instructions such as ``<?pmcsd ?>`` between a record's IDs and its references), and so is the ``<!`` of the prolog's
document type declaration; any other ``<!`` (an internal subset's declarations) stops the cutting, and everything from
there on passes as written: what was cut before it was whole elements outside any of those. A cut element may not
hold a ``<!`` or ``<?`` either, nor a reference list another list with attributes or none of its own end: the cutting
stops there too. Nothing is cut from a document declaring another encoding than UTF-8. What is cut is not checked to
be well-formed: it is never read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import IO

from pubfetch.extract.pubmed_reflist import ListsRead, read_reference_list

__all__ = ["PIECE", "answer_pieces", "without_unread"]

#: The size of the pieces an answer is read in (a parser's feed, a gzip file's reads).
PIECE = 256 * 1024
#: Bytes gathered before the XML declaration's encoding is read (a stream may give fewer than asked).
_HEAD = 1024

_ENCODING = re.compile(rb"""^(?:\xef\xbb\xbf)?<\?xml[^>]*encoding\s*=\s*["']([^"']*)["']""")

#: The elements cut: their opening tags, as the scan finds them.
_HISTORY = b"<History>"
_LIST = b"<ReferenceList>"
#: The longest mark: what may be its start at the end of a piece waits for the next one.
_LONGEST = len(_LIST)
#: What a reference list dropped unread may not hold: a nested list (its end is not the first), a ``<!`` or a ``<?``;
#: :func:`_list_end_step` looks for the list by ``bytes.find`` and for the others by :func:`_holds_markup`,
#: :func:`_outer_end` (a list holding others) for all three by the expression, which says which it found.
_NESTED_LIST = b"<ReferenceList"
_NOT_DROPPED = re.compile(rb"<(?:ReferenceList|[!?])")
_HISTORY_END = b"</History>"
_LIST_END = b"</ReferenceList>"
#: How many bytes a ``<!`` needs to be told apart (``<!DOCTYPE``, ``<![CDATA[``).
_PROLOG_MARK = len(b"<!DOCTYPE")


def answer_pieces(source: bytes | bytearray | IO[bytes]) -> Iterator[bytes]:
    """An answer's bytes in pieces of at most :data:`PIECE`: slices of bytes in memory, reads of a binary stream."""
    if isinstance(source, (bytes, bytearray)):
        view = memoryview(source)
        for at in range(0, len(view), PIECE):
            yield bytes(view[at:at + PIECE])
        return
    while piece := source.read(PIECE):
        if not isinstance(piece, (bytes, bytearray)):
            raise TypeError("an answer's stream is read as bytes: open the file in binary mode ('rb')")
        yield bytes(piece) if isinstance(piece, bytearray) else piece


def without_unread(pieces: Iterable[bytes], references: bool, lists_read: ListsRead | None = None) -> Iterator[bytes]:
    """The pieces' bytes without their ``History`` elements and, unless ``references`` are read, their reference
    lists, as far as they can be cut soundly (the module's rules); the bytes as they are from where they cannot.
    When references are read and ``lists_read`` is given, each list in PubMed's plain form is read from its bytes
    into it and its placeholder passed on in its place (:mod:`pubfetch.extract.pubmed_reflist`)."""
    stream = iter(pieces)
    buffer = _head(stream)
    encoding = _ENCODING.match(buffer)
    if encoding is not None and encoding.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        yield buffer
        yield from stream
        return
    reading = references and lists_read is not None
    marks = _Marks(buffer, (_HISTORY, _NESTED_LIST) if reading else (_HISTORY,) if references else (_HISTORY, _LIST))
    cut = False  # whether an element was cut: the type declaration is looked into only before
    kept = at = 0  # the buffer is passed on up to ``kept`` and scanned up to ``at``
    while True:
        start, mark = marks.next(at)
        step = _step(buffer, start, mark, cut, reading) if mark else _MORE
        placeholder = b""
        if step[0] == _READ:
            step, placeholder = _read(buffer, start, step[1], lists_read)  # type: ignore[arg-type]
        if step is _MORE:
            more = next(stream, None)
            if more is None:
                if kept < len(buffer):
                    yield buffer[kept:]
                return
            hold = start if mark else max(at, len(buffer) - (_LONGEST - 1))
            if hold > kept:
                yield buffer[kept:hold]
            buffer, kept, at = buffer[hold:] + more, 0, 0
            marks = _Marks(buffer, marks.needles)
            continue
        kind, position = step
        if kind == _PASS:
            at = position
        elif kind == _STOP:
            yield buffer[kept:]
            yield from stream
            return
        else:
            if start > kept:
                yield buffer[kept:start]
            if placeholder:
                yield placeholder
            kept = at = position
            cut = True


def _head(stream: Iterator[bytes]) -> bytes:
    """The first pieces of a stream, as many as hold its XML declaration whole."""
    buffer = next(stream, b"")
    while len(buffer) < _HEAD and (more := next(stream, None)) is not None:
        buffer += more
    return buffer


class _Marks:
    """The next mark of a buffer at or after a position: the opening tag of an element cut, or a ``<!`` or ``<?``.
    Each is found by a search of its own (a regular expression stopping at every ``<`` of a document made of them
    took as long as the cut saved), and a search's answer is kept until the scan passes it, so that a needle found
    rarely is not looked for again through the rest of the buffer at every mark."""

    def __init__(self, buffer: bytes, needles: tuple[bytes, ...]) -> None:
        self.buffer = buffer
        self.needles = needles
        self._found: list[int | None] = [None] * len(needles)  # where each is next (-1: nowhere; None: not looked)
        self._other: int | None = None  # the next ``<!`` or ``<?``, found from the ``!`` or ``?`` (a memchr)

    def next(self, at: int) -> tuple[int, bytes]:
        """(where, which) of the first mark at or after ``at``; ``(-1, b"")`` when there is none."""
        best, which = -1, b""
        for index, needle in enumerate(self.needles):
            found = self._found[index]
            if found is None or 0 <= found < at:  # the scan only goes forward: a search's answer holds till passed
                found = self._found[index] = self.buffer.find(needle, at)
            if found >= 0 and (best < 0 or found < best):
                best, which = found, needle
        other = self._other
        if other is None or 0 <= other < at:
            other = self._other = self._declaration_or_instruction(at)
        if other >= 0 and (best < 0 or other < best):
            best, which = other, self.buffer[other:other + 2]
        return best, which

    def _declaration_or_instruction(self, at: int) -> int:
        """Where the next ``<!`` or ``<?`` at or after ``at`` starts (-1: nowhere)."""
        buffer = self.buffer
        best = -1
        for char in (b"!", b"?"):
            found = buffer.find(char, at + 1)
            while found >= 0 and buffer[found - 1:found] != b"<":
                found = buffer.find(char, found + 1)
            if found >= 0 and (best < 0 or found - 1 < best):
                best = found - 1
        return best


#: :func:`_step`'s kinds of step: cut up to a position, scan on from one (what was passed over kept as written), stop
#: cutting, read a reference list up to a position; and its answer when the buffer does not hold enough to tell.
_CUT, _PASS, _STOP, _READ = 0, 1, 2, 3
_MORE = (-1, -1)
#: The ends of what is passed over as written: a processing instruction, a comment, a CDATA section.
_PASSED_ENDS = ((b"<?", b"?>"), (b"<!--", b"-->"), (b"<![CDATA[", b"]]>"))


def _step(buffer: bytes, start: int, mark: bytes, cut: bool, reading: bool) -> tuple[int, int]:
    """What to do at the ``mark`` found at ``start``: cut the element up to where it ends (a reference list:
    read it when ``reading``, pass over it when it holds others), pass over what cannot hold an element (a processing
    instruction, a comment, a CDATA section: to their ends; the type declaration: its ``<!``), or stop cutting;
    :data:`_MORE` when the buffer does not hold enough of it to tell."""
    if mark == _HISTORY:
        close = buffer.find(_HISTORY_END, start)
        if close < 0:
            return _MORE
        if _holds_markup(buffer, start, close):  # whose ``</History>`` would not be its end
            return _STOP, start
        return _CUT, close + len(_HISTORY_END)
    if mark in (_LIST, _NESTED_LIST):
        return _list_step(buffer, start, reading)
    if len(buffer) - start < _PROLOG_MARK:
        return _MORE
    for opening, closing in _PASSED_ENDS:
        if buffer.startswith(opening, start):
            end = buffer.find(closing, start + len(opening))
            return _MORE if end < 0 else (_PASS, end + len(closing))
    if not cut and buffer.startswith(b"<!DOCTYPE", start):
        return _PASS, start + 2
    return _STOP, start


def _list_step(buffer: bytes, start: int, reading: bool) -> tuple[int, int]:
    """:func:`_step` at a reference list: read it up to its first end tag when ``reading`` (:func:`_read`), else
    :func:`_list_end_step` cuts it; stop at one that is not PubMed's (with attributes, or none of its own end: when
    reading, every list is looked at, for one read may not hold another)."""
    after = start + len(_NESTED_LIST)
    if len(buffer) <= after:
        return _MORE
    if buffer[after] != 0x3E:  # ">"
        return _STOP, start
    close = buffer.find(_LIST_END, start)
    if close < 0:
        return _MORE
    return (_READ, close + len(_LIST_END)) if reading else _list_end_step(buffer, start, close, _CUT)


def _list_end_step(buffer: bytes, start: int, close: int, kind: int) -> tuple[int, int]:
    """A list opened at ``start`` whose first end tag is at ``close``: that end's step of ``kind`` (cut, pass) when
    the list holds no other and no markup; else the whole of it when it holds others, or stop at one with markup."""
    inner = start + len(_LIST)
    if buffer.find(_NESTED_LIST, inner, close) < 0 and not _holds_markup(buffer, inner, close):
        return kind, close + len(_LIST_END)
    outer = _outer_end(buffer, start)
    return _MORE if outer == -1 else (_STOP, start) if outer == -2 else (kind, outer)


def _read(buffer: bytes, start: int, end: int, lists_read: ListsRead) -> tuple[tuple[int, int], bytes]:
    """The step at a reference list from ``start`` to its first end tag: cut, its placeholder passed on in its place,
    when it is in the plain form (which holds neither markup nor another list); else passed over as written (libxml2
    reads it) by :func:`_list_end_step`'s rules."""
    read = read_reference_list(buffer[start:end])
    if read is None:
        return _list_end_step(buffer, start, end - len(_LIST_END), _PASS), b""
    return (_CUT, end), lists_read.placeholder(read)


def _holds_markup(buffer: bytes, start: int, end: int) -> bool:
    """Whether ``buffer[start:end]`` holds a ``<!`` or a ``<?``: found from the ``!`` or ``?`` (a ``memchr`` each,
    which an element's text rarely holds), where a regular expression stops at every ``<`` of the element's tags
    (MEDLINE's Histories 0.9 µs each against 1.9, its reference lists 6.8 against 13.2)."""
    for char in (b"!", b"?"):
        at = buffer.find(char, start + 1, end)
        while at >= 0:
            if buffer[at - 1] == 0x3C:  # "<"
                return True
            at = buffer.find(char, at + 1, end)
    return False


def _outer_end(buffer: bytes, start: int) -> int:
    """Where the reference list opened at ``start``, which holds others, ends; -1 when its end is not in the buffer
    yet, -2 when it holds a ``<!``, a ``<?`` or a list with attributes or none of its own end."""
    depth = 0
    at = start
    while (close := buffer.find(_LIST_END, at)) >= 0:
        mark = _NOT_DROPPED.search(buffer, at, close)
        if mark is not None:
            if mark.group() != b"<ReferenceList" or buffer[mark.end():mark.end() + 1] != b">":
                return -2  # a comment, a processing instruction, or a list with attributes or none of its own end
            depth += 1
            at = mark.end()
        else:
            depth -= 1
            at = close + len(_LIST_END)
            if depth == 0:
                return at
    return -1
