"""The table grid on its own: cells given as (text, rowspan, colspan), laid out by the HTML table model's rules with
the text repeated over a span, rows filled to the table's width, and the cells cap."""

from __future__ import annotations

from pubfetch.extract.table_grid import MAX_COLSPAN, lay_out, span

Cell = tuple[str, int, int]


def _grid(groups: list[tuple[bool, list[list[Cell]]]], max_cells: int = 100):  # type: ignore[no-untyped-def]
    return lay_out(groups, lambda c: c[0], lambda c: (c[1], c[2]), max_cells)


def test_a_cell_spanning_rows_and_columns_fills_every_position_it_covers() -> None:
    grid = _grid([(True, [[("h", 1, 3)]]), (False, [[("a", 2, 2), ("b", 1, 1)], [("c", 1, 1)], [("d", 1, 1)]])])
    assert grid.header == [["h", "h", "h"]]
    assert grid.rows == [["a", "a", "b"], ["a", "a", "c"], ["d", "", ""]]
    assert not grid.truncated


def test_a_later_cell_skips_the_positions_a_span_holds() -> None:
    grid = _grid([(False, [[("a", 1, 1), ("b", 3, 1), ("c", 1, 1)], [("d", 1, 1), ("e", 1, 1)],
                           [("f", 1, 1), ("g", 1, 1)]])])
    assert grid.rows == [["a", "b", "c"], ["d", "b", "e"], ["f", "b", "g"]]


def test_spans_as_attributes_count() -> None:
    assert [span(v, limit=MAX_COLSPAN) for v in ("2", " 3 ", "0", "", None, "-1", "x", "5000")] == [
        2, 3, 0, 1, 1, 1, 1, MAX_COLSPAN]


def test_the_cap_keeps_whole_rows_header_first() -> None:
    body = [[(str(i), 1, 1), (str(i), 1, 1), (str(i), 1, 1)] for i in range(5)]
    grid = _grid([(True, [[("h", 1, 3)]]), (False, body)], max_cells=9)
    assert grid.truncated and grid.header == [["h"] * 3] and grid.rows == [["0"] * 3, ["1"] * 3]
    grid = _grid([(True, [[("h", 1, 3)]]), (False, body)], max_cells=2)
    assert grid.truncated and grid.header == [] and grid.rows == []


def test_an_empty_table_is_an_empty_grid() -> None:
    grid = _grid([])
    assert (grid.header, grid.rows, grid.truncated) == ([], [], False)
