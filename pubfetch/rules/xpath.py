"""Rule selectors answered by lxml's XPath, in C, instead of soupsieve's matching in Python, element by element.

A page whose BeautifulSoup tree ``pubfetch.extract.soup_build`` made from lxml's tree keeps lxml's tree beside it, with
the same elements in the same order. :func:`translated` turns a selector as soupsieve compiled it (its own parse, so
that nothing is read differently) into one XPath expression over that tree, once per selector:

* **exact** where every part of it means in XPath what it means to soupsieve on such a tree: tag names, ids, classes,
  attribute presence and the ``=``, ``^=``, ``$=`` and ``*=`` tests (with soupsieve's case rules), ``:not()``,
  ``:is()``, ``:has()``, ``:nth-child()`` and its kin, and the four combinators; the answer is soupsieve's;
* a **superset** where a part is not (text tests such as ``:-soup-contains-own()``, ``:root``, a ``~=`` test, an
  attribute that BeautifulSoup splits into a list on some tags only ...): that part is left out (inside ``:not()``,
  the whole ``:not()``), and soupsieve checks each element the XPath finds, which is still far fewer than it would
  try on its own;
* None where the XPath would narrow nothing (every element a candidate), or the selector depends on where the
  selection starts (``:scope``): the caller asks soupsieve as before.

What a page's tree must hold for the answers to be exact (what :class:`~pubfetch.rules.page_index.PageIndex` checks
before it asks lxml): class-like attribute values without whitespace that BeautifulSoup splits at and XPath's
``normalize-space`` does not (a form feed, a no-break space ...); and nothing taken out of the soup since it was made,
or, for a selector whose answer may change when elements are taken out (:attr:`Translation.removal_safe` false: it
counts or looks at siblings or descendants), no answer from lxml at all. The contents of a ``<template>``, which
soupsieve neither selects nor looks into, are left out by the expressions (``:has()``) and by the caller (results).
``tests/test_rules_xpath.py`` compares every translation with soupsieve on the recorded pages and on crafted markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bs4.builder import HTMLTreeBuilder
from lxml import etree

__all__ = ["BOOLEAN_ATTRIBUTES", "UNIVERSAL_LISTS", "Translation", "translated"]

#: Names XPath can test as they are (and soupsieve lower-cases, as lxml's HTML parser does every tag and attribute).
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")
#: The attributes lxml's tree gives their own name as value when the page gives none (``<option selected>``), where
#: BeautifulSoup is given "" (``pubfetch.extract.soup_build`` tells the two apart from the page's text).
BOOLEAN_ATTRIBUTES = frozenset(("checked", "compact", "declare", "defer", "disabled", "ismap", "multiple", "nohref",
                                "noresize", "noshade", "nowrap", "readonly", "selected"))
#: The attributes BeautifulSoup's HTML builders split into lists (per tag name, "*" for every tag), as the installed
#: BeautifulSoup declares them.
_LIST_ATTRIBUTES = HTMLTreeBuilder.DEFAULT_CDATA_LIST_ATTRIBUTES
#: Those split on every tag: soupsieve matches their values joined by one space, which is XPath's
#: ``normalize-space`` of the value where it holds no other whitespace.
UNIVERSAL_LISTS = frozenset(_LIST_ATTRIBUTES.get("*", ()))
#: Those split on some tags only, and the boolean ones whose value ``soup_build`` may change: their values are not
#: tested in XPath.
_UNSURE_VALUES = frozenset(name for tag, names in _LIST_ATTRIBUTES.items() if tag != "*" for name in names
                           ) - UNIVERSAL_LISTS | BOOLEAN_ATTRIBUTES
_UPPER, _LOWER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"
#: How soupsieve writes an attribute test's value into its pattern (``re.escape``): one escaped or plain character.
_ESCAPED = re.compile(r"\\(.)|(.)", re.DOTALL)
#: The characters ``re.escape`` escapes: unescaped in a pattern, they are its syntax.
_SPECIAL = frozenset("()[]{}?*+-|^$\\.&~# \t\n\r\v\f")
#: A number beyond which ``:nth-child()`` is left to soupsieve (XPath's numbers are floating point).
_LARGEST = 1 << 30
#: The XPath axis (with its step's filter) of each combinator soupsieve records, towards the element it relates to.
_AXES = {" ": "ancestor::{}", ">": "parent::{}", "~": "preceding-sibling::{}", "+": "preceding-sibling::*[1][self::{}]",
         ": ": "descendant::{}[not(ancestor::template)]", ":>": "child::{}", ":~": "following-sibling::{}",
         ":+": "following-sibling::*[1][self::{}]"}
#: Combinators whose answer changes when elements are taken out of the tree (siblings, descendants).
_SENSITIVE = frozenset(("~", "+", ": ", ":>", ":~", ":+"))
_TRUE = "true()"


@dataclass(frozen=True)
class Translation:
    """A selector as XPath. ``select``: from the page's root element, the elements in document order; ``test``: those
    of the elements given as ``$candidates`` that it matches, in their order (for candidates the page's index has
    narrowed). ``exact``: the answers are soupsieve's, else a superset for soupsieve to check; ``removal_safe``: an
    element's match does not depend on elements that taking others out of the tree could remove (only on itself, its
    ancestors and their attributes)."""

    select: Any
    test: Any
    exact: bool
    removal_safe: bool


class _Parts:
    """What a translation found as it went: whether it left something out, and whether it depends on siblings or
    descendants."""

    def __init__(self) -> None:
        self.exact = True
        self.removal_safe = True

    def loose(self) -> str:
        """A part left to soupsieve: true in the XPath (so a superset), checked afterwards."""
        self.exact = False
        return _TRUE


@lru_cache(maxsize=1024)
def translated(compiled: Any) -> Translation | None:
    """The XPath of a compiled soupsieve selector (cached per selector), or None where soupsieve should answer."""
    pattern = str(getattr(compiled, "pattern", ""))
    alternatives = getattr(compiled, "selectors", None)
    if alternatives is None or getattr(compiled, "namespaces", None) or ":scope" in pattern or "&" in pattern:
        return None
    parts = _Parts()
    names, predicates = [], []
    try:
        for alternative in alternatives:
            name = _tag_name(alternative)
            predicate = _compound(alternative, parts, top=True)
            if name == "*" and predicate == _TRUE:
                return None  # every element a candidate: soupsieve's own walk is as quick
            names.append(name)
            predicates.append(predicate)
        tests = [predicate if name == "*" else _all([f"self::{name}", predicate])
                 for name, predicate in zip(names, predicates, strict=True)]
        # one walk of the tree for all the alternatives (a union would walk it once for each)
        common = names[0] if len(set(names)) == 1 else "*"
        anywhere = _any(tests if common == "*" else predicates)
        select = f"descendant-or-self::{common}" + ("" if anywhere == _TRUE else f"[{anywhere}]")
        return Translation(etree.XPath(select), etree.XPath(f"$candidates[{_any(tests)}]"), parts.exact,
                           parts.removal_safe)
    except (AttributeError, TypeError, ValueError, etree.XPathError):  # a soupsieve whose structures differ
        return None


def _any(tests: list[str]) -> str:
    if _TRUE in tests:
        return _TRUE
    return tests[0] if len(tests) == 1 else " or ".join(f"({t})" for t in tests)


def _tag_name(selector: Any) -> str:
    """The name test of a compound: its tag name where XPath can test it as is, else ``*`` (any)."""
    tag = selector.tag
    if tag is None or tag.name == "*" or tag.prefix not in (None, "*") or not _NAME.match(tag.name):
        return "*"
    return str(tag.name).lower()


def _compound(selector: Any, parts: _Parts, top: bool = False) -> str:
    """A compound selector (with what it relates to) as an XPath predicate on the element; ``top``: its name is
    tested by the step it is the predicate of."""
    tests: list[str] = []
    tag = selector.tag
    if tag is not None and tag.name != "*":
        name = _tag_name(selector)
        if name == "*":
            tests.append(parts.loose())
        elif not top:
            tests.append(f"self::{name}")
    elif tag is not None and tag.prefix not in (None, "*"):
        tests.append(parts.loose())
    if selector.flags or selector.contains or selector.lang:
        tests.append(parts.loose())
    tests.extend(_id_test(value, parts) for value in selector.ids)
    tests.extend(_class_test(value, parts) for value in selector.classes)
    tests.extend(_attribute_test(attribute, parts) for attribute in selector.attributes)
    tests.extend(_nth_test(nth, selector, parts) for nth in selector.nth)
    tests.extend(_list_test(sub, parts) for sub in selector.selectors)
    if len(selector.relation) > 1:  # soupsieve follows the first only
        tests.append(parts.loose())
    tests.extend(_relation_test(related, parts) for related in selector.relation[:1])
    return _all(tests)


def _all(tests: list[str]) -> str:
    kept = [t for t in tests if t != _TRUE]
    if not kept:
        return _TRUE
    return kept[0] if len(kept) == 1 else " and ".join(f"({t})" for t in kept)


def _literal(text: str, parts: _Parts) -> str:
    """``text`` as an XPath string literal; loose where XML cannot hold it (no attribute can then be equal)."""
    if any(not (c in "\t\n\r" or "\x20" <= c <= "\ud7ff" or "\ue000" <= c <= "\ufffd" or c >= "\U00010000")
           for c in text):
        return parts.loose()
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ", \"'\", ".join(f"'{piece}'" for piece in text.split("'")) + ")"


def _id_test(value: str, parts: _Parts) -> str:
    literal = _literal(value, parts)
    return _TRUE if literal == _TRUE else f"@id={literal}"


def _class_test(value: str, parts: _Parts) -> str:
    if not value or any(c.isspace() for c in value):
        return parts.loose()  # never one of BeautifulSoup's class tokens; XPath could find it between two
    literal = _literal(f" {value} ", parts)
    if literal == _TRUE:
        return _TRUE
    # the token as a substring first: a quicker test, which most elements fail (and those without a class)
    return (f"contains(@class, {_literal(value, parts)}) and "
            f"contains(concat(' ', normalize-space(@class), ' '), {literal})")


def _attribute_test(attribute: Any, parts: _Parts) -> str:
    name = str(attribute.attribute).lower()
    if attribute.prefix or not _NAME.match(name) or attribute.inverse:
        return parts.loose()
    if attribute.pattern is None:
        return f"@{name}"
    if name in _UNSURE_VALUES:
        return parts.loose()
    found = _pattern_test(attribute.pattern)
    if found is None:
        return parts.loose()
    form, value = found
    if form == "none":
        return "false()"
    literal = _literal(value, parts)
    if literal == _TRUE:
        return _TRUE
    subject = f"normalize-space(@{name})" if name in UNIVERSAL_LISTS else f"string(@{name})"
    if attribute.ignore_case:
        subject = f"translate({subject}, '{_UPPER}', '{_LOWER}')"
    test = {"=": f"{subject}={literal}", "^=": f"starts-with({subject}, {literal})",
            "*=": f"contains({subject}, {literal})",
            "$=": f"substring({subject}, string-length({subject}) - {len(value) - 1})={literal}"}[form]
    return f"@{name} and {test}"


def _pattern_test(pattern: re.Pattern[str]) -> tuple[str, str] | None:
    """(operator, value) of the pattern soupsieve compiled for an attribute's value test (``^=``: ``^value``, ``$=``:
    ``value\\Z``, ``*=``: ``value``, ``=``: ``^value\\Z``; ``none`` for ``^=``, ``$=`` and ``*=`` of an empty value,
    which match nothing), or None for any other pattern."""
    if not pattern.flags & re.DOTALL or pattern.flags & re.IGNORECASE:
        return None
    source = pattern.pattern
    if source in ("^(?!)", "(?!)"):
        return "none", ""
    start = source.startswith("^")
    tokens: list[tuple[str, str]] = _ESCAPED.findall(source[1:] if start else source)
    end = bool(tokens) and tokens[-1] == ("Z", "")
    if end:
        tokens.pop()
    for escaped, plain in tokens:
        if (escaped and (escaped.isalnum() or escaped == "_")) or (plain and plain in _SPECIAL):
            return None  # a pattern's own syntax, not a character re.escape wrote
    value = "".join(escaped or plain for escaped, plain in tokens)
    form = {(True, True): "=", (True, False): "^=", (False, True): "$=", (False, False): "*="}[start, end]
    return (form, value) if value or form == "=" else None


def _nth_test(nth: Any, selector: Any, parts: _Parts) -> str:
    """``:nth-child()`` and kin: the element's place among its element siblings (of its own name for ``-of-type``),
    counted from the end for ``-last-``."""
    parts.removal_safe = False
    a, b = int(nth.a), int(nth.b)
    if abs(a) > _LARGEST or abs(b) > _LARGEST:
        return parts.loose()
    if nth.of_type:
        name = _tag_name(selector)
        if name == "*":
            return parts.loose()
    elif not _counts_every_element(nth.selectors):
        return parts.loose()
    else:
        name = "*"
    siblings = f"{'following' if nth.last else 'preceding'}-sibling::{name}"
    if a == 0:
        if b < 1:
            return "false()"
        return f"not({siblings})" if b == 1 else f"count({siblings})={b - 1}"
    place = f"(count({siblings})+1)"
    if a > 0:
        return f"{place}>={b} and ({place}-{b}) mod {a}=0"
    return f"{place}<={b} and ({b}-{place}) mod {-a}=0"


def _counts_every_element(of: Any) -> bool:
    """Whether an ``:nth-child()``'s ``of S`` list is the implicit one (every element) or absent."""
    if not of:
        return True
    if len(of) != 1 or of.is_not or of.is_html:
        return False
    only = of[0]
    return (only.tag is not None and only.tag.name == "*" and only.tag.prefix in (None, "*") and not only.ids
            and not only.classes and not only.attributes and not only.nth and not only.selectors
            and not only.relation and not only.flags and not only.contains and not only.lang)


def _list_test(sub: Any, parts: _Parts) -> str:
    """A selector list inside a compound: ``:not()`` (none of it), ``:is()`` and ``:has()``'s (any of it)."""
    if sub.is_html or not len(sub):
        return parts.loose()
    inner = _Parts()
    tests = [_compound(alternative, inner) for alternative in sub]
    parts.removal_safe = parts.removal_safe and inner.removal_safe
    if sub.is_not:
        if not inner.exact:
            return parts.loose()  # part of it left out: its negation would be narrower, not wider
        return "not(" + " or ".join(f"({t})" for t in tests) + ")"
    parts.exact = parts.exact and inner.exact
    if _TRUE in tests:
        return _TRUE
    return tests[0] if len(tests) == 1 else " or ".join(f"({t})" for t in tests)


def _relation_test(related: Any, parts: _Parts) -> str:
    """The element a combinator relates the compound to, found along its axis."""
    axis = _AXES.get(related.rel_type)
    if axis is None:
        return parts.loose()
    if related.rel_type in _SENSITIVE:
        parts.removal_safe = False
    predicate = _compound(related, parts, top=True)
    step = axis.format(_tag_name(related))
    found = step if predicate == _TRUE else f"{step}[{predicate}]"
    return f"not(self::template) and {found}" if related.rel_type == ":>" else found
