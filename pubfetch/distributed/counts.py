"""A batch's counts as they travel: a :class:`~pubfetch.fetcher.BatchSummary` as JSON (a task's result, a
publication's count kept apart by :mod:`.jobretry`) and added up into a job's summary. Apart from :mod:`.tasks` so
that the modules reading the counts need not import the task."""

from __future__ import annotations

import dataclasses
from typing import Any

from pubfetch.engine.summary import BatchSummary, merged_count


def encode_summary(summary: Any) -> dict[str, Any]:
    """A batch's :class:`~pubfetch.fetcher.BatchSummary` as JSON: its counts, and its sets as sorted lists (what else it
    carries for the process that made it, such as live request counters, stays behind). A summary that kept each
    publication's own count (``each``: a task's) also gives them, as ``papers``: [IDs, counts] of each publication,
    so that a command whose other steps got the same papers counts each once (:func:`papers_of`)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(summary):
        value = getattr(summary, f.name)
        if isinstance(value, set):
            out[f.name] = sorted(value)
        elif isinstance(value, int):
            out[f.name] = value
    each = getattr(summary, "each", None)
    if each is not None:
        # each paper's counts without its zeros (mostly zeros: a result of thousands of papers stays small)
        out[PAPERS] = [[list(ids), {k: v for k, v in encode_summary(one).items() if v}] for ids, one in each]
    return out


#: the key of a batch's result that lists its publications with their own counts (:func:`encode_summary`)
PAPERS = "papers"


def decode_summary(counts: dict[str, Any]) -> BatchSummary:
    """One publication's (or a batch's) counts, from :func:`encode_summary`, as a summary."""
    summary = BatchSummary()
    add_summary(summary, counts)
    return summary


def papers_of(counts: dict[str, Any]) -> list[tuple[list[str], dict[str, Any]]] | None:
    """The publications of a batch's result with their own counts, or ``None`` when the result does not list them
    (a worker of an earlier version)."""
    papers = counts.get(PAPERS)
    return None if papers is None else [(list(ids), one) for ids, one in papers]


def add_summary(into: Any, counts: dict[str, Any]) -> None:
    """Add a batch's counts (from :func:`encode_summary`) to a job's summary: counts add up, the time a retry is
    possible is the latest of the batches', the options that allow one are all of theirs, the others as the field says
    (:func:`~pubfetch.engine.summary.merged_count`)."""
    for f in dataclasses.fields(into):
        value, current = counts.get(f.name), getattr(into, f.name)
        if value is None or not isinstance(current, set | int):
            continue
        if isinstance(current, set):
            current.update(value)
        elif f.name == "eligible_at":
            setattr(into, f.name, max(current, int(value)))
        else:
            setattr(into, f.name, merged_count(f, current, int(value)))
