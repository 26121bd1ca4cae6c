"""The second-pass and subset scenarios' economy: requests of each batched step beside its smallest set, and wall
time beside the bound that set gives (batchcount.py), as medians of interleaved rounds.

Both scenarios run on the second-pass services (a third of the PMIDs unknown to Europe PMC's search by PMID, found by
PMCID and DOI once PubMed gives them); the subset asks only for ``SUBSET_PARTS``. The rounds alternate the two, so a
change of the machine's load falls on both alike.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path

from fetchbench import FetchRun, fetch_run
from services import HostedServices

#: The subset scenario's ``--fetch-part`` list.
SUBSET_PARTS = ("pmid", "pmcid", "doi", "title", "abstract", "mesh")
#: The scenarios by name: the parts each asks for (empty: all).
SCENARIOS: dict[str, tuple[str, ...]] = {"all parts": (), "subset": SUBSET_PARTS}


def economy_runs(n: int, batch_size: int, latency: float, rounds: int, workdir: Path,
                 log: Callable[[str], None]) -> dict[str, list[FetchRun]]:
    """Each scenario's runs, ``rounds`` of each, interleaved."""
    runs: dict[str, list[FetchRun]] = {name: [] for name in SCENARIOS}
    with HostedServices(n, latency=latency) as hosted:
        for round_ in range(rounds):
            for name, parts in SCENARIOS.items():
                log(f"{n} PMIDs with second passes, {name}, round {round_ + 1} of {rounds}")
                rundir = workdir / f"round-{round_ + 1}"  # each run's database and ID file are new
                rundir.mkdir(exist_ok=True)
                run = fetch_run(hosted, hosted.services.pmids(), batch_size, rundir, latency=latency,
                                second_pass=True, parts=parts)
                log(f"  {run.wall_s:.1f} s (bound of the smallest set {run.smallest_bound_s:.1f} s)")
                runs[name].append(run)
    return runs


def median_run(runs: list[FetchRun]) -> FetchRun:
    """The round of median wall time (its counts are that round's)."""
    return sorted(runs, key=lambda run: run.wall_s)[len(runs) // 2]


def economy_table(runs: dict[str, list[FetchRun]], load: str) -> list[str]:
    """Per scenario and batched step: requests (median, range over the rounds) beside the smallest set; wall beside
    the bound the smallest set gives."""
    out = ["Requests of each batched step beside the smallest batched request set (the sum over passes of "
           "ceil(IDs / batch size); a publication asked for the k-th time is in pass k), medians of the rounds with "
           "their range; wall time (median) beside the lower bound of the run's requests with each batched step's "
           f"replaced by its smallest set. Load average while measured: {load}.", "",
           "| scenario | rounds | batched step | IDs by pass | requests (median, range) | smallest set | requests / "
           "smallest | wall (median) | bound of the smallest set | wall / that bound |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for name, scenario_runs in runs.items():
        if not scenario_runs:
            continue
        wall = statistics.median(run.wall_s for run in scenario_runs)
        bound = median_run(scenario_runs).smallest_bound_s
        steps = sorted({step for run in scenario_runs for step in run.batched})
        for index, step in enumerate(steps):
            made = [run.batched.get(step, {}).get("requests", 0) for run in scenario_runs]
            smallest = median_run(scenario_runs).batched.get(step, {}).get("smallest", 0)
            by_pass = median_run(scenario_runs).batched.get(step, {}).get("ids_by_pass", ())
            requests = statistics.median(made)
            ratio = f"**{requests / smallest:.1f}x**" if smallest else ""
            lead = [name, str(len(scenario_runs))] if index == 0 else ["", ""]
            tail = ([f"{wall:.1f} s", f"{bound:.1f} s ({median_run(scenario_runs).smallest_binding})",
                     f"**{wall / bound:.2f}**" if bound else ""] if index == 0 else ["", "", ""])
            out.append("| " + " | ".join([*lead, step, " + ".join(map(str, by_pass)), f"{requests:g} ({min(made)}-"
                                          f"{max(made)})", str(smallest), ratio, *tail]) + " |")
    out.append("")
    return out
