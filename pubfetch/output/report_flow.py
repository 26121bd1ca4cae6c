"""The counts a systematic review reports, as one table a PRISMA flow diagram can be drawn from, and its plot.

From identification to inclusion: the records identified by each source (the IDs given, each search and its query,
a snowball's links at each depth), the duplicates removed (records naming a paper already in the run, by any ID
form), the publications left, those already in the database (not fetched again) and those fetched, how they ended
(final, partial, failed), and how many have a usable full text. The rows come from the run's
:class:`~pubfetch.engine.summary.BatchSummary`; the report (:mod:`pubfetch.output.report_html`) shows them with
:func:`flow_plot` beside them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pubfetch.output.report_plots import BLUE, GREEN, GREY, ORANGE, PURPLE, RED, stacked_bars

if TYPE_CHECKING:
    from pubfetch.engine.summary import BatchSummary

__all__ = ["flow_plot", "flow_rows", "identified_rows"]


def identified_rows(s: BatchSummary) -> list[tuple[str, int]]:
    """Records identified, by source; a run given IDs and nothing else identified them all as given."""
    return list(s.identified.items()) if s.identified else [("given", s.total + s.duplicates)]


def flow_rows(s: BatchSummary) -> list[tuple[str, str, int]]:
    """(stage, what, count) from identification to full text, in the order of a flow diagram."""
    identified = identified_rows(s)
    rows = [("identification", f"identified: {label}", count) for label, count in identified]
    rows += [("identification", "identified in all", sum(c for _, c in identified)),
             ("identification", "duplicates removed", s.duplicates),
             ("screening", "publications after duplicates removed", s.total),
             ("screening", "already in the database (not fetched again)", s.skipped),
             ("screening", "fetched", s.fetched),
             ("retrieval", "final", s.final),
             ("retrieval", "partial", s.partial),
             ("retrieval", "failed", s.failed),
             ("retrieval", "with full text", s.with_fulltext)]
    return rows


def flow_plot(s: BatchSummary) -> str:
    """The flow as stacked bars: identified, after duplicates, in the database or fetched, how they ended, with full
    text."""
    found = sum(c for _, c in identified_rows(s))
    labels = ["identified", "after duplicates removed", "in the database or fetched", "final / partial / failed",
              "with full text"]

    def only(i: int, value: int) -> list[int]:
        return [value if k == i else 0 for k in range(len(labels))]

    segments = [("records", BLUE, [found, s.total, 0, 0, 0]),
                ("duplicates removed", GREY, only(1, s.duplicates)),
                ("already in the database", PURPLE, only(2, s.skipped)),
                ("fetched", BLUE, only(2, s.fetched)),
                ("final", GREEN, only(3, s.final)),
                ("partial", ORANGE, only(3, s.partial)),
                ("failed", RED, only(3, s.failed)),
                ("with full text", GREEN, only(4, s.with_fulltext)),
                ("without full text", GREY, only(4, s.total - s.with_fulltext))]
    return stacked_bars("From identification to full text", labels, segments, "records / publications")
