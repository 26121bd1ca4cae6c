"""Automatic cleaning of HTML pages and their formatting as plain text (PubFetcher's CleanWebpage, spec section 9).

When no scraping rule knows a page, PubFetcher keeps its "main content": it deletes navigation, footers, search and
login boxes, social links, ``<noscript>`` nags and (for publications) reference lists, then writes the remaining body
as text with blank lines between paragraphs and the page's meta description in front. This module reproduces that
with BeautifulSoup trees (parsed by lxml). It never raises on bad markup (only on arguments of the wrong type) and
changes nothing but a parsed tree handed to :func:`clean_html` or :func:`clean_document`, which are cleaned in place.

Public API (everything else is internal): :func:`clean_html` -- the cleaned page text (meta description, blank
line, cleaned body); :func:`webpage_text` -- (title, that text) for a Webpage; :func:`parse_html`,
:func:`clean_document` (remove in place), :func:`find_removals` (what would be removed), :func:`is_main`,
:func:`meta_description`, :func:`page_title`. The keyword tests are :mod:`pubfetch.extract.clean_keywords`'s, the
text formatting :mod:`pubfetch.extract.html_text`'s.

Details kept from the Java code because they change the output:

* "maybe" removals (sidebar, tabs, search, social, pagination, ...) only happen when no main content is around: the
  element and its ancestors are not main (for them an id/class of just title/heading and <h1>/<h2> count too) and
  no descendant is main (without that title test).

Deliberate differences:

* the description selector covers every name/property variant PubFetcher meant to match (its Java selector string
  lacks two ", " separators and so silently misses e.g. ``property="og:description"``);
* a page that lxml gives no <body> (only head elements) yields its description alone and no warning (jsoup always
  creates a body).

All tree walks are iterative, so 100,000-deep nesting costs time linear in its size and no recursion.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import lru_cache

from bs4 import BeautifulSoup
from bs4.element import Tag

from pubfetch.extract.clean_keywords import (
    ASCII_LOWER,
    MAIN_WORDS,
    TITLE_WORDS,
    is_always_token,
    is_maybe_token,
    is_publication_token,
    is_word_attr,
    tokenize,
)
from pubfetch.extract.html_text import JAVA_TRIM, element_text, format_text, normalised_text
from pubfetch.extract.soup_build import soup_from_text

log = logging.getLogger(__name__)

__all__ = ["DESCRIPTION_NAMES", "clean_document", "clean_html", "find_removals", "is_main", "meta_description",
           "page_title", "parse_html", "webpage_text"]

_ALWAYS_TAGS = frozenset(("nav", "menu", "aside", "footer"))
_ALWAYS_ARIA = frozenset(("navigation", "menu", "menubar", "menuitem", "complementary", "contentinfo"))
_MAYBE_ARIA = frozenset(("tab", "search"))
_MAIN_TAGS = frozenset(("main", "article"))
_MAIN_ARIA = frozenset(("main", "article"))
_TITLE_TAGS = frozenset(("h1", "h2"))
_MAIN_OR_TITLE = MAIN_WORDS | TITLE_WORDS

DESCRIPTION_NAMES = frozenset(
    f"{prefix}{sep}description" if prefix else "description"
    for prefix in ("", "meta", "dc", "og", "twitter")
    for sep in (".", ":")
)



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


#: What an id/class value says about its element (bits of :func:`_id_class_flags`).
_ALWAYS, _MAYBE, _PUBLICATION_REF, _MAIN_WORD, _MAIN_OR_TITLE_WORD = 1, 2, 4, 8, 16
#: What a role/aria-label value says (bits of :func:`_aria_flags`).
_ARIA_ALWAYS, _ARIA_MAYBE, _ARIA_MAIN = 1, 2, 4


@lru_cache(maxsize=16384)
def _id_class_flags(value: str) -> int:
    """The keyword tests of one id/class value, computed once per distinct value: pages repeat the same few hundred
    class values over thousands of elements, and every element is tested several times."""
    if not value:
        return 0
    flags = 0
    for token in tokenize(value):
        if is_always_token(token):
            flags |= _ALWAYS
        if is_maybe_token(token):
            flags |= _MAYBE
        if is_publication_token(token):
            flags |= _PUBLICATION_REF
    if is_word_attr(value, MAIN_WORDS):
        flags |= _MAIN_WORD | _MAIN_OR_TITLE_WORD
    elif is_word_attr(value, _MAIN_OR_TITLE):
        flags |= _MAIN_OR_TITLE_WORD
    return flags


@lru_cache(maxsize=4096)
def _aria_flags(value: str) -> int:
    """The keyword tests of one role/aria-label value, once per distinct value."""
    flags = 0
    for token in tokenize(value):
        if token in _ALWAYS_ARIA:
            flags |= _ARIA_ALWAYS
        if token in _MAYBE_ARIA:
            flags |= _ARIA_MAYBE
        if token in _MAIN_ARIA:
            flags |= _ARIA_MAIN
    return flags


def _flags(tag: Tag) -> tuple[int, int]:
    """(id/class flags, role/aria-label flags) of an element."""
    attrs = tag.attrs
    if not attrs:
        return 0, 0
    marks = aria = 0
    if "id" in attrs:
        marks = _id_class_flags(_attr(tag, "id"))
    if "class" in attrs:
        marks |= _id_class_flags(_attr(tag, "class"))
    if "role" in attrs:
        aria = _aria_flags(_attr(tag, "role"))
    if "aria-label" in attrs:
        aria |= _aria_flags(_attr(tag, "aria-label"))
    return marks, aria


def is_main(tag: Tag, also_title: bool = True) -> bool:
    """Whether the element itself marks main content (and, with also_title, a title/heading or <h1>/<h2>)."""
    name = (tag.name or "").translate(ASCII_LOWER)
    if name in _MAIN_TAGS or (also_title and name in _TITLE_TAGS):
        return True
    marks, aria = _flags(tag)
    return bool(marks & (_MAIN_OR_TITLE_WORD if also_title else _MAIN_WORD) or aria & _ARIA_MAIN)


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


def _should_remove(tag: Tag, publication: bool, has_main: Callable[[], bool]) -> bool:
    """PubFetcher's removal decision for one element: an "always" keyword removes, a "maybe" keyword removes only
    when the element holds no main content (has_main is only asked then)."""
    name = (tag.name or "").translate(ASCII_LOWER)
    if name in _ALWAYS_TAGS:
        return True
    marks, aria = _flags(tag)
    if marks & _ALWAYS or aria & _ARIA_ALWAYS:
        return True
    if (marks & _MAYBE or aria & _ARIA_MAYBE) and not has_main():
        return True
    if name == "noscript" and "javascript" in element_text(tag).translate(ASCII_LOWER):
        return True
    return publication and bool(marks & _PUBLICATION_REF)


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


def parse_html(html: str | bytes) -> BeautifulSoup:
    """Parse a page with lxml (the project's HTML parser). Markup problems never raise -- a fetched page is whatever
    the server sent -- but a value that is not str/bytes is a caller bug and raises TypeError.

    BeautifulSoup's warnings about a page (one that is only a URL, XML served as HTML) say nothing to a user; the
    filter that quiets them is set once, when pubfetch is imported (``pubfetch/__init__.py``), not around each
    parse: changing the process's filters makes Python forget every warning it has shown, so a setting's
    :class:`~pubfetch.resources.base.PubfetchWarning` would be shown again after each page."""
    if not isinstance(html, (str, bytes)):
        raise TypeError(f"HTML must be str or bytes, not {type(html).__name__}")
    if isinstance(html, str) and (soup := soup_from_text(html)) is not None:
        return soup  # BeautifulSoup's tree of lxml's, made from lxml's own tree (extract/soup_build.py)
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
        if not any(n.strip(JAVA_TRIM).lower() in DESCRIPTION_NAMES for n in names):
            continue
        text = normalised_text(_attr(meta, "content"))
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
