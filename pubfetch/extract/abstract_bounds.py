"""Where an abstract ends: the parts a page puts inside or beside its abstract block that are not the abstract, and
whether a text read as an abstract is one at all.

An abstract block often holds more than the abstract: a "Visual Abstract" or graphical-abstract box, a table of
contents graphic and its links, highlights, an author summary, keywords, the tab bar that switches between them, a
sharing or commenting widget. These are left out of the abstract's text wherever they are recognisable by their
markup (a class or id naming them, a heading naming them, a figure or an image link), both in the generic reader
and in a rule's abstract selection. And a text is an abstract only when it reads as prose: a reference list (most
lines a citation) or a menu (most lines a few words) is not one, however it was found.
"""

from __future__ import annotations

import copy
import re
from itertools import islice

from bs4.element import Tag

from pubfetch.extract.clean_keywords import tokenize
from pubfetch.extract.html_text import format_text
from pubfetch.extract.visible import is_hidden, is_link_list, is_shown

__all__ = ["ENDING_HEADING", "block_text", "in_other_part", "is_furniture", "reads_as_abstract", "without_copies"]

#: Class or id tokens of the parts inside an abstract block that are not the abstract.
_FURNITURE = frozenset((
    "graphical", "visual", "video", "highlights", "keywords", "keyword", "kwd", "graphic",
    "figure", "fig", "image", "img", "thumb", "thumbnail", "tablist", "comment", "comments", "disqus", "share",
    "sharing", "social", "metrics", "altmetric", "download", "downloads", "button", "btn", "toggle", "nav", "menu",
    "related", "topics", "footnote", "footnotes", "copyright", "permissions", "funding", "acknowledgements",
    "acknowledgments", "ack",
))  # fmt: skip
#: The tokens of those that name a part of the article around an abstract's text (not the page's widgets, whose
#: words, "nav", "menu", "toggle", wrappers of whole sections carry too): what a selected element may sit in.
_OTHER_PARTS = frozenset(("graphical", "visual", "video", "highlights", "keywords", "keyword", "kwd", "graphic",
                          "comments", "disqus", "acknowledgements", "acknowledgments"))
_NEGATED = re.compile(r"(?i)^(?:no|not|without)[-_]")
#: Token pairs that name a summary which is not the abstract (PLOS's "author summary", eLife's "digest" is its own
#: part too, a lay summary).
_OTHER_SUMMARIES = (frozenset(("author", "summary")), frozenset(("lay", "summary")), frozenset(("plain", "summary")),
                    frozenset(("digest",)), frozenset(("editor", "summary")))
#: A heading that opens a part which is not the abstract, whatever its rank: the abstract ends there. (A
#: "Non-Technical Summary" is a section of some structured abstracts, Cambridge's Global Sustainability: not here.)
ENDING_HEADING = re.compile(
    r"(?i)^\s*(?:author(?:'s|s')?\s+summary|lay\s+summary|plain\s+language\s+summary|"
    r"editor'?s?\s+summary|e(?:life)?\s*digest|highlights|research\s+highlights|graphical\s+abstract|"
    r"visual\s+abstract|video\s+abstract|toc\s+graphic|table\s+of\s+contents\s+graphic|key\s*words?|index\s+terms|"
    r"key\s+topics|subjects?|comments?|acknowledge?ments?|significance(?:\s+statement)?|"
    r"citation|share\s+this\s+article|cite\s+this\s+article)\s*[:.]?\s*$")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
#: How far up and back :func:`in_other_part` looks for the part a selected element belongs to.
_PART_LEVELS = 3
_SIBLINGS = 50
#: How many selected elements :func:`without_copies` compares (an abstract is a few blocks, not thousands).
_MAX_COMPARED = 64
#: A block opening with a keywords label ("Keywords:", "Index Terms."), whatever its markup.
_KEYWORDS_LABEL = re.compile(r"(?i)^(?:key\s*words?|index\s+terms)\s*[:.\u2014-]")
#: A line of the article's history (Received, Revised, Accepted, Published ... and a year), which older layouts print
#: inside the abstract's block: a short line block whose whole text is one such date.
_HISTORY_LINE = re.compile(r"(?i)^\(?\s*(?:received|revised|accepted|published|first\s+published|available\s+online)"
                           r"\b[^()]{0,80}?\b(?:19|20)\d{2}\s*\)?\s*[.;]?$")
_HISTORY_CHARS = 120
_LINE_BLOCKS = frozenset(("div", "p", "section", "dl", "ul"))
_INLINE = frozenset(("a", "span", "i", "b", "em", "strong", "sup", "sub", "mark", "small", "abbr", "cite", "q", "u",
                     "font", "code", "var", "time", "label"))
_ROLES = frozenset(("tablist", "tab", "navigation", "toolbar", "button", "menu", "complementary"))
#: A line of a reference list: a year, and a citation's marks (et al., a page range or volume:page, a numbered entry).
_YEAR = re.compile(r"\b(?:19|20)\d{2}[a-z]?\b")
_CITATION_MARK = re.compile(r"\bet\s+al\b|\b\d+\s*[-\u2013]\s*\d+\b|\b\d+\s*[:(]\s*\d+|^\s*\[?\d{1,3}[.\])]\s|\bdoi\b",
                            re.IGNORECASE)
#: A reference entry is shorter than this many words (an abstract's paragraph with years and ranges is longer).
_CITATION_WORDS = 50
#: Lines of a menu: a few words each.
_MENU_WORDS = 5
_PROSE_WORDS = 20


def _tokens(tag: Tag) -> set[str]:
    """The words of an element's id and classes; a class that negates ("no-nav", "no_title") names nothing."""
    values = [str(tag.get("id") or "")]
    cls = tag.get("class")
    values.extend(cls if isinstance(cls, list) else [str(cls or "")])
    return {t.lower() for t in tokenize(" ".join(v for v in values if not _NEGATED.match(v)))}


def is_furniture(tag: Tag) -> bool:
    """Whether an element inside an abstract block is one of the parts that are not the abstract: named so by its
    class or id (a block: words marked inside the text are the text), by its role (tabs, menus, toolbars), a
    figure, a link around an image, a block opening with a keywords label, a line of the article's history
    ("(Received December 10 2015)")."""
    if tag.name in ("figure", "nav", "button", "form", "iframe", "textarea") or tag.get("role") in _ROLES:
        return True
    if tag.name in _INLINE:  # words marked inside the text (a search term's highlight, a glossary link) stay
        return tag.name == "a" and tag.find("img") is not None
    if _named_part(tag):
        return True
    if tag.name not in _LINE_BLOCKS:
        return False
    first = next(tag.stripped_strings, "")
    if _KEYWORDS_LABEL.match(first):
        return True
    if len(first) > _HISTORY_CHARS:
        return False
    text = " ".join(tag.get_text(" ", strip=True).split()[:30])
    return len(text) <= _HISTORY_CHARS and bool(_HISTORY_LINE.match(text))


def _named_part(tag: Tag, names: frozenset[str] = _FURNITURE) -> bool:
    """A block whose class or id names a part that is not the abstract (one of ``names``)."""
    if tag.name in _INLINE:
        return False
    tokens = _tokens(tag)
    return bool(tokens & names) or any(pair <= tokens for pair in _OTHER_SUMMARIES)


def in_other_part(tag: Tag) -> bool:
    """Whether an element a rule selected belongs to a part that is not the abstract: it is one (:func:`is_furniture`),
    or sits in a block named after such a part of the article (:data:`_OTHER_PARTS`, up to :data:`_PART_LEVELS`
    levels up; old pages wrap everything in a ``form``, sections in ``no-nav`` classes), or comes after a heading
    naming one among its siblings (PLOS's author summary: ``#artText > .abstract > :not(h2)`` selects its paragraphs
    too)."""
    if is_furniture(tag) or any(isinstance(p, Tag) and _named_part(p, _OTHER_PARTS)
                                for p in islice(tag.parents, _PART_LEVELS)):
        return True
    for sibling in islice(tag.previous_siblings, _SIBLINGS):
        if isinstance(sibling, Tag) and sibling.name in _HEADINGS:
            return bool(ENDING_HEADING.match(sibling.get_text()))
    return False


def _rank(tag: Tag) -> int:
    return int(tag.name[1])


def _drop_other_parts(root: Tag) -> None:
    """In place: each heading inside an abstract block that opens another part (see :data:`ENDING_HEADING`), with
    what follows it up to the next heading of the same or a higher rank."""
    for heading in root.find_all(_HEADINGS):
        if heading.parent is None or not ENDING_HEADING.match(heading.get_text()):
            continue
        for sibling in list(heading.next_siblings):
            if isinstance(sibling, Tag) and sibling.name in _HEADINGS and _rank(sibling) <= _rank(heading):
                break
            sibling.extract()
        heading.extract()


def block_text(element: Tag, *, shown_only: bool = True) -> str:
    """An abstract block's text as paragraphs: the parts that are not the abstract (:func:`is_furniture`, a heading
    that opens another part and what follows it) left out, and with ``shown_only`` (the generic reader) hidden parts
    and link menus too. A rule's selection keeps its hidden parts (``shown_only=False``): an abstract cut short on the
    page keeps its rest in a hidden span until "Read more" is clicked."""
    def dropped(tag: Tag) -> bool:
        return is_furniture(tag) or shown_only and (is_hidden(tag) or is_link_list(tag))

    if not any(dropped(t) or t.name in _HEADINGS for t in element.find_all(True)):
        return format_text(element)
    element = copy.copy(element)
    for tag in element.find_all(True):
        if not tag.decomposed and dropped(tag):
            tag.decompose()
    _drop_other_parts(element)
    return format_text(element)


def reads_as_abstract(text: str) -> bool:
    """Whether a text reads as an abstract: not a reference list (six in ten or more of three or more lines are
    citations: under 50 words, with a year and a citation's marks) and not a menu (seven in ten or more of four or
    more lines a few words, none a sentence's length)."""
    lines = [line for line in text.split("\n") if line.strip()]
    citations = sum(1 for line in lines if len(line.split()) < _CITATION_WORDS and _YEAR.search(line)
                    and _CITATION_MARK.search(line))
    if len(lines) >= 3 and 10 * citations >= 6 * len(lines):
        return False
    words = [len(line.split()) for line in lines]
    return not (len(lines) >= 4 and 10 * sum(1 for w in words if w < _MENU_WORDS) >= 7 * len(lines)
                and max(words) < _PROSE_WORDS)


def without_copies(elements: list[Tag], texts: list[str]) -> list[str]:
    """The texts of a rule's selected elements without a hidden element's copy of a shown one's text (a mobile and a
    desktop copy of the abstract): the shown text is kept. Where a hidden text holds a shown one and says more (the
    page shows a truncation and keeps the whole abstract hidden behind "Read more"), the hidden one is kept instead.
    Texts are compared without whitespace."""
    if len(elements) > _MAX_COMPARED:  # every text is compared with every other: a bounded number of them
        return texts
    shown = [is_shown(e) for e in elements]
    if all(shown) or not any(shown):
        return texts
    keys = ["".join(t.split()) for t in texts]
    kept = []
    for index, key in enumerate(keys):
        others = [k for k, s in zip(keys, shown, strict=True) if s != shown[index] and k]
        if key and any(key in other for other in others) and (shown[index] is False or any(
                key != other for other in others if key in other)):
            continue  # a hidden copy of a shown text, or a shown truncation of a hidden whole
        kept.append(texts[index])
    return kept
