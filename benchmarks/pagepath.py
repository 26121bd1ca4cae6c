"""A fetched publisher page as the fetcher handles it: ``resources.site._merge_page`` on the recorded pages.

This is everything a fetch run does with a page once its body has arrived: parse it, check for a block page, find its
rule (by host, else by the platform fingerprints the page carries), read its licence and meta tags, apply the rule or,
for a page no rule fits, the generic article reader (with PubFetcher's cleaned page as the last resort), and merge the
result into the publication. Where the checkout reads pages in worker processes, their IPC is in the wall time and
their CPU time (read from /proc) in the CPU time. Two modes: with the built-in rules at the page's recorded address (what a fetch of the
corpus's DOIs does), and with no rules at all (every page read as one no rule knows).

Run alone it prints both rates for the pubfetch first on ``sys.path``, beside ``trafilatura.extract`` with its defaults
(the call a user would make instead), the three taking turns for ``--rounds`` rounds, so the same measurement can be
made on another checkout, back to back on one machine (the function it calls has kept its signature):

    PYTHONPATH=/path/to/checkout python benchmarks/pagepath.py [--corpus ../shared/corpus] [--seconds 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Every manifest of the corpus: the first batch and the publisher pages of the second and third.
ALL_MANIFESTS = ("manifest.jsonl", "pages.jsonl", "pages3.jsonl")
#: Where a page is put when no rule should know it (the rules are empty then anyway).
NO_RULE_URL = "https://publisher.invalid/article"
#: CPU seconds of each page-reading worker process seen (by pid), for the CPU a page costs where it is read in one.
_WORKER_CPU: dict[int, float] = {}


def _context(rules: object) -> Any:
    """The context of a fetch run with ``rules`` (``None``: the built-in ones), as the checkout builds one."""
    from pubfetch.config import FetchConfig

    try:
        from pubfetch.engine.assembly import FetchRun

        return FetchRun(FetchConfig().with_changes(rate_limits=False), rules=rules).context
    except (ImportError, TypeError):  # a checkout from before the run had one builder
        from pubfetch.resources.base import Context

        return Context(rules=rules)


def _pub_state_class() -> Any:
    """The class of one publication's state in a fetch, as the checkout names it and wherever it keeps it (PubRun in
    resources/pubrun.py before its rename, in resources/base.py before it had a module of its own)."""
    for module, name in (("pubfetch.resources.pubstate", "PubState"), ("pubfetch.resources.pubrun", "PubRun"),
                         ("pubfetch.resources.base", "PubRun")):
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
    raise ImportError("this checkout of pubfetch has no class for a publication's state in a fetch")


def _note_workers(ctx: object) -> None:
    """Record the CPU time of the context's live page workers (Linux's /proc; a checkout without them has none)."""
    note_pool(getattr(getattr(ctx, "_made", None), "page_workers", None) or getattr(ctx, "_page_workers", None))


def note_pool(pool: Any) -> None:
    """Record the CPU time of a worker pool's live processes (page or PDF workers), for :func:`workers_cpu`."""
    if pool is None or not Path("/proc/self/stat").exists():
        return
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pool.pids():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        _WORKER_CPU[pid] = (int(fields[11]) + int(fields[12])) / tick  # utime and stime


def workers_cpu() -> float:
    """CPU seconds the page workers have used so far (ended workers counted as last seen)."""
    return sum(_WORKER_CPU.values())


#: The DOI each recorded page is the paper of (by its recorded address), from the corpus manifests.
PAGE_DOIS: dict[str, str] = {}
#: The DOI a page is fetched for when the manifest names none.
SOME_DOI = "10.1000/page"


def corpus_pages(corpus: Path | None) -> list[tuple[str, bytes]]:
    """(recorded address, body) of every recorded publisher page answered 200 (their DOIs noted in
    :data:`PAGE_DOIS`)."""
    out: list[tuple[str, bytes]] = []
    if corpus is None:
        return out
    for manifest in ALL_MANIFESTS:
        if not (corpus / manifest).is_file():
            continue
        with open(corpus / manifest, encoding="utf-8") as f:
            for line in f:
                row = json.loads(line) if line.strip() else {}
                if row.get("resource") == "publisher_page" and row.get("status") == 200 and row.get("body"):
                    out.append((row["url"], (corpus / row["body"]).read_bytes()))
                    if doi := (row.get("ids") or {}).get("doi"):
                        PAGE_DOIS[row["url"]] = doi
    return out


def page_handler(with_rules: bool) -> Callable[[str, bytes], int]:
    """A function handling one page as a fetch does (a fresh publication each time, as for a page of a new DOI: the
    page's own, so that an identity check finds the paper asked for and the whole page is read and merged)."""
    from pubfetch.fetcher import init_publication
    from pubfetch.ids import classify
    from pubfetch.model.part_type import PartType
    from pubfetch.net.outcome import FetchResult, OutcomeKind
    pub_state = _pub_state_class()
    from pubfetch.resources.site import _merge_page
    from pubfetch.rules import ScrapingRules

    logging.getLogger("pubfetch").addHandler(logging.NullHandler())  # records made as in a run, not printed
    ctx = _context(None if with_rules else ScrapingRules())

    def handle(url: str, body: bytes) -> int:
        address = url if with_rules else NO_RULE_URL
        result = FetchResult(address, address, OutcomeKind.OK, status=200, content_type="text/html", body=body,
                             text=body.decode("utf-8", "replace"))
        doi = PAGE_DOIS.get(url, SOME_DOI)  # fetched for its own paper, as a fetch of the corpus's DOIs does
        state = pub_state(init_publication(classify(doi), ctx.args))
        _merge_page(ctx, state, result, PartType.doi, "https://doi.org/" + doi, address, meta=True, keywords=True)
        _note_workers(ctx)
        return 1
    return handle


def trafilatura_handler() -> Callable[[str, bytes], int]:
    """``trafilatura.extract`` with its defaults on the page's text, the call a user would make instead of pubfetch's
    reading (the yardstick of the page path; trafilatura is also what the generic reader finds a body with)."""
    import trafilatura

    def handle(_url: str, body: bytes) -> int:
        trafilatura.extract(body.decode("utf-8", "replace"))
        return 1  # a page read (some of the corpus's hold nothing to extract: head-only and block pages)
    return handle


def measure(pages: list[tuple[str, bytes]], handle: Callable[[str, bytes], int],
            min_seconds: float) -> tuple[int, int, float, float]:
    """(pages handled, bytes, wall seconds, CPU seconds of this process and its page workers): every page once, then
    again until ``min_seconds``."""
    count = size = 0
    cpu_started, started = time.process_time() + workers_cpu(), time.perf_counter()
    while True:
        for url, body in pages:
            count += handle(url, body)
            size += len(body)
        elapsed = time.perf_counter() - started
        if elapsed >= min_seconds:
            return count, size, elapsed, time.process_time() + workers_cpu() - cpu_started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "corpus")
    parser.add_argument("--seconds", type=float, default=10.0, help="minimum seconds per mode and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, the modes taking turns in each (default 3)")
    opts = parser.parse_args()
    import workercode

    workercode.share_checkout()  # the page workers read pages with the same checkout's code
    if opts.rounds < 1 or opts.seconds <= 0:
        print("--rounds must be at least 1 and --seconds above 0", file=sys.stderr)
        return 2
    import pubfetch
    print(f"pubfetch of {Path(pubfetch.__file__).parent.parent}")
    pages = corpus_pages(opts.corpus)
    if not pages:
        print(f"no recorded publisher pages under {opts.corpus}; give the corpus with --corpus", file=sys.stderr)
        return 2
    modes = {"built-in rules at the recorded address": page_handler(True), "no rules": page_handler(False),
             "trafilatura.extract, its defaults": trafilatura_handler()}
    for handle in modes.values():
        for url, body in pages:  # warm up: imports, rule compilation, the page workers' start
            handle(url, body)
    rates: dict[str, list[tuple[float, float]]] = {mode: [] for mode in modes}
    for _ in range(opts.rounds):  # the modes in turns, so that a change of the machine's load reaches them alike
        for mode, handle in modes.items():
            count, _size, wall, cpu = measure(pages, handle, opts.seconds)
            rates[mode].append((count / wall, count / cpu))
    for mode, values in rates.items():
        walls = ", ".join(f"{w:.1f}" for w, _ in values)
        cpus = ", ".join(f"{c:.1f}" for _, c in values)
        print(f"{mode}: {len(pages)} pages; pages/s wall {walls} (median {statistics.median(w for w, _ in values):.1f});"
              f" pages per CPU-second {cpus} (median {statistics.median(c for _, c in values):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
