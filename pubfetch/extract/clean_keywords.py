"""The keyword tests of PubFetcher's page cleaning (spec section 9): which id, class, role and aria-label values mark
an element as a menu, a footer, a "maybe" box (sidebar, tabs, search, social, ...) or, for publications, a reference
list.

Details kept from the Java code because they change the output: a value is split into tokens (whitespace normalised,
camelCase, letter/digit boundaries, ``[ _-]+``) and every keyword test is on ONE whole token: "topNav", "nav-tabs" and
"subnavigation" hold an always-removed token, "navy" or "menus" only a maybe-removed one (menu-word prefix),
"searchbox" none. Matching is ASCII case-insensitive, like Java's ``(?i)``. The "main" test looks at the WHOLE
attribute (``^[^\\p{L}]*(main|...)[^\\p{L}]*$``), so ``id="main"`` or ``id="maincontent"`` is main but
``id="main-content"`` is not. Publication mode removes tokens that START or END with
ref|refs|reflist|reference|references|related, as the spec says and the Java code means (its regex, anchors bound to
one word only, in fact removes every token merely CONTAINING them, e.g. "preferences").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

__all__ = [
    "ASCII_LOWER", "MAIN_WORDS", "MAYBE_WORDS", "MENU_WORDS", "PUBLICATION_WORDS", "TITLE_WORDS", "WITH_WORDS",
    "is_always_token", "is_maybe_token", "is_publication_token", "is_word_attr", "tokenize",
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

#: ASCII-only lower-casing (Java's ``(?i)`` without UNICODE_CASE).
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASCII_SPACE_RUN = re.compile(r"[\x00-\x20\x7f]+")  # [\p{Z}\p{Cc}\p{Cf}]+ restricted to ASCII
_ASCII_CAMEL = re.compile(r"([a-z])([A-Z])")
_ASCII_TO_NUMBER = re.compile(r"([A-Za-z])([0-9])")
_ASCII_FROM_NUMBER = re.compile(r"([0-9])([A-Za-z])")
_SEPARATOR = re.compile(r"[ _-]+")
_SPACE_CATEGORIES = frozenset(("Zs", "Zl", "Zp", "Cc", "Cf"))
_ALPHA_CANDIDATE = re.compile(r"[^\W\d_]")  # isalpha() plus a few No/Nl numerals, filtered afterwards



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
    return [token.translate(ASCII_LOWER) for token in _SEPARATOR.split(text) if token]


def _first_letter(text: str, step: int) -> int:
    """Index of the first (step=1) or last (step=-1) Unicode letter in text, or -1."""
    scan = text if step == 1 else text[::-1]
    pos = 0
    while (m := _ALPHA_CANDIDATE.search(scan, pos)) is not None:
        if m.group().isalpha():
            return m.start() if step == 1 else len(text) - 1 - m.start()
        pos = m.end()
    return -1


def is_word_attr(value: str, words: frozenset[str]) -> bool:
    """``^[^\\p{L}]*(words)[^\\p{L}]*$`` on a whole attribute: its letters from first to last spell one word."""
    start = _first_letter(value, 1)
    if start < 0:
        return False
    core = value[start : _first_letter(value, -1) + 1]
    return len(core) <= 12 and core.translate(ASCII_LOWER) in words


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
