"""The XMP packet and the info dictionary's place, read without a PDF parser from files whose structure is plain.

Why: with PDFium giving the text and the info dictionary, pdfminer.six was left to find the catalog's XMP stream, and
its tokenizer (Python, a call per token) took about a millisecond per file for the trailers, the catalog and the
stream's dictionary, as much as the rest of the metadata. Most articles are written plainly: classic cross-reference
tables, a trailer of references, a catalog naming its Metadata stream once, an unfiltered XMP stream (as the XMP
specification asks, so that any tool can find it) of a direct or indirect length, no encryption. For those,
:func:`plain_metadata` reads the same bytes pdfminer.six would; for anything else (a cross-reference stream, an
encrypted file, a compressed packet, an inline dictionary, a name it cannot place for sure) it returns ``None`` and
pdfminer.six reads the file as before. It follows pdfminer.six's rules: the newest table that has an object in use
gives its offset, the catalog is the first trailer's (newest first) that names one, and the info dictionaries are
those of the trailers up to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pubfetch.extract.pdf_xref import Subsections, table_entry, table_layout

__all__ = ["PlainMetadata", "plain_metadata"]

#: Bytes after which a name ends (white space and delimiters, PDF 32000 7.2.2).
_END = rb"(?=[\s()<>\[\]{}/%])"
_STARTXREF = re.compile(rb"startxref[ \t\f\x00]*(?:\r\n|\r|\n)\s*(\d+)\s*(?:%%EOF)?\s*\Z")
_XREF = re.compile(rb"xref[ \t\f\x00]*(?:\r\n|\r|\n)")
_OBJECT = re.compile(rb"\s*(\d+)\s+(\d+)\s+obj" + _END)
_REFERENCE = rb"\s+(\d+)\s+(\d+)\s+R" + _END
_ROOT = re.compile(rb"/Root" + _REFERENCE)
_INFO = re.compile(rb"/Info" + _REFERENCE)
_PREV = re.compile(rb"/Prev\s+(\d+)" + _END)
_METADATA = re.compile(rb"/Metadata" + _REFERENCE)
#: A dictionary of names, numbers and references only: what a plain XMP stream's dictionary holds (each entry starts
#: with a name, so an entry once matched is never given back: the repeat is possessive, linear in the input).
_SIMPLE_DICTIONARY = re.compile(rb"\s*<<(?:\s*/[A-Za-z0-9.#_-]+\s*(?:/[A-Za-z0-9.#_-]+|\d+(?:\s+\d+\s+R)?))*+\s*>>\s*")
_LENGTH = re.compile(rb"/Length\s+(\d+)(?:\s+(\d+)\s+R)?" + _END)
_STREAM = re.compile(rb"stream[^\r\n]*(?:\r\n|\r|\n)")
_INTEGER_OBJECT = re.compile(rb"\s*(\d+)\s+endobj")
#: Sections of cross-reference tables followed; more is a loop or a hostile file.
_MAX_SECTIONS = 64


@dataclass(frozen=True)
class PlainMetadata:
    """The catalog's XMP packet (``b""`` when it has none) and the offset of the one info dictionary the trailers
    name (``None`` when they name none)."""

    xmp: bytes
    info: int | None


@dataclass
class _Layout:
    data: bytes
    tables: list[Subsections]  # newest first

    def offset(self, objid: int) -> int | None:
        """Where the object starts, checked to be that object; ``None`` when no table has it in use."""
        for subsections in self.tables:
            entry = table_entry(self.data, subsections, objid)
            if entry is not None:
                found = _OBJECT.match(self.data, entry[0])
                return found.end() if found is not None and int(found[1]) == objid else None
        return None


class _NotPlain(Exception):
    """The structure is not plain: pdfminer.six reads the file."""


def plain_metadata(data: bytes) -> PlainMetadata | None:
    """The XMP packet and the info dictionary's offset of a plainly written PDF, ``None`` when the file is not plain
    (pdfminer.six's reading is then the only right one)."""
    try:
        layout, root, infos = _read_tables(data)
        if len(set(infos)) > 1:
            raise _NotPlain("several info dictionaries, merged by pdfminer.six")
        info = layout.offset(infos[0]) if infos else None
        if infos and info is None:
            raise _NotPlain("info dictionary not found")
        return PlainMetadata(_xmp(layout, root), info)
    except _NotPlain:
        return None


def _read_tables(data: bytes) -> tuple[_Layout, int, list[int]]:
    """The tables (newest first), the catalog's object number and the info dictionaries' object numbers."""
    start = data.rfind(b"startxref")
    found = _STARTXREF.match(data, start) if start > 0 and data[start - 1:start] in b"\r\n" else None
    if found is None:
        raise _NotPlain("no startxref at the end")
    layout = _Layout(data, [])
    infos: list[int] = []
    root = None
    offset: int | None = int(found[1])
    seen: set[int] = set()
    while offset is not None:
        if offset in seen or len(seen) >= _MAX_SECTIONS or (keyword := _XREF.match(data, offset)) is None:
            raise _NotPlain("not a chain of classic tables")
        seen.add(offset)
        table = table_layout(data, keyword.end())
        if table is None:
            raise _NotPlain("a table that is not standard")
        layout.tables.append(table[0])
        info, catalog, offset = _trailer(data, table[1])
        if root is None:  # the trailers up to the first that names the catalog, as pdfminer.six reads them
            if info is not None:
                infos.append(info)
            root = catalog
    if root is None:
        raise _NotPlain("no catalog")
    return layout, root, infos


def _trailer(data: bytes, pos: int) -> tuple[int | None, int | None, int | None]:
    """(Info, Root, Prev) of the trailer at ``pos``: references and an offset, each named at most once."""
    end = data.find(b"startxref", pos)
    text = data[pos:end] if end > 0 else b""
    if text.count(b"<<") != 1 or b"/Encrypt" in text or b"/XRefStm" in text or b"(" in text:
        raise _NotPlain("a trailer with more than references")
    return _one_number(_INFO, b"/Info", text), _one_number(_ROOT, b"/Root", text), _one_number(_PREV, b"/Prev", text)


def _one_number(pattern: re.Pattern[bytes], name: bytes, text: bytes) -> int | None:
    """The number the name gives (a reference's object number), ``None`` without the name; not plain if the name is
    there more than once or not as expected."""
    count = len(re.findall(re.escape(name) + _END, text))
    if count == 0:
        return None
    found = pattern.findall(text)
    if count != 1 or len(found) != 1:
        raise _NotPlain(f"{name!r} unexpected")
    value = found[0]
    return int(value[0] if isinstance(value, tuple) else value)


def _xmp(layout: _Layout, root: int) -> bytes:
    """The catalog's Metadata stream's bytes, ``b""`` when the catalog names none."""
    data = layout.data
    start = layout.offset(root)
    end = data.find(b"endobj", start) if start is not None else -1
    if start is None or end < 0:
        raise _NotPlain("catalog not found")
    catalog = data[start:end]
    names = len(re.findall(rb"/Metadata" + _END, catalog))
    if names == 0:
        return b""
    found = _METADATA.search(catalog)
    if names != 1 or found is None or catalog[:found.start()].count(b"<<") - catalog[:found.start()].count(b">>") != 1:
        raise _NotPlain("the catalog's Metadata entry cannot be placed for sure")
    return _stream(layout, int(found[1]))


def _stream(layout: _Layout, objid: int) -> bytes:
    """The bytes of an unfiltered stream object, as pdfminer.six reads them (``Length`` bytes after the keyword's
    line)."""
    data = layout.data
    start = layout.offset(objid)
    keyword = data.find(b"stream", start) if start is not None else -1
    dictionary = _SIMPLE_DICTIONARY.fullmatch(data, start, keyword) if start is not None and keyword > 0 else None
    if dictionary is None or b"/Filter" in dictionary[0] or b"/DecodeParms" in dictionary[0]:
        raise _NotPlain("not a plain stream")
    length = _LENGTH.search(dictionary[0])
    if length is None:
        raise _NotPlain("no length")
    size = int(length[1]) if length[2] is None else _integer_object(layout, int(length[1]))
    line = _STREAM.match(data, keyword)
    if line is None or line.end() + size > len(data):
        raise _NotPlain("stream out of the file")
    return data[line.end():line.end() + size]


def _integer_object(layout: _Layout, objid: int) -> int:
    start = layout.offset(objid)
    found = _INTEGER_OBJECT.match(layout.data, start) if start is not None else None
    if found is None:
        raise _NotPlain("indirect length not found")
    return int(found[1])
