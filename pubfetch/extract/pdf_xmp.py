"""A PDF's XMP packet (Dublin Core title, subjects, description; the identifiers naming its DOI) and the clean-up of
the text values of PDF metadata, for :mod:`pubfetch.extract.pdf`."""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterable

from lxml import etree

from pubfetch import ids as idmod

__all__ = ["LEADING_JUNK", "parse_xmp", "read_xmp", "strip_markup", "unique", "xmp_dois"]

log = logging.getLogger(__name__)

#: Bytes a producer may write before a PDF's header or an XMP packet.
LEADING_JUNK = b" \t\r\n\f\v\x00"
_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_DC = "http://purl.org/dc/elements/1.1/"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_BLOCK_TAG = re.compile(
    r"</?(?:p|br|div|li|ul|ol|dl|dt|dd|h[1-6]|tr|td|th|table|section|blockquote)\b[^<>]*>", re.IGNORECASE
)
_TAG = re.compile(r"<!--.*?-->|</?[A-Za-z][^<>]*>", re.DOTALL)


def strip_markup(value: str) -> str:
    """Remove markup and entities and collapse whitespace: the spec has PDF sources strip HTML from values.

    A regular expression rather than an HTML parser so that plain text such as ``a < b`` survives intact.
    """
    if "<" in value:
        value = _BLOCK_TAG.sub(" ", value)
        value = _TAG.sub("", value)
    if "&" in value:
        value = html.unescape(value)
    return " ".join(value.split())


def unique(values: Iterable[str]) -> list[str]:
    """Trimmed, non-empty, first occurrence kept: PubFetcher's keyword list rules."""
    seen: set[str] = set()
    out: list[str] = []
    for raw in values:
        value = raw.strip()
        if value and value not in seen:
            seen.add(value)
            out.append(value)
    return out


def _xml_text(element: etree._Element) -> str:
    """Text of an XMP element; entity references (never resolved) contribute nothing."""
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str):
            parts.append(_xml_text(child))
        parts.append(child.tail or "")
    return strip_markup("".join(parts))


def _rdf_items(prop: etree._Element) -> list[etree._Element]:
    return list(prop.iterfind(f"{{{_RDF}}}*/{{{_RDF}}}li"))


def _lang_alt(prop: etree._Element) -> str:
    """An XMP language alternative (``rdf:Alt``): the x-default entry, else the first non-empty one.

    A bare text value is accepted as well, since not every producer follows the schema.
    """
    items = _rdf_items(prop)
    if not items:
        return _xml_text(prop)
    for item in items:
        if item.get(_XML_LANG, "").lower() == "x-default":
            text = _xml_text(item)
            if text:
                return text
    for item in items:
        text = _xml_text(item)
        if text:
            return text
    return ""


def _first_lang_alt(root: etree._Element, name: str) -> str:
    """The first non-empty language alternative of a Dublin Core property over all ``rdf:Description`` blocks."""
    for prop in root.iter(f"{{{_DC}}}{name}"):
        value = _lang_alt(prop)
        if value:
            return value
    return ""


#: XMP properties (local names, lower case) that name the document's own DOI: PRISM, Crossmark, pdfx, Dublin Core.
_XMP_ID_NAMES = frozenset({"doi", "identifier"})


def xmp_dois(raw: bytes) -> list[str]:
    """The DOIs an XMP packet names in its identifier properties (``prism:doi``, ``crossmark:DOI``, ``pdfx:doi``,
    ``dc:identifier``); empty when it cannot be read."""
    return read_xmp(raw)[3]


def _root_dois(root: etree._Element) -> list[str]:
    found = []
    for element in root.iter(etree.Element):
        if _names_identifier(element.tag):
            found += idmod.dois_in_text(" ".join(element.itertext()))
    return unique(found)


def _names_identifier(tag: str) -> bool:
    """Whether the tag's local name is one of :data:`_XMP_ID_NAMES`, read from the tag's text (a recovered packet may
    keep undeclared prefixes, "x:xmpmeta"): the name ends the tag, after its namespace or prefix if any."""
    lower = tag.lower()
    for name in _XMP_ID_NAMES:
        if lower.endswith(name):
            return lower[-len(name) - 1:-len(name)] in ("", "}", ":")
    return False


def _xmp_root(raw: bytes) -> etree._Element | None:
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=True, remove_pis=True
    )
    data = raw.lstrip(LEADING_JUNK)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:].lstrip(LEADING_JUNK)
    try:
        return etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError) as exc:
        log.debug("unreadable XMP metadata: %s", exc)
        return None


def parse_xmp(raw: bytes) -> tuple[str, list[str], str]:
    """Dublin Core title, subjects and description of an XMP packet; empty values when it cannot be read.

    lxml parses it with entity resolution, DTD loading and network access off, so a hostile packet cannot read local
    files or reach the network; ``recover`` keeps what can be read from slightly malformed packets.
    """
    return read_xmp(raw)[:3]


def read_xmp(raw: bytes) -> tuple[str, list[str], str, list[str]]:
    """:func:`parse_xmp`'s title, subjects and description and :func:`xmp_dois`'s DOIs from one parse of the packet
    (parsing it costs more than reading it)."""
    root = _xmp_root(raw)
    if root is None:
        return "", [], "", []
    subjects: list[str] = []
    for prop in root.iter(f"{{{_DC}}}subject"):
        items = _rdf_items(prop) or [prop]  # a bare text value from a producer ignoring the schema
        subjects.extend(_xml_text(item) for item in items)
    return _first_lang_alt(root, "title"), unique(subjects), _first_lang_alt(root, "description"), _root_dois(root)
