"""A bulk import on the cluster: each file one task, imported by a worker into its own ``--db``.

A task names its file by an HTTPS URL (downloaded by the worker through the cluster's shared rate limits into its
``--import-dir``, the address guard refusing a loopback or private host unless the worker allows them) or by a name
under the worker's ``--import-dir``; never by a path: a name with a directory part, an absolute path or ``..`` is
refused, so whoever can write to the queue can make a worker read only the files it was given for importing. The task
is late-acknowledged like a fetch batch (:mod:`.app`), so a file a lost worker held goes to another after the grace
period (:mod:`.liveness`), and idempotent (:mod:`pubfetch.bulk.ledger`): a file recorded is not imported again, and
one half done is finished without changing what the first delivery committed.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from pubfetch.bulk.runner import FileJob, Kind, import_file, prepare
from pubfetch.bulk.sources import BulkFile, Download, FileProblem, check_url
from pubfetch.distributed.tasks import BatchFailed, BatchRefused, _config, _rate_limiter, _refuse, _worker

log = logging.getLogger(__name__)

__all__ = ["IMPORT_TASK", "import_file_task", "register"]

IMPORT_TASK = "pubfetch.import_file"
_KINDS = ("medline", "jats")


def checked_name(name: object) -> str:
    if not isinstance(name, str) or not name or name != os.path.basename(name) or name in (".", ".."):
        raise ValueError("a file is named by its base name under the worker's --import-dir, not by a path")
    return name


def _message(args: tuple[Any, ...]) -> tuple[Kind, str, str, int]:
    """(kind, url, name, rank) of a task's message; ValueError when it is not one."""
    if len(args) != 1 or not isinstance(args[0], dict) or set(args[0]) - {"kind", "url", "name", "rank"}:
        raise ValueError("not an import message")
    m = args[0]
    kind, url, rank = m.get("kind"), m.get("url", ""), m.get("rank")
    if kind not in _KINDS or not isinstance(url, str) or not isinstance(rank, int) or isinstance(rank, bool):
        raise ValueError("not an import message")
    if url:
        check_url(url)
        return kind, url, "", rank
    return kind, "", checked_name(m.get("name")), rank


def import_file_task(task: Any, *args: Any) -> dict[str, Any]:
    """Import one file into the worker's ``--db``; return its counts."""
    worker = _worker(task)
    try:
        kind, url, name, rank = _message(args)
    except (ValueError, FileProblem) as e:
        raise _refuse(task, f"message refused: {e}") from None
    cfg = _config(worker)
    directory = worker.import_dir
    if not worker.db or not directory:
        raise _refuse(task, "this worker has no --db or no --import-dir")
    try:
        if url:
            from pubfetch.engine.assembly import FetchRun

            with FetchRun(cfg, rate_limiter=_rate_limiter(worker)) as run:  # the product's client, answer memory too
                # the sender is not the worker's operator: its URL meets the address guard as a page's link does
                file = Download(run.context.client, directory, untrusted=True).file(url)
        else:
            file = BulkFile(name, os.path.join(directory, name))
            if not os.path.isfile(file.path):
                raise FileProblem(f"{name}: not in this worker's --import-dir")
        todo, _, done = prepare(worker.db, [file], kind)
        if done:
            return {"name": file.name, "stored": 0, "deleted": 0, "unchanged": 0, "skipped": True}
        outcome = import_file(FileJob(worker.db, kind, todo[0], rank, cfg.bulk.import_chunk, cfg.fetching,
                                      cfg.endpoints.eutils, cfg.endpoints.europepmc))
    except FileProblem as e:
        log.warning("import task %s: %s", task.request.id, e)
        raise BatchFailed(str(e)) from None
    if outcome.problem:
        log.warning("import task %s: %s", task.request.id, outcome.problem)
        raise BatchFailed(outcome.problem)
    a = outcome.applied
    return {"name": outcome.name, "stored": a.stored, "deleted": a.deleted, "unchanged": a.unchanged,
            "skipped": False}


def register(app: Any) -> None:
    app.task(name=IMPORT_TASK, bind=True, throws=(BatchRefused, BatchFailed))(import_file_task)
