"""An HTML element as plain text, the way PubFetcher writes it (jsoup 1.15's ``Element.text()`` as adapted by its
CleanWebpage): :func:`format_text` keeps the page's lines and paragraphs (cleaned pages), :func:`element_text` gives
one line (jsoup's ``text()``), :func:`selector_text` the text of a scraping rule's selection.

Whitespace handling, block and margin tags follow jsoup; text inside <iframe>, <noembed>, <noframes> and <xmp> is text
(jsoup only treats <script>/<style> content as data). Deliberately, the output lines have no trailing spaces and never
more than one blank line in a row (jsoup can leave both, the latter only from <pre> content). All walks are iterative,
so 100,000-deep nesting costs time linear in its size and no recursion.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from bs4.element import CData, NavigableString, PreformattedString, Script, Stylesheet, Tag

from pubfetch.extract.formula import (
    formula_text,
    has_rendered_copy,
    is_block_formula,
    is_formula_name,
    is_formula_source,
)

__all__ = ["BLOCK_TAGS", "JAVA_TRIM", "MARGIN_TAGS", "element_text", "format_text", "normalised_text",
           "selector_text"]

# jsoup 1.15 tag table: which tags are blocks, which add a blank line, which keep their whitespace.
BLOCK_TAGS = frozenset((
    "html", "head", "body", "frameset", "script", "noscript", "style", "meta", "link", "title", "frame", "noframes",
    "section", "nav", "aside", "hgroup", "header", "footer", "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol",
    "pre", "div", "blockquote", "hr", "address", "figure", "figcaption", "form", "fieldset", "ins", "del", "dl",
    "dt", "dd", "li", "table", "caption", "thead", "tfoot", "tbody", "colgroup", "col", "tr", "th", "td", "video",
    "audio", "canvas", "details", "menu", "plaintext", "template", "article", "main", "svg", "math", "center", "dir",
    "applet", "marquee", "listing",
))  # fmt: skip
MARGIN_TAGS = frozenset((
    "blockquote", "body", "dir", "dl", "fieldset", "figure", "form", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
    "listing", "menu", "ol", "p", "plaintext", "pre", "ul", "xmp",
))  # fmt: skip
_INLINE_TAGS = frozenset((
    "object", "base", "font", "tt", "i", "b", "u", "big", "small", "em", "strong", "dfn", "code", "samp", "kbd",
    "var", "cite", "abbr", "time", "acronym", "mark", "ruby", "rt", "rp", "rtc", "a", "img", "br", "wbr", "map", "q",
    "sub", "sup", "bdo", "iframe", "embed", "span", "input", "select", "textarea", "label", "button", "optgroup",
    "option", "legend", "datalist", "keygen", "output", "progress", "meter", "area", "param", "source", "track",
    "summary", "command", "device", "basefont", "bgsound", "menuitem", "data", "bdi", "s", "strike", "nobr", "rb",
    "text", "mi", "mo", "msup", "mn", "mtext",
))  # fmt: skip
_FORMAT_AS_INLINE = _INLINE_TAGS | frozenset((
    "title", "a", "p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "address", "li", "th", "td", "script", "style",
    "ins", "del", "s",
))  # fmt: skip
_PRESERVE_WS_TAGS = frozenset(("pre", "plaintext", "textarea"))  # jsoup also lists title but CleanWebpage skips it
_DATA_TAGS = frozenset(("script", "style"))  # jsoup's DataNode parents (iframe/xmp/noembed text IS text there)
_HEADING_TAGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))

#: What Java's ``String.trim()`` removes: every char <= ' '.
JAVA_TRIM = "".join(chr(c) for c in range(33))
_HTML_WS_RUN = re.compile("[ \t\n\f\r\xa0]+")  # jsoup's isActuallyWhitespace
_INVISIBLE = re.compile("[\u200b\u00ad]")  # zero-width space and soft hyphen, dropped by jsoup
_BLANK_LINES = re.compile(r"\n{3,}")
#: Whitespace just inside brackets, which the source's line breaks around inline markup leave ("(\n  <i>Name</i>"):
#: not jsoup's, but no reader sees "( Name" on the page.
_INSIDE_BRACKETS = re.compile(r"(?<=[(\[]) | (?=[)\]])")
_OPENING = ("(", "[")
_CLOSING = (")", "]")



class _Accumulator:
    """A string builder that remembers its last two characters, which is all jsoup's spacing rules look at."""

    __slots__ = ("parts", "size", "tail")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.tail = ""
        self.size = 0

    def add(self, text: str) -> None:
        if text:
            self.parts.append(text)
            self.tail = (self.tail + text[-2:])[-2:]
            self.size += len(text)

    def last(self) -> str:
        return self.tail[-1:]

    def second_last(self) -> str:
        return self.tail[-2] if len(self.tail) == 2 else ""

    def add_normalised(self, text: str, strip_leading: bool) -> None:
        """jsoup's appendNormalisedWhitespace: whitespace runs -> one space, invisible chars dropped."""
        text = _normalise(text)
        if text[:1] in _CLOSING and self.tail[-1:] == " ":
            self._drop_trailing_space()
        self.add(text.lstrip(" ") if strip_leading or self.tail[-1:] in _OPENING else text)

    def add_sorted(self, node: NavigableString, code: int, strip_leading: bool) -> None:
        """Text the walk has sorted (:func:`_push_children`): verbatim, or normalised unless it is a formula's
        source."""
        if code == _VERBATIM:
            self.add(node)
        elif not ("math" in node and is_formula_source(node)):
            self.add_normalised(node, strip_leading)

    def _drop_trailing_space(self) -> None:
        """The last space taken back: it was the source's line break before a closing bracket ("name\n)")."""
        self.parts[-1] = self.parts[-1][:-1]
        self.size -= 1
        self.tail = "".join(self.parts[-2:])[-2:]

    def value(self) -> str:
        return "".join(self.parts)

    def add_formula(self, math: Tag, block: bool) -> None:
        """A MathML formula's text (:mod:`pubfetch.extract.formula`), unless the page shows its rendered copy before
        it; on a line of its own when the formula is set as a block."""
        if has_rendered_copy(math):
            return
        text = formula_text(math)
        if block and self.size and self.last() != "\n":
            self.add("\n")
        elif not block and self.size and self.last() not in " \n":
            self.add(" ")
        self.add(text)
        if block:
            self.add("\n")

    def add_text_node(self, node: NavigableString, strip_leading: bool) -> None:
        """Text as jsoup appends it: CDATA and <pre> text verbatim, other text normalised, the rest not at all."""
        kind = _text_kind(node)
        if kind == 2 or (kind == 1 and _preserves_whitespace(node)):
            self.add(str(node))
        elif kind == 1 and not is_formula_source(node):
            self.add_normalised(str(node), strip_leading)


#: What a node on the walk's stack is, besides a tag to open (whose code is how many levels up its nearest <pre>,
#: <plaintext> or <textarea> is, itself included): text to normalise, text to take as it is, a tag to close.
_NORMALISED, _VERBATIM, _CLOSE = -1, -2, -3
#: jsoup looks at a text's parent and five more ancestors for a tag that keeps whitespace.
_PRESERVE_REACH = 6


def _text_kind(node: NavigableString) -> int:
    """0: not text (comment, doctype, script/style data...), 1: text, 2: CDATA appended verbatim."""
    if isinstance(node, CData):
        return 2
    if isinstance(node, (PreformattedString, Script, Stylesheet)):
        return 0
    parent = node.parent
    if parent is not None and parent.name in _DATA_TAGS:
        return 0
    return 1


def _preserves_whitespace(node: NavigableString) -> bool:
    """jsoup looks at the text's parent and five more ancestors only."""
    tag = node.parent
    for _ in range(_PRESERVE_REACH):
        if tag is None:
            return False
        if tag.name in _PRESERVE_WS_TAGS:
            return True
        tag = tag.parent
    return False


def _tidy(text: str) -> str:
    """Java trim, then no trailing spaces on lines and at most one blank line in a row."""
    text = "\n".join(line.rstrip(" \t") for line in text.strip(JAVA_TRIM).split("\n"))
    return _BLANK_LINES.sub("\n\n", text).strip(JAVA_TRIM)


def _preserve_distance(tag: Tag) -> int:
    """How many levels up from ``tag`` (0: itself) the nearest tag keeping whitespace is, :data:`_PRESERVE_REACH`
    when none is within reach."""
    node: Tag | None = tag
    for level in range(_PRESERVE_REACH):
        if node is None:
            break
        if node.name in _PRESERVE_WS_TAGS:
            return level
        node = node.parent
    return _PRESERVE_REACH


def _push_children(stack: list[tuple[Any, int]], tag: Tag, distance: int) -> None:
    """``tag``'s children on the walk's stack, first child on top, each with its code (see :data:`_CLOSE`): text is
    sorted here once (:func:`_text_kind`: data left out, CDATA and text within reach of a whitespace-keeping tag
    verbatim, the rest normalised), tags with their distance to a whitespace-keeping tag."""
    data = tag.name in _DATA_TAGS
    text_code = _VERBATIM if distance < _PRESERVE_REACH else _NORMALISED
    below = distance + 1
    push = stack.append
    child: Any
    for child in reversed(tag.contents):
        kind = child.__class__
        if kind is NavigableString:
            if not data:
                push((child, text_code))
        elif kind is Tag or isinstance(child, Tag):
            push((child, 0 if child.name in _PRESERVE_WS_TAGS else below))
        elif isinstance(child, CData):
            push((child, _VERBATIM))
        elif not data and not isinstance(child, (PreformattedString, Script, Stylesheet)):
            push((child, text_code))


def _normalise(text: str) -> str:
    """jsoup's whitespace normalisation of a text (:meth:`_Accumulator.add_normalised`'s first step): invisible
    characters dropped, whitespace runs to one space, no space just inside brackets; each pattern applied only where
    the text holds what it can change."""
    if "\u200b" in text or "\u00ad" in text:
        text = _INVISIBLE.sub("", text)
    if "  " in text or "\n" in text or "\t" in text or "\r" in text or "\f" in text or "\xa0" in text:
        text = _HTML_WS_RUN.sub(" ", text)
    if "(" in text or "[" in text or ")" in text or "]" in text:
        text = _INSIDE_BRACKETS.sub("", text)
    return text


def _walk_start(element: Tag) -> list[tuple[Any, int]]:
    return [(element, _preserve_distance(element))]


def format_text(element: Tag | None) -> str:
    """The element's text as PubFetcher writes cleaned pages: a newline around blocks and at <br>, a blank line
    around paragraphs, headings, lists and the other margin tags, whitespace collapsed except inside <pre>.

    One walk over a stack of sorted nodes (:func:`_push_children`): this and :func:`element_text` read every
    paragraph of a page, often more than once, so each node costs as few calls as it can."""
    if element is None:
        return ""
    acc = _Accumulator()
    if not isinstance(element, Tag):
        acc.add_text_node(element, True)
        return _tidy(acc.value())
    stack = _walk_start(element)
    while stack:
        node, code = stack.pop()
        if code < 0:
            if code == _CLOSE:
                _format_tag_end(acc, node.name)
            else:
                acc.add_sorted(node, code, acc.size == 0 or acc.tail[-1:] in " \n")
        elif is_formula_name(node.name):
            acc.add_formula(node, is_block_formula(node))
        else:
            _format_tag_start(acc, node.name)
            stack.append((node, _CLOSE))
            _push_children(stack, node, code)
    return _tidy(acc.value())


def _format_tag_start(acc: _Accumulator, name: str) -> None:
    """format_text's line breaks at an element's start."""
    if acc.size and (name in BLOCK_TAGS or name == "br") and acc.tail[-1:] != "\n":
        acc.add("\n")
    if acc.size > 1 and name in MARGIN_TAGS and acc.second_last() != "\n":
        acc.add("\n")


def _format_tag_end(acc: _Accumulator, name: str) -> None:
    """format_text's line breaks at an element's end."""
    if acc.size and name in BLOCK_TAGS and acc.tail[-1:] != "\n":
        acc.add("\n\n" if name in MARGIN_TAGS else "\n")


def _spaced_after(tag: Tag) -> bool:
    """jsoup text(): after a block, a space only if the next sibling is text or an element laid out inline."""
    nxt = tag.next_sibling
    if isinstance(nxt, Tag):
        return nxt.name in _FORMAT_AS_INLINE
    return isinstance(nxt, NavigableString) and _text_kind(nxt) != 0


def element_text(element: Tag | None, headings: bool = False) -> str:
    """jsoup's Element.text(): one line, whitespace collapsed (kept inside <pre>), trimmed. With headings=True,
    each <hN> contributes " " before and ". " after its text, as in PubFetcher's selector text."""
    if element is None:
        return ""
    acc = _Accumulator()
    if not isinstance(element, Tag):
        acc.add_text_node(element, False)
        return acc.value().strip(JAVA_TRIM)
    stack = _walk_start(element)
    while stack:
        node, code = stack.pop()
        if code < 0:
            if code == _CLOSE:
                _text_tag_end(acc, node, headings, node is element)
            else:
                acc.add_sorted(node, code, acc.tail[-1:] == " ")
        elif is_formula_name(node.name):
            acc.add_formula(node, False)
        else:
            _text_tag_start(acc, node.name, headings)
            stack.append((node, _CLOSE))
            _push_children(stack, node, code)
    return acc.value().strip(JAVA_TRIM)


def _text_tag_start(acc: _Accumulator, name: str, headings: bool) -> None:
    if acc.size and (name in BLOCK_TAGS or name == "br") and acc.tail[-1:] != " ":
        acc.add(" ")
    if headings and name in _HEADING_TAGS:
        acc.add_normalised(" ", acc.tail[-1:] == " ")


def _text_tag_end(acc: _Accumulator, tag: Tag, headings: bool, is_root: bool) -> None:
    name = tag.name
    if headings and name in _HEADING_TAGS:
        acc.add_normalised(". ", acc.tail[-1:] == " ")
    if name in BLOCK_TAGS and acc.tail[-1:] != " " and not is_root and _spaced_after(tag):
        acc.add(" ")


def selector_text(elements: Tag | Iterable[Tag] | None) -> str:
    """Text of the elements a scraping rule selected (no cleaning): element text with headings set off by " " and
    ". ", elements without text skipped, the rest joined by blank lines."""
    if elements is None:
        return ""
    if isinstance(elements, Tag):
        elements = [elements]
    texts = (element_text(element, headings=True) for element in elements)
    return "\n\n".join(text for text in texts if text)


def normalised_text(text: str) -> str:
    """A text as jsoup appends it, trimmed: whitespace runs to one space, invisible characters dropped."""
    acc = _Accumulator()
    acc.add_normalised(text, False)
    return acc.value().strip(JAVA_TRIM)
