"""The body of an article page no rule reads: main-content detection by trafilatura, back matter dropped.

trafilatura (a maintained library for exactly this: boilerplate removal by tree heuristics with readability and
jusText as fallbacks) finds the article's main text with its headings, paragraphs, lists and tables. Its result is
turned into sections (heading, level, text) and into PubFetcher's text format (headings and paragraphs separated by
blank lines). Sections that are not the article's body are dropped, as the scraping rules leave them out:
references, acknowledgements, author notes, competing interests and the like, and the abstract (which the reader puts
in front of the body itself). The jsoup-like cleaning (:mod:`pubfetch.extract.clean`) is the fallback when trafilatura
finds no main content at all: see :mod:`pubfetch.extract.article` for the rule deciding between the two.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from bs4.element import Tag

log = logging.getLogger(__name__)

__all__ = ["Body", "Section", "drop_back_matter", "is_back_matter", "main_content"]

#: Headings of the back matter and of the abstract: the section they head is not part of the body.
_NOT_BODY = re.compile(
    r"(?i)^\s*(\d+(\.\d+)*+\.?\s*)?("
    r"references?(\s+and\s+notes)?|bibliography|literature(\s+cited)?|works\s+cited|cited\s+by|citing\s+articles|"
    r"acknowledge?ments?|funding(\s+information)?|author(s'?)?\s+contributions?|contributions|competing\s+interests?|"
    r"conflicts?\s+of\s+interests?|declaration\s+of\s+competing\s+interests?|disclosures?|footnotes|notes|"
    r"author\s+information|about\s+the\s+authors?|supplementary\s+(material|information|data)s?|"
    r"additional\s+information|rights\s+and\s+permissions|abbreviations|abstract|summary|graphical\s+abstract|"
    r"highlights|keywords|related\s+articles|recommended\s+articles|metrics|article\s+info(rmation)?|"
    r"ethics\s+(statement|declarations)|data\s+availability(\s+statement)?|citation|share|permissions"
    r")\s*[:.]?\s*$"
)
#: A short paragraph opening with these words is a back-matter heading the page did not mark up as one (a table
#: layout's "REFERENCES  Section:" cell, a bold "Acknowledgments" or "7. REFERENCES" line).
_BACK_MATTER_LINE = re.compile(
    r"(?i)^\s*(\d+(\.\d+)*+\.?\s*)?(references?|bibliography|literature\s+cited|acknowledge?ments?)\b[^.!?]{0,30}$")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_LEVELS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SPACE = re.compile(r"[ \t\r\f\v\u00a0]+")


def is_back_matter(heading: str) -> bool:
    """Whether a heading opens back matter (references, acknowledgements, ...) or the abstract: not the body."""
    return bool(_NOT_BODY.match(heading))


def drop_back_matter(root: Tag) -> None:
    """Remove, in place, what back-matter headings head in a page: the heading's section element when the heading opens
    it, else the heading and what follows it up to the next heading of the same or a higher rank."""
    headings = [h for h in root.find_all(_HEADINGS) if is_back_matter(h.get_text())]
    if not headings:
        return
    half = len(root.get_text()) / 2
    first_headings: dict[int, Tag | None] = {}  # each parent's first heading, looked for once while it stays
    for heading in headings:
        if heading.decomposed:
            continue
        parent = heading.parent
        if not isinstance(parent, Tag) or parent.name in ("body", "html"):
            first = None
        else:
            first = first_headings.get(id(parent))
            if first is None or first.decomposed:
                first = first_headings[id(parent)] = parent.find(_HEADINGS)
        if first is heading and isinstance(parent, Tag) and len(parent.get_text()) < half:
            parent.decompose()
            continue
        rank = int(heading.name[1])
        following = []
        for sibling in heading.next_siblings:  # walked lazily: the loop stops at the next heading, not the page's end
            if not isinstance(sibling, Tag):
                continue
            if sibling.name in _HEADINGS and int(sibling.name[1]) <= rank:
                break
            following.append(sibling)
        for element in following:
            element.decompose()
        heading.decompose()


@dataclass(frozen=True)
class Section:
    """A part of the body under one heading: the heading's text, its level (1-6; 0 for text before any heading)
    and the text of its paragraphs."""

    title: str
    level: int
    text: str


@dataclass
class Body:
    """The article body as text (PubFetcher's paragraph format) and as sections; ``prose`` holds its running-text
    paragraphs (not headings, lists or tables), by which a caller tells an article body from a landing page's
    leftovers."""

    text: str = ""
    sections: list[Section] = field(default_factory=list)
    prose: list[str] = field(default_factory=list)


def _line(text: str) -> str:
    return _SPACE.sub(" ", " ".join(text.split("\n"))).strip()


def _element_text(element: Any) -> str:
    """A trafilatura element as text: a list as one line per item, a table as one line per row, else one line."""
    tag = getattr(element, "tag", "")
    if tag == "list":
        items = (_line("".join(item.itertext())) for item in element.iter("item"))
        return "\n".join(t for t in items if t)
    if tag == "table":
        rows = ("  ".join(_line("".join(cell.itertext())) for cell in row.iter("cell"))
                for row in element.iter("row"))
        return "\n".join(r.strip() for r in rows if r.strip())
    return _line("".join(element.itertext()))


_BLOCKS = frozenset(("p", "head", "list", "table", "quote", "div"))


def _is_layout(element: Any) -> bool:
    """A container to read through: a division, or a table (of a table-based page layout) whose cells hold blocks."""
    if element.tag == "div":
        return True
    return element.tag == "table" and any(child.tag in _BLOCKS for cell in element.iter("cell") for child in cell)


def _blocks(element: Any) -> Any:
    """The heading, paragraph, list and table elements of trafilatura's body in reading order, containers opened."""
    for child in element:
        if _is_layout(child):
            if child.tag == "table":
                for cell in child.iter("cell"):
                    if (cell.text or "").strip():
                        yield cell
                    yield from _blocks(cell)
            else:
                if (child.text or "").strip():
                    yield child
                yield from _blocks(child)
        elif child.tag in _BLOCKS or (child.text or "").strip():
            yield child


def _own_text(element: Any) -> str:
    """The text of an opened container outside its blocks (a cell's loose text)."""
    parts = [element.text or ""]
    for child in element:
        if child.tag not in _BLOCKS:
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return _line("".join(parts))


def _sections(body: Any, title: str, prose: list[tuple[int, str]]) -> list[Section]:
    """The body's elements grouped under their headings; the article title repeated as a heading is dropped, a short
    line naming the back matter counts as a heading. Paragraphs of running text are added to ``prose`` with the index
    of their section."""
    sections: list[Section] = []
    heading, level, parts = "", 0, []  # type: tuple[str, int, list[str]]
    squashed_title = "".join(title.split()).lower()
    for element in _blocks(body):
        if element.tag == "head":
            text = _line("".join(element.itertext()))
            if squashed_title and "".join(text.split()).lower() == squashed_title:
                continue
            if heading or parts:
                sections.append(Section(heading, level, "\n\n".join(parts)))
            heading, level, parts = text, _LEVELS.get(str(element.get("rend", "")), 2), []
            continue
        text = _own_text(element) if element.tag in ("cell", "div") else _element_text(element)
        if text and _BACK_MATTER_LINE.match(text):
            if heading or parts:
                sections.append(Section(heading, level, "\n\n".join(parts)))
            heading, level, parts = text, level or 2, []
            continue
        if text:
            parts.append(text)
            if element.tag in ("p", "quote", "cell", "div"):
                prose.append((len(sections), text))
    if heading or parts:
        sections.append(Section(heading, level, "\n\n".join(parts)))
    return sections


def _body_sections(sections: list[Section]) -> list[int]:
    """Indexes of the sections that are not back matter or abstract (nor subsections of those)."""
    kept: list[int] = []
    dropped_level: int | None = None
    for index, section in enumerate(sections):
        if dropped_level is not None and section.level > dropped_level:
            continue
        dropped_level = None
        if section.title and (_NOT_BODY.match(section.title) or _BACK_MATTER_LINE.match(section.title)):
            dropped_level = section.level
            continue
        kept.append(index)
    return kept


def _format(sections: list[Section]) -> str:
    blocks: list[str] = []
    for section in sections:
        if section.title:
            blocks.append(section.title)
        if section.text:
            blocks.append(section.text)
    return "\n\n".join(blocks)


def main_content(html: str, url: str = "", title: str = "") -> Body:
    """The main content of a page as found by trafilatura, back matter and abstract dropped; empty when it finds
    none. ``title`` is the article's title, left out where the page repeats it as a heading."""
    import trafilatura  # imported on first use: it takes a noticeable time to import and most runs read no page
    try:
        document = trafilatura.bare_extraction(html, url=url or None, fast=True, favor_recall=True, include_tables=True,
                                               include_comments=False, include_images=False, with_metadata=False)
    except Exception as e:  # noqa: BLE001 - a page the library cannot read is one without detected main content
        log.debug("trafilatura failed on %s: %s", url or "(no URL)", e)
        return Body()
    body = getattr(document, "body", None)
    if body is None:
        return Body()
    prose: list[tuple[int, str]] = []
    sections = _sections(body, title, prose)
    kept = _body_sections(sections)
    wanted = set(kept)
    body_sections = [sections[i] for i in kept]
    return Body(_format(body_sections), body_sections, [text for i, text in prose if i in wanted])
