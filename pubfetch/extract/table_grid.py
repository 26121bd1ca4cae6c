"""A table's rows of cells with row and column spans laid on a grid, for the JATS reader and publisher pages alike
(both write ``tr``/``th``/``td`` with ``rowspan``/``colspan``, the HTML table model).

The rules (:mod:`pubfetch.model.structure` says why the text is repeated):

* a cell covering several positions has its text in each of them;
* a row is filled from the left, skipping positions a cell of an earlier row still covers;
* a row span ends with its row group (``thead``, each ``tbody``, ``tfoot``, or the rows directly in the table), as in
  HTML; ``rowspan="0"`` reaches the group's end; a span that is not a positive number counts as 1, and a column span
  above 1,000 as 1,000 (HTML's limit);
* every row is filled with empty strings to the table's width (its longest row);
* at most ``max_cells`` grid positions are kept (width times rows): rows past the cap are left out, header rows
  first kept, and the table says it was truncated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["Grid", "MAX_COLSPAN", "lay_out", "span"]

MAX_COLSPAN = 1000

#: One source cell: its element, read for text and spans by the caller's functions.
C = TypeVar("C")


@dataclass(frozen=True)
class Grid:
    """Header and body rows of equal width, and whether rows were left out at the cap."""

    header: list[list[str]]
    rows: list[list[str]]
    truncated: bool


def span(value: str | None, *, limit: int) -> int:
    """A ``rowspan``/``colspan`` attribute as a count: 0 stays 0 (to the group's end, for rows), anything that is not
    a whole number is 1, and counts are held at ``limit``."""
    text = (value or "").strip()
    if not text.isdigit():
        return 1
    return min(int(text), limit)


def _group(rows: Sequence[Sequence[C]], text: Callable[[C], str], spans: Callable[[C], tuple[int, int]],
           budget: int) -> tuple[list[list[str]], int]:
    """One row group on the grid (rows not yet padded), stopping once ``budget`` positions are spent; the rows and
    the positions they took."""
    out: list[list[str]] = []
    carried: dict[int, tuple[str, int]] = {}  # column -> (text, rows it still covers after this one)
    spent = 0
    for index, row in enumerate(rows):
        left_in_group = len(rows) - index
        line: dict[int, str] = {}
        for col, (value, more) in list(carried.items()):
            line[col] = value
            if more > 1:
                carried[col] = (value, more - 1)
            else:
                del carried[col]
        col = 0
        for cell in row:
            while col in line:
                col += 1
            value = text(cell)
            rowspan, colspan = spans(cell)
            rows_covered = left_in_group if rowspan == 0 else min(rowspan, left_in_group)
            for offset in range(max(colspan, 1)):
                line[col + offset] = value
                if rows_covered > 1:
                    carried[col + offset] = (value, rows_covered - 1)
            col += max(colspan, 1)
            if col > budget:
                break
        width = max(line, default=-1) + 1
        out.append([line.get(i, "") for i in range(width)])
        spent += width
        if spent > budget:
            break
    return out, spent


def lay_out(groups: Sequence[tuple[bool, Sequence[Sequence[C]]]], text: Callable[[C], str],
            spans: Callable[[C], tuple[int, int]], max_cells: int) -> Grid:
    """The grid of a table given as row groups (``(is_header, rows)``, in document order), each row its cells;
    ``text`` reads a cell's text, ``spans`` its (rowspan, colspan) as :func:`span` counts them."""
    header: list[list[str]] = []
    body: list[list[str]] = []
    budget = max_cells
    truncated = False
    for is_header, rows in groups:
        laid, spent = _group(rows, text, spans, max(budget, 0))
        (header if is_header else body).extend(laid)
        budget -= spent
        if budget < 0:
            truncated = True
            break
    width = max((len(r) for r in (*header, *body)), default=0)
    if width:
        room = max_cells // width
        if len(header) + len(body) > room:
            truncated = True
            header, body = header[:room], body[:max(room - len(header), 0)]
    pad = [[*r, *([""] * (width - len(r)))] for r in header], [[*r, *([""] * (width - len(r)))] for r in body]
    return Grid(pad[0], pad[1], truncated)
