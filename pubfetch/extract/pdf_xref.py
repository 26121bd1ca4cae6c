"""pdfminer.six's document with its cross-reference tables read on demand (:class:`PdfDocument`).

Why: the extraction asks pdfminer.six for three objects at most (the catalog, the info dictionary, the XMP stream; the
text is PDFium's), but opening a document with pdfminer.six parses every line of every cross-reference table in
Python first: a thousand-object article took 2.7 ms, more than the metadata it then reads. A classic table's entries
are fixed-width (20 bytes, PDF 32000 7.5.4), so an object's entry can be read where it lies when the object is asked
for. :class:`PdfDocument` reads a table's subsection headers and its trailer, and nothing more, and gives the same
positions, trailers and objects as pdfminer.six's own :class:`PDFXRef`; a table that is not laid out as the standard
says (an entry of 19 bytes, a header it cannot read) is read by pdfminer.six's own code, as are cross-reference
streams.
"""

from __future__ import annotations

import re
from collections.abc import KeysView
from typing import Any

from pdfminer.pdfdocument import PDFBaseXRef, PDFDocument, PDFNoValidXRef, PDFXRef
from pdfminer.pdfexceptions import PDFKeyError
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import PDFObjRef, int_value
from pdfminer.psparser import PSEOF

__all__ = ["PdfDocument", "Subsections", "table_entry", "table_layout"]

#: One entry: offset (or next free object), generation, in use or free, and a two-byte end of line.
_ENTRY_SIZE = 20
_ENTRY = re.compile(rb"(\d{10}) (\d{5}) ([nf])(?: \r| \n|\r\n)")
_ENTRIES = re.compile(rb"(?:\d{10} \d{5} [nf](?: \r| \n|\r\n))*")
#: A subsection header ("first count" on its own line) after optional blank lines, as pdfminer.six reads it.
_SUBSECTION = re.compile(rb"[ \t\r\n\x0b\f]*(\d+) (\d+)[ \t\x0b\f]*(?:\r\n|\r|\n)")
_TRAILER = re.compile(rb"[ \t\r\n\x0b\f]*trailer")


Subsections = list[tuple[int, int, int]]
"""(first object number, count, offset of the first entry) of each subsection of a table, in file order."""


def table_layout(data: bytes, pos: int) -> tuple[Subsections, int] | None:
    """The subsections of the table whose first subsection header is at ``pos`` (just after its ``xref`` line) and
    the offset of its trailer keyword, or ``None`` if any entry is not the standard 20 bytes (all checked in one pass,
    so that a table pdfminer.six would reject is still rejected)."""
    subsections = []
    while (header := _SUBSECTION.match(data, pos)) is not None:
        first, count = int(header[1]), int(header[2])
        end = header.end() + _ENTRY_SIZE * count
        if end > len(data) or _ENTRIES.fullmatch(data, header.end(), end) is None:
            return None
        subsections.append((first, count, header.end()))
        pos = end
    trailer = _TRAILER.match(data, pos)
    if trailer is None:
        return None
    return subsections, trailer.end() - len(b"trailer")


def table_entry(data: bytes, subsections: Subsections, objid: int) -> tuple[int, int] | None:
    """(offset, generation) of the object as pdfminer.six's table gives it: its last in-use entry in the table (a
    later free entry does not hide an earlier one); ``None`` when it has none."""
    for first, count, entries in reversed(subsections):
        if first <= objid < first + count:
            entry = _ENTRY.match(data, entries + _ENTRY_SIZE * (objid - first))
            if entry is not None and entry[3] == b"n":
                return int(entry[1]), int(entry[2])
    return None


class _TableXRef(PDFXRef):
    """A classic cross-reference table whose entries are read where they lie when asked for."""

    def __init__(self, data: bytes) -> None:
        super().__init__()
        self._data = data
        #: ``None`` when the table was read by pdfminer.six's own code (into ``offsets``)
        self._subsections: Subsections | None = []

    def load(self, parser: PDFParser) -> None:
        """Read the subsection headers and the trailer; pdfminer.six's reading where the layout is not standard."""
        start = parser.bufpos + parser.charpos  # after the "xref" line
        subsections = table_layout(self._data, start)
        if subsections is None:
            self._subsections = None
            parser.seek(start)
            super().load(parser)
            return
        self._subsections, trailer = subsections
        parser.seek(trailer)
        self.load_trailer(parser)

    def get_pos(self, objid: int) -> tuple[int | None, int, int]:
        """As pdfminer.six's table: the last in-use entry of the object in the table (a later free entry does not
        hide an earlier one), else :class:`PDFKeyError`."""
        if self._subsections is None:
            return super().get_pos(objid)
        entry = table_entry(self._data, self._subsections, objid)
        if entry is None:
            raise PDFKeyError(objid)
        return None, *entry

    def get_objids(self) -> KeysView[int]:
        if self._subsections is None:
            return super().get_objids()
        ids: dict[int, None] = {}
        for first, count, entries in self._subsections:
            for index in range(count):
                entry = _ENTRY.match(self._data, entries + _ENTRY_SIZE * index)
                if entry is not None and entry[3] == b"n":
                    ids[first + index] = None
        return ids.keys()


class PdfDocument(PDFDocument):
    """pdfminer.six's :class:`PDFDocument` of ``data`` (the bytes ``parser`` reads) whose classic cross-reference
    tables are read on demand; cross-reference streams, the fallback scan of a damaged file and everything else are
    pdfminer.six's own.

    ``info`` holds the trailers' Info entries as they are written (references, most often), not resolved: pdfminer.six
    resolves them on opening, and parsing an info dictionary's strings in Python can cost more than the rest of the
    opening (pdfTeX writes them as octal escapes). :func:`resolve1` gives the dictionaries when they are wanted.
    """

    def __init__(self, parser: PDFParser, data: bytes, password: str = "") -> None:
        self._data = data
        self._infos: dict[int, Any] = {}  # the Info entry of each trailer read, by the trailer's id
        super().__init__(parser, password=password)
        # pdfminer.six's own choice: the Info of each trailer, newest first, up to the first that names the catalog
        self.info = []
        for xref in self.xrefs:
            trailer = xref.get_trailer()
            info = self._infos.get(id(trailer), trailer.get("Info"))  # still there in a damaged file's fallback scan
            if info is not None:
                self.info.append(info)
            if "Root" in trailer:
                break

    def info_position(self) -> int | None:
        """The offset of the one info dictionary the trailers name, if it is an object of its own outside any object
        stream; ``None`` otherwise (none, several, inline, compressed)."""
        objids = {ref.objid for ref in self.info if isinstance(ref, PDFObjRef)}
        if len(objids) != 1 or len(self.info) != sum(isinstance(ref, PDFObjRef) for ref in self.info):
            return None
        objid = objids.pop()
        for xref in self.xrefs:
            try:
                stream, position, _ = xref.get_pos(objid)
            except KeyError:
                continue
            return position if stream is None else None
        return None

    def _hold_info(self, trailer: dict[str, Any]) -> None:
        """Take the Info entry out of a trailer before pdfminer.six's opening resolves it (kept in ``_infos``)."""
        if "Info" in trailer:
            self._infos[id(trailer)] = trailer.pop("Info")

    def read_xref_from(self, parser: PDFParser, start: int, xrefs: list[PDFBaseXRef]) -> None:
        """As pdfminer.six's, with :class:`_TableXRef` for a table."""
        parser.seek(start)
        parser.reset()
        try:
            _, token = parser.nexttoken()
        except PSEOF as exc:
            raise PDFNoValidXRef("Unexpected EOF") from exc
        if token is not parser.KEYWORD_XREF:
            known = len(xrefs)
            super().read_xref_from(parser, start, xrefs)  # a stream, and the sections it leads to
            for xref in xrefs[known:]:
                self._hold_info(xref.get_trailer())
            return
        parser.nextline()
        xref = _TableXRef(self._data)
        xref.load(parser)
        xrefs.append(xref)
        trailer = xref.get_trailer()
        self._hold_info(trailer)
        if "XRefStm" in trailer:
            self.read_xref_from(parser, int_value(trailer["XRefStm"]), xrefs)
        if "Prev" in trailer:
            self.read_xref_from(parser, int_value(trailer["Prev"]), xrefs)
