"""The report's plots: horizontal stacked bars drawn by matplotlib into PNG ``data:`` URIs (the page stays one file).

Figures are made with ``matplotlib.figure.Figure`` and its Agg canvas, never through ``pyplot``: a library must not
switch the backend of a program (or notebook) that imported it, and Agg needs no display. Labels come from the
database (hosts, read from pages and links): matplotlib would read ``$...$`` in them as mathtext (and fail on a bad
formula), so every label is drawn as plain text.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pubfetch.model.part_type import PartName, PartType
from pubfetch.output.rich import part_label

if TYPE_CHECKING:
    from pubfetch.output.report_data import ReportData

#: Bars in one plot; the tables list everything.
MAX_BARS = 20
#: Part types shown by name in the sources plot; the rarer ones are summed as "other".
MAX_TYPES = 9
GREEN, ORANGE, GREY, RED, PURPLE, BLUE = "#2e7d32", "#f39c12", "#bdbdbd", "#c62828", "#6a1b9a", "#1565c0"
CONTENT_PARTS = tuple(p for p in PartName if not p.is_id)

Segments = Sequence[tuple[str, str, Sequence[int]]]
"""(label, colour, one value per bar) for each segment of stacked bars."""


def stacked_bars(title: str, labels: Sequence[str], segments: Segments, xlabel: str) -> str:
    """One horizontal stacked bar per label (first label on top), as a PNG data URI."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(8, 1.6 + 0.32 * len(labels)), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    rows = range(len(labels))
    left = [0] * len(labels)
    for name, colour, values in segments:
        ax.barh(rows, values, left=left, color=colour, label=name)
        left = [a + b for a, b in zip(left, values, strict=True)]
    ax.set_yticks(list(rows), labels=[_short(label) for label in labels], parse_math=False)
    ax.invert_yaxis()
    ax.set_title(title, parse_math=False)
    ax.set_xlabel(xlabel, parse_math=False)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    legend = fig.legend(loc="outside lower center", ncols=min(len(segments), 4), fontsize="small", frameon=False)
    for text in legend.get_texts():
        text.set_parse_math(False)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _short(label: str, width: int = 40) -> str:
    return label if len(label) <= width else label[:width - 1] + "\u2026"


def coverage_plot(data: ReportData) -> str:
    parts = data.parts
    return stacked_bars("Parts: final, partial, missing", [part_label(c.part) for c in parts],
                        [("final", GREEN, [c.final for c in parts]), ("partial", ORANGE, [c.partial for c in parts]),
                         ("missing", GREY, [c.missing for c in parts])], "publications")


def sources_plot(data: ReportData) -> str:
    parts = [c for c in data.parts if c.part in CONTENT_PARTS]
    totals: dict[PartType, int] = {}
    for c in parts:
        for type_, n in c.types.items():
            totals[type_] = totals.get(type_, 0) + n
    named = sorted(totals, key=lambda t: (-totals[t], t.order))[:MAX_TYPES]
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    palette = colormaps["tab10"]
    segments: list[tuple[str, str, Sequence[int]]] = [
        (f"{t.value}{' (final)' if t.is_final else ''}", to_hex(palette(i)), [c.types.get(t, 0) for c in parts])
        for i, t in enumerate(sorted(named, key=lambda t: t.order))]
    other = [sum(n for t, n in c.types.items() if t not in named) for c in parts]
    if any(other):
        segments.append(("other", GREY, other))
    return stacked_bars("Sources of the parts (part type)", [part_label(c.part) for c in parts], segments,
                        "publications")


def requests_plot(data: ReportData) -> str:
    hosts = list((data.requests or {}).items())[:MAX_BARS]
    return stacked_bars(f"Requests per host (top {len(hosts)})", [h for h, _ in hosts], [
        ("answered", BLUE, [c.requests - c.failed for _, c in hosts]),
        ("failed (not 429)", RED, [c.failed - c.too_many for _, c in hosts]),
        ("HTTP 429", PURPLE, [c.too_many for _, c in hosts]),
    ], "requests (attempts)")


def publishers_plot(data: ReportData) -> str:
    rows = data.publishers[:MAX_BARS]
    return stacked_bars(f"Full text by publisher host (top {len(rows)})", [r.host for r in rows], [
        ("final full text from this host", GREEN, [r.fulltext_here for r in rows]),
        ("final full text from elsewhere", ORANGE, [r.fulltext_elsewhere for r in rows]),
        ("no final full text", GREY, [r.no_fulltext for r in rows]),
    ], "publications whose pages on the host were read")


def plots(data: ReportData) -> dict[str, str]:
    """Plot name -> data URI, for the sections that have something to show."""
    out: dict[str, str] = {}
    if data.publications:
        out["coverage"] = coverage_plot(data)
        if any(c.types for c in data.parts if c.part in CONTENT_PARTS):
            out["sources"] = sources_plot(data)
    if data.requests:
        out["requests"] = requests_plot(data)
    if data.publishers:
        out["publishers"] = publishers_plot(data)
    return out
