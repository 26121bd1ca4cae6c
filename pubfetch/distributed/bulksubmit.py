"""Sending a bulk import to the cluster's workers: one task per file (:mod:`.bulktask` runs them), waited for.

Local files are sent by name only (each worker reads the file of that name under its own ``--import-dir``), URLs as
they are; the files the database already records are not sent, and the others are ranked in the order given.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from pubfetch.bulk.runner import Kind, prepare
from pubfetch.bulk.sources import BulkFile, FileProblem, check_url
from pubfetch.distributed.bulktask import IMPORT_TASK, checked_name

__all__ = ["messages_for", "submit_files"]


def messages_for(db: str, given: list[str], kind: Kind) -> list[dict[str, Any]]:
    """The tasks' messages of the arguments: URLs as they are, local files and directories by their files' names
    (each worker reads them under its own ``--import-dir``), words that are neither as names; ranked in the order
    given after what ``db`` already holds, files it holds left out."""
    files = list(_named(given, kind))
    todo, ranks, _ = prepare(db, [BulkFile(os.path.basename(f), f) for f in files], kind)
    by_name = {os.path.basename(f): f for f in files}
    messages = []
    for file, rank in zip(todo, ranks, strict=True):
        source = by_name[file.name]
        key = ("url", source) if "://" in source else ("name", file.name)
        messages.append({"kind": kind, key[0]: key[1], "rank": rank})
    return messages


def _named(given: list[str], kind: Kind) -> Iterator[str]:
    from pubfetch.bulk.sources import local_files

    suffixes = (".xml", ".xml.gz") if kind == "medline" else (".tar.gz", ".tgz", ".tar", ".xml", ".nxml", ".gz")
    for word in given:
        if "://" in word:
            check_url(word)
            yield word
        elif os.path.exists(word):
            yield from (f.name for f in local_files([word], suffixes))
        else:
            yield checked_name(word)


def submit_files(db: str, given: list[str], kind: Kind, queue: str,
                 timeout: float | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Send each file as a task and wait for all; return the counts of the files imported and the problems (one
    line each)."""
    from celery import group

    from pubfetch.distributed.app import make_app

    try:
        messages = messages_for(db, given, kind)
    except (ValueError, FileProblem) as e:
        return [], [str(e)]
    if not messages:
        return [], []
    app = make_app(queue)
    try:
        result = group([app.signature(IMPORT_TASK, args=(m,)) for m in messages]).apply_async()
        answers = result.join(propagate=False, timeout=timeout)
    finally:
        app.close()
    done, problems = [], []
    for message, answer in zip(messages, answers, strict=True):
        if isinstance(answer, dict):
            done.append(answer)
        else:
            problems.append(f"{message.get('name') or message.get('url')}: {answer}")
    return done, problems
