"""The text of JATS elements as PubFetcher had it: jsoup's ``Element.text()``, on one line.

Whitespace collapses to one space, and a space stands where a block element starts or ends (any element except
inline markup such as ``italic``, ``sup``, ``xref`` or MathML), so "Table 1" and its caption do not run together.
``tex-math`` is left out: the MathML or image beside it stands for the formula. Every reader of JATS in pubfetch
takes its text from here, so a value reads the same wherever it is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lxml import etree

__all__ = ["INLINE", "MATHML_NS", "SKIPPED", "ArticleTexts", "ElementTexts", "attr", "element_text", "elements",
           "first_text", "texts"]

MATHML_NS = "http://www.w3.org/1998/Math/MathML"

#: Elements laid out inline: no space at their edges (everything else is treated as a block).
INLINE = frozenset((
    "italic", "bold", "sup", "sub", "sc", "underline", "overline", "monospace", "roman", "sans-serif", "strike",
    "styled-content", "named-content", "xref", "ext-link", "uri", "email", "inline-formula", "inline-graphic",
    "inline-supplementary-material", "abbrev", "private-char", "glyph-data", "glyph-ref", "target", "fn-ref",
    "alternatives", "ruby", "rb", "rt", "phone", "fax", "milestone-start", "milestone-end", "hi", "span", "i", "b",
    "u", "a", "em", "strong", "break",
    # address parts, written inline in <aff> and <corresp> ("<institution>X</institution>, <city>Y</city>")
    "institution", "institution-wrap", "city", "state", "country", "postal-code", "addr-line",
))  # fmt: skip
SKIPPED = frozenset(("tex-math",))

_WS = re.compile(r"[ \t\n\r\f\u00a0]+")  # jsoup's whitespace
_INVISIBLE = re.compile(r"[\u200b\u00ad]")


_MATHML_PREFIX = "{" + MATHML_NS + "}"


def _spaced_at_edges(tag: str) -> bool:
    """Whether an element of this tag reads as a block: a space where it starts and where it ends."""
    if tag.startswith("{"):
        return not tag.startswith(_MATHML_PREFIX) and tag.rsplit("}", 1)[1] not in INLINE
    return tag not in INLINE


#: ``_spaced_at_edges`` of the tags met so far: a document uses a few dozen tags, met hundreds of thousands of times.
#: Bounded, so that documents inventing tags cannot grow it without end.
_BLOCK_TAGS: dict[str, bool] = {}
_BLOCK_TAGS_MAX = 4096


def _is_block(tag: str) -> bool:
    block = _BLOCK_TAGS.get(tag)
    if block is None:
        block = _spaced_at_edges(tag)
        if len(_BLOCK_TAGS) < _BLOCK_TAGS_MAX:
            _BLOCK_TAGS[tag] = block
    return block


# How ArticleTexts' walk treats a tag: inline, block (spaced at its edges), skipped with its content (tex-math),
# or not an element (an unresolved entity reference: only its tail is text). Cached and bounded as _BLOCK_TAGS.
_INLINE, _BLOCK, _SKIPPED, _NOT_ELEMENT = 0, 1, 2, 3
_WALK_KINDS: dict[object, int] = {}


def _walk_kind(tag: object) -> int:
    if not isinstance(tag, str):
        kind = _NOT_ELEMENT
    elif (tag.rsplit("}", 1)[1] if tag.startswith("{") else tag) in SKIPPED:
        kind = _SKIPPED
    else:
        kind = _BLOCK if _spaced_at_edges(tag) else _INLINE
    if len(_WALK_KINDS) < _BLOCK_TAGS_MAX:
        _WALK_KINDS[tag] = kind
    return kind


def element_text(el: etree._Element | None, skip: Iterable[str] = ()) -> str:
    """The element's text on one line (jsoup ``text()``), without ``tex-math`` and without elements named in skip
    (their tails are kept). Iterative, so hostile nesting costs no recursion.

    The pieces are gathered raw, with a space at every block edge, and whitespace is collapsed once at the end: the
    same result as collapsing piece by piece (a run of whitespace across pieces is one space either way), at a
    fraction of the cost on a long body.
    """
    if el is None:
        return ""
    if len(el) == 0:  # a leaf (most names, years, IDs): its own text, no walk
        return _collapsed(el.text or "")
    return _collapsed("".join(_pieces(el, frozenset(skip))))


def _pieces(el: etree._Element, skip: frozenset[str]) -> list[str]:
    """The raw texts and block-edge spaces inside ``el`` (its own text first; its own edges and tail are not its
    text), leaving out the subtrees of :data:`SKIPPED` and ``skip`` elements."""
    walker = etree.iterwalk(el, events=("start", "end"))
    next(walker)  # el's own start
    parts = [el.text or ""]
    kinds = _WALK_KINDS
    for event, node in walker:
        if node is el:  # its own end
            break
        tag = node.tag
        kind = kinds.get(tag)
        if kind is None:
            kind = _walk_kind(tag)
        if skip and kind != _NOT_ELEMENT and _local(tag) in skip:
            kind = _SKIPPED
        if event == "start":
            if kind == _SKIPPED:
                walker.skip_subtree()
            elif kind != _NOT_ELEMENT:  # an unresolved entity reference's name is not text
                parts.append(" " + (node.text or "") if kind == _BLOCK else node.text or "")
            continue
        if kind == _BLOCK:
            parts.append(" ")
        if node.tail:
            parts.append(node.tail)
    return parts


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[1] if tag.startswith("{") else tag


class ElementTexts:
    """Texts of elements read one at a time (:func:`element_text`): for callers reading a few elements of a tree."""

    def of(self, el: etree._Element | None, skip: Iterable[str] = ()) -> str:
        """The element's text (:func:`element_text`)."""
        return element_text(el, skip)

    def all(self, els: Iterable[etree._Element]) -> list[str]:
        """The non-empty texts of the elements."""
        return [t for t in map(self.of, els) if t]

    def first(self, els: Iterable[etree._Element]) -> str:
        """The first non-empty text of the elements."""
        for e in els:
            text = self.of(e)
            if text:
                return text
        return ""


class ArticleTexts(ElementTexts):
    """The texts of one article's elements, each subtree walked once and each text collapsed at most once.

    A reading of an article asks for overlapping elements (the body's paragraphs for the full text and again for the
    sections, a citation and then its title): walking each element anew costs a walk per request. Here the walk of
    an element asked for notes where each element inside it starts and ends among the text pieces it gathers, so
    that a later request for any of them is a join of pieces already gathered; parts never asked for are never
    walked. The result is :func:`element_text`'s, which the texts asked with ``skip`` still come from. One instance
    serves one parsed article (it holds on to the elements it has seen).
    """

    def __init__(self) -> None:
        self._pieces: list[str] = []
        self._spans: dict[etree._Element, tuple[int, int]] = {}
        self._known: dict[etree._Element, str] = {}

    def of(self, el: etree._Element | None, skip: Iterable[str] = ()) -> str:
        if el is None:
            return ""
        if skip:
            return element_text(el, skip)
        text = self._known.get(el)
        if text is None:
            span = self._spans.get(el)
            if span is None and len(el):
                self._walk(el)
                span = self._spans.get(el)  # still None for tex-math, whose own text element_text gives
            text = element_text(el) if span is None else _collapsed("".join(self._pieces[span[0]:span[1]]))
            self._known[el] = text
        return text

    def _walk(self, top: etree._Element) -> None:
        """:func:`element_text`'s walk over ``top``, its pieces added to those gathered, and the span of them of
        every inner element met (leaves need none: their text is their own)."""
        pieces = self._pieces
        append = pieces.append
        spans = self._spans
        opened: list[int] = []
        kinds = _WALK_KINDS
        walker = etree.iterwalk(top, events=("start", "end"))
        for event, node in walker:
            tag = node.tag
            kind = kinds.get(tag)
            if kind is None:
                kind = _walk_kind(tag)
            if event == "start":
                if kind >= _SKIPPED:
                    if kind == _SKIPPED:
                        walker.skip_subtree()
                    continue
                if kind:
                    append(" ")
                opened.append(len(pieces))
                text = node.text
                if text:
                    append(text)
            else:
                if kind < _SKIPPED:
                    start = opened.pop()
                    if len(node):
                        spans[node] = (start, len(pieces))
                    if kind:
                        append(" ")
                tail = node.tail
                if tail:
                    append(tail)


def _collapsed(text: str) -> str:
    if text.isascii() and not ("\x1c" in text or "\x1d" in text or "\x1e" in text or "\x1f" in text
                               or "\x0b" in text):
        return " ".join(text.split())  # str.split's ASCII whitespace is jsoup's but for the five excluded above
    if "\u200b" in text or "\u00ad" in text:
        text = _INVISIBLE.sub("", text)
    return _WS.sub(" ", text).strip()


def texts(elements: Iterable[etree._Element]) -> list[str]:
    """The non-empty texts of the elements."""
    return [t for t in (element_text(e) for e in elements) if t]


def first_text(elements: Iterable[etree._Element]) -> str:
    """The first non-empty text of the elements."""
    for e in elements:
        text = element_text(e)
        if text:
            return text
    return ""


#: The readers' XPaths, compiled once each (an lxml XPath evaluator locks around each evaluation, so threads may share
#: it); bounded, in case a caller builds paths from data.
_COMPILED: dict[str, etree.XPath] = {}
_COMPILED_MAX = 256


def elements(el: etree._Element, path: str) -> list[etree._Element]:
    """The elements an XPath selects (text and attribute results left out)."""
    compiled = _COMPILED.get(path)
    if compiled is None:
        compiled = etree.XPath(path)
        if len(_COMPILED) < _COMPILED_MAX:
            _COMPILED[path] = compiled
    return [e for e in compiled(el) if isinstance(e, etree._Element)]


def attr(el: etree._Element, name: str) -> str:
    """An attribute's value, trimmed and lower-cased ("" when absent)."""
    return (el.get(name) or "").strip().lower()
