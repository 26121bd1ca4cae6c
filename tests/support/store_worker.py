"""A separate process that writes to a pubfetch database, for the kill and concurrency tests of
tests/test_store_processes.py and tests/test_store_postgres.py.

Usage:
    python store_worker.py kill DB ROUND        put big publications (and merges, removes, webpages) until killed
    python store_worker.py put DB START COUNT   put COUNT distinct publications with PMIDs START .. START+COUNT-1
    python store_worker.py merge DB COUNT SIDE  put PMIDs 1 .. COUNT, each with the PMCID (SIDE pmcid) or the DOI
                                                (SIDE doi) only, so two such processes merge into the same entries

Also imported by the tests for :func:`make_pub`, so both sides build publications the same way.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pubfetch.model import PartType, Publication, Webpage
from pubfetch.store import open_db, open_store


def _clock() -> int:
    return 1_700_000_000_000


def make_pub(pmid: str = "", pmcid: str = "", doi: str = "", title: str = "", fulltext: str = "") -> Publication:
    """A publication with the given IDs (with their standard links) and some content."""
    pub = Publication(clock=_clock)
    if pmid:
        pub.pmid.set(pmid, PartType.pubmed_xml, f"https://www.ncbi.nlm.nih.gov/pubmed/?term={pmid}", _clock)
    if pmcid:
        pub.pmcid.set(pmcid, PartType.pmc_xml, f"https://www.ncbi.nlm.nih.gov/pmc/articles/{pmcid}/", _clock)
    if doi:
        pub.doi.set(doi, PartType.doi, f"https://doi.org/{doi}", _clock)
    if title:
        pub.title.set(title, PartType.europepmc, "https://www.ebi.ac.uk/europepmc/", _clock)
    if fulltext:
        pub.fulltext.set(fulltext, PartType.europepmc_xml, "https://www.ebi.ac.uk/europepmc/fulltext", _clock)
    pub.keywords.set(["alpha", "beta", "γάμμα"], PartType.europepmc, "https://www.ebi.ac.uk/europepmc/", _clock)
    pub.journal_title = "Journal of Tests"
    pub.pub_date = 1_500_000_000_000
    pub.state.fetch_time = _clock()
    return pub


def _big_text(rng: random.Random, size: int) -> str:
    words = ["protein", "sequence", "alignment", "genome", "structure", "tool", "database", "ω-3", "β-sheet"]
    out: list[str] = []
    n = 0
    while n < size:
        w = rng.choice(words)
        out.append(w)
        n += len(w) + 1
    return " ".join(out)


def run_kill(db: str, round_no: int) -> None:
    """Put forever: fresh entries, merges of a DOI-only entry into a PMID entry, removes, big webpages."""
    rng = random.Random(round_no)
    # texts made up front, so the loop spends its time writing (where a kill must not leave half an entry)
    texts = [_big_text(rng, size) for size in (300_000, 800_000, 1_500_000, 2_500_000)]
    store = open_db(db)
    print("ready", flush=True)
    i = round_no * 100_000
    while True:
        i += 1
        text = f"{i} {texts[i % len(texts)]}"
        step = i % 4
        if step == 0:
            store.put_publication(make_pub(pmid=str(i), pmcid=f"PMC{i}", doi=f"10.1000/k{i}", title=f"T{i}",
                                           fulltext=text))
        elif step == 1:
            store.put_publication(make_pub(doi=f"10.1000/k{i}", title=f"D{i}", fulltext=text))
            store.put_publication(make_pub(pmid=str(i), doi=f"10.1000/k{i}", title=f"M{i}", fulltext=text))
        elif step == 2:
            store.put_publication(make_pub(pmid=str(i), title=f"P{i}", fulltext=text))
            store.remove_publication(str(i - 2))
        else:
            store.put_webpage(Webpage(start_url=f"https://example.org/{i}", final_url=f"https://example.org/{i}",
                                      status_code=200, title=f"W{i}", content=text))


def run_put(db: str, start: int, count: int) -> None:
    store = open_db(db)
    for k in range(start, start + count):
        store.put_publication(make_pub(pmid=str(k), doi=f"10.2000/c{k}", title=f"title {k}", fulltext="x" * 2000))
    store.close()
    print("done", flush=True)


def run_merge(db: str, count: int, side: str) -> None:
    store = open_store(db)
    print("ready", flush=True)
    sys.stdin.readline()  # both processes start writing together
    for k in range(1, count + 1):
        if side == "pmcid":
            store.put_publication(make_pub(pmid=str(k), pmcid=f"PMC{k}", title=f"title {k}"))
        else:
            store.put_publication(make_pub(pmid=str(k), doi=f"10.3000/M{k}", title=f"title {k}"))
    store.close()
    print("done", flush=True)


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "kill":
        run_kill(path, int(sys.argv[3]))
    elif mode == "merge":
        run_merge(path, int(sys.argv[3]), sys.argv[4])
    elif mode == "put":
        run_put(path, int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(f"unknown mode {mode}")
