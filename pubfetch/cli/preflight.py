"""Checks of a command's output files and new databases before anything is read from the network or created.

A run of hours must not fail at its end because ``-report nodir/run.html`` cannot be written, nor leave an empty
``pubs.db`` behind when its ID file is missing. So every output path is checked first, without creating anything,
and one rule holds for every output file option (``-txt-*``, ``-report``, ``--warc``, and ``-l`` in
:mod:`pubfetch.cli.logsetup`): missing parent directories are created when the file is written, as PubFetcher does
for its text files; a path that cannot be written (a directory, a file without write permission, a parent that is a
file or not writable, a virtual file system such as /proc) is a one-line error before the run starts. A new SQLite
database gets no directories made for it: a mistyped database path should fail, not create a tree.
"""

from __future__ import annotations

import os

from pubfetch.cli.errors import InputError
from pubfetch.cli.parser import ParsedArgs
from pubfetch.store import StoreError, sqlite_path
from pubfetch.store.sqlite import creation_problem

#: Options naming a file the command writes (the log file is checked when it is opened, before these).
OUTPUT_FILE_OPTIONS = ("txt-ids-pub", "txt-ids-web", "txt-ids-doc", "txt-pub", "txt-web", "txt-doc",
                       "txt-top-hosts-pub", "txt-top-hosts-web", "txt-top-hosts-doc", "report", "warc")
#: Options naming a directory the command writes files into (made when missing).
OUTPUT_DIRECTORY_OPTIONS = {"out-tables": "-out-tables", "supplements": "--supplements"}
#: Options naming a database that a fetch step creates when it does not exist.
NEW_DATABASE_OPTIONS = ("fetch-put", "db-fetch", "db-fetch-end")


def check_outputs(args: ParsedArgs) -> None:
    """Raise InputError for the first output file or new database that could not be written; creates nothing."""
    for option in OUTPUT_FILE_OPTIONS:
        if option in args:
            path = str(args.get(option))
            if path == "-" and option.startswith("txt-"):
                continue  # standard output (pubfetch.cli.emit.write_file)
            why = why_not_writable(path)
            if why:
                name = "--warc" if option == "warc" else f"-{option}"
                raise InputError(f"cannot write output file '{path}' ({name}): {why}")
    for option, name in OUTPUT_DIRECTORY_OPTIONS.items():
        if option in args:
            path = str(args.get(option))
            why = "it is not a directory" if os.path.lexists(path) and not os.path.isdir(path) else \
                why_not_writable(os.path.join(path, "file"))
            if why:
                raise InputError(f"cannot write into directory '{path}' ({name}): {why}")
    for option in NEW_DATABASE_OPTIONS:
        if option in args:
            _check_new_database(str(args.get(option)))


def why_not_writable(path: str) -> str | None:
    """Why ``path`` could not be written once its missing parent directories are made (``None``: it could)."""
    if os.path.isdir(path):
        return "it is a directory"
    if os.path.lexists(path):
        return None if os.access(path, os.W_OK) else "it is not writable (check its permissions)"
    parent = os.path.dirname(os.path.abspath(path))
    existing = parent
    while not os.path.lexists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        return f"'{existing}' is not a directory"
    return creation_problem(os.path.join(existing, "new"))


def _check_new_database(target: str) -> None:
    try:
        path = sqlite_path(target)
    except StoreError as e:
        raise InputError(str(e)) from None
    if path is None or os.path.lexists(path):
        return  # PostgreSQL, or an existing file: opening it says what is wrong with it
    problem = creation_problem(path)
    if problem is not None:
        raise InputError(f"cannot create database file '{path}': {problem}")
