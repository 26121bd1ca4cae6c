"""Parse throughput: PubMed efetch XML, JATS full text, HTML cleaning, the generic article reader (beside trafilatura
alone), a publisher page as a fetch handles it (:mod:`pagepath`) and PDF extraction, on recorded and synthetic
documents. The page path is measured in turns beside ``trafilatura.extract`` with its defaults, and PDF text beside
PyMuPDF (yardsticks only: neither is a dependency), the medians of the rounds kept.

Each measurement runs the parser over its whole document set, again and again until ``min_seconds`` have passed, and
counts the units it produced (records, articles, pages), so small and large documents weigh as they would in a run.
Network and database are not involved: this is the CPU cost per document that the fetch benchmark's wall times hide.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

if __name__ == "__main__":  # run alone: this checkout's pubfetch (its workers too: pdf_rows shares it)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import documents
import pagepath
import workercode
from pubfetch.extract.article import cleaned_page, read_article
from pubfetch.extract.clean import clean_html, parse_html
from pubfetch.extract.jats import parse_jats
from pubfetch.extract.meta import parse_meta
from pubfetch.extract.pdf import extract_pdf, extract_pdf_in_process, pdf_workers
from pubfetch.extract.pubmed import parse_pubmed_xml
from pubfetch.extract.workerpool import WorkerPool
from pubfetch.model.rich import RichName
from services import SyntheticServices


@dataclass
class Throughput:
    """``units`` produced from ``documents`` parses (of ``distinct`` different files) of ``size`` bytes in total, in
    ``seconds`` of wall time and ``cpu_seconds`` of this process's CPU time (the measure that a busy machine does not
    distort; ``in_process`` is False when the work is done by another process, whose CPU time is not counted)."""

    kind: str
    source: str
    unit: str
    distinct: int
    documents: int
    size: int
    units: int
    seconds: float
    cpu_seconds: float = 0.0
    in_process: bool = True
    #: (units per wall second, units per CPU-second) of each round when measured in turns (:func:`measure_interleaved`)
    rounds: list[tuple[float, float]] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.units / self.seconds if self.seconds else 0.0

    @property
    def cpu_rate(self) -> float:
        """Units per CPU-second of this process; 0 when the work is not done in it."""
        return self.units / self.cpu_seconds if self.cpu_seconds and self.in_process else 0.0

    @property
    def median_rate(self) -> float:
        """The median of the rounds' units per wall second (the whole run's rate when not measured in rounds)."""
        return statistics.median(r[0] for r in self.rounds) if self.rounds else self.rate

    @property
    def median_cpu_rate(self) -> float:
        """The median of the rounds' units per CPU-second (the whole run's when not measured in rounds)."""
        return statistics.median(r[1] for r in self.rounds) if self.rounds else self.cpu_rate

    @property
    def mb_per_s(self) -> float:
        return self.size / self.seconds / 1e6 if self.seconds else 0.0


def measure(kind: str, source: str, unit: str, docs: list[bytes], parse: Callable[[bytes], int],
            min_seconds: float, in_process: bool = True,
            cpu_clock: Callable[[], float] = time.process_time) -> Throughput | None:
    """Run ``parse`` over ``docs`` (at least once, then until ``min_seconds``); ``parse`` returns the units made.
    ``cpu_clock``: the CPU seconds the work has used so far (this process's, plus its workers' where it has any)."""
    if not docs:
        return None
    units = size = count = 0
    cpu_started = cpu_clock()
    started = time.perf_counter()
    while True:
        for doc in docs:
            produced = parse(doc)
            if produced <= 0:
                raise RuntimeError(f"{kind} ({source}): a document gave nothing; the benchmark would be meaningless")
            units += produced
            size += len(doc)
            count += 1
        elapsed = time.perf_counter() - started
        if elapsed >= min_seconds:
            return Throughput(kind, source, unit, len(docs), count, size, units, elapsed,
                              cpu_clock() - cpu_started, in_process)


ALL_MANIFESTS = pagepath.ALL_MANIFESTS


def corpus_bodies(corpus: Path | None, resources: tuple[str, ...], content_type: str = "",
                  manifests: tuple[str, ...] = ("manifest.jsonl",)) -> list[bytes]:
    """Bodies of the recorded 200 answers of these resources (optionally of one content type) in these manifests."""
    if corpus is None or not (corpus / "manifest.jsonl").is_file():
        return []
    out = []
    for manifest in manifests:
        if not (corpus / manifest).is_file():
            continue
        with open(corpus / manifest, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                row = json.loads(line)
                ctype = (row.get("headers") or {}).get("Content-Type", "")
                if row["resource"] in resources and row["status"] == 200 and row.get("body") and content_type in ctype:
                    out.append((corpus / row["body"]).read_bytes())
    return out


def _records(doc: bytes) -> int:
    return len(parse_pubmed_xml(doc))


def _articles(doc: bytes) -> int:
    return len(parse_jats(doc))


def _page(doc: bytes) -> int:
    return 1 if clean_html(doc, publication=True) else 0


def _cleaned_page(doc: bytes) -> int:
    """A page without a rule as the fetcher read it before the generic reader: meta tags, then the cleaned page."""
    html = doc.decode("utf-8", "replace")
    parse_meta(html, "")
    clean_html(parse_html(html), publication=True)
    return 1  # a page read, as for _reader_page


def _reader_page(doc: bytes) -> int:
    """A page without a rule as the fetcher reads it now: parsed once, meta tags, then the generic reader (its
    fallback to the cleaned page included), against :func:`_page`, which is what the fetcher did before."""
    html = doc.decode("utf-8", "replace")
    meta = parse_meta(html, "")
    soup = parse_html(html)
    article = read_article(html, soup, "", meta.title, (meta.journal_title, meta.publisher))
    if not article.fulltext:
        cleaned_page(soup, "", article)  # PubFetcher's fallback for a page without a rule, as resources/site.py does
    return 1  # a page read (some of the corpus's hold nothing to read: head-only and block pages)


def _trafilatura_page(doc: bytes) -> int:
    """trafilatura alone, as the reader calls it (its own parse included): the main content with recall favoured."""
    import trafilatura
    trafilatura.bare_extraction(doc.decode("utf-8", "replace"), fast=True, favor_recall=True, include_tables=True,
                                include_comments=False, with_metadata=False)
    return 1  # a page read, as for _reader_page


def _fetched_pages(corpus: Path | None, with_rules: bool) -> tuple[list[bytes], Callable[[bytes], int]]:
    """The recorded publisher pages and a function handling one as a fetch does (:mod:`pagepath`), at the page's
    recorded address with the built-in rules, or with no rules at all."""
    pages = pagepath.corpus_pages(corpus)
    address = {body: url for url, body in pages}
    handle = pagepath.page_handler(with_rules)
    return [body for _, body in pages], lambda doc: handle(address[doc], doc)


def _pdf_pages(doc: bytes) -> int:
    result = extract_pdf_in_process(doc)
    return min(result.pages, 200) if result.text else 0


def _pdf_pages_in_worker(workers: WorkerPool) -> Callable[[bytes], int]:
    """Through the time-limited worker as a fetch run uses it: one worker process reused from file to file. The
    pool's CPU is noted after each file: a worker is replaced after its 200th job, and what it used since the last
    reading would be lost with it (rounds of 911 and 2,518 pages per CPU-second where the others had 350)."""
    def parse(doc: bytes) -> int:
        result = extract_pdf(doc, workers=workers)
        _pool_cpu(workers)
        return min(result.pages, 200) if result.text else 0
    return parse


#: pubfetch's JATS reader with and without the rich parts, each beside the pubmed_parser work that compares with it
JATS_FULL = ("JATS full text, pubfetch (metadata, full text, corresponding authors + funding, references, sections, "
             "licence, tables, figures, supplements, statements)")
JATS_FULL_PP = "JATS full text, pubmed_parser (metadata + paragraphs + references + tables)"
JATS_LIKE = "JATS full text, pubfetch with references and sections (what pubmed_parser's three calls read)"
JATS_LIKE_PP = "JATS full text, pubmed_parser (metadata + paragraphs + references)"
#: the rich parts of :data:`JATS_LIKE`: pubmed_parser's paragraphs carry their section's title, as sections do
LIKE_PUBMED_PARSER = frozenset((RichName.references, RichName.sections))
JATS_PLAIN = "JATS full text, pubfetch without the rich parts (metadata, full text, corresponding authors)"
JATS_PLAIN_PP = "JATS full text, pubmed_parser (metadata + paragraphs)"


def _pubmed_parser_reads(pubmed_parser: ModuleType, with_references: bool, with_tables: bool = True
                         ) -> Callable[[str], int]:
    """pubmed_parser's article metadata (``parse_pubmed_xml``), every body paragraph (``parse_pubmed_paragraph``
    with ``all_paragraph=True``) and, when asked, the reference list (``parse_pubmed_references``) and the tables
    (``parse_pubmed_table``, as lists of values, unless not ``with_tables``), each a call of its own on the file's
    path: its API reads and parses the file in each."""
    def read(path: str) -> int:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its deprecation warnings are not the measurement
            pubmed_parser.parse_pubmed_xml(path)
            pubmed_parser.parse_pubmed_paragraph(path, all_paragraph=True)
            if with_references:
                pubmed_parser.parse_pubmed_references(path)
                if with_tables:
                    pubmed_parser.parse_pubmed_table(path, return_xml=False)
        return 1
    return read


#: Turns of the rows measured beside each other (:func:`measure_interleaved`): the medians of :func:`paired_ratios`
#: are read from them.
TURNS = 7


def measure_interleaved(sets: list[tuple[str, str, str, list[bytes], Callable[[bytes], int]]], min_seconds: float,
                        rounds: int = TURNS, cpu_clocks: dict[str, Callable[[], float]] | None = None
                        ) -> list[Throughput]:
    """:func:`measure` of several parsers taking turns (``rounds`` turns of ``min_seconds / rounds`` each), so that
    a machine whose load changes during the measurement changes it for all of them alike; each row keeps its rounds'
    rates for their medians and for :func:`paired_ratios`. Every other turn goes through the sets backwards: a row and
    its yardstick beside it take turns at going first, so that a machine speeding up or slowing down through the run
    favours neither. ``cpu_clocks``: by kind, the CPU clock of work done partly in worker processes."""
    totals: list[Throughput | None] = [None] * len(sets)
    for turn in range(rounds):
        order = list(enumerate(sets))
        for i, (kind, source, unit, docs, parse) in order if turn % 2 == 0 else reversed(order):
            clock = (cpu_clocks or {}).get(kind, time.process_time)
            part = measure(kind, source, unit, docs, parse, min_seconds / rounds, cpu_clock=clock)
            if part is None:
                return []
            part.rounds.append((part.rate, part.units / part.cpu_seconds if part.cpu_seconds else 0.0))
            total = totals[i]
            if total is None:
                totals[i] = part
            else:
                total.documents += part.documents
                total.size += part.size
                total.units += part.units
                total.seconds += part.seconds
                total.cpu_seconds += part.cpu_seconds
                total.rounds += part.rounds
    return [total for total in totals if total is not None]


def pubmed_parser_rows(corpus: Path | None, min_seconds: float) -> list[Throughput]:
    """pubfetch's JATS reader beside pubmed_parser (the PubMed Open Access parser) on the recorded full texts that
    pubmed_parser reads (its metadata parser fails on one without a publication year), in turns: the full reading
    (what the fetcher does) beside pubmed_parser's metadata, paragraphs and references, and the reading without the
    rich parts beside its metadata and paragraphs. Each is given what it takes: bytes for pubfetch, a file path for
    pubmed_parser. Nothing when pubmed_parser is not installed; it is not a dependency, only the yardstick."""
    try:
        import pubmed_parser
    except ImportError:
        return []
    docs = corpus_bodies(corpus, ("europepmc_fulltext", "pmc_efetch"))
    plain_pp = _pubmed_parser_reads(pubmed_parser, with_references=False)
    full_pp = _pubmed_parser_reads(pubmed_parser, with_references=True)
    like_pp = _pubmed_parser_reads(pubmed_parser, with_references=True, with_tables=False)
    with tempfile.TemporaryDirectory(prefix="parsebench-") as folder:
        readable: dict[bytes, str] = {}
        for i, doc in enumerate(docs):
            path = Path(folder) / f"article{i}.xml"
            path.write_bytes(doc)
            try:
                full_pp(str(path))
            except Exception:  # noqa: BLE001 - a file it cannot read is left out of every row
                continue
            readable[doc] = str(path)
        source = "corpus, the files pubmed_parser reads"
        files = list(readable)
        return measure_interleaved([
            (JATS_FULL, source, "articles", files, _articles),
            (JATS_FULL_PP, source, "articles", files, lambda doc: full_pp(readable[doc])),
            (JATS_LIKE, source, "articles", files, lambda doc: len(parse_jats(doc, rich_parts=LIKE_PUBMED_PARSER))),
            (JATS_LIKE_PP, source, "articles", files, lambda doc: like_pp(readable[doc])),
            (JATS_PLAIN, source, "articles", files, lambda doc: len(parse_jats(doc, rich_parts=False))),
            (JATS_PLAIN_PP, source, "articles", files, lambda doc: plain_pp(readable[doc])),
        ], min_seconds)


PAGE_PATH_RULES = "Publisher page as a fetch handles it (rule by host or platform, else the generic reader)"
PAGE_PATH_NO_RULES = ("Publisher page as a fetch handles it, no rules (block check, licence, meta tags, generic reader, "
                      "merge)")
TRAFILATURA_EXTRACT = "trafilatura.extract(html), its defaults (the yardstick of the page path)"
PDF_IN_PROCESS = "PDF extraction (pypdfium2), in process"
PDF_IN_WORKER = "PDF extraction (pypdfium2), time-limited worker process"
PDF_PYMUPDF = "PyMuPDF: every page's get_text() (the yardstick)"
PDF_BATCH = "PDF extraction (pypdfium2), a batch of files in parallel, one per worker of a pool of one per CPU"
#: copies of the corpus's PDFs in a batch of :data:`PDF_BATCH` (3 files alone would leave a worker idle for long)
BATCH_COPIES = 4
#: :mod:`pubmedbench`'s rows compared with pubmed_parser's MEDLINE parser, like for like
PUBMED_LIKE = "PubMed XML, pubfetch with references and funding (what pubmed_parser reads)"
PUBMED_LIKE_PP = "PubMed XML, pubmed_parser.parse_medline_xml(reference_list=True), again"
PUBMED_PLAIN = "PubMed XML, pubfetch without the rich parts"
PUBMED_PLAIN_PP = "PubMed XML, pubmed_parser.parse_medline_xml (defaults)"


#: Each pubfetch row measured in turns beside its yardstick (:func:`paired_ratios`): the issue's goals and the rows
#: that explain them. PubMed's rows are :mod:`pubmedbench`'s.
YARDSTICKS = (
    (PAGE_PATH_RULES, TRAFILATURA_EXTRACT),
    (PDF_IN_WORKER, PDF_PYMUPDF),
    (PDF_IN_PROCESS, PDF_PYMUPDF),
    (JATS_LIKE, JATS_LIKE_PP),
    (JATS_PLAIN, JATS_PLAIN_PP),
    (PUBMED_LIKE, PUBMED_LIKE_PP),
    (PUBMED_PLAIN, PUBMED_PLAIN_PP),
)


@dataclass
class Paired:
    """A row beside its yardstick, round by round: the ratios of their rates (wall and CPU) in each turn, taken one
    right after the other, and the ratio of their medians."""

    kind: str
    yardstick: str
    wall: list[float]
    cpu: list[float]
    of_medians_wall: float
    of_medians_cpu: float

    @property
    def median_wall(self) -> float:
        return statistics.median(self.wall) if self.wall else 0.0

    @property
    def median_cpu(self) -> float:
        return statistics.median(self.cpu) if self.cpu else 0.0


def paired_ratios(results: list[Throughput]) -> list[Paired]:
    """Each :data:`YARDSTICKS` pair measured in the same turns: on a machine whose speed changes from second to
    second (a shared virtual machine's did by 1.8x), the ratio within a turn, where the two ran side by side, varies
    less than either row's own rate; its median over the turns is the figure the goals are read from."""
    by_kind = {row.kind: row for row in results}
    out = []
    for kind, yardstick in YARDSTICKS:
        row, peer = by_kind.get(kind), by_kind.get(yardstick)
        if row is None or peer is None or not row.rounds or len(row.rounds) != len(peer.rounds):
            continue
        wall = [a[0] / b[0] for a, b in zip(row.rounds, peer.rounds, strict=True) if b[0]]
        cpu = [a[1] / b[1] for a, b in zip(row.rounds, peer.rounds, strict=True) if b[1]]
        out.append(Paired(kind, yardstick, wall, cpu,
                          row.median_rate / peer.median_rate if peer.median_rate else 0.0,
                          row.median_cpu_rate / peer.median_cpu_rate if peer.median_cpu_rate else 0.0))
    return out


def page_rows(corpus: Path | None, min_seconds: float) -> list[Throughput]:
    """The page path (:mod:`pagepath`: with the built-in rules at the recorded address, and with none; the page
    workers' CPU counted) beside ``trafilatura.extract`` with its defaults, in turns, on every recorded publisher
    page; with the generic reader, the cleaning and trafilatura as the reader calls it."""
    pages = pagepath.corpus_pages(corpus)
    if not pages:
        return []
    bodies = [body for _, body in pages]
    extract = pagepath.trafilatura_handler()
    source = "corpus, all publisher pages (at their addresses with the rules)"

    def clock() -> float:  # the page workers' CPU as last seen: after each page (pagepath.page_handler)
        return time.process_time() + pagepath.workers_cpu()
    sets = [(PAGE_PATH_RULES, source, "pages", *_fetched_pages(corpus, True)),
            (PAGE_PATH_NO_RULES, source, "pages", *_fetched_pages(corpus, False)),
            (TRAFILATURA_EXTRACT, source, "pages", bodies, lambda doc: extract("", doc)),
            ("Generic article reader (meta tags, title, abstract, body)", source, "pages", bodies, _reader_page),
            ("HTML cleaning (jsoup-like, the page without a rule before)", source, "pages", bodies, _cleaned_page),
            ("trafilatura alone, as the generic reader calls it (main content)", source, "pages", bodies,
             _trafilatura_page)]
    for _kind, _source, _unit, docs, parse in sets[:2]:
        for doc in docs:  # warm up: the rules' selectors compiled, the page workers started
            parse(doc)
    return measure_interleaved(sets, min_seconds * 2,
                               cpu_clocks={PAGE_PATH_RULES: clock, PAGE_PATH_NO_RULES: clock})


def _pymupdf_pages(pymupdf: ModuleType) -> Callable[[bytes], int]:
    """PyMuPDF's text of every page (up to the 200 pubfetch reads), each page's ``get_text()``: the plain call."""
    def parse(doc: bytes) -> int:
        with pymupdf.open(stream=doc, filetype="pdf") as pdf:
            pages = min(pdf.page_count, 200)
            text = [pdf[i].get_text() for i in range(pages)]
        return pages if any(text) else 0
    return parse


def _pdf_batch(workers: WorkerPool, threads: ThreadPoolExecutor, files: list[bytes]
               ) -> tuple[bytes, Callable[[bytes], int]]:
    """A batch of ``files`` (its "document": their bytes joined) and a function reading it as a run's threads read
    their PDFs: each file in one of ``threads``, through the pool ``workers``, one file per worker at a time. No file
    costs more CPU than alone; the files only overlap in time."""
    batch = b"".join(files)
    read = _pdf_pages_in_worker(workers)

    def parse(doc: bytes) -> int:
        if doc is not batch:
            raise ValueError("not this batch")
        return sum(threads.map(read, files))
    return batch, parse


def pdf_rows(corpus: Path | None, min_seconds: float) -> list[Throughput]:
    """PDF text in process, through the time-limited worker (its CPU counted) and, as a run with a thread per CPU
    reads them, a batch of the files in parallel through a pool of one worker per CPU (:func:`_pdf_batch`; its
    workers' CPU counted), beside PyMuPDF's loop over the files when it is installed (a yardstick only, never a
    dependency), in turns on the corpus's PDFs, each after one untimed pass (the worker's first files paid for its
    heap's growth, which the other two had paid before the clock)."""
    docs = corpus_bodies(corpus, ("pdf",), "application/pdf")
    if not docs:
        return []
    workercode.share_checkout()  # in time if no worker of this process started the fork server yet
    workers = pdf_workers(1)
    pool = pdf_workers(os.cpu_count() or 1)
    in_worker = _pdf_pages_in_worker(workers)

    def clock() -> float:
        return time.process_time() + _pool_cpu(workers)

    def pool_clock() -> float:
        return time.process_time() + _pool_cpu(pool)
    threads = ThreadPoolExecutor(pool.size, thread_name_prefix="pdfbatch")
    batch, read_batch = _pdf_batch(pool, threads, docs * BATCH_COPIES)
    sets = [(PDF_IN_PROCESS, "corpus", "pages", docs, _pdf_pages),
            (PDF_IN_WORKER, "corpus", "pages", docs, in_worker)]
    try:
        import pymupdf
    except ImportError:
        pymupdf = None
    if pymupdf is not None:  # between the two it is compared with, each turn
        sets.insert(1, (PDF_PYMUPDF, "corpus", "pages", docs, _pymupdf_pages(pymupdf)))
    sets.append((PDF_BATCH, f"corpus, {BATCH_COPIES} copies", "pages", [batch], read_batch))
    try:
        _check_worker_code(workers, "pubfetch.extract.pdf")  # and the worker started before the clock runs
        _check_worker_code(pool, "pubfetch.extract.pdf")  # the pool's others fork from the same server
        for _kind, _source, _unit, files, parse in sets:  # one pass each before the clock: libraries and heaps warm
            for doc in files:
                parse(doc)
        return measure_interleaved(sets, min_seconds * 2,
                                   cpu_clocks={PDF_IN_WORKER: clock, PDF_BATCH: pool_clock})
    finally:
        threads.shutdown()
        workers.close()
        pool.close()


#: CPU seconds of each PDF worker process as last seen (a worker replaced after its jobs keeps its count)
_POOL_CPU: dict[int, float] = {}


def _pool_cpu(workers: WorkerPool) -> float:
    """CPU seconds the pool's workers have used so far, from /proc/<pid>/schedstat (nanoseconds on a CPU) rather than
    /proc/<pid>/stat, whose 10 ms ticks made a round's 0.5 to 1 CPU-second of a worker uncertain by 1 to 2 %; where
    schedstat is missing, the ticks (:func:`pagepath.note_pool`)."""
    for pid in workers.pids():
        try:
            _POOL_CPU[pid] = int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            pagepath.note_pool(workers)
            return pagepath.workers_cpu()
    return sum(_POOL_CPU.values())


def _check_worker_code(workers: WorkerPool, module: str) -> None:
    """Refuse to measure a worker that runs another checkout's ``module`` than this process (:mod:`workercode`)."""
    outcome = workers.run(workercode.module_file, module, time_limit=120)
    here = workercode.module_file(module)
    if outcome.value != here:
        raise RuntimeError(f"the worker runs {outcome.value or outcome.message}, this process {here}: run the benchmark "
                           f"with PYTHONPATH set to the checkout (benchmarks/run.py does it)")


def parse_benchmarks(corpus: Path | None, min_seconds: float = 3.0) -> list[Throughput]:
    """Every parse measurement, corpus first, then synthetic documents."""
    synth = SyntheticServices(2000)
    sets = [
        ("PubMed efetch XML", "corpus", "records", corpus_bodies(corpus, ("pubmed_efetch",)), _records),
        ("PubMed efetch XML", "synthetic, 200 per set", "records",
         [documents.pubmed_set(synth, k * 200, 200) for k in range(5)], _records),
        ("JATS full text", "corpus", "articles", corpus_bodies(corpus, ("europepmc_fulltext", "pmc_efetch")),
         _articles),
        ("JATS full text", "synthetic", "articles", [documents.jats_article(synth, 2 * k) for k in range(200)],
         _articles),
        ("HTML cleaning", "corpus", "pages", corpus_bodies(corpus, ("publisher_page",)), _page),
        ("HTML cleaning", "synthetic", "pages", [documents.publisher_page(k) for k in range(50)], _page),
        ("PDF extraction", "synthetic, 10 pages", "pages", [documents.text_pdf(k, 10) for k in range(5)], _pdf_pages),
    ]
    results = page_rows(corpus, min_seconds) + pdf_rows(corpus, min_seconds)
    for kind, source, unit, docs, parse in sets:
        result = measure(kind, source, unit, docs, parse, min_seconds)
        if result is not None:
            results.append(result)
        if kind == "PubMed efetch XML" and source.startswith("synthetic"):
            from pubmedbench import medline_rows  # it builds on this module's measurements

            results += medline_rows(min_seconds)
        if kind == "JATS full text" and source == "synthetic":
            results += pubmed_parser_rows(corpus, min_seconds)
    return results


def main() -> int:
    """``python benchmarks/parsebench.py --pdf [--seconds S] [--corpus DIR]``: the PDF rows alone (pdf_rows), the
    medians of their rounds and the worker's ratios to PyMuPDF (the whole set runs from ``run.py``)."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--pdf", action="store_true", required=True, help="the PDF rows (the only set run alone)")
    parser.add_argument("--seconds", type=float, default=3.0, help="min_seconds of pdf_rows (each row: twice that)")
    parser.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "corpus")
    opts = parser.parse_args()
    rows = {row.kind: row for row in pdf_rows(opts.corpus, opts.seconds)}
    if not rows:
        print(f"no recorded PDFs under {opts.corpus}: pass --corpus")
        return 1
    for row in rows.values():
        rounds = ", ".join(f"{wall:.0f}/{cpu:.0f}" for wall, cpu in row.rounds)
        print(f"{row.kind}: {row.median_rate:.1f} pages/s wall, {row.median_cpu_rate:.1f} per CPU-second "
              f"(medians of {len(row.rounds)} rounds, wall/CPU: {rounds})")
    for pair in paired_ratios(list(rows.values())):
        print(f"{pair.kind} / PyMuPDF, the median of the turns' ratios: {pair.median_wall:.3f} in wall time "
              f"({min(pair.wall):.3f}-{max(pair.wall):.3f}), {pair.median_cpu:.3f} per CPU-second "
              f"({min(pair.cpu):.3f}-{max(pair.cpu):.3f}); of the medians: {pair.of_medians_wall:.3f}, "
              f"{pair.of_medians_cpu:.3f}")
    if PDF_PYMUPDF in rows:
        yardstick = rows[PDF_PYMUPDF]
        if PDF_BATCH in rows:
            batch = rows[PDF_BATCH]
            print(f"batch in parallel ({os.cpu_count()} workers) / PyMuPDF's loop: "
                  f"{batch.median_rate / yardstick.median_rate:.3f} in wall time, "
                  f"{batch.median_cpu_rate / yardstick.median_cpu_rate:.3f} per CPU-second")
    return 0


if __name__ == "__main__":
    sys.exit(main())
