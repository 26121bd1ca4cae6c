"""The abstract a page shows, found from the page's own structure when no rule says where it is.

Publishers mark the abstract in a few recurring ways, tried in this order (the first that holds an abstract-sized text
wins, outer elements before the ones inside them, earlier before later in the page):

1. semantic markup: ``role="doc-abstract"``, ``itemprop="abstract"``;
2. an element whose ``id`` or ``class`` names it: a token ``abstract`` (``abstract``, ``articleAbstract``,
   ``hlFld-Abstract``, ``abstract-content``; JATS-like HTML ``div.abstract``) -- but not a graphical, video or
   lay abstract, highlights, keywords, or a link or button to the abstract;
3. a heading reading "Abstract" or "Summary" (``h1``-``h6``, or a short bold line): what follows it up to the next
   heading of the same rank, a keywords line, or a line opening the body or back matter ("1. Introduction").

Every shown candidate is tried before any hidden one; a candidate holding exactly one other that fits gives way to
it (the innermost block of an abstract's size); the parts inside a block that are not the abstract (highlights, a
visual abstract, keywords, widgets) are left out and a text must read as prose
(:mod:`pubfetch.extract.abstract_bounds`). Label-following reads loose text after a label and skips links and note
marks beside it; an "Abstract" menu entry is no label. Blocks in related-article lists and other papers' teasers are
never taken. The abstract keeps its inner headings
(a structured abstract's "Background", "Methods", ...) on their own lines and loses a leading "Abstract" label.
:func:`is_truncation` says whether a meta description merely repeats the start of the visible abstract, and
:func:`gives_way` whether it must give way to the visible abstract (a truncation, or a description saying less).
"""

from __future__ import annotations

import re
from itertools import chain, islice

from bs4 import BeautifulSoup
from bs4.element import CData, NavigableString, Tag

from pubfetch.extract.abstract_bounds import ENDING_HEADING, block_text, is_furniture, reads_as_abstract
from pubfetch.extract.clean_keywords import tokenize
from pubfetch.extract.html_text import format_text, normalised_text
from pubfetch.extract.visible import is_shown

__all__ = ["MAX_ABSTRACT", "MIN_ABSTRACT", "find_abstract", "gives_way", "is_truncation"]

#: An abstract has at least this many non-space characters (shorter blocks are labels, teasers, links) ...
MIN_ABSTRACT = 150
#: ... and at most this many (longer is a whole article or a page section that merely contains the word).
MAX_ABSTRACT = 12_000
_NAMING = frozenset(("abstract", "abstracts", "abstr"))
#: Tokens that make an abstract-named element something else.
_NOT_THE_ABSTRACT = frozenset((
    "graphical", "visual", "video", "lay", "plain", "highlights", "highlight", "keywords", "keyword", "link", "links",
    "toggle", "button", "btn", "nav", "menu", "tab", "tabs", "title", "heading", "header", "label", "figure", "fig",
    "image", "img", "thumb", "thumbnail", "translated", "trans", "teaser", "preview", "short",
))  # fmt: skip
#: Tokens of containers whose abstracts are other papers' (recommendations, citing articles, search results).
_OTHER_PAPERS = frozenset((
    "related", "recommended", "recommendations", "similar", "citing", "citedby", "cited", "more", "also", "popular",
    "trending", "results", "sidebar", "aside",
))  # fmt: skip
_HEADING = re.compile(r"^\s*(abstract|summary|a\s*b\s*s\s*t\s*r\s*a\s*c\s*t)\s*[:.]?\s*$", re.IGNORECASE)
_LABEL = re.compile(r"^\s*(abstract|summary|a\s*b\s*s\s*t\s*r\s*a\s*c\s*t)(\s*[:.]\s*|\s*\n\s*|\s+(?=[A-Z]))(?=\S)",
                    re.IGNORECASE)
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_SHORT_LINE = ("b", "strong", "p", "div", "span", "dt", "header")
#: A label ("Abstract", "Summary") is shorter than this, and held by fewer elements than that.
_LABEL_CHARS = 40
_LABEL_NODES = 200
#: The text that ``get_text`` reads (not comments, scripts or styles).
_TEXT_NODES = (NavigableString, CData)
_BLOCKS = frozenset(("div", "section", "p", "article", "blockquote", "dd", "td", "span", "aside", "details"))
#: What ends an abstract even where the page does not mark it up as a heading (bold lines, plain paragraphs): the
#: keywords line, and a line opening the body or the back matter. An unnumbered "Introduction" ends it only after
#: some abstract text, since an IMRaD-structured abstract opens with that label.
_KEYWORDS_LINE = re.compile(r"(?i)^\s*(key\s*words?|index\s+terms)\b")
_BODY_LINE = re.compile(r"(?i)^\s*(?:(?P<number>(?:\d+|[ivx]+)\.?)\s+)?(?P<word>introduction|references|bibliography|"
                        r"acknowledge?ments?)\s*[:.]?\s*$")
_ELLIPSIS = re.compile(r"(\.\.\.|\u2026|\[\.\.\.\]|\[\u2026\])\s*$")
_OPENING = 100
_NOT_LETTERS = re.compile(r"[\W_]+")
#: How many levels of candidates nested one in another the search for the innermost descends.
_MAX_NESTING = 8
#: Elements whose "Abstract" is a menu entry or a link, never the abstract's label, when they hold it within
#: :data:`_ENTRY_LEVELS` levels.
_MENU_ENTRIES = frozenset(("a", "button", "li", "option", "select", "nav", "menu"))
_ENTRY_LEVELS = 4
#: What may stand between a label and the abstract's text: a link ("[Plain Text Version]", a jump) or a note mark.
_BESIDE_LABEL = frozenset(("a", "sup", "button", "img", "br"))
_INLINE = frozenset(("a", "i", "b", "em", "strong", "sup", "sub", "span", "small", "font", "u", "abbr", "cite", "q",
                     "code", "var", "mark", "bdi", "bdo", "time"))


def _squash(text: str) -> str:
    return "".join(text.split())


def _tokens(tag: Tag) -> set[str]:
    values = [str(tag.get("id") or "")]
    cls = tag.get("class")
    values.extend(cls if isinstance(cls, list) else [str(cls or "")])
    return {t.lower() for t in tokenize(" ".join(values))}


def _among_other_papers(tag: Tag) -> bool:
    """Whether the element sits in a list of other papers (or a side column, menu or footer); the climb stops at the
    page's main content or article element, inside which everything is the article's own."""
    for parent in tag.parents:
        if not isinstance(parent, Tag) or parent.name in ("body", "html", "[document]", "main", "article") or (
                parent.get("role") == "main"):
            return False
        if parent.name in ("nav", "footer", "aside") or _tokens(parent) & _OTHER_PAPERS:
            return True
    return False


def _text(element: Tag) -> str:
    """The element's visible text as paragraphs, without hidden parts, link menus, the parts that are not the
    abstract (:func:`pubfetch.extract.abstract_bounds.block_text`) and a leading "Abstract" label."""
    return _LABEL.sub("", block_text(element), count=1).strip()


def _fits(text: str) -> bool:
    """An abstract's size, and prose (not a reference list or a menu)."""
    return MIN_ABSTRACT <= len(_squash(text)) <= MAX_ABSTRACT and reads_as_abstract(text)


def _is_menu_entry(tag: Tag) -> bool:
    """Whether an "Abstract" line is an entry of a menu or a link (a jump to the abstract), not its label."""
    holders = islice(chain((tag,), tag.parents), _ENTRY_LEVELS)
    return any(isinstance(p, Tag) and p.name in _MENU_ENTRIES for p in holders)


def _candidates(soup: BeautifulSoup) -> tuple[list[Tag], list[Tag], list[Tag]]:
    """One walk over the page: elements marked as the abstract, elements named after it, and "Abstract" headings."""
    semantic: list[Tag] = []
    named: list[Tag] = []
    headings: list[Tag] = []
    for tag in soup.descendants:
        if tag.__class__ is not Tag:
            continue
        attrs = tag.attrs
        name = tag.name
        if attrs.get("role") == "doc-abstract" or attrs.get("itemprop") == "abstract":
            semantic.append(tag)
        elif name in _BLOCKS and ("class" in attrs or "id" in attrs) and "bstr" in (
                str(attrs.get("id", "")) + str(attrs.get("class", ""))).lower():
            tokens = _tokens(tag)
            if tokens & _NAMING and not tokens & _NOT_THE_ABSTRACT:
                named.append(tag)
        if name in _HEADINGS or name in _SHORT_LINE:
            contents = tag.contents  # a short line is one text node (bs4's .string recurses: deep pages overflow it)
            text = _short_text(tag) if name in _HEADINGS else (
                str(contents[0]) if len(contents) == 1 and isinstance(contents[0], NavigableString) else "")
            if text and len(text) < _LABEL_CHARS and _HEADING.match(text) and not _is_menu_entry(tag):
                headings.append(tag)
    return semantic, named, headings


def _short_text(tag: Tag) -> str:
    """An element's text (as ``get_text``) when it is shorter than a label's :data:`_LABEL_CHARS`, else "": read no
    further than that, so a heading that holds the rest of the page (nested markup) costs a label's length."""
    parts: list[str] = []
    size = nodes = 0
    stack = [iter(tag.contents)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            continue
        nodes += 1
        if child.__class__ in _TEXT_NODES:
            parts.append(child)
            size += len(child)
        elif isinstance(child, Tag):
            stack.append(iter(child.contents))
        if size >= _LABEL_CHARS or nodes > _LABEL_NODES:
            return ""
    return "".join(parts)


def _rank(tag: Tag) -> int:
    return int(tag.name[1]) if tag.name in _HEADINGS else 7


def _is_heading(tag: Tag) -> bool:
    if tag.name in _HEADINGS:
        return True
    return tag.name in _SHORT_LINE and bool(_HEADING.match(_short_text(tag)))


def _ends_abstract(text: str, after_text: bool) -> bool:
    """Whether an element's text opens what follows an abstract (see :data:`_BODY_LINE`)."""
    first = text.lstrip().split("\n", 1)[0]
    if _KEYWORDS_LINE.match(first):
        return True
    line = _BODY_LINE.match(first)
    if line is None:
        return False
    return after_text or line.group("number") is not None or line.group("word").lower() != "introduction"


def _loose_text(nodes: list[NavigableString | Tag]) -> str:
    """A run of text and inline elements (text after a ``<span>Abstract</span>`` label) as one paragraph."""
    return normalised_text("".join(str(n) if isinstance(n, NavigableString) else format_text(n) for n in nodes))


def _ends_at(sibling: Tag, rank: int) -> bool:
    """Whether an element after an "Abstract" heading of ``rank`` opens what follows the abstract: a heading of the
    same or a higher rank, a heading of another part (an author summary, highlights), any real heading after a bold
    line's abstract (rank 7)."""
    if _is_heading(sibling) and _rank(sibling) <= rank or (sibling.name in _HEADINGS and ENDING_HEADING.match(
            sibling.get_text())):
        return True
    inner = sibling.find(_HEADINGS[:rank])
    return inner is not None and not _HEADING.match(inner.get_text())


def _following(node: Tag, rank: int) -> list[str]:
    """The paragraphs after ``node`` among its siblings, up to what ends an abstract under a heading of ``rank``."""
    parts: list[str] = []
    loose: list[NavigableString | Tag] = []
    started = False  # whether text has begun after the label (links and note marks before it are skipped)
    for sibling in node.next_siblings:
        if isinstance(sibling, NavigableString) or not isinstance(sibling, Tag):
            if sibling.__class__ is NavigableString:
                loose.append(sibling)
                started = started or bool(sibling.strip())
            continue
        if sibling.name in _INLINE and not _is_heading(sibling):
            if parts or started or sibling.name not in _BESIDE_LABEL:
                loose.append(sibling)  # else "[Plain Text Version]", a note mark: beside the label, not the abstract
                started = True
            continue
        if text := _loose_text(loose):
            parts.append(text)
        loose = []
        if parts and is_furniture(sibling):  # a part that is not the abstract: its history lines, a figure
            continue
        if _ends_at(sibling, rank) or _ends_abstract(text := _text(sibling), bool(parts)):
            return parts
        if text:
            parts.append(text)
    if text := _loose_text(loose):
        parts.append(text)
    return parts


def _after_heading(heading: Tag) -> str:
    """The text after an "Abstract" heading up to the next heading of the same or a higher rank (climbing out of a
    wrapper that holds the heading alone, or the heading and links or note marks): loose text and inline elements
    after a label read as a paragraph; links and note marks just after the label skipped."""
    node: Tag = heading
    while True:
        parts = _following(node, _rank(heading))
        if parts or not isinstance(node.parent, Tag) or node.parent.name in ("body", "html"):
            return "\n\n".join(parts)
        node = node.parent


def _nested(pool: list[Tag]) -> dict[int, list[Tag]]:
    """Each candidate's candidates nested directly in it (none between), by the outer one's id: one climb per
    candidate, up to the nearest candidate around it."""
    ids = {id(t) for t in pool}
    inside: dict[int, list[Tag]] = {}
    for tag in pool:
        outer = next((p for p in tag.parents if id(p) in ids), None)
        if outer is not None:
            inside.setdefault(id(outer), []).append(tag)
    return inside


def _innermost(tag: Tag, nested: dict[int, list[Tag]]) -> Tag:
    """The candidate to read for an outermost one: the one candidate nested in it, when it alone is there and fits
    (a wrapper holding the abstract and the page header, authors or widgets gives way to it), down at most
    :data:`_MAX_NESTING` levels; several candidates inside (a structured abstract's sections) keep the wrapper."""
    for _ in range(_MAX_NESTING):
        inside = nested.get(id(tag), [])
        if len(inside) != 1 or not _fits(_text(inside[0])):
            break
        tag = inside[0]
    return tag


def _from_label(block: Tag, text: str, labels: set[int]) -> str:
    """A block's abstract: where the block holds an "Abstract" label after other text (a 2014 page's header,
    authors and dates inside the abstract's wrapper), what follows the label, when that fits and is the block's own
    text; else the block's text."""
    label = next((d for d in block.descendants if id(d) in labels), None)
    if not isinstance(label, Tag):
        return text
    after = _after_heading(label)
    shown, whole = _squash(after), _squash(text)
    if shown and shown in whole and not whole.startswith(shown) and _fits(after):
        return after
    return text


def find_abstract(soup: BeautifulSoup) -> str:
    """The abstract the page shows, as paragraphs; "" when the page shows none that is recognisable as such. Every
    shown candidate is tried before any hidden one (inline ``display:none``, ``hidden``, ``aria-hidden``, on it or
    around it): a hidden block is read only when nothing shown fits, as tabbed layouts keep real text in hidden
    blocks."""
    semantic, named, headings = _candidates(soup)
    nested = _nested(semantic + named)
    labels = {id(h) for h in headings}
    for shown_only in (True, False):
        for found in (semantic, named):
            for tag in _outermost(found):
                if is_shown(tag) is not shown_only or _among_other_papers(tag):
                    continue
                text = _from_label(block := _innermost(tag, nested), _text(block), labels)
                if _fits(text):
                    return text
        for heading in headings:
            if is_shown(heading) is shown_only and not _among_other_papers(heading) and _fits(
                    text := _after_heading(heading)):
                return text
    return ""


def _outermost(tags: list[Tag]) -> list[Tag]:
    chosen = {id(t) for t in tags}
    return [t for t in tags if not any(id(p) in chosen for p in t.parents)]


def _letters(text: str) -> str:
    """The text's letters and digits only, lower case: what a description and the abstract it repeats share however
    each lays out its labels ("Background: High" and "Background\n\nHigh"), spaces and punctuation."""
    return _NOT_LETTERS.sub("", text).lower()


def is_truncation(description: str, abstract: str) -> bool:
    """Whether a meta description is only (the start of) the abstract the page shows: it opens with text found in the
    abstract (compared on letters and digits, so "Background: High" matches "Background\n\nHigh") and is not
    longer, or it ends with an ellipsis."""
    if not description or not abstract:
        return False
    shown = _letters(abstract)
    described = _letters(_ELLIPSIS.sub("", description))
    if not described:
        return True
    opening = described[:_OPENING]
    if opening not in shown:
        return False
    return len(described) <= len(shown) or bool(_ELLIPSIS.search(description))


def gives_way(description: str, abstract: str) -> bool:
    """Whether a meta description gives way to the abstract the page shows, so that it never wins over it: when it
    is a truncation of it, or says less than it (a site's blurb, a teaser written for sharing). Only a description
    that says more than the visible abstract is kept, for the part types to decide between the two, and any
    description where what the page showed as its abstract does not read as one."""
    if not description or not abstract or not reads_as_abstract(abstract):
        return False  # the page's "abstract" is a reference list or a menu: the description is the abstract
    return is_truncation(description, abstract) or len(_letters(description)) < len(_letters(abstract))
