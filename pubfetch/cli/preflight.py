"""Checks of a command's output files and new databases before anything is read from the network or created.

A run of hours must not fail at its end because ``-report nodir/run.html`` cannot be written, nor leave an empty
``pubs.db`` behind when its ID file is missing. So every output path is checked first, without creating anything,
and one rule holds for every output file option (``-txt-*``, ``-report``, ``--warc``, and ``-l`` in
:mod:`pubfetch.cli.logsetup`): missing parent directories are created when the file is written, as PubFetcher does
for its text files; a path that cannot be written (a directory, a file without write permission, a parent that is a
file or not writable, a virtual file system such as /proc) is a one-line error before the run starts. A new SQLite
database gets no directories made for it: a mistyped database path should fail, not create a tree.

Every output file option takes ``-`` for standard output, as other command-line tools do (never a file named ``-``),
when nothing else writes there: a second writer on the same stream is a usage error before anything runs.
"""

from __future__ import annotations

import os

from pubfetch.cli.errors import InputError, UsageError
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


#: The path that names standard output, as for other command-line tools (PubFetcher's ``-`` too).
STDOUT = "-"
#: One-off operations that print nothing on standard output (every other one-off and test operation prints its answer).
_SILENT_ONEOFFS = frozenset({"db-init", "db-commit", "db-compact", "db-import-medline", "db-import-jats",
                             "search-remove"})
#: Pipeline operations that print on standard output.
_PRINTING_STEPS = ("out-ids", "count-ids", "out", "count", "out-top-hosts", "count-top-hosts", "part-table")


def option_name(option: str) -> str:
    """How the user wrote an option: modifiers (``--warc``, ``--log``) have two dashes, operations one."""
    return f"--{option}" if option in ("warc", "log") else f"-{option}"


def check_standard_output(args: ParsedArgs) -> None:
    """Raise UsageError, before anything runs, when an output file given as ``-`` (standard output) would share it:
    with the command's own output (``-out``, a one-off operation's answer, the IDs a search alone prints, a detached
    job's id) or with another ``-``; two writers on one stream make a file that neither reader can use. A directory
    option given ``-`` is refused too: standard output cannot hold a directory of files."""
    for option, name in OUTPUT_DIRECTORY_OPTIONS.items():
        if args.get(option) == STDOUT:
            raise UsageError(f"option {name} writes a directory of files, which standard output ('-') cannot hold: "
                             f"give it a directory")
    dashes = [option_name(o) for o in (*OUTPUT_FILE_OPTIONS, "log") if args.get(o) == STDOUT]
    if not dashes:
        return
    printing = _printing_operations(args)
    if len(dashes) > 1:
        listed = " and ".join(dashes) if len(dashes) == 2 else ", ".join(dashes[:-1]) + " and " + dashes[-1]
        raise UsageError(f"options {listed} {'both' if len(dashes) == 2 else 'all'} write to standard output ('-'): "
                         f"give all but one of them a file name")
    if printing:
        raise UsageError(f"option {dashes[0]} writes to standard output ('-'), where {printing[0]} already writes: "
                         f"give {dashes[0]} a file name")


def _printing_operations(args: ParsedArgs) -> list[str]:
    """The options given whose output goes to standard output, as the user wrote them."""
    printing = [o.names[-1] for o in args.order
                if (o.role == "oneoff" and o.dest not in _SILENT_ONEOFFS) or o.role == "test"
                or o.dest in _PRINTING_STEPS]
    if args.flag("detach"):
        printing.append("--detach (the job id)")
    if args.searches_alone():
        printing.append("the search (its IDs, printed when no later step takes them)")
    return printing


def check_outputs(args: ParsedArgs) -> None:
    """Raise InputError for the first output file or new database that could not be written; creates nothing."""
    for option in OUTPUT_FILE_OPTIONS:
        if option in args:
            path = str(args.get(option))
            if path == STDOUT:
                continue  # standard output (pubfetch.cli.emit.write_file); check_standard_output saw it alone there
            why = why_not_writable(path)
            if why:
                raise InputError(f"cannot write output file '{path}' ({option_name(option)}): {why}")
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
