"""A page's elements filed by tag name, id and class, so that a selector is tried only where it could match.

soupsieve finds a page's first match for a selector by testing the selector on every element in turn. A page of a few
thousand elements asked whether it carries one of the platforms' fingerprints or a block page's markers (a few dozen
selectors, most of which match nothing) is walked once per selector, nearly always on elements that lack the tag name,
id or class the selector's last part requires. A :class:`PageIndex` walks the page once and files its elements under
those keys; :meth:`PageIndex.select_one` tests the selector only on the elements filed under a key each of its
alternatives requires (for an alternative whose last part requires none, as in ``.body > :not(.refs)``, the children or
descendants of the elements the part before it requires; every element when nothing narrows it), with soupsieve's own
test, so it returns the element soupsieve's ``select_one`` returns.

An index made as ``pubfetch.extract.soup_build`` made the tree from lxml's (:meth:`PageIndex.filed`) also holds lxml's
tree and which of its elements is which tag: a selector :func:`~pubfetch.rules.xpath.translated` to XPath is answered
by lxml in C (checked by soupsieve where the XPath finds a superset), whole-page lookups by name from the index.

An index describes the tree as it was when built, less what was taken out through :meth:`PageIndex.remove`: build it
after the page is parsed, and take elements out of the tree only through it while it is in use (lxml's tree is left
as parsed; a selector whose answer could change when elements are taken out is then left to soupsieve, on the tree as
it is). It is for trees parsed as HTML (lower-case tag names), as every page pubfetch reads is.
"""

from __future__ import annotations

import re
from typing import Any

from bs4.element import Tag

from pubfetch.rules.xpath import translated

__all__ = ["PageIndex", "find_named"]

#: How soupsieve splits a class attribute given as one string: at HTML whitespace only.
_CLASS_TOKEN = re.compile(r"[^ \t\r\n\f]+")


def _classes(value: Any) -> list[str]:
    if isinstance(value, str):
        return _CLASS_TOKEN.findall(value)
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else []


class PageIndex:
    """The elements below ``root`` (not ``root`` itself, as for ``select_one``), in document order, and by lower-cased
    tag name, id and class token (lower-cased: a superset of what soupsieve matches case-sensitively)."""

    def __init__(self, root: Tag) -> None:
        self.root = root
        self.elements: list[Tag] = []
        self._position: dict[int, int] = {}
        self._by_name: dict[str, list[Tag]] = {}
        self._by_id: dict[str, list[Tag]] = {}
        self._by_class: dict[str, list[Tag]] = {}
        #: each selector's answer (with the selector, so that its id is not another's)
        self._selected: dict[int, tuple[Any, list[Tag]]] = {}
        self._lxml: _LxmlTree | None = None
        #: the ids of the elements taken out of the tree through :meth:`remove` (with everything below them)
        self._removed: set[int] = set()
        #: the tag names (lower-cased) of the elements inside a ``<template>``, which the index leaves out
        self._in_templates: set[str] = set()
        elements, position = self.elements, self._position
        by_name, by_id, by_class = self._by_name, self._by_id, self._by_class
        # the contents of a <template> are not part of the document: soupsieve neither enters nor matches them
        stack = [] if root.name == "template" else list(reversed(root.contents))
        while stack:
            node = stack.pop()
            if node.__class__ is not Tag and not isinstance(node, Tag):
                continue
            position[id(node)] = len(elements)
            elements.append(node)
            by_name.setdefault(node.name.lower(), []).append(node)
            if node.contents:
                if node.name != "template":
                    stack.extend(reversed(node.contents))
                else:
                    self._in_templates.update(tag.name.lower() for tag in node.find_all(True))
            attrs = node.attrs
            if not attrs:
                continue
            if "id" in attrs:
                by_id.setdefault(str(attrs["id"]).lower(), []).append(node)
            if "class" in attrs:
                for token in {c.lower() for c in _classes(attrs["class"])}:
                    by_class.setdefault(token, []).append(node)

    @classmethod
    def filed(cls, root: Tag, elements: list[Tag], by_name: dict[str, list[Tag]], by_id: dict[str, list[Tag]],
              by_class: dict[str, list[Tag]], lxml_elements: list[Any] | None = None,
              exact_classes: bool = False, in_templates: set[str] | None = None) -> PageIndex:
        """The index of ``root`` from elements filed as the tree was made (``pubfetch.extract.soup_build``), in
        document order and by the same keys as a walk files them, without the walk. ``lxml_elements``: the lxml
        element each of ``elements`` was made from (the first is lxml's root), where lxml is to answer the
        selectors it can; ``exact_classes``: no class-like attribute of the page holds whitespace other than XPath's
        (see :mod:`pubfetch.rules.xpath`), without which lxml answers nothing; ``in_templates``: the tag names of the
        elements inside a ``<template>``."""
        index = cls.__new__(cls)
        index.root, index.elements = root, elements
        index._position = {id(tag): i for i, tag in enumerate(elements)}
        index._by_name, index._by_id, index._by_class = by_name, by_id, by_class
        index._selected = {}
        index._removed = set()
        index._in_templates = in_templates or set()
        index._lxml = _LxmlTree(lxml_elements, elements) if lxml_elements and exact_classes else None
        return index

    def remove(self, tag: Tag) -> None:
        """Take ``tag`` out of the tree (BeautifulSoup's ``decompose``), and it and everything below it out of the
        index's answers."""
        position = self._position.get(id(tag))
        if position is not None and id(tag) not in self._removed:
            # the elements filed from the tag up to the next one in the tree (the others between were taken out)
            self._removed.update(id(t) for t in self.elements[position:self._subtree_end(tag)])
            self._selected.clear()
        tag.decompose()

    def _live(self, tags: list[Tag]) -> list[Tag]:
        """``tags`` less those taken out of the tree."""
        removed = self._removed
        return [t for t in tags if id(t) not in removed] if removed else tags

    def _candidates(self, alternative: Any) -> list[Tag] | None:
        """The elements that have what an alternative's last compound requires (its tag name, ids and classes): the
        shortest such list. A compound that requires none of these (``.a > :not(.b)``) but follows a child or
        descendant combinator: the children or descendants of the candidates of the compound before it. None when
        neither narrows the search."""
        lists: list[list[Tag]] = []
        name = getattr(getattr(alternative, "tag", None), "name", None)
        if name and name != "*":
            lists.append(self._by_name.get(name.lower(), []))
        lists.extend(self._by_id.get(str(value).lower(), []) for value in getattr(alternative, "ids", ()))
        lists.extend(self._by_class.get(str(value).lower(), []) for value in getattr(alternative, "classes", ()))
        if lists:
            return min(lists, key=len)
        relation: Any = getattr(alternative, "relation", None) or ()
        before: Any = relation[0] if len(relation) == 1 else None  # the compound before the combinator
        combinator = getattr(before, "rel_type", None)
        if combinator not in (">", " "):
            return None
        outer = self._candidates(before)
        if outer is None:
            return None
        return self._children(outer) if combinator == ">" else self._descendants(outer)

    def _children(self, parents: list[Tag]) -> list[Tag]:
        """The element children of ``parents`` (in document order), in document order."""
        position = self._position
        children = [node for parent in parents for node in parent.contents
                    if (node.__class__ is Tag or isinstance(node, Tag)) and id(node) in position]
        return sorted(children, key=lambda tag: position[id(tag)]) if len(parents) > 1 else children

    def _descendants(self, ancestors: list[Tag]) -> list[Tag]:
        """The elements below ``ancestors`` (in document order), each once, in document order: each ancestor's
        descendants are the elements filed after it up to its subtree's end."""
        out: list[Tag] = []
        covered = 0  # the position up to which the elements are already in out
        for ancestor in ancestors:
            start, end = self._position[id(ancestor)] + 1, self._subtree_end(ancestor)
            if end > covered:
                out.extend(self.elements[max(start, covered):end])
                covered = end
        return out

    def _subtree_end(self, tag: Tag) -> int:
        """The position of the first element after ``tag``'s subtree (the next element that is not below it)."""
        node: Any = tag
        while node is not None and node is not self.root:
            sibling = node.next_sibling
            while sibling is not None and not isinstance(sibling, Tag):
                sibling = sibling.next_sibling
            if sibling is not None:
                return self._position.get(id(sibling), len(self.elements))
            node = node.parent
        return len(self.elements)

    def _all_candidates(self, compiled: Any) -> list[Tag] | None:
        """The candidates of all the selector's alternatives in document order; None when the index cannot narrow
        them (an alternative that requires no tag name, id or class: soupsieve's own walk is as quick) or must not
        answer (a selector relative to the scope, ``:scope``, which soupsieve matches against the element it
        selects from)."""
        alternatives = getattr(compiled, "selectors", None)
        if alternatives is None or ":scope" in str(getattr(compiled, "pattern", ":scope")):
            return None
        lists = []
        for alternative in alternatives:
            candidates = self._candidates(alternative)
            if candidates is None:
                return None
            lists.append(candidates)
        if len(lists) == 1:
            return lists[0]
        position = self._position
        distinct = {id(tag): tag for candidates in lists for tag in candidates}
        return sorted(distinct.values(), key=lambda tag: position[id(tag)])

    def named(self, name: str) -> list[Tag]:
        """The elements of tag ``name`` (lower case), in document order (as ``root.find_all(name)`` where no
        ``<template>`` holds such an element: the index leaves a template's contents out, ``find_all`` does not)."""
        return list(self._live(self._by_name.get(name, [])))

    def in_template(self, names: tuple[str, ...]) -> bool:
        """Whether a ``<template>`` holds an element of one of ``names`` (lower case): then ``find_all`` and the
        index's :meth:`named` may differ."""
        return not self._in_templates.isdisjoint(names)

    def first(self, name: str) -> Tag | None:
        """``root.find(name)`` (``soup.body`` for ``"body"``), from the index where it can answer."""
        if self.in_template((name,)):
            return self.root.find(name)
        return next(iter(self._live(self._by_name.get(name, []))), None)

    def named_below(self, ancestor: Tag, names: tuple[str, ...]) -> list[Tag]:
        """``ancestor.find_all(names)``: the elements of those tag names below ``ancestor``, in document order,
        from the index where it can answer."""
        if self.in_template(names):
            return list(ancestor.find_all(names))
        if ancestor is self.root:
            start, end = 0, len(self.elements)
        else:
            at = self._position.get(id(ancestor))
            if at is None or id(ancestor) in self._removed:
                return list(ancestor.find_all(names))
            start, end = at + 1, self._subtree_end(ancestor)
        position = self._position
        found = [tag for name in names for tag in self._by_name.get(name, ()) if start <= position[id(tag)] < end]
        if len(names) > 1:
            found.sort(key=lambda tag: position[id(tag)])
        return self._live(found)

    def select(self, compiled: Any) -> list[Tag]:
        """Every element a compiled soupsieve selector matches, in document order (as ``compiled.select(root)``);
        a selector asked again (a rule's body, read for its text and then for its sections) is answered from the
        first answer, as the tree is the one the index describes."""
        if compiled is None:
            return []
        if (known := self._selected.get(id(compiled))) is not None and known[0] is compiled:
            return list(known[1])
        found = self._lxml_select(compiled)
        if found is None:
            candidates = self._all_candidates(compiled)
            # soupsieve's test on the candidates (its caches shared over them), or its own walk where none narrow it
            found = list(compiled.select(self.root) if candidates is None
                         else compiled.filter(self._live(candidates)))
        self._selected[id(compiled)] = (compiled, found)
        return list(found)

    def select_one(self, compiled: Any) -> Tag | None:
        """The first element in document order that a compiled soupsieve selector matches, or None (as
        ``compiled.select_one(root)``)."""
        if compiled is None:
            return None
        candidates = self._lxml_select(compiled, checked=False)
        if candidates is None:
            candidates = self._all_candidates(compiled)
            if candidates is None:
                return compiled.select_one(self.root)
            candidates = self._live(candidates)
        elif self._exact(compiled):
            return candidates[0] if candidates else None
        return _first_match(compiled, candidates)

    def _exact(self, compiled: Any) -> bool:
        translation = translated(compiled)
        return translation is not None and translation.exact

    def _lxml_select(self, compiled: Any, checked: bool = True) -> list[Tag] | None:
        """lxml's answer (checked by soupsieve where the XPath finds a superset, unless not ``checked``), or None
        where lxml cannot answer: no lxml tree, no XPath, or elements taken out that could change the answer. The
        XPath is tried on the candidates the index narrows the selector to, else on the whole tree."""
        tree = self._lxml
        if tree is None:
            return None
        translation = translated(compiled)
        if translation is None or (self._removed and not translation.removal_safe):
            return None
        candidates = self._all_candidates(compiled)
        if candidates is None:
            matched = translation.select(tree.root)
        else:
            position, elements = self._position, tree.elements
            matched = translation.test(tree.root, candidates=[elements[position[id(tag)]]
                                                               for tag in self._live(candidates)])
        tags = tree.tags
        found = self._live([tag for element in matched if (tag := tags.get(element)) is not None])
        return found if translation.exact or not checked else compiled.filter(found)


def find_named(ancestor: Tag, names: tuple[str, ...], index: PageIndex | None, limit: int | None = None) -> list[Tag]:
    """``ancestor.find_all(names, limit=limit)``, from the page's ``index`` where the caller has one (no walk)."""
    if index is None:
        return list(ancestor.find_all(names, limit=limit))
    return index.named_below(ancestor, names)[:limit]


def _first_match(compiled: Any, candidates: list[Tag]) -> Tag | None:
    """The first of ``candidates`` soupsieve matches, tried in growing slices: the first match is often among the
    first candidates, and soupsieve shares its caches over a slice."""
    start, size = 0, 16
    while start < len(candidates):
        if found := compiled.filter(candidates[start:start + size]):
            return found[0]
        start, size = start + size, size * 4
    return None


class _LxmlTree:
    """lxml's tree of a page and the tag made from each of its elements (those of the index: a ``<template>``'s
    contents have none, as soupsieve never selects them)."""

    def __init__(self, lxml_elements: list[Any], tags: list[Tag]) -> None:
        self.root = lxml_elements[0]
        self.elements, self._tags = lxml_elements, tags
        self._by_element: dict[Any, Tag] | None = None

    @property
    def tags(self) -> dict[Any, Tag]:
        """Each lxml element's tag, made on first use."""
        if self._by_element is None:
            self._by_element = dict(zip(self.elements, self._tags, strict=True))
        return self._by_element
