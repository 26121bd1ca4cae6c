"""A formula's text: what a reader sees of a MathML ``<math>`` element (``<mml:math>`` too), said once.

Pages keep MathML beside the formula they render: ScienceDirect's 2014 pages print the formula's text and keep the
MathML in a hidden container after it, MathJax 2 keeps an assistive MathML copy after its rendered spans, and some
pages print a MathML fragment's source as text. Read as markup, each formula would come out twice, or as tags. So a
formula reads as the text of its token elements (``mi``, ``mn``, ``mo``, ``mtext``, ...) run together, without its
annotations (a TeX or MathML copy of the same formula), or as its ``alttext`` when it holds none; and it is left out
where the element just before it, or before the wrapper it alone fills (up to :data:`_WRAPPERS` levels), shows the
same text: that element is the rendered copy. MathJax 3 draws its glyphs from CSS and leaves no text, so there the
MathML is the formula's only text and is kept. The copy is found by structure, not by the text so far: "in" before
a formula "n" is prose, not the formula.
"""

from __future__ import annotations

import re

from bs4.element import NavigableString, Tag

__all__ = ["formula_text", "has_rendered_copy", "is_block_formula", "is_formula", "is_formula_name",
           "is_formula_source", "squashed"]

#: A formula's parts that are another encoding of it, not more of it.
_ANNOTATIONS = frozenset(("annotation", "annotation-xml"))
#: MathML markup printed as text ("<mml:math ...>...</mml:math>"): a page's source view of a formula, never prose.
#: How many wrappers up from a ``<math>`` its rendered copy is looked for (ScienceDirect 2014: the MathML in a code
#: span, in a hidden container, beside the rendered span).
_WRAPPERS = 3
_SOURCE = re.compile(r"^\s*<(?:[a-z]+:)?math\b[^<>]{0,2000}>.{0,20000}</(?:[a-z]+:)?math>\s*$", re.DOTALL)


def _local(name: str) -> str:
    return name.rpartition(":")[2]


def is_formula(tag: Tag) -> bool:
    """A MathML ``<math>`` element, with or without a namespace prefix."""
    return is_formula_name(tag.name)


def is_formula_name(name: str) -> bool:
    """:func:`is_formula` by the tag's name (for walks that have the name at hand: one call per element)."""
    return name == "math" or name.endswith(":math")


def is_block_formula(tag: Tag) -> bool:
    """A formula set on its own line (``display="block"``); an inline formula runs with its sentence."""
    return str(tag.get("display") or "").lower() == "block"


def is_formula_source(text: str) -> bool:
    """Whether a text is the source of a MathML formula rather than text meant for a reader."""
    return "math" in text and bool(_SOURCE.match(text))


def formula_text(math: Tag) -> str:
    """The formula as one run of text: its token elements' text without the whitespace between elements, the
    annotations left out; its ``alttext`` when that gives nothing."""
    parts: list[str] = []
    stack: list[Tag | NavigableString] = [math]
    while stack:
        node = stack.pop()
        if isinstance(node, Tag):
            if _local(node.name) not in _ANNOTATIONS:
                stack.extend(reversed([c for c in node.contents if isinstance(c, (Tag, NavigableString))]))
        elif node.__class__ is NavigableString:
            parts.append(" ".join(node.split()) if _local(node.parent.name if node.parent else "") == "mtext"
                         else node.strip())
    text = "".join(parts)
    return text or " ".join(str(math.get("alttext") or "").split())


def squashed(text: str) -> str:
    """The text without whitespace: a formula's rendered copy and its MathML compared however each is spaced."""
    return "".join(text.split())


def has_rendered_copy(math: Tag) -> bool:
    """Whether the page shows the formula's text just before the ``<math>`` element (see the module's rule)."""
    formula = squashed(formula_text(math))
    if not formula:
        return True
    node: Tag = math
    for _ in range(_WRAPPERS + 1):
        previous = node.previous_sibling
        while isinstance(previous, NavigableString) and not previous.strip():
            previous = previous.previous_sibling
        if isinstance(previous, Tag):
            return squashed(previous.get_text()).endswith(formula)
        if previous is not None or not isinstance(node.parent, Tag):
            return False  # prose before the formula, or the top of the tree
        node = node.parent
    return False
