"""One import: files not yet recorded, each parsed and merged by a worker process, reported file by file.

Each file is one job of a worker (its own database connection, its own transactions); files may finish out of order
because the versions table (:mod:`pubfetch.bulk.ledger`) makes the outcome that of applying them in order. A file
that cannot be read (wrong MD5, damaged part way) is said with its name and where, is not recorded, and the others
go on; the run then ends with status 3 (some failed), as a fetch does.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from pubfetch.bulk.apply import Applied, JatsItem, apply_citations, apply_jats, jats_url
from pubfetch.bulk.jatsfiles import part_type_of, read_jats_file
from pubfetch.bulk.ledger import FileRecord, ensure_tables, file_rank, imported_files, newest_rank, record_file
from pubfetch.bulk.medline import Citation, Damaged, Deletion, read_medline
from pubfetch.bulk.sources import BulkFile, FileProblem, checked_md5
from pubfetch.extract.gcpause import collection_paused
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.logforward import forwarded_logs
from pubfetch.store import open_or_init_store, open_store
from pubfetch.store.base import StoreError
from pubfetch.store.sql import SqlStore, Tx

__all__ = ["FileJob", "FileOutcome", "ImportReport", "Kind", "import_file", "run_import"]

Kind = Literal["medline", "jats"]
T = TypeVar("T")


@dataclass(frozen=True)
class FileJob:
    """One file for one worker: everything it needs, picklable (a process or a queued task runs it)."""

    db: str
    kind: Kind
    file: BulkFile
    rank: int
    chunk: int
    args: FetcherArgs
    eutils: str
    europepmc: str


@dataclass
class FileOutcome:
    name: str
    applied: Applied = field(default_factory=Applied)
    problem: str = ""
    skipped: bool = False


@dataclass
class ImportReport:
    outcomes: list[FileOutcome] = field(default_factory=list)

    @property
    def failed(self) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.problem]

    def summary(self) -> str:
        total = Applied()
        for outcome in self.outcomes:
            total.add(outcome.applied)
        done = sum(1 for o in self.outcomes if not o.problem and not o.skipped)
        skipped = sum(1 for o in self.outcomes if o.skipped)
        line = (f"imported {done} file{'s' if done != 1 else ''}: {total.stored} records stored, {total.deleted} "
                f"deleted, {total.unchanged} unchanged")
        if skipped:
            line += f"; {skipped} already imported"
        if self.failed:
            line += f"; {len(self.failed)} failed (run the import again once they are whole)"
        return line


def _apply_in_chunks(items: Iterable[T], size: int, apply: Callable[[list[T], Callable[[Tx], None] | None], Applied],
                     count: Callable[[list[T]], None], outcome: FileOutcome, recorded: Callable[[Tx], None]) -> None:
    """Apply the items a chunk at a time as each fills, the last (maybe empty) chunk's transaction recording the file;
    a file damaged part of the way has what was read before the damage committed, is not recorded, and the damage is
    raised. A chunk is let go once applied, before the next is read: only one is held at a time, and the collection
    that follows it walks none of them."""
    damage: Damaged | None = None
    chunk: list[T] = []
    try:
        for item in items:
            chunk.append(item)
            if len(chunk) >= size:
                count(chunk)
                outcome.applied.add(apply(chunk, None))
                chunk = []
                gc.collect()
    except Damaged as e:
        damage = e
    count(chunk)
    outcome.applied.add(apply(chunk, None if damage else recorded))
    if damage is not None:
        raise damage


def _sql(store: object) -> SqlStore:
    if not isinstance(store, SqlStore):
        raise StoreError(f"{store!r} cannot take bulk imports")
    return store


def import_file(job: FileJob) -> FileOutcome:
    """Parse and merge one file in chunks; the last chunk's transaction records it. Never raises for a bad file."""
    outcome = FileOutcome(job.file.name)
    try:
        md5 = checked_md5(job.file.path)
        # the automatic collector walked a chunk's held records again and again while the next were parsed and
        # merged (a fifth of a record's parse, docs/benchmarks.md "Bulk imports"); one collection per chunk frees the
        # same cycles after the chunk is let go
        with collection_paused(), open_store(job.db) as opened:
            store = _sql(opened)
            store.tune_for_bulk()
            counts = {"records": 0, "deleted": 0}

            def recorded(tx: Tx) -> None:
                record_file(tx, FileRecord(job.file.name, job.kind, job.rank, md5, counts["records"],
                                           counts["deleted"]))

            if job.kind == "medline":
                _medline(job, store, outcome, counts, recorded)
            else:
                _jats(job, store, outcome, counts, recorded)
    except (FileProblem, Damaged) as e:
        outcome.problem = str(e)
    except OSError as e:
        outcome.problem = f"{job.file.name}: {e.strerror or e}"
    return outcome


def _medline(job: FileJob, store: SqlStore, outcome: FileOutcome, counts: dict[str, int],
             recorded: Callable[[Tx], None]) -> None:
    def apply(items: list[Citation | Deletion], then: Callable[[Tx], None] | None) -> Applied:
        return apply_citations(store, items, job.rank, job.args, job.eutils, then=then)

    def count(items: list[Citation | Deletion]) -> None:
        deleted = sum(1 for i in items if isinstance(i, Deletion))
        counts["deleted"] += deleted
        counts["records"] += len(items) - deleted

    _apply_in_chunks(read_medline(job.file.path, job.file.name), job.chunk, apply, count, outcome, recorded)


def _jats(job: FileJob, store: SqlStore, outcome: FileOutcome, counts: dict[str, int],
          recorded: Callable[[Tx], None]) -> None:
    type_ = part_type_of(job.file.path)
    items = (JatsItem(r, type_, jats_url(type_, r, job.europepmc, job.eutils))
             for r in read_jats_file(job.file.path, job.file.name))

    def apply(chunk: list[JatsItem], then: Callable[[Tx], None] | None) -> Applied:
        return apply_jats(store, chunk, job.args, then=then)

    def count(chunk: list[JatsItem]) -> None:
        counts["records"] += len(chunk)

    _apply_in_chunks(items, jats_chunk(job.chunk), apply, count, outcome, recorded)


#: a full text read (its text, sections, references, tables) holds as much as about this many MEDLINE records
JATS_RECORD_WEIGHT = 20


def jats_chunk(chunk: int) -> int:
    """Full texts per transaction: ``import_chunk`` counts MEDLINE records, and a chunk's records are all held until
    it is committed, so a JATS chunk is that many records' worth of memory (docs/bulk.md, "Speed and memory")."""
    return max(1, chunk // JATS_RECORD_WEIGHT)


def prepare(db: str, files: Sequence[BulkFile], kind: Kind) -> tuple[list[BulkFile], list[int], list[str]]:
    """Create the database when missing (as -db-init would), its bulk tables when older; the files not yet recorded
    with their ranks, and the names of those already recorded."""
    with open_or_init_store(db) as opened:
        store = _sql(opened)
        ensure_tables(store)
        done = imported_files(store)
        first_free = newest_rank(store)
    todo = [f for f in dict((f.name, f) for f in files).values() if f.name not in done]
    ranks = [file_rank(f.name, first_free + i) if kind == "medline" else first_free + i for i, f in enumerate(todo)]
    return todo, ranks, [f.name for f in files if f.name in done]


def workers_for(setting: int) -> int:
    return setting if setting > 0 else (os.cpu_count() or 1)


def run_import(jobs: Sequence[FileJob], workers: int, say: Callable[[FileOutcome], None]) -> list[FileOutcome]:
    """Run the jobs in ``workers`` processes (in this one for 1), saying each file's outcome as it ends; the workers
    log through this process (:mod:`pubfetch.logforward`)."""
    outcomes = []
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            outcome = import_file(job)
            say(outcome)
            outcomes.append(outcome)
        return outcomes
    context = multiprocessing.get_context("spawn")
    with forwarded_logs(context) as (log_to_parent, args), ProcessPoolExecutor(
            max_workers=min(workers, len(jobs)), mp_context=context, initializer=log_to_parent,
            initargs=args) as pool:
        for outcome in pool.map(import_file, jobs):
            say(outcome)
            outcomes.append(outcome)
    return outcomes
