"""Tables and figures of an article's body on a publisher page, where the page marks them up.

The body is what a scraping rule's ``fulltext`` selector chose (as for :mod:`pubfetch.extract.page_sections`).

* A table is each outermost ``<table>`` of the body with cells (a table inside a cell is part of its cell's text). Its
  cells go on the grid of :mod:`pubfetch.extract.table_grid`; the header rows are those of ``<thead>``, else the
  leading rows made only of ``<th>``; the body rows are the rest (``<tfoot>`` rows are its footnotes, one per row). Its
  caption is its ``<caption>``, else the ``<figcaption>`` of the ``<figure>`` around it; a caption opening with
  "Table 3" (or "Table S1.", "TABLE 2:") gives that as the label. Its section path is the headings the body has
  before it (ranked as the sections are).
* A figure is each ``<figure>`` of the body holding an image and no table: label and caption from its
  ``<figcaption>`` ("Figure 2", "Fig. 2"), the image's ``src`` (or a lazy loader's ``data-src``) made absolute
  against the page's address.
* A statement is each section of the whole page (rules often leave them out of the body) whose heading, of at most
  80 characters, names one (:func:`~pubfetch.extract.jats_structure.statement_type`: "Data availability",
  "Competing interests", ...), its text the paragraphs up to the next heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from urllib.parse import urljoin

from bs4.element import Tag

from pubfetch.extract.html_text import element_text
from pubfetch.extract.jats_structure import statement_type
from pubfetch.extract.page_sections import HEADINGS, headed_paragraphs
from pubfetch.extract.table_grid import MAX_COLSPAN, lay_out, span
from pubfetch.model.structure import DEFAULT_MAX_TABLE_CELLS, Figure, Statement, Table

__all__ = ["page_figures", "page_statements", "page_tables"]

_TABLE_LABEL = re.compile(r"^\s*(table\s+[a-z]?\d+[a-z]?)\s*[.:|]?\s*", re.I)
_FIGURE_LABEL = re.compile(r"^\s*((?:figure|fig\.?)\s+[a-z]?\d+[a-z]?)\s*[.:|]?\s*", re.I)
_GROUPS = ("thead", "tbody", "tfoot")


def _labelled(text: str, label: re.Pattern[str]) -> tuple[str, str]:
    found = label.match(text)
    return (found.group(1), text[found.end():]) if found else ("", text)


def _walk(roots: Iterable[Tag]) -> Iterator[Tag]:
    """Headings, tables and figures of the roots in document order, not looking inside a heading or table found (a
    figure is looked into: it may hold a table)."""
    ids = {id(r) for r in roots}
    for root in (r for r in roots if not any(id(a) in ids for a in r.parents)):
        stack = [root]
        while stack:  # iterative: hostile nesting costs no recursion
            node = stack.pop()
            if node.name in HEADINGS or node.name in ("table", "figure"):
                yield node
                if node.name != "figure":
                    continue
            stack += [c for c in reversed(node.contents) if isinstance(c, Tag)]


def _children(tag: Tag, names: tuple[str, ...]) -> list[Tag]:
    """``tag.find_all(names, recursive=False)`` without BeautifulSoup's general matching: a table's rows and cells
    are read for every table of every page."""
    return [child for child in tag.contents if isinstance(child, Tag) and child.name in names]


def _cells(tr: Tag) -> list[Tag]:
    return _children(tr, ("td", "th"))


def _grid_groups(table: Tag) -> list[tuple[bool, list[list[Tag]]]]:
    """Row groups (header or not) of a table in document order; ``<tfoot>`` is left to the footnotes."""
    groups: list[tuple[bool, list[list[Tag]]]] = []
    direct: list[list[Tag]] = []
    for child in _children(table, ("thead", "tbody", "tr")):
        rows = [_cells(child)] if child.name == "tr" else [_cells(tr) for tr in _children(child, ("tr",))]
        if child.name == "tr":
            direct += rows
        else:
            groups.append((child.name == "thead", rows))
    if direct:
        groups.append((False, direct))
    if not any(is_header for is_header, _ in groups) and groups:  # leading rows of <th> only are the header
        first_header, first_rows = groups[0]
        lead = 0
        while lead < len(first_rows) and first_rows[lead] and all(c.name == "th" for c in first_rows[lead]):
            lead += 1
        if 0 < lead < len(first_rows):
            groups[0:1] = [(True, first_rows[:lead]), (first_header, first_rows[lead:])]
    return groups


def _spans(cell: Tag) -> tuple[int, int]:
    rowspan = span(str(cell.get("rowspan") or ""), limit=65534)
    colspan = span(str(cell.get("colspan") or ""), limit=MAX_COLSPAN)
    return rowspan, colspan or 1


def _caption(table: Tag) -> str:
    caption = table.find("caption", recursive=False)
    if caption is not None:
        return element_text(caption)
    figure = table.find_parent("figure")
    figcaption = figure.find("figcaption") if figure is not None else None
    return element_text(figcaption) if isinstance(figcaption, Tag) else ""


def _path(stack: list[tuple[int, str]]) -> list[str]:
    return [title for _, title in stack]


def _sectioned(roots: Iterable[Tag]) -> Iterator[tuple[Tag, list[str]]]:
    """The tables and figures of the body, each with the titles of the headings open above it."""
    stack: list[tuple[int, str]] = []
    for node in _walk(list(roots)):
        if node.name in HEADINGS:
            title = element_text(node)
            if title:
                level = HEADINGS[node.name]
                stack = [entry for entry in stack if entry[0] < level] + [(level, title)]
        else:
            yield node, _path(stack)


def page_tables(roots: Iterable[Tag], *, max_cells: int = DEFAULT_MAX_TABLE_CELLS) -> list[Table]:
    """The tables of the body elements ``roots`` (see the module)."""
    out: list[Table] = []
    for node, path in _sectioned(roots):
        if node.name != "table" or node.find(("td", "th")) is None:
            continue
        grid = lay_out(_grid_groups(node), element_text, _spans, max_cells)
        label, caption = _labelled(_caption(node), _TABLE_LABEL)
        notes = [element_text(tr) for foot in _children(node, ("tfoot",)) for tr in _children(foot, ("tr",))]
        out.append(Table(str(node.get("id") or ""), label, caption, grid.header, grid.rows, [n for n in notes if n],
                         path, grid.truncated))
    return out


def page_figures(roots: Iterable[Tag], url: str) -> list[Figure]:
    """The figures of the body elements ``roots``, their image URLs absolute against ``url`` (see the module)."""
    out: list[Figure] = []
    for node, _ in _sectioned(roots):
        if node.name != "figure" or node.find("table") is not None:
            continue
        image = node.find("img")
        if not isinstance(image, Tag):
            continue
        source = str(image.get("src") or image.get("data-src") or "").strip()
        figcaption = node.find("figcaption")
        label, caption = _labelled(element_text(figcaption) if isinstance(figcaption, Tag) else "", _FIGURE_LABEL)
        out.append(Figure(str(node.get("id") or ""), label, caption, urljoin(url, source) if source else ""))
    return out


def page_statements(page: Tag) -> list[Statement]:
    """The statements of a page (its ``<body>``, or the element given), see the module: the sections
    :func:`~pubfetch.extract.page_sections.page_sections` finds, of which only those a statement's heading opens
    have their paragraphs read (a page's other text is most of it)."""
    return [Statement(statement_type("", title), title, "\n\n".join(paragraphs))
            for _, title, paragraphs in headed_paragraphs([page], _opens_statement) if paragraphs]


def _opens_statement(heading: str) -> bool:
    return len(heading) <= 80 and bool(statement_type("", heading))
