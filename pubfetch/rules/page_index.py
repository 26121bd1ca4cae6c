"""A page's elements filed by tag name, id and class, so that a selector is tried only where it could match.

soupsieve finds a page's first match for a selector by testing the selector on every element in turn. A page of a few
thousand elements asked whether it carries one of the platforms' fingerprints or a block page's markers (a few dozen
selectors, most of which match nothing) is walked once per selector, nearly always on elements that lack the tag name,
id or class the selector's last part requires. A :class:`PageIndex` walks the page once and files its elements under
those keys; :meth:`PageIndex.select_one` tests the selector only on the elements filed under a key each of its
alternatives requires (for an alternative whose last part requires none, as in ``.body > :not(.refs)``, the children or
descendants of the elements the part before it requires; every element when nothing narrows it), with soupsieve's own
test, so it returns the element soupsieve's ``select_one`` returns.

An index describes the tree as it was when built: build it after the page is parsed and before anything edits it. It is
for trees parsed as HTML (lower-case tag names), as every page pubfetch reads is.
"""

from __future__ import annotations

import re
from typing import Any

from bs4.element import Tag

__all__ = ["PageIndex"]

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
            if node.contents and node.name != "template":
                stack.extend(reversed(node.contents))
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
              by_class: dict[str, list[Tag]]) -> PageIndex:
        """The index of ``root`` from elements filed as the tree was made (``pubfetch.extract.soup_build``), in
        document order and by the same keys as a walk files them, without the walk."""
        index = cls.__new__(cls)
        index.root, index.elements = root, elements
        index._position = {id(tag): i for i, tag in enumerate(elements)}
        index._by_name, index._by_id, index._by_class = by_name, by_id, by_class
        index._selected = {}
        return index

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
        """The elements of tag ``name`` (lower case), in document order (as ``root.find_all(name)``)."""
        return list(self._by_name.get(name, ()))

    def select(self, compiled: Any) -> list[Tag]:
        """Every element a compiled soupsieve selector matches, in document order (as ``compiled.select(root)``);
        a selector asked again (a rule's body, read for its text and then for its sections) is answered from the
        first answer, as the tree is the one the index describes."""
        if compiled is None:
            return []
        if (known := self._selected.get(id(compiled))) is not None and known[0] is compiled:
            return list(known[1])
        candidates = self._all_candidates(compiled)
        # soupsieve's test on the candidates (its caches shared over them), or its own walk where none narrow it
        found = list(compiled.select(self.root) if candidates is None else compiled.filter(candidates))
        self._selected[id(compiled)] = (compiled, found)
        return list(found)

    def select_one(self, compiled: Any) -> Tag | None:
        """The first element in document order that a compiled soupsieve selector matches, or None (as
        ``compiled.select_one(root)``)."""
        if compiled is None:
            return None
        candidates = self._all_candidates(compiled)
        if candidates is None:
            return compiled.select_one(self.root)
        start, size = 0, 16
        while start < len(candidates):  # in growing slices: the first match is often among the first candidates
            if found := compiled.filter(candidates[start:start + size]):
                return found[0]
            start, size = start + size, size * 4
        return None
