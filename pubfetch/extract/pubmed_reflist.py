"""A PubMed reference list read from its bytes, where it is written in the plain form nearly all are.

A MEDLINE file's reference lists are about two fifths of its bytes (12 of the 31 MB of 2,229 records), and what is
read of them is little: each reference's citation and its cited paper's IDs. Built as a tree, every one of their
elements and blanks costs libxml2 a node made and freed, and the reading an element object for three of them per
reference. A list written in the form PubMed writes (``<Reference><Citation>text</Citation><ArticleIdList>
<ArticleId IdType="kind">id</ArticleId>...</ArticleIdList></Reference>``, an optional ``Title`` first, white space
between the tags) is read here instead from its text by regular expressions, while the cut
(:mod:`pubfetch.extract.pubmed_cut`) puts a placeholder in its place that tells the record's reading where to find
it (:class:`ListsRead`).

The form accepted is strict: exactly these tags, an ``IdType`` in double quotes as the only attribute, texts without
markup, and only the five predefined entities and character references, all of which must be well-formed XML (no
control character, ``]]>`` or character reference XML forbids). Anything else (inline markup in a citation, another
attribute, a nested list) is left to libxml2 as written, so every list is read to the same references as from its
tree (``pubmed_rich``'s reading), which the tests check on every record of the corpus.
"""

from __future__ import annotations

import re
import secrets

from lxml import etree

from pubfetch.extract.pubmed_rich import take_cited
from pubfetch.extract.xmlsafe import all_collapsed, collapse
from pubfetch.model.rich import Reference

__all__ = ["ListsRead", "read_reference_list"]

#: XML's white space, the only text allowed between the tags.
_S = r"[ \t\n\r]*"
#: A list's opening (with its optional title), and one reference with the white space after it: its citation, and
#: either the one PubMed ID most cited papers have (a PMID as written, ready to keep) or its ``ArticleId`` elements
#: (repeated possessively: each starts with a ``<`` none of the repeats' texts can hold, so giving one back never
#: makes a match, and the pattern stays linear).
_OPENING = re.compile(rf"<ReferenceList>{_S}(?:<Title>[^<]*</Title>{_S})?")
_REFERENCE = re.compile(
    rf'<Reference>{_S}<Citation>([^<]*)</Citation>{_S}'
    rf'(?:<ArticleIdList>{_S}(?:<ArticleId IdType="pubmed">([1-9][0-9]*)</ArticleId>{_S}</ArticleIdList>'
    rf'|((?:<ArticleId IdType="[^"<]*">[^<]*</ArticleId>{_S})++)</ArticleIdList>){_S})?'
    rf'</Reference>{_S}')
_ARTICLE_ID = re.compile(r'<ArticleId IdType="([^"<]*)">([^<]*)</ArticleId>')
_CLOSING = "</ReferenceList>"

#: The references XML allows in text (a bare ``&`` is not), and what each of the predefined ones stands for.
_ENTITY = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));")
_PREDEFINED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
#: What XML 1.0 forbids in a document's text, looked for in the bytes each by a search of its own (a ``memchr`` or
#: ``memmem``, where a regular expression's character class would test every character): the C0 controls but tab,
#: line feed and carriage return, and ``]]>``; and in the text U+FFFE and U+FFFF (found at once in the many lists
#: whose characters are all below U+0100, a string that cannot hold them).
_FORBIDDEN = tuple(bytes((code,)) for code in (*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20))) + (b"]]>",)
_NON_CHARACTERS = ("\ufffe", "\uffff")


def read_reference_list(written: bytes) -> list[Reference] | None:
    """The references of a ``ReferenceList`` element as written (from its ``<ReferenceList>`` to its end tag); None
    when it is not in the plain form (the module's rule), to be read from its tree."""
    text = _well_formed_text(written)
    if text is None:
        return None
    opening = _OPENING.match(text)
    if opening is None:
        return None
    # the references and what is between them in one call: the form holds only when nothing is between them
    pieces = _REFERENCE.split(text[opening.end():])
    if pieces[-1] != _CLOSING or any(pieces[0:-1:4]):
        return None
    escaped = "&" in text
    citations = [_unescaped(citation) for citation in pieces[1::4]] if escaped else pieces[1::4]
    if not all_collapsed(citations):  # one test for the whole list: most are
        citations = [collapse(citation) for citation in citations]
    make = Reference.made
    out = []
    for citation, pmid, ids in zip(citations, pieces[2::4], pieces[3::4], strict=True):
        if ids is None:  # the one PubMed ID most cited papers have, or none
            out.append(make(pmid or "", "", "", "", citation))
        else:
            found = _cited(ids, escaped)
            out.append(make(found[0], found[1], found[2], "", citation))
    return out


def _well_formed_text(written: bytes) -> str | None:
    """A list's text, None when it holds what XML forbids (the module's rule)."""
    for forbidden in _FORBIDDEN:
        if forbidden in written:
            return None
    try:
        text = written.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if _NON_CHARACTERS[0] in text or _NON_CHARACTERS[1] in text or "&" in text and not _references_allowed(text):
        return None
    return text


def _cited(ids: str, escaped: bool) -> list[str]:
    """The (pmid, pmcid, doi) of a reference's ``ArticleId`` elements as written."""
    found = ["", "", ""]
    for kind, value in _ARTICLE_ID.findall(ids):
        take_cited(_unescaped(kind) if escaped else kind, _unescaped(value) if escaped else value, found)
    return found


def _references_allowed(text: str) -> bool:
    """Whether every ``&`` of a list's text starts a reference XML allows: a predefined entity, or a character
    reference to one of XML 1.0's characters."""
    found = _ENTITY.findall(text)
    if text.count("&") != len(found):
        return False
    for name, decimal, hexadecimal in found:
        if name:
            continue
        code = int(decimal) if decimal else int(hexadecimal, 16)
        if not (code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
                or 0x10000 <= code <= 0x10FFFF):
            return False
    return True


def _unescaped(written: str) -> str:
    """A text or attribute value as written, its references (:func:`_references_allowed`) replaced."""
    return _ENTITY.sub(_replacement, written) if "&" in written else written


def _replacement(reference: re.Match[str]) -> str:
    name, decimal, hexadecimal = reference.groups()
    if name:
        return _PREDEFINED[name]
    return chr(int(decimal) if decimal else int(hexadecimal, 16))


#: The attribute of a placeholder: the parse's token and the list's number.
_ATTRIBUTE = "pubfetch-read"


class ListsRead:
    """The reference lists one parse read from their bytes, each until its record's reading takes it.

    The cut puts ``<ReferenceList pubfetch-read="token:number"/>`` where a list was; the token is drawn anew for each
    parse, so that no list a document writes with such an attribute is taken for one read here, and a list is let go
    once taken (a MEDLINE file's lists are never held all at once)."""

    def __init__(self) -> None:
        self._prefix = secrets.token_hex(8) + ":"
        self._lists: dict[int, list[Reference]] = {}
        self._count = 0

    def placeholder(self, references: list[Reference]) -> bytes:
        """The element put in the place of a list read, the list kept for its record."""
        number = self._count
        self._count += 1
        self._lists[number] = references
        return f'<ReferenceList {_ATTRIBUTE}="{self._prefix}{number}"/>'.encode("ascii")

    def take(self, element: etree._Element) -> list[Reference] | None:
        """The references of a ``ReferenceList`` element that is a placeholder of this parse; None for any other."""
        value = element.get(_ATTRIBUTE)
        if value is None or not value.startswith(self._prefix):
            return None
        return self._lists.pop(int(value[len(self._prefix):]), None)
