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
from collections.abc import Iterable, Iterator

from bs4.element import CData, NavigableString, PreformattedString, Script, Stylesheet, Tag

from pubfetch.extract.formula import formula_text, has_rendered_copy, is_block_formula, is_formula, is_formula_source

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
        text = _INSIDE_BRACKETS.sub("", _HTML_WS_RUN.sub(" ", _INVISIBLE.sub("", text)))
        if text[:1] in _CLOSING and self.last() == " ":
            self._drop_trailing_space()
        self.add(text.lstrip(" ") if strip_leading or self.last() in _OPENING else text)

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


def _walk(root: Tag) -> Iterator[tuple[Tag | NavigableString, bool]]:
    """Depth-first (node, closing) events like jsoup's NodeTraversor, root included, without recursion."""
    stack: list[tuple[Tag | NavigableString, bool]] = [(root, False)]
    while stack:
        node, closing = stack.pop()
        yield node, closing
        if not closing and isinstance(node, Tag) and not is_formula(node):  # a formula is read whole
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node.contents)
                         if isinstance(child, (Tag, NavigableString)))


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
    for _ in range(6):
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


def format_text(element: Tag | None) -> str:
    """The element's text as PubFetcher writes cleaned pages: a newline around blocks and at <br>, a blank line
    around paragraphs, headings, lists and the other margin tags, whitespace collapsed except inside <pre>."""
    if element is None:
        return ""
    acc = _Accumulator()
    for node, closing in _walk(element):
        if isinstance(node, Tag) and is_formula(node):
            acc.add_formula(node, is_block_formula(node))
        elif isinstance(node, Tag):
            _format_tag_edge(acc, node.name, closing)
        else:
            acc.add_text_node(node, acc.size == 0 or acc.last() in " \n")
    return _tidy(acc.value())


def _format_tag_edge(acc: _Accumulator, name: str, closing: bool) -> None:
    """Line breaks of format_text at an element's start or end."""
    if not closing:
        if acc.size and (name in BLOCK_TAGS or name == "br") and acc.last() != "\n":
            acc.add("\n")
        if acc.size > 1 and name in MARGIN_TAGS and acc.second_last() != "\n":
            acc.add("\n")
    elif acc.size and name in BLOCK_TAGS and acc.last() != "\n":
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
    for node, closing in _walk(element):
        if not isinstance(node, Tag):
            acc.add_text_node(node, acc.last() == " ")
        elif is_formula(node):
            acc.add_formula(node, False)
        elif closing:
            _text_tag_end(acc, node, headings, node is element)
        else:
            _text_tag_start(acc, node.name, headings)
    return acc.value().strip(JAVA_TRIM)


def _text_tag_start(acc: _Accumulator, name: str, headings: bool) -> None:
    if acc.size and (name in BLOCK_TAGS or name == "br") and acc.last() != " ":
        acc.add(" ")
    if headings and name in _HEADING_TAGS:
        acc.add_normalised(" ", acc.last() == " ")


def _text_tag_end(acc: _Accumulator, tag: Tag, headings: bool, is_root: bool) -> None:
    if headings and tag.name in _HEADING_TAGS:
        acc.add_normalised(". ", acc.last() == " ")
    if tag.name in BLOCK_TAGS and acc.last() != " " and not is_root and _spaced_after(tag):
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
