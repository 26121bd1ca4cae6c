"""Automatic cleaning of HTML pages and their formatting as plain text (PubFetcher's CleanWebpage, spec section 9).

When no scraping rule knows a page, PubFetcher keeps its "main content": it deletes navigation, footers, search and
login boxes, social links, ``<noscript>`` nags and (for publications) reference lists, then writes the remaining body
as text with blank lines between paragraphs and the page's meta description in front. This module reproduces that
with BeautifulSoup trees (parsed by lxml). It never raises on bad markup (only on arguments of the wrong type) and
changes nothing but a parsed tree handed to :func:`clean_html` or :func:`clean_document`, which are cleaned in place.

Public API (everything else is internal):

* :func:`clean_html` -- the cleaned page text (meta description, blank line, cleaned body); :func:`webpage_text`
  -- (title, that text) for a Webpage.
* :func:`parse_html`, :func:`clean_document` (remove in place), :func:`find_removals` (what would be removed),
  :func:`format_text` (an element as multi-line text), :func:`element_text` / :func:`selector_text` (jsoup's
  one-line ``text()``, for scraping-rule selections), :func:`meta_description`, :func:`page_title`.
* the keyword tests :func:`tokenize`, :func:`is_always_token`, :func:`is_maybe_token`, :func:`is_publication_token`,
  :func:`is_main`, and the keyword/tag tables (``MENU_WORDS``, ``WITH_WORDS``, ``MAYBE_WORDS``, ...).

Details kept from the Java code (jsoup 1.15) because they change the output:

* id, class, role and aria-label are split into tokens (whitespace normalised, camelCase, letter/digit boundaries,
  ``[ _-]+``); every keyword test is on ONE whole token: "topNav", "nav-tabs" and "subnavigation" hold an always-removed
  token, "navy" or "menus" only a maybe-removed one (menu-word prefix), "searchbox" none. Keyword matching is ASCII
  case-insensitive, like Java's ``(?i)``.
* the "main" test looks at the WHOLE id/class attribute: ``^[^\\p{L}]*(main|...)[^\\p{L}]*$``, so ``id="main"`` or
  ``id="maincontent"`` is main but ``id="main-content"`` is not (the letters of "content" are outside the word).
* "maybe" removals (sidebar, tabs, search, social, pagination, ...) only happen when no main content is around: the
  element and its ancestors are not main (for them an id/class of just title/heading and <h1>/<h2> count too) and
  no descendant is main (without that title test).
* whitespace handling, block and margin tags follow jsoup's ``Element.text()`` as adapted by CleanWebpage; text inside
  <iframe>, <noembed>, <noframes> and <xmp> is text (jsoup only treats <script>/<style> content as data).

Deliberate differences:

* the output lines have no trailing spaces and never more than one blank line in a row (jsoup can leave both, the
  latter only from <pre> content);
* the description selector covers every name/property variant PubFetcher meant to match (its Java selector string
  lacks two ", " separators and so silently misses e.g. ``property="og:description"``);
* publication mode removes tokens that START or END with ref|refs|reflist|reference|references|related, as the spec
  says and the Java code means; the Java regex ``(^a|b|..)|(a|b|..$)`` binds its anchors to one word only and so in
  fact removes every token merely CONTAINING "ref" or "related" (e.g. "preferences").
* a page that lxml gives no <body> (only head elements) yields its description alone and no warning (jsoup always
  creates a body).

All tree walks are iterative, so 100,000-deep nesting costs time linear in its size and no recursion.
"""

from __future__ import annotations

import logging
import re
import unicodedata
import warnings
from collections.abc import Callable, Iterable, Iterator

import bs4
from bs4 import BeautifulSoup
from bs4.element import CData, NavigableString, PreformattedString, Script, Stylesheet, Tag

log = logging.getLogger(__name__)

__all__ = [
    "BLOCK_TAGS", "DESCRIPTION_NAMES", "MAIN_WORDS", "MARGIN_TAGS", "MAYBE_WORDS", "MENU_WORDS", "PUBLICATION_WORDS",
    "TITLE_WORDS", "WITH_WORDS", "clean_document", "clean_html", "element_text", "find_removals", "format_text",
    "is_always_token", "is_main", "is_maybe_token", "is_publication_token", "meta_description", "page_title",
    "parse_html", "selector_text", "tokenize", "webpage_text",
]  # fmt: skip

MENU_WORDS = ("nav", "navigation", "menu", "navbar", "navigationbar", "menubar", "breadcrumb", "breadcrumbs")
WITH_WORDS = ("top", "bottom", "left", "right", "side", "sub", "main", "site", "page", "tool", "my")
MAYBE_WORDS = (
    "bar", "bars", "tab", "tabs", "accordion", "linklist", "links", "path", "search", "login", "social", "socialmedia",
    "pagination", "complementary", "secondary", "aside", "related", "invisible", "hidden", "skip", "jump",
)  # fmt: skip
PUBLICATION_WORDS = ("ref", "refs", "reflist", "reference", "references", "related")
MAIN_WORDS = frozenset(("main", "maincontent", "maincontents", "content", "contents", "article"))
TITLE_WORDS = frozenset(("title", "heading"))


def _pairs(firsts: Iterable[str], seconds: Iterable[str]) -> frozenset[str]:
    """All concatenations a+b: PubFetcher's combined keywords such as "topnav" or "navlinks"."""
    second = tuple(seconds)
    return frozenset(a + b for a in firsts for b in second)


# The Java regexes are alternations of fixed words, so the same tests are exact set lookups here: constant time per
# token and no backtracking on hostile attribute values.
_MENU = frozenset(MENU_WORDS)
_WITH_MAYBE = WITH_WORDS + MAYBE_WORDS
_ALWAYS_TOKENS = _MENU | _pairs(MENU_WORDS + _WITH_MAYBE, MENU_WORDS) | _pairs(MENU_WORDS, MENU_WORDS + _WITH_MAYBE)
_ALWAYS_TOKENS |= {"footer"}
_MAYBE_TOKENS = frozenset(MAYBE_WORDS) | _pairs(_WITH_MAYBE, MAYBE_WORDS) | _pairs(MAYBE_WORDS, _WITH_MAYBE)
_MENU_PREFIXES = _MENU | _pairs(_WITH_MAYBE, MENU_WORDS)  # token STARTS with one: maybe-removed
_MENU_SUFFIXES = _MENU | _pairs(MENU_WORDS, _WITH_MAYBE)  # token ENDS with one: maybe-removed
_PUBLICATION = frozenset(PUBLICATION_WORDS)

_ALWAYS_TAGS = frozenset(("nav", "menu", "aside", "footer"))
_ALWAYS_ARIA = frozenset(("navigation", "menu", "menubar", "menuitem", "complementary", "contentinfo"))
_MAYBE_ARIA = frozenset(("tab", "search"))
_MAIN_TAGS = frozenset(("main", "article"))
_MAIN_ARIA = frozenset(("main", "article"))
_TITLE_TAGS = frozenset(("h1", "h2"))

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

DESCRIPTION_NAMES = frozenset(
    f"{prefix}{sep}description" if prefix else "description"
    for prefix in ("", "meta", "dc", "og", "twitter")
    for sep in (".", ":")
)

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_JAVA_TRIM = "".join(chr(c) for c in range(33))  # String.trim() removes every char <= ' '
_ASCII_SPACE_RUN = re.compile(r"[\x00-\x20\x7f]+")  # [\p{Z}\p{Cc}\p{Cf}]+ restricted to ASCII
_ASCII_CAMEL = re.compile(r"([a-z])([A-Z])")
_ASCII_TO_NUMBER = re.compile(r"([A-Za-z])([0-9])")
_ASCII_FROM_NUMBER = re.compile(r"([0-9])([A-Za-z])")
_SEPARATOR = re.compile(r"[ _-]+")
_SPACE_CATEGORIES = frozenset(("Zs", "Zl", "Zp", "Cc", "Cf"))
_HTML_WS_RUN = re.compile("[ \t\n\f\r\xa0]+")  # jsoup's isActuallyWhitespace
_INVISIBLE = re.compile("[\u200b\u00ad]")  # zero-width space and soft hyphen, dropped by jsoup
_ALPHA_CANDIDATE = re.compile(r"[^\W\d_]")  # isalpha() plus a few No/Nl numerals, filtered afterwards
_BLANK_LINES = re.compile(r"\n{3,}")


# --------------------------------------------------------------------------------------------------- tokenisation


def _split_pairs(text: str, first: Callable[[str], bool], second: Callable[[str], bool]) -> str:
    """Insert a space between adjacent chars a, b with first(a) and second(b), scanning left to right without
    overlap, exactly like Java's ``replaceAll("(A)(B)", "$1 $2")``."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if i + 1 < n and first(text[i]) and second(text[i + 1]):
            out += (text[i], " ", text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _is_letter(c: str) -> bool:
    return c.isalpha()


def _is_number(c: str) -> bool:
    return unicodedata.category(c)[0] == "N"


def _separate_unicode(names: str) -> str:
    """The Unicode path of tokenisation (Python's ``re`` has no \\p{..} classes, so categories are checked per char)."""
    chars: list[str] = []
    for c in names:
        if unicodedata.category(c) in _SPACE_CATEGORIES:
            if not chars or chars[-1] != " ":
                chars.append(" ")
        else:
            chars.append(c)
    text = "".join(chars).strip(" ")
    text = _split_pairs(text, lambda c: unicodedata.category(c) == "Ll", lambda c: unicodedata.category(c) == "Lu")
    text = _split_pairs(text, _is_letter, _is_number)
    return _split_pairs(text, _is_number, _is_letter)


def tokenize(names: str | Iterable[str] | None) -> list[str]:
    """Split an id/class/role/aria-label value into keyword tokens, e.g. "mainNavBar2" -> ["main", "nav", "bar", "2"].

    ASCII letters are lowercased (PubFetcher matches with ASCII-only ``(?i)``); a list (BeautifulSoup's multi-valued
    class) is joined with spaces first, which tokenises the same as the original attribute string.
    """
    if names is None:
        return []
    if not isinstance(names, str):
        names = " ".join(names)
    if not names:
        return []
    if names.isascii():
        text = _ASCII_SPACE_RUN.sub(" ", names).strip(" ")
        text = _ASCII_CAMEL.sub(r"\1 \2", text)
        text = _ASCII_TO_NUMBER.sub(r"\1 \2", text)
        text = _ASCII_FROM_NUMBER.sub(r"\1 \2", text)
    else:
        text = _separate_unicode(names)
    return [token.translate(_ASCII_LOWER) for token in _SEPARATOR.split(text) if token]


def _first_letter(text: str, step: int) -> int:
    """Index of the first (step=1) or last (step=-1) Unicode letter in text, or -1."""
    scan = text if step == 1 else text[::-1]
    pos = 0
    while (m := _ALPHA_CANDIDATE.search(scan, pos)) is not None:
        if m.group().isalpha():
            return m.start() if step == 1 else len(text) - 1 - m.start()
        pos = m.end()
    return -1


def _is_word_attr(value: str, words: frozenset[str]) -> bool:
    """``^[^\\p{L}]*(words)[^\\p{L}]*$`` on a whole attribute: its letters from first to last spell one word."""
    start = _first_letter(value, 1)
    if start < 0:
        return False
    core = value[start : _first_letter(value, -1) + 1]
    return len(core) <= 12 and core.translate(_ASCII_LOWER) in words


_AFFIX_MAX = max(len(word) for word in _MENU_PREFIXES | _MENU_SUFFIXES | _PUBLICATION)


def _has_affix(token: str, affixes: frozenset[str], prefix: bool) -> bool:
    """Whether the token starts (or ends) with one of the affixes; only lengths up to the longest affix are tried."""
    for size in range(1, min(len(token), _AFFIX_MAX) + 1):
        if (token[:size] if prefix else token[-size:]) in affixes:
            return True
    return False


def is_always_token(token: str) -> bool:
    """MENU, (MENU|WITH|MAYBE)(MENU), (MENU)(MENU|WITH|MAYBE) or footer: removed whatever surrounds it."""
    return token in _ALWAYS_TOKENS


def is_maybe_token(token: str) -> bool:
    """MAYBE, (WITH|MAYBE)(MAYBE), (MAYBE)(WITH|MAYBE), or a token beginning/ending with a menu keyword: removed only
    when no main content is around."""
    return (
        token in _MAYBE_TOKENS
        or _has_affix(token, _MENU_PREFIXES, prefix=True)
        or _has_affix(token, _MENU_SUFFIXES, prefix=False)
    )


def is_publication_token(token: str) -> bool:
    """Tokens starting or ending with ref|refs|reflist|reference|references|related (publication mode only)."""
    return _has_affix(token, _PUBLICATION, prefix=True) or _has_affix(token, _PUBLICATION, prefix=False)


# ------------------------------------------------------------------------------------------------------- cleaning


def _attr(tag: Tag, name: str) -> str:
    """An attribute as one string ("" when missing); BeautifulSoup may hold class as a list."""
    value = tag.attrs.get(name) if tag.attrs else None
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return " ".join(str(v) for v in value)


def _children(tag: Tag) -> list[Tag]:
    return [child for child in tag.contents if isinstance(child, Tag)]


def is_main(tag: Tag, also_title: bool = True) -> bool:
    """Whether the element itself marks main content (and, with also_title, a title/heading or <h1>/<h2>)."""
    words = MAIN_WORDS | TITLE_WORDS if also_title else MAIN_WORDS
    name = (tag.name or "").translate(_ASCII_LOWER)
    if name in _MAIN_TAGS or (also_title and name in _TITLE_TAGS):
        return True
    if _is_word_attr(_attr(tag, "id"), words) or _is_word_attr(_attr(tag, "class"), words):
        return True
    return any(t in _MAIN_ARIA for t in tokenize(_attr(tag, "role"))) or any(
        t in _MAIN_ARIA for t in tokenize(_attr(tag, "aria-label"))
    )


def _subtree_main(root: Tag) -> dict[int, bool]:
    """id(tag) -> "the tag or a descendant is main (without the title test)", for every tag under root, in one
    post-order pass; cleaning only removes elements, so these flags stay exact while it runs."""
    flags: dict[int, bool] = {}
    stack: list[tuple[Tag, bool]] = [(root, False)]
    while stack:
        tag, done = stack.pop()
        children = _children(tag)
        if not done:
            stack.append((tag, True))
            stack.extend((child, False) for child in children)
        else:
            flags[id(tag)] = is_main(tag, also_title=False) or any(flags[id(child)] for child in children)
    return flags


def _tokens_say_remove(tag: Tag, attrs: tuple[str, str], always: Callable[[str], bool], maybe: Callable[[str], bool],
                       has_main: Callable[[], bool]) -> bool:
    """An "always" token removes; a "maybe" token removes only when the element holds no main content."""
    for attr in attrs:
        tokens = tokenize(_attr(tag, attr))
        if any(always(t) for t in tokens):
            return True
        if any(maybe(t) for t in tokens) and not has_main():
            return True
    return False


def _should_remove(tag: Tag, publication: bool, has_main: Callable[[], bool]) -> bool:
    """PubFetcher's removal decision for one element; has_main is only asked when a "maybe" rule fires."""
    name = (tag.name or "").translate(_ASCII_LOWER)
    if name in _ALWAYS_TAGS:
        return True
    if _tokens_say_remove(tag, ("id", "class"), is_always_token, is_maybe_token, has_main):
        return True
    if _tokens_say_remove(tag, ("role", "aria-label"), _ALWAYS_ARIA.__contains__, _MAYBE_ARIA.__contains__, has_main):
        return True
    if name == "noscript" and "javascript" in element_text(tag).translate(_ASCII_LOWER):
        return True
    return publication and any(is_publication_token(t) for attr in ("id", "class") for t in tokenize(_attr(tag, attr)))


def find_removals(root: Tag, publication: bool = False) -> list[Tag]:
    """The elements under root (root itself excluded) that cleaning deletes, outermost only, in document order."""
    sub_main = _subtree_main(root)
    anc_main = False
    node: Tag | None = root
    while node is not None and not isinstance(node, BeautifulSoup):
        anc_main = anc_main or is_main(node, also_title=True)
        node = node.parent
    removals: list[Tag] = []
    stack = [(child, anc_main) for child in reversed(_children(root))]
    while stack:
        tag, above_main = stack.pop()
        children = _children(tag)
        self_main: list[bool] = []

        def own_main(tag: Tag = tag, cache: list[bool] = self_main) -> bool:
            if not cache:
                cache.append(is_main(tag, also_title=True))
            return cache[0]

        def has_main(tag: Tag = tag, above: bool = above_main, children: list[Tag] = children) -> bool:
            return above or own_main(tag) or any(sub_main.get(id(c), False) for c in children)

        if _should_remove(tag, publication, has_main):
            removals.append(tag)
            continue
        below_main = above_main or own_main(tag)
        stack.extend((child, below_main) for child in reversed(children))
    return removals


def _extract_all(removals: list[Tag]) -> None:
    """Detach elements, grouped by parent and from the end of each parent's contents, so that a parent with
    100,000 removed children is not rescanned for every one of them."""
    by_parent: dict[int, tuple[Tag, set[int]]] = {}
    for tag in removals:
        if tag.parent is not None:
            by_parent.setdefault(id(tag.parent), (tag.parent, set()))[1].add(id(tag))
    for parent, doomed in by_parent.values():
        for index in range(len(parent.contents) - 1, -1, -1):
            child = parent.contents[index]
            if id(child) in doomed:
                try:
                    child.extract(_self_index=index)
                except TypeError:  # a BeautifulSoup without the private fast path
                    child.extract()


#: BeautifulSoup's warnings about its input, which say nothing to a user of a fetched page (by name: older
#: BeautifulSoup releases lack some of them).
_BS4_WARNINGS: tuple[type[Warning], ...] = tuple(
    getattr(bs4, name) for name in ("MarkupResemblesLocatorWarning", "XMLParsedAsHTMLWarning", "GuessedAtParserWarning",
                                    "AttributeResemblesVariableWarning") if hasattr(bs4, name))


def parse_html(html: str | bytes) -> BeautifulSoup:
    """Parse a page with lxml (the project's HTML parser). Markup problems never raise -- a fetched page is whatever
    the server sent -- but a value that is not str/bytes is a caller bug and raises TypeError."""
    if not isinstance(html, (str, bytes)):
        raise TypeError(f"HTML must be str or bytes, not {type(html).__name__}")
    with warnings.catch_warnings():
        # only BeautifulSoup's own (MarkupResemblesLocatorWarning for a page that is just a URL): the filters are the
        # process's, so ignoring everything here would swallow another thread's warnings while a page is parsed
        for category in _BS4_WARNINGS:
            warnings.simplefilter("ignore", category)
        try:
            return BeautifulSoup(html, "lxml")
        except Exception:  # lxml gave up on the markup: the lenient pure-Python parser still yields a tree
            log.warning("lxml could not parse the HTML, falling back to html.parser", exc_info=True)
            return BeautifulSoup(html, "html.parser")


def clean_document(soup_or_html: BeautifulSoup | Tag | str | bytes, publication: bool = False) -> BeautifulSoup | Tag:
    """Delete menus, footers, search/login/social boxes, JavaScript nags (and with publication=True reference
    lists) below <body> -- or below the given element -- in place, and return the cleaned tree.

    A str/bytes argument is parsed first. A document without <body> is returned untouched, as in PubFetcher.
    """
    root = soup_or_html if isinstance(soup_or_html, Tag) else parse_html(soup_or_html)
    target = root.body if isinstance(root, BeautifulSoup) else root
    if target is None:
        return root
    _extract_all(find_removals(target, publication))
    return root


# ----------------------------------------------------------------------------------------------------- formatting


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
        text = _HTML_WS_RUN.sub(" ", _INVISIBLE.sub("", text))
        self.add(text.lstrip(" ") if strip_leading else text)

    def value(self) -> str:
        return "".join(self.parts)

    def add_text_node(self, node: NavigableString, strip_leading: bool) -> None:
        """Text as jsoup appends it: CDATA and <pre> text verbatim, other text normalised, the rest not at all."""
        kind = _text_kind(node)
        if kind == 2 or (kind == 1 and _preserves_whitespace(node)):
            self.add(str(node))
        elif kind == 1:
            self.add_normalised(str(node), strip_leading)


def _walk(root: Tag) -> Iterator[tuple[Tag | NavigableString, bool]]:
    """Depth-first (node, closing) events like jsoup's NodeTraversor, root included, without recursion."""
    stack: list[tuple[Tag | NavigableString, bool]] = [(root, False)]
    while stack:
        node, closing = stack.pop()
        yield node, closing
        if not closing and isinstance(node, Tag):
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
    text = "\n".join(line.rstrip(" \t") for line in text.strip(_JAVA_TRIM).split("\n"))
    return _BLANK_LINES.sub("\n\n", text).strip(_JAVA_TRIM)


def format_text(element: Tag | None) -> str:
    """The element's text as PubFetcher writes cleaned pages: a newline around blocks and at <br>, a blank line
    around paragraphs, headings, lists and the other margin tags, whitespace collapsed except inside <pre>."""
    if element is None:
        return ""
    acc = _Accumulator()
    for node, closing in _walk(element):
        if isinstance(node, Tag):
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
        elif closing:
            _text_tag_end(acc, node, headings, node is element)
        else:
            _text_tag_start(acc, node.name, headings)
    return acc.value().strip(_JAVA_TRIM)


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


# ------------------------------------------------------------------------------------------------------ documents


def _tree(html: str | bytes | Tag) -> Tag:
    """A parsed tree for functions that also take page text: a Tag (or BeautifulSoup) as is, str/bytes parsed."""
    return html if isinstance(html, Tag) else parse_html(html)


def meta_description(html: str | bytes | Tag) -> str:
    """The longest description among <meta name|property = description, og:description, twitter:description,
    dc.description, ...> (names compared case-insensitively), whitespace-normalised; "" if none.

    Takes the page (str/bytes, parsed here) or a parsed tree; PubFetcher puts this text in front of a cleaned page.
    """
    best = ""
    for meta in _tree(html).find_all("meta"):
        names = (_attr(meta, "name"), _attr(meta, "property"))
        if not any(n.strip(_JAVA_TRIM).lower() in DESCRIPTION_NAMES for n in names):
            continue
        acc = _Accumulator()
        acc.add_normalised(_attr(meta, "content"), False)
        text = acc.value().strip(_JAVA_TRIM)
        if len(text) > len(best):
            best = text
    return best


def page_title(html: str | bytes | Tag) -> str:
    """The text of the page's first <title>, whitespace collapsed and trimmed; "" when there is none.

    Takes the page (str/bytes, parsed here) or a parsed tree (read before cleaning, which leaves <head> alone anyway).
    """
    title = _tree(html).find("title")
    return element_text(title) if isinstance(title, Tag) else ""


def clean_html(html: str | bytes | BeautifulSoup, base_url: str = "", publication: bool = False) -> str:
    """The text PubFetcher stores for a page that no scraping rule knows (its ``cleanedBody``): the longest meta
    description, a blank line, then the body with menus, footers and the like removed, formatted as plain text.

    ``html`` is the page as text, as bytes (the encoding is then sniffed from BOM and ``<meta charset>``), or an
    already parsed BeautifulSoup, which is cleaned IN PLACE (parse once, read meta tags first, then clean).
    ``base_url`` only names the page in log messages. ``publication=True`` also removes reference lists, citation
    links and "related articles" boxes, for pages fetched as a publication's full text rather than as a web page.
    Returns "" for a page without description and body text. Raises TypeError for anything but str/bytes/soup.
    """
    soup = html if isinstance(html, BeautifulSoup) else parse_html(html)
    description = meta_description(soup)
    if soup.body is None:
        log.debug("page %s has no <body>, only its description is kept", base_url or "(no URL)")
        return description
    clean_document(soup, publication)
    body = format_text(soup.body)
    if not body:
        log.debug("page %s has no text left after cleaning", base_url or "(no URL)")
    if description and body:
        return f"{description}\n\n{body}"
    return description or body


def webpage_text(html: str | bytes, base_url: str = "", publication: bool = False) -> tuple[str, str]:
    """(title, text) of a page without scraping rules, as PubFetcher fills a Webpage: the first ``<title>`` (taken
    before cleaning) and :func:`clean_html`'s text."""
    soup = parse_html(html)
    title = page_title(soup)
    return title, clean_html(soup, base_url, publication)
