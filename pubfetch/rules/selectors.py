"""Rule selectors: CSS as soupsieve understands it, with PubFetcher's jsoup extensions (``:contains``, ``:eq``, ...)
translated and the regex ones refused; compiled when a user's file is loaded, on first use for the built-in files."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from bs4 import BeautifulSoup
from bs4.element import Tag

from pubfetch.rules.page_index import PageIndex

log = logging.getLogger(__name__)

_EMPTY_SOUP = BeautifulSoup("", "html.parser")
_JSOUP_TEXT = {"contains": ":-soup-contains", "containsOwn": ":-soup-contains-own"}
_JSOUP_INDEX = ("eq", "lt", "gt")
_JSOUP_UNSUPPORTED = (
    "matches", "matchesOwn", "matchText", "matchesWholeText", "matchesWholeOwnText", "containsData",
    "containsWholeText", "containsWholeOwnText",
)  # fmt: skip
_PSEUDO_NAME = re.compile(r":([A-Za-z][A-Za-z-]*)\(")


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _closing_paren(selector: str, start: int) -> int:
    """Index of the ``)`` closing the ``(`` just before ``start``, honouring nesting and quotes; -1 if none."""
    depth, quote, i = 1, "", start
    while i < len(selector):
        c = selector[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _unquote(arg: str) -> str:
    arg = arg.strip()
    if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "\"'":
        return arg[1:-1]
    return arg


def translate_jsoup(selector: str) -> str:
    """Rewrite the jsoup pseudo-classes that have a CSS/soupsieve equivalent; raise ValueError for those without.

    Only text outside quotes and attribute brackets is rewritten, and nested selectors (inside ``:not``, ``:has``)
    are handled because the whole string is scanned.
    """
    out: list[str] = []
    i, n = 0, len(selector)
    quote, bracket = "", 0
    while i < n:
        c = selector[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(selector[i + 1])
                i += 1
            elif c == quote:
                quote = ""
            i += 1
            continue
        if c in "\"'":
            quote = c
        elif c == "[":
            bracket += 1
        elif c == "]":
            bracket = max(0, bracket - 1)
        elif c == ":" and not bracket:
            m = _PSEUDO_NAME.match(selector, i)
            if m and m.group(1) in (*_JSOUP_TEXT, *_JSOUP_INDEX, *_JSOUP_UNSUPPORTED):
                name = m.group(1)
                end = _closing_paren(selector, m.end())
                if end < 0:
                    raise ValueError(f"unclosed parenthesis after ':{name}('")
                arg = selector[m.end():end]
                if name in _JSOUP_UNSUPPORTED:
                    raise ValueError(f"jsoup's ':{name}()' (regular expressions on text) is not supported; "
                                     "use ':-soup-contains()' / ':-soup-contains-own()' or a structural selector")
                if name in _JSOUP_TEXT:
                    out.append(f"{_JSOUP_TEXT[name]}({_css_string(_unquote(arg))})")
                else:
                    if not arg.strip().isdigit():
                        raise ValueError(f"':{name}()' needs a non-negative whole number, not '{arg}'")
                    index = int(arg)
                    out.append({"eq": f":nth-child({index + 1})", "lt": f":nth-child(-n+{index})",
                                "gt": f":nth-child(n+{index + 2})"}[name])
                i = end + 1
                continue
        out.append(c)
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Selector:
    """A CSS selector. An empty selector (``''``) selects nothing: a rule's way of forcing an empty field.

    The selectors of the built-in rule files are compiled on first use (the suite checks them all): compiling the
    150 of them costs a second of start-up, mostly soupsieve building its own patterns, which a run that never
    scrapes a publisher page does not need. A user's file is compiled when loaded, so that a typo is a usage error.
    """

    text: str
    css: str = ""
    _compiled: list[Any] = field(default_factory=list, repr=False, compare=False, init=False)

    @property
    def compiled(self) -> Any:
        """The soupsieve selector (``None`` for the empty selector)."""
        if not self.css:
            return None
        if not self._compiled:
            self._compiled.append(_EMPTY_SOUP.css.compile(self.css))  # two threads may both compile: harmless
        return self._compiled[0]

    @property
    def empty(self) -> bool:
        return not self.css

    def select(self, root: Tag, index: PageIndex | None = None) -> list[Tag]:
        """All matching elements in document order; ``index``, when it is the index of ``root``, answers faster."""
        if self.compiled is None:
            return []
        if index is not None and index.root is root:
            return index.select(self.compiled)
        return list(self.compiled.select(root))

    def select_one(self, root: Tag, index: PageIndex | None = None) -> Tag | None:
        if self.compiled is None:
            return None
        if index is not None and index.root is root:
            return index.select_one(self.compiled)
        return self.compiled.select_one(root)


def compile_selector(text: str, *, lazy: bool = False) -> Selector:
    """Compile a rule selector (jsoup extensions translated); ValueError with soupsieve's explanation if it is bad.
    ``lazy``: translate now, compile on first use (for the built-in rules, checked by the test suite)."""
    stripped = text.strip()
    if not stripped:
        return Selector(text)
    css = translate_jsoup(stripped)
    if lazy:
        return Selector(text, css)
    try:
        compiled = _EMPTY_SOUP.css.compile(css)
    except Exception as e:  # soupsieve raises SelectorSyntaxError, and a few others for unsupported features
        # the selector itself is not quoted: a rule file's error names its file, line and key, never its content
        raise ValueError(f"invalid CSS selector: {str(e).splitlines()[0]}") from e
    selector = Selector(text, css)
    selector._compiled.append(compiled)
    return selector
