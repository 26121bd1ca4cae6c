"""Regenerate the benchmark tables: ``python benchmarks/run.py`` (``--help`` for the knobs, ``--quick`` for a smoke run).

Four parts (``--skip`` leaves some out). Each part's raw figures are kept in ``results.json`` beside the markdown file
(default ``benchmarks/RESULTS.md``) with the command, commit and machine that measured them; a run replaces the parts
it measured and keeps the others, and the markdown is rewritten from all of them (``results_file.py``):

1. fetching N PMIDs with ``python -m pubfetch -pub-file ids -db-fetch-end db`` against synthetic services on loopback
   addresses that answer after ``--latency`` and return 429 above the services' documented rates: wall time, peak RSS
   of the child process, requests per publication by service, with batching (``--batch-size 200``) and without
   (``--batch-size 1``) and their ratio; unbatched runs that would take longer than ``--unbatched-limit`` minutes are
   extrapolated from the ``--unbatched-sample`` run, and the table says so;
2. the same with second passes (``--second-pass`` PMIDs): Europe PMC's search does not know a third of them, PubMed
   names their PMCIDs and DOIs, and some DOIs lead to pages naming a PMCID; all parts and a subset of them, in
   ``--rounds`` interleaved rounds, with each batched step's requests beside its smallest set (``economy.py``); every
   fetch run also reports the time a host of a batched service was idle while a batch waited for it (``idle.py``);
3. peak RSS for a long ID file (``--long-file`` lines), without latency and rate limits, so that it ends in minutes,
   read at each tenth of the file, once with every service answering and once with ``--long-failing`` failing;
4. parse throughput of PubMed efetch XML, JATS, HTML cleaning and PDF extraction on the recorded corpus
   (``--corpus``, default ../shared/corpus) and on synthetic documents.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for path in (str(HERE), str(REPO)):  # this checkout's pubfetch, not an installed copy
    if path in sys.path:
        sys.path.remove(path)
    sys.path.insert(0, path)

import machine
import results_file
import workercode
from economy import economy_runs, economy_table, median_run
from fetchbench import SERVICES, FetchRun, fetch_run
from parsebench import Throughput, paired_ratios, parse_benchmarks
from services import HostedServices

workercode.share_checkout()  # the worker processes import this checkout's pubfetch too

DEFAULT_BATCH = 200


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------- measuring


def fetch_rows(opts: argparse.Namespace, workdir: Path) -> list[dict]:
    """For each size: the batched run, the unbatched run (measured or extrapolated), and their ratio."""
    rows: list[dict] = []
    sample: FetchRun | None = None
    sizes = sorted(opts.sizes)
    with HostedServices(max(sizes), latency=opts.latency) as hosted:
        pmids = hosted.services.pmids()
        for n in sizes:
            log(f"{n} PMIDs, --batch-size {opts.batch_size}")
            batched = fetch_run(hosted, pmids[:n], opts.batch_size, workdir, latency=opts.latency)
            log(f"  {duration(batched.wall_s)} (bound {duration(batched.bound_s)})")
            rows.append({"n": n, "run": batched, "extrapolated": None})
            if opts.flaky:
                log(f"{n} PMIDs, --batch-size {opts.batch_size}, a third of the requests failing once")
                flaky = fetch_run(hosted, pmids[:n], opts.batch_size, workdir, latency=opts.latency,
                                  fail_every_third=True)
                log(f"  {duration(flaky.wall_s)} (bound {duration(flaky.bound_s)})")
                rows.append({"n": n, "run": flaky, "extrapolated": None, "flaky": True})
            estimate = sample.wall_s / sample.ids * n if sample is not None else None
            if estimate is not None and estimate > opts.unbatched_limit * 60:
                log(f"{n} PMIDs, --batch-size 1: about {duration(estimate)}, extrapolated from {sample.ids}")
                unbatched = FetchRun(n, 1, estimate, sample.peak_rss_mb, sample.exit_status,
                                     sample.cpu_s * n / sample.ids,
                                     {s: round(c * n / sample.ids) for s, c in sample.requests.items()},
                                     round(sample.too_many * n / sample.ids), "", sample.repeats * n // sample.ids, 0,
                                     sample.bound_s * n / sample.ids, sample.binding)
                rows.append({"n": n, "run": unbatched, "extrapolated": sample.ids})
            else:
                m = min(n, opts.unbatched_sample) if estimate is None else n
                log(f"{m} PMIDs, --batch-size 1")
                measured = fetch_run(hosted, pmids[:m], 1, workdir, latency=opts.latency)
                log(f"  {duration(measured.wall_s)}")
                if sample is None or measured.ids >= sample.ids:
                    sample = measured
                if m == n:
                    rows.append({"n": n, "run": measured, "extrapolated": None})
                else:
                    unbatched = FetchRun(n, 1, measured.wall_s / m * n, measured.peak_rss_mb, measured.exit_status,
                                         measured.cpu_s * n / m,
                                         {s: round(c * n / m) for s, c in measured.requests.items()},
                                         round(measured.too_many * n / m), "", measured.repeats * n // m, 0,
                                         measured.bound_s * n / m, measured.binding)
                    rows.append({"n": n, "run": unbatched, "extrapolated": m})
    return rows


def second_pass_rows(opts: argparse.Namespace, workdir: Path) -> tuple[list[dict], dict[str, list[FetchRun]]]:
    """The second-pass scenario and its subset, ``--rounds`` interleaved rounds of each (economy.py); the row of the
    all-parts run of median wall time for the fetch table."""
    runs = economy_runs(opts.second_pass, opts.batch_size, opts.latency, opts.rounds, workdir, log)
    return [{"n": opts.second_pass, "run": median_run(runs["all parts"]), "extrapolated": None}], runs


def long_file_rows(opts: argparse.Namespace, workdir: Path) -> list[tuple[str, FetchRun]]:
    """The long ID file fetched as it is and with ``--long-failing`` answering 503 throughout, memory sampled."""
    rows: list[tuple[str, FetchRun]] = []
    with HostedServices(opts.long_file, latency=0.0, limits={}) as hosted:
        settings = {"answering": [], "failing": opts.long_failing}
        for failing in (settings[name] for name in opts.long_runs if name == "answering" or opts.long_failing):
            label = f"{', '.join(failing)} failing throughout" if failing else "every service answering"
            log(f"{opts.long_file}-line ID file, no latency, no rate limits, {label}")
            run = fetch_run(hosted, hosted.services.pmids(), opts.batch_size, workdir, rate_limits=False,
                            failing=frozenset(failing), sample_memory=True)
            log(f"  {duration(run.wall_s)}, peak RSS {run.peak_rss_mb:.0f} MB, "
                f"by tenths {[round(hwm) for _, _, hwm in run.rss_by_tenth]}")
            rows.append((label, run))
    return rows


# ---------------------------------------------------------------------------------------------------- the tables


def machine_table(info: dict[str, str]) -> list[str]:
    return ["| machine | |", "|---|---|", *(f"| {k} | {v} |" for k, v in info.items()), ""]


def _idle(run: FetchRun) -> str:
    """The host idle longest while a batch waited for it: seconds and share of the run."""
    if not run.idle:
        return ""
    host = max(run.idle, key=lambda h: run.idle[h])
    return f"{run.idle[host]:.1f} s ({run.idle_fraction * 100:.1f} %, {host})"


def fetch_table(rows: list[dict], opts: argparse.Namespace, intro: str = "") -> list[str]:
    heads = ["PMIDs", "batching", "wall time", "lower bound", "wall / bound", "publications/s", "CPU time", "peak RSS",
             *SERVICES.values(), "all services", "repeats", "429s", "host idle with waiting work"]
    intro = intro or (
        f"Synthetic services on loopback, {opts.latency * 1000:.0f} ms latency per request, 429 above the "
        "documented rates (NCBI 3/s, Europe PMC 10/s, annotations 10/s, Unpaywall 10/s, doi.org 20/s); "
        "pubfetch's default rate limits and one connection per host. Half of the synthetic publications are open "
        "access (full text from Europe PMC), half closed (doi.org and Unpaywall asked, nothing found). Requests "
        "are per publication. *Host idle with waiting work*: the longest time a host of a batched service had no "
        "request in flight while a batch waited for it (not for its rate limit), and its share of the wall time.")
    out = [intro, "", "| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    by_n: dict[int, list[dict]] = {}
    for row in rows:
        by_n.setdefault(row["n"], []).append(row)
    for n, pair in by_n.items():
        for row in pair:
            run: FetchRun = row["run"]
            mode = f"`--batch-size {run.batch_size}`"
            if row["extrapolated"]:
                mode += f" **extrapolated** from {row['extrapolated']:,} PMIDs (x{n / row['extrapolated']:g})"
            if row.get("flaky"):
                mode += f", a third of the requests failing once ({run.injected:,} 503s with Retry-After 1)"
            rss = f"{run.peak_rss_mb:.0f} MB" + (" (of the sample)" if row["extrapolated"] else "")
            ratio = f"**{run.wall_s / run.bound_s:.2f}**" if run.bound_s else ""
            cells = [f"{n:,}", mode, duration(run.wall_s), f"{duration(run.bound_s)} ({run.binding})", ratio,
                     f"{run.ids / run.wall_s:.2f}", duration(run.cpu_s), rss,
                     *(f"{run.per_publication(s):.3f}" for s in SERVICES), f"{run.per_publication():.3f}",
                     str(run.repeats), str(run.too_many), _idle(run)]
            out.append("| " + " | ".join(cells) + " |")
        batched = next((r["run"] for r in pair if r["run"].batch_size != 1 and not r.get("flaky")), None)
        single = next((r["run"] for r in pair if r["run"].batch_size == 1), None)
        if batched and single:
            ratio = single.wall_s / batched.wall_s
            requests = single.total_requests / batched.total_requests if batched.total_requests else 0
            cells = [f"{n:,}", "**unbatched / batched**", f"**x{ratio:.2f}**", "", "", "", "", "",
                     *("" for _ in SERVICES), f"x{requests:.2f}", "", "", ""]
            out.append("| " + " | ".join(cells) + " |")
    out.append("")
    return out


def _peak_at(run: FetchRun, tenth: int) -> float | None:
    """The child's peak RSS (MB) when ``tenth`` tenths of the IDs had been started, if it was sampled."""
    return run.rss_by_tenth[tenth - 1][2] if len(run.rss_by_tenth) >= tenth else None


def second_pass_table(rows: list[dict], opts: argparse.Namespace) -> list[str]:
    intro = ("The services of the table above, where Europe PMC's search does not know a third of the PMIDs (it finds "
             "those publications by PMCID and DOI only), so that their PMCID and DOI come from PubMed and they go "
             "round the resources a second time with them; for a sixth of the open-access publications PubMed names "
             "no PMCID either, and their DOI resolves to a publisher page (4 requests/s, pubfetch's limit for a "
             "publisher's host) that names it. Requests are per publication; *host idle with waiting work* as above.")
    return fetch_table(rows, opts, intro)


def long_file_table(rows: list[tuple[str, FetchRun]]) -> list[str]:
    intro = ("Synthetic services without latency and without 429s, pubfetch with `--no-rate-limit` (so that the run "
             "takes minutes, not hours); `-pub-file` with one PMID per line, `-db-fetch-end`. The child's peak RSS "
             "(VmHWM) is read when 10 %, 50 % and 100 % of the IDs have been started (asked of Europe PMC's search), "
             "every 5 s after that (through the end-of-run retry; the last sample is at most 5 s before the exit), "
             "and at its exit (its own VmHWM, written as it exits); *growth* is the exit's peak over the peak at 10 %.")
    heads = ["ID file lines", "services", "wall time", "publications/s", "CPU time", "peak RSS at 10 %", "at 50 %",
             "at 100 %", "at the last sample", "at exit", "growth 10 % -> exit", "requests", "exit status"]
    out = [intro, "", "| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for label, run in rows:
        tenths = [_peak_at(run, t) for t in (1, 5, 10)]
        first = tenths[0]
        growth = f"**{(run.peak_rss_mb / first - 1) * 100:+.1f} %**" if first else ""
        last = f"{run.rss_over_time[-1][3]:.0f} MB" if run.rss_over_time else ""
        cells = [f"{run.ids:,}", label, duration(run.wall_s), f"{run.ids / run.wall_s:.1f}", duration(run.cpu_s),
                 *(f"{m:.0f} MB" if m else "" for m in tenths), last, f"**{run.peak_rss_mb:.0f} MB**", growth,
                 f"{run.total_requests:,}", str(run.exit_status)]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    return out


def parse_table(results: list[Throughput], seconds: float) -> list[str]:
    out = [f"One thread, each document set parsed repeatedly for at least {seconds:g} s; throughput per second of wall "
           "time and per CPU-second of the benchmark's process and its worker processes (which a busy machine distorts "
           "less); rows measured in turns give the medians of their rounds.", "",
           "| parser | documents | throughput | per CPU-second | input MB/s |", "|---|---|---|---|---|"]
    for r in results:
        per_pass = r.units * r.distinct // r.documents
        cpu = f"{r.median_cpu_rate:,.1f} {r.unit}" if r.cpu_rate else ""
        turns = f", median of {len(r.rounds)} rounds in turns" if r.rounds else ""
        out.append(f"| {r.kind} | {r.source}: {r.distinct} files, {per_pass:,} {r.unit}{turns} | "
                   f"**{r.median_rate:,.1f} {r.unit}/s** | {cpu} | {r.mb_per_s:.2f} |")
    out.append("")
    return out


def yardstick_table(results: list[Throughput]) -> list[str]:
    """Each goal's row beside its yardstick (parsebench.YARDSTICKS): the ratio of their rates in each turn, where the
    two ran one right after the other, its median and range, and the ratio of the rows' medians above."""
    out = ["Each row beside its yardstick, turn by turn: the two ran one right after the other in each turn (first "
           "one, then the other, in alternate turns), so the ratio within a turn is what a machine whose speed "
           "changes from second to second leaves of it. Above 1: pubfetch is faster.", "",
           "| pubfetch | yardstick | per CPU-second: median of the turns (range) | per wall second: median (range) "
           "| ratio of the medians above (CPU, wall) |", "|---|---|---|---|---|"]
    for pair in paired_ratios(results):
        cpu = (f"**{pair.median_cpu:.2f}** ({min(pair.cpu):.2f}-{max(pair.cpu):.2f})" if pair.cpu else "")
        wall = f"**{pair.median_wall:.2f}** ({min(pair.wall):.2f}-{max(pair.wall):.2f})"
        out.append(f"| {pair.kind} | {pair.yardstick} | {cpu} | {wall} | "
                   f"{pair.of_medians_cpu:.2f}, {pair.of_medians_wall:.2f} |")
    out.append("")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000], help="PMIDs per fetch run")
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per answer (default 0.1)")
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH, help="batched runs' --batch-size")
    parser.add_argument("--unbatched-limit", type=float, default=15.0,
                        help="minutes an unbatched run may take before it is extrapolated instead (default 15)")
    parser.add_argument("--unbatched-sample", type=int, default=1000,
                        help="PMIDs of the unbatched run that larger ones are extrapolated from (default 1000)")
    parser.add_argument("--flaky", action=argparse.BooleanOptionalAction, default=True,
                        help="also fetch each size with a third of the requests failing once (503 + Retry-After 1)")
    parser.add_argument("--second-pass", type=int, default=1000,
                        help="PMIDs of the second-pass scenario's run (default 1000; 0: skip)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="interleaved rounds of the second-pass scenario and its subset (default 3; medians)")
    parser.add_argument("--long-file", type=int, default=100_000, help="lines of the long ID file (0: skip)")
    parser.add_argument("--long-failing", nargs="*", default=["ncbi"],
                        help="services answering 503 throughout the long file's second run (default: ncbi, the "
                             "E-utilities; given without a service: no second run)")
    parser.add_argument("--long-runs", choices=["answering", "failing"], nargs="+", default=["answering", "failing"],
                        help="the long file's runs: every service answering, --long-failing failing (default both; "
                             "a run of one keeps the other's row of the same file in results.json)")
    parser.add_argument("--parse-seconds", type=float, default=3.0, help="minimum seconds per parse measurement")
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus",
                        help="recorded-response corpus (manifest.jsonl); parse benchmarks use it when present")
    parser.add_argument("--skip", choices=["fetch", "second", "long", "parse"], nargs="*", default=[],
                        help="parts not to run")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md", help="markdown file to write")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 100 PMIDs, a 2,000-line file, 0.3 s per parse measurement")
    opts = parser.parse_args(argv)
    out_dir = opts.out.resolve().parent
    if not out_dir.is_dir() or not os.access(out_dir, os.W_OK):
        parser.error(f"--out {opts.out}: directory {out_dir} does not exist or is not writable "
                     "(checked before the benchmarks run, which take minutes)")
    if opts.quick:
        opts.sizes, opts.long_file, opts.parse_seconds, opts.unbatched_sample = [100], 2000, 0.3, 100
        opts.second_pass, opts.rounds = 100, 1

    info = machine.describe()
    command = " ".join(["python benchmarks/run.py", *(sys.argv[1:] if argv is None else argv)])
    measured: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="pubfetch-bench-") as tmp:
        workdir = Path(tmp)
        if "fetch" not in opts.skip:
            rows = fetch_rows(opts, workdir)
            measured["fetch"] = {"markdown": fetch_table(rows, opts),
                                 "rows": [{**asdict(r["run"]), "extrapolated_from": r["extrapolated"],
                                           "flaky": bool(r.get("flaky"))} for r in rows]}
        if "second" not in opts.skip and opts.second_pass:
            second, economy = second_pass_rows(opts, workdir)
            measured["second_pass"] = {
                "markdown": second_pass_table(second, opts) + economy_table(economy, machine.load_average()),
                "rows": [{**asdict(r["run"]), "extrapolated_from": None} for r in second],
                "rounds": {name: [asdict(run) for run in runs] for name, runs in economy.items()}}
        if "long" not in opts.skip and opts.long_file:
            long_rows = long_file_rows(opts, workdir)
            measured["long_file"] = {"rows": [{"services": label, **asdict(run)} for label, run in long_rows]}
    if "parse" not in opts.skip:
        log("parse throughput")
        results = parse_benchmarks(opts.corpus if opts.corpus.is_dir() else None, opts.parse_seconds)
        measured["parse"] = {"markdown": parse_table(results, opts.parse_seconds) + yardstick_table(results),
                             "rows": [{**asdict(r), "rate": r.rate} for r in results]}
    info["load average at end (1/5/15 min)"] = machine.load_average()
    raw_path = opts.out.with_name("results.json")
    sections = results_file.merge(results_file.load(raw_path), measured, {
        "command": command, "commit": machine.commit(REPO), "machine": info,
        "options": {k: str(v) for k, v in vars(opts).items()}})
    if "long_file" in measured:  # rows of the other services' run measured earlier on the same file are kept
        sections["long_file"]["markdown"] = long_file_table(
            [(row["services"], results_file.fetch_run(row)) for row in sections["long_file"]["rows"]])
    text = results_file.markdown(sections)
    opts.out.write_text(text, encoding="utf-8")
    results_file.save(raw_path, sections)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
