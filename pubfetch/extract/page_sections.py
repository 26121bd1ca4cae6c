"""The sections of an article's body on a publisher page, from its heading structure.

The body is what a scraping rule's ``fulltext`` selector (or the generic page reader) chose. Each ``<h1>``-``<h6>``
in it starts a section titled as written; its depth is the rank of its heading level among the levels the body
uses (a body whose headings are ``h2`` and ``h3`` has sections of level 1 and 2). A section's text is its
paragraphs, list items, quotations and figure captions up to the next heading, one paragraph each. Text before the
first heading belongs to no section (it is in the flat full text), and a body without headings has no sections.
The generic article reader's body comes with its own heading structure, ranked the same way
(:func:`ranked_sections`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from bs4.element import Tag

from pubfetch.extract.html_text import element_text
from pubfetch.model.rich import Section

__all__ = ["headed_paragraphs", "page_sections", "ranked_sections"]

HEADINGS = {f"h{n}": n for n in range(1, 7)}
#: the elements whose text is a paragraph of a section (the outermost one when they nest)
PARAGRAPHS = frozenset(("p", "li", "blockquote", "pre", "figcaption", "caption", "dd", "dt"))


def _outermost(roots: Iterable[Tag]) -> list[Tag]:
    """The roots that are not inside another root (a selector may match an element and its descendants)."""
    chosen = list(roots)
    ids = {id(r) for r in chosen}
    return [r for r in chosen if not any(id(a) in ids for a in r.parents)]


def _blocks(roots: Iterable[Tag]) -> Iterable[tuple[str, Tag]]:
    """("heading" | "paragraph", element) in document order, each paragraph once (not again for its inner ones)."""
    for root in _outermost(roots):
        stack = [root]
        while stack:  # iterative: hostile nesting costs no recursion
            node = stack.pop()
            if node.name in HEADINGS:
                yield "heading", node
            elif node.name in PARAGRAPHS:
                yield "paragraph", node
            else:
                stack += [c for c in reversed(node.contents) if isinstance(c, Tag)]


def page_sections(roots: Iterable[Tag]) -> list[Section]:
    """The sections of the body elements ``roots`` (see the module docstring)."""
    return ranked_sections((HEADINGS[heading.name], title, "\n\n".join(paragraphs))
                           for heading, title, paragraphs in headed_paragraphs(roots))


def headed_paragraphs(roots: Iterable[Tag], reads: Callable[[str], bool] | None = None,
                      ) -> Iterator[tuple[Tag, str, list[str]]]:
    """Each heading of the body elements ``roots`` with its text and the texts of the paragraphs up to the next one;
    with ``reads``, only the headings it accepts (by their text) have their paragraphs read (the others an empty
    list). An empty heading (an icon, an anchor) starts no section: its paragraphs stay with the heading before it.
    Paragraphs before the first heading are no section's."""
    heading: Tag | None = None
    title = ""
    paragraphs: list[str] = []
    reading = False
    for kind, element in _blocks(roots):
        if kind == "heading":
            text = element_text(element)
            if not text:
                continue
            if heading is not None:
                yield heading, title, paragraphs
            heading, title, paragraphs = element, text, []
            reading = reads is None or reads(text)
        elif reading and (text := element_text(element)):
            paragraphs.append(text)
    if heading is not None:
        yield heading, title, paragraphs


def ranked_sections(found: Iterable[tuple[int, str, str]]) -> list[Section]:
    """Sections of (heading level, title, text), each level replaced by its rank among the levels used; text before
    any heading (level 0, or no title) is no section. The generic page reader's body sections go through here too."""
    kept = [(level, title, text) for level, title, text in found if level > 0 and title]
    ranks = {level: rank for rank, level in enumerate(sorted({level for level, _, _ in kept}), start=1)}
    return [Section(title, ranks[level], text) for level, title, text in kept]
