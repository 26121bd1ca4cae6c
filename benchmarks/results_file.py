"""results.json: the raw figures of each benchmark part, kept across runs that measure only some parts.

A full run takes more than an hour, so parts are often re-measured alone (``--skip``). Rewritten whole by such a run,
results.json and RESULTS.md used to hold only the part just measured, or went stale beside tables gathered by hand.
Here each part (``fetch``, ``second_pass``, ``long_file``, ``parse``) is stored with the command, commit and machine that measured it;
a run replaces the parts it measured and keeps the others, and RESULTS.md is rendered from all of them, each under its
own heading. The long file's rows (one per services setting, see ``--long-runs``) are merged one by one: re-measuring
the failing run keeps the answering run of the same file, and each row says which commit measured it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from fetchbench import FetchRun

#: the parts, in the order RESULTS.md shows them, with their headings
PARTS = {"fetch": "Fetching PMIDs", "second_pass": "Fetching PMIDs with second passes", "long_file": "A long ID file",
         "parse": "Parse throughput"}


def load(path: Path) -> dict[str, dict[str, Any]]:
    """The parts stored in ``path``; none when it is missing or in the earlier one-run layout (whose parts came
    from different commits and did not say so)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        print(f"{path}: not readable ({e}); it is written anew", file=sys.stderr)
        return {}
    parts = doc.get("parts") if isinstance(doc, dict) else None
    return {k: v for k, v in parts.items() if k in PARTS} if isinstance(parts, dict) else {}


def merge(stored: dict[str, dict[str, Any]], measured: dict[str, dict[str, Any]],
          provenance: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``stored`` with the parts of ``measured`` replaced, each carrying ``provenance`` (command, commit, machine,
    options). Long-file rows of a services setting not measured now stay when the file had the same length."""
    parts = dict(stored)
    for name, part in measured.items():
        new = {**provenance, **part}
        if name == "long_file":
            new["rows"] = _merged_long_rows(stored.get(name, {}).get("rows", []), part["rows"], provenance)
        parts[name] = new
    return parts


def _merged_long_rows(old: list[dict[str, Any]], new: list[dict[str, Any]],
                      provenance: dict[str, Any]) -> list[dict[str, Any]]:
    fresh = [{**row, "commit": provenance["commit"], "command": provenance["command"]} for row in new]
    lengths = {row["ids"] for row in fresh}
    labels = {row["services"] for row in fresh}
    kept = [row for row in old if row.get("ids") in lengths and row.get("services") not in labels]
    # the run with every service answering first, as --long-runs orders them
    return sorted(kept + fresh, key=lambda row: "failing" in row["services"])


def fetch_run(row: dict[str, Any]) -> FetchRun:
    """A stored long-file row as the run it was."""
    fields = {k: v for k, v in row.items() if k in FetchRun.__dataclass_fields__}
    for name in ("rss_by_tenth", "rss_over_time"):
        fields[name] = [tuple(sample) for sample in fields.get(name, [])]
    return FetchRun(**fields)


def markdown(parts: dict[str, dict[str, Any]]) -> str:
    """RESULTS.md: each part under its heading, with the command, commit and machine that measured it."""
    lines = ["## Benchmarks", "",
             "Each part below was measured by the command under its heading (see benchmarks/README.md); "
             "`python benchmarks/run.py` re-measures all of them.", ""]
    for name, heading in PARTS.items():
        part = parts.get(name)
        if part is None:
            continue
        lines += [f"### {heading}", "", f"Measured by `{part['command']}` at commit {part['commit']}.", "",
                  "| machine | |", "|---|---|", *(f"| {k} | {v} |" for k, v in part["machine"].items()), "",
                  *part["markdown"]]
        earlier = [row for row in part.get("rows", []) if row.get("commit") not in (None, part["commit"])]
        for row in earlier:
            lines += [f"The row *{row['services']}* was measured earlier, by `{row['command']}` at commit "
                      f"{row['commit']}.", ""]
    return "\n".join(lines) + "\n"


def save(path: Path, parts: dict[str, dict[str, Any]]) -> None:
    path.write_text(json.dumps({"parts": parts}, indent=1, default=str) + "\n", encoding="utf-8")
