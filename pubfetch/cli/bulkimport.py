"""``-db-import-medline`` and ``-db-import-jats``: the files named on the command line (downloaded first when given by
URL) imported by :mod:`pubfetch.bulk`, one line per file on stderr and a summary; status 3 when a file failed.

With ``--queue``, each file goes to the queue's workers as one task (:mod:`pubfetch.distributed.bulksubmit`): a file
given by HTTPS URL as its URL, a local file as its name, which each worker reads under its own ``--import-dir``.
"""

from __future__ import annotations

import logging
import os
import re
import sys

from pubfetch.bulk import sources
from pubfetch.bulk.apply import Applied
from pubfetch.bulk.runner import FileJob, FileOutcome, ImportReport, Kind, prepare, run_import, workers_for
from pubfetch.cli.errors import EXIT_SOME_FAILED, InputError, UsageError
from pubfetch.cli.fetching import Session
from pubfetch.cli.parser import ParsedArgs

log = logging.getLogger(__name__)

__all__ = ["run_bulk_imports"]

_SUFFIXES: dict[Kind, tuple[str, ...]] = {"medline": (".xml", ".xml.gz"),
                                          "jats": (".tar.gz", ".tgz", ".tar", ".xml", ".nxml", ".xml.gz", ".gz")}
#: the files of NLM's baseline and update directories
_NLM_FILE = re.compile(r"pubmed\d{2}n\d{4,6}\.xml\.gz")


def run_bulk_imports(args: ParsedArgs, sess: Session) -> None:
    for option, kind in (("db-import-medline", "medline"), ("db-import-jats", "jats")):
        if option in args:
            words = args.get(option)
            if len(words) < 2:
                raise UsageError(f"-{option} needs a database and at least one file, directory or URL")
            _import(words[0], words[1:], kind, args, sess)  # type: ignore[arg-type]


def _import(db: str, given: list[str], kind: Kind, args: ParsedArgs, sess: Session) -> None:
    if "queue" in args:
        from pubfetch.distributed.bulksubmit import submit_files

        answers, failures = submit_files(db, given, kind, args.get("queue"))
        for problem in failures:
            log.error("%s", problem)
        outcomes = [FileOutcome(a["name"], Applied(a["stored"], a["unchanged"], a["deleted"]), skipped=a["skipped"])
                    for a in answers] + [FileOutcome(p, problem=p) for p in failures]
        _summarise(ImportReport(outcomes), [], sess)
        return
    config = sess.config
    files, problems = _files(db, given, kind, sess)
    todo, ranks, done = prepare(db, files, kind)
    if done:
        log.info("already imported, skipped: %s", ", ".join(done))
    jobs = [FileJob(db, kind, f, rank, config.bulk.import_chunk, config.fetching, config.endpoints.eutils,
                    config.endpoints.europepmc) for f, rank in zip(todo, ranks, strict=True)]
    report = [FileOutcome(name, skipped=True) for name in done]

    def said(outcome: FileOutcome) -> None:
        a = outcome.applied
        if outcome.problem:
            log.error("%s", outcome.problem)
        else:
            log.info("%s: %d stored, %d deleted, %d unchanged", outcome.name, a.stored, a.deleted, a.unchanged)

    report += run_import(jobs, workers_for(config.bulk.import_workers), said)
    for problem in problems:
        log.error("%s", problem)
    _summarise(ImportReport(report), problems, sess)


def _summarise(report: ImportReport, problems: list[str], sess: Session) -> None:
    sys.stderr.write(f"pubfetch: {report.summary()}\n")
    if problems or report.failed:
        sess.job_exit = max(sess.job_exit, EXIT_SOME_FAILED)


def _files(db: str, given: list[str], kind: Kind, sess: Session) -> tuple[list[sources.BulkFile], list[str]]:
    """The local files of the arguments, URLs downloaded; the arguments that could not be had, said."""
    files: list[sources.BulkFile] = []
    problems: list[str] = []
    download: sources.Download | None = None
    for word in given:
        try:
            if "://" not in word:
                files += sources.local_files([word], _SUFFIXES[kind])
                continue
            sources.check_url(word)
            if download is None:
                directory = sess.config.bulk.import_download_dir or os.path.join(os.getcwd(), "pubfetch-downloads")
                download = sources.Download(sess.context().client, directory, log.info)
            if word.endswith("/"):
                files += _listed(db, word, kind, download)
            else:
                files.append(download.file(word))
        except sources.FileProblem as e:
            problems.append(str(e))
    if not files and not problems:
        raise InputError(f"no {'.xml or .xml.gz' if kind == 'medline' else 'JATS'} files in {' '.join(given)}")
    return files, problems


def _listed(db: str, url: str, kind: Kind, download: sources.Download) -> list[sources.BulkFile]:
    """A directory listing's files not yet imported, downloaded in order (NLM's daily updates)."""
    pattern = _NLM_FILE if kind == "medline" else re.compile(r"[^/]+\.(?:tar\.gz|xml\.gz)")
    urls = sources.listed_files(download.text(url), url, pattern)
    _, _, done = prepare(db, [sources.BulkFile(os.path.basename(u), "") for u in urls], kind)
    return [download.file(u) for u in urls if os.path.basename(u) not in done]
