"""``-report FILE``: the run report of a command (:mod:`pubfetch.output.report`).

A command that names a database (``-db-fetch-end``, ``-db-fetch``, ``-fetch-put`` or ``-db``, first found in that
order) reports on every publication of that database; one without (``-pub ... -fetch``) on the publications of its
pipeline. A command that fetched publications adds its own counts and its requests per host.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from pubfetch.cli.errors import CliError, InputError
from pubfetch.cli.parser import ParsedArgs
from pubfetch.fetcher import BatchSummary
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.publication import Publication
from pubfetch.output.report import ReportUnavailable, check_available, report

#: Options naming the database a report is on, in order of preference.
DATABASE_OPTIONS = ("db-fetch-end", "db-fetch", "fetch-put", "db")


def check_report(args: ParsedArgs) -> None:
    """Before anything runs: without matplotlib, fail now rather than after a long fetch."""
    if "report" in args:
        try:
            check_available()
        except ReportUnavailable as e:
            raise CliError(str(e)) from None


def write_report(args: ParsedArgs, publications: Sequence[Publication], summary: BatchSummary | None,
                 fetcher_args: FetcherArgs) -> None:
    """Write the report asked for by ``-report`` (nothing when it was not)."""
    if "report" not in args:
        return
    path = args.get("report")
    db = next((args.get(o) for o in DATABASE_OPTIONS if o in args), None)
    try:
        parent = os.path.dirname(path)
        if parent:  # as for every output file (pubfetch.cli.preflight)
            os.makedirs(parent, exist_ok=True)
        if db is None:
            report(path, publications, summary=summary, args=fetcher_args)
        else:
            report(path, db=db, summary=summary, args=fetcher_args)
    except ReportUnavailable as e:
        raise CliError(str(e)) from None
    except OSError as e:
        raise InputError(f"cannot write report file '{path}': {e.strerror or e}") from None
