"""Parsing XML from the web without letting it reach anything: no entities resolved, no DTD or network access.

Every XML parser of pubfetch goes through here, so an external entity (``<!ENTITY x SYSTEM "file:///etc/passwd">``) or
an entity-expansion bomb in a response is inert everywhere, and malformed XML is one exception type callers handle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import IO, TypeGuard

from lxml import etree


class XmlError(ValueError):
    """The document is not well-formed XML (or is empty)."""


#: Documents smaller than this are parsed whole even where their parts could be read as they end (``on_end`` of
#: :func:`parse_xml_pieces`): to collect them lxml puts handlers of its own between libxml2 and its tree builder, run
#: at every element's start and end whatever its tag, which makes the parse and free of a tree about 40 % dearer;
#: reading each part while it is still in the CPU's caches repays that only on large documents (a PubMed answer of
#: 200 records, 2.6 MB, read 2 % slower so, a single JATS article 11 %; a 30 MB MEDLINE file 3 % faster, a 23 MB
#: articleset of 200 full texts about even: docs/benchmarks.md). Above it the tree a document never has whole is what
#: matters most: a 20,788-record MEDLINE file's took 630 MB.
READ_AS_PARSED_FROM = 8 << 20


def read_as_parsed(source: bytes | bytearray | str | IO[bytes] | None) -> TypeGuard[bytes | bytearray | IO[bytes]]:
    """Whether a document is read part by part as it is parsed (:data:`READ_AS_PARSED_FROM`): bytes that large, and a
    binary stream (a file, whose size is not known before it is read), never text."""
    if isinstance(source, str) or source is None:
        return False
    if isinstance(source, (bytes, bytearray)):
        return len(source) >= READ_AS_PARSED_FROM
    return True


def _options(recover: bool = False, remove_blank_text: bool = False) -> dict[str, bool]:
    return {"resolve_entities": False, "no_network": True, "load_dtd": False, "dtd_validation": False,
            "huge_tree": False, "remove_comments": True, "remove_pis": True, "recover": recover,
            "remove_blank_text": remove_blank_text}


def _parser(recover: bool = False, remove_blank_text: bool = False) -> etree.XMLParser:
    # a new parser per call: lxml parsers are not thread-safe
    return etree.XMLParser(**_options(recover, remove_blank_text))


def parse_xml(data: bytes | str, recover: bool = False, remove_blank_text: bool = False) -> etree._Element:
    """The root element of a document; raises :class:`XmlError` with lxml's reason when it is not XML.

    ``recover`` lets lxml salvage what it can of a truncated document (used only where a partial answer beats none).
    ``remove_blank_text`` leaves out the blank text of elements the document declares with element content (and
    guesses elsewhere: only for documents that declare every element they hold, :mod:`pubfetch.extract.pubmed_dtd`).
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
        # an encoding declaration in a str document contradicts the bytes we now hand over
        if data.lstrip().startswith(b"<?xml"):
            end = data.find(b"?>")
            data = data[end + 2:] if end >= 0 else data
    if not data or data.isspace():  # not strip(): a copy of the whole document (tens of MB for a batch)
        raise XmlError("empty document")
    try:
        root = etree.fromstring(data, _parser(recover, remove_blank_text))
    except etree.XMLSyntaxError as e:
        raise XmlError(f"not well-formed XML: {e}") from e
    if root is None:
        raise XmlError("no root element")
    return root


def parse_xml_pieces(pieces: Iterable[bytes], remove_blank_text: bool = False, *, tags: tuple[str, ...] = (),
                     on_end: Callable[[etree._Element], None] | None = None) -> etree._Element:
    """The root element of a document given in pieces (read from a stream, or cut: :mod:`pubfetch.extract.pubmed_cut`)
    fed to libxml2 one after another, never joined; raises :class:`XmlError` as :func:`parse_xml` does.

    With ``on_end``, each element whose tag is one of ``tags`` (``{*}name`` for any namespace or none) is handed to it
    as soon as it is complete, while later pieces are still to come: a caller that reads it there and clears it
    never has the whole tree, and reads each part while libxml2's work on it is still in the CPU's caches."""
    parser = (_parser(remove_blank_text=remove_blank_text) if on_end is None else
              etree.XMLPullParser(events=("end",), tag=tags, **_options(remove_blank_text=remove_blank_text)))
    blank = True
    try:
        for piece in pieces:
            blank = blank and (not piece or piece.isspace())
            parser.feed(piece)
            if on_end is not None:
                for _, element in parser.read_events():
                    on_end(element)
        if blank:
            raise XmlError("empty document")
        root = parser.close()
        if on_end is not None:
            for _, element in parser.read_events():
                on_end(element)
    except etree.XMLSyntaxError as e:
        raise XmlError(f"not well-formed XML: {e}") from e
    if root is None:
        raise XmlError("no root element")
    return root


def local_name(el: etree._Element) -> str:
    """Tag without namespace (``{ns}title`` -> ``title``); comments and PIs give ""."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


#: Below this length ``str.isprintable`` (a look-up per character) is the cheaper test of an ASCII text, above it
#: :func:`_spaced`'s searches (``memchr`` each).
_SCANNED = 48


def _spaced(text: str) -> bool:
    """Whether an ASCII text holds white space other than the space: one of the nine ASCII control characters
    ``str.split`` splits at."""
    return ("\n" in text or "\t" in text or "\r" in text or "\x0b" in text or "\x0c" in text or "\x1c" in text
            or "\x1d" in text or "\x1e" in text or "\x1f" in text)


def collapse(text: str) -> str:
    """Whitespace runs as one space, none at the ends: ``" ".join(text.split())``, without splitting a text that is
    so already (most of a record's texts are). A printable text holds no white space but the space
    (``str.isprintable`` refuses every other character ``str.split`` splits at), nor does an ASCII text without the
    nine ASCII ones (:func:`_spaced`: tested so when long, ``isascii`` being a flag and not a scan); such a text is
    collapsed when no two spaces meet and none ends it."""
    if (not _spaced(text) if len(text) > _SCANNED and text.isascii() else text.isprintable()) and \
            "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())


def all_collapsed(texts: list[str]) -> bool:
    """Whether :func:`collapse` leaves every one of the texts as it is, from one :func:`collapse` of them joined: by
    ``<``, so that a space at a text's end or start meets it (``" <"``, ``"< "``). Never True where one is not; False
    where each is only for a text holding a ``<`` itself, whose texts a caller then collapses one by one."""
    joined = "<".join(texts)
    return " <" not in joined and "< " not in joined and collapse(joined) == joined


def text_of(el: etree._Element | None) -> str:
    """All text inside an element, whitespace runs collapsed."""
    if el is None:
        return ""
    if not len(el):  # a leaf (most are: names, IDs, citations): its text is all of it, no iterator needed
        text = el.text
        if not text:
            return ""
        # :func:`collapse`'s test written out: most texts need no collapsing, and this is read per element
        if (not _spaced(text) if len(text) > _SCANNED and text.isascii() else text.isprintable()) and \
                "  " not in text and text[0] != " " and text[-1] != " ":
            return text
        return " ".join(text.split())
    return collapse("".join(el.itertext()))
