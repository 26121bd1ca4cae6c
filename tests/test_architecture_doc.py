"""ARCHITECTURE.md stays a map a newcomer reads in minutes, and a map of every package.

Its tables grew paragraph by paragraph until the file was too long to read; details belong in docstrings and
docs/*.md. These bounds keep it short, and naming every package keeps it true as packages come and go.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "ARCHITECTURE.md"
PACKAGE = ROOT / "pubfetch"
MAX_BYTES = 10_240
MAX_CELL = 400


def table_cells(text: str) -> list[str]:
    """Every cell of every Markdown table row, separator rows left out."""
    cells: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("|"):
            continue
        row = [cell.strip() for cell in stripped.strip("|").split("|")]
        if all(set(cell) <= set("-: ") for cell in row):
            continue
        cells.extend(row)
    return cells


def test_the_map_is_under_ten_kilobytes() -> None:
    size = len(DOC.read_bytes())
    assert size < MAX_BYTES, f"ARCHITECTURE.md is {size} bytes; move details to docstrings or docs/*.md"


def test_no_table_cell_has_grown_into_a_paragraph() -> None:
    cells = table_cells(DOC.read_text(encoding="utf-8"))
    assert len(cells) > 50, "the tables of ARCHITECTURE.md were not found"
    long = [cell[:60] + "..." for cell in cells if len(cell) > MAX_CELL]
    assert not long, f"cells over {MAX_CELL} characters: {long}"


def test_the_cell_reader_sees_a_long_cell() -> None:
    long = "x" * (MAX_CELL + 1)
    assert [len(c) for c in table_cells(f"| a | b |\n|---|---|\n| `net/` | {long} |\n")] == [1, 1, 6, MAX_CELL + 1]


def test_every_package_is_named() -> None:
    text = DOC.read_text(encoding="utf-8")
    packages = sorted(init.parent for init in PACKAGE.rglob("__init__.py") if init.parent != PACKAGE)
    assert packages, "no packages found under pubfetch/"
    missing = [str(p.relative_to(PACKAGE)) for p in packages if f"`{p.name}/`" not in text]
    assert not missing, f"name these packages in ARCHITECTURE.md: {missing}"


def layer_groups() -> list[list[str]]:
    """The groups of ``LAYERS`` in tests/test_layers.py, bottom first, read from its source (tests import no tests)."""
    tree = ast.parse((ROOT / "tests" / "test_layers.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "LAYERS":
            strings = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            return [group.split() for group in strings if group.strip()]
    raise AssertionError("LAYERS not found in tests/test_layers.py")


def test_the_stated_layer_order_is_the_enforced_one() -> None:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("The order, bottom first:")
    stated = re.findall(r"`([\w.]+)`", text[start:text.index("\n\n", start)])
    groups = layer_groups()
    assert len(groups) > 10, "LAYERS was not read"
    above_base = [name for group in groups[1:] for name in group]
    assert stated == above_base, f"ARCHITECTURE.md states {stated}; tests/test_layers.py has {above_base}"
