"""``-report FILE``: the run report of a command (:mod:`pubfetch.output.report`); ``-report -`` writes it to standard
output.

A command that names a database (``-db-fetch-end``, ``-db-fetch``, ``-fetch-put`` or ``-db``, first found in that
order) reports on every publication of that database; one without (``-pub ... -fetch``) on the publications of its
pipeline. A command that fetched publications adds its own counts and its requests per host.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from pubfetch.cli.errors import CliError, InputError
from pubfetch.cli.parser import ParsedArgs
from pubfetch.cli.preflight import STDOUT
from pubfetch.fetcher import BatchSummary
from pubfetch.fetcher_args import FetcherArgs
from pubfetch.model.publication import Publication
from pubfetch.outfiles import write_output_file
from pubfetch.output.report import ReportUnavailable, check_available, report_page

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
        if db is None:
            page = report_page(publications, summary=summary, args=fetcher_args)
        else:
            page = report_page(db=db, summary=summary, args=fetcher_args)
        if path == STDOUT:  # nothing else writes there (pubfetch.cli.preflight.check_standard_output)
            sys.stdout.write(page)
            sys.stdout.flush()
        else:
            write_output_file(path, lambda f: f.write(page))  # missing directories made, as for every output file
    except ReportUnavailable as e:
        raise CliError(str(e)) from None
    except BrokenPipeError:  # the reader of standard output went away: the command ends quietly, as for -out
        raise
    except OSError as e:
        where = "the report to standard output" if path == STDOUT else f"report file '{path}'"
        raise InputError(f"cannot write {where}: {e.strerror or e}") from None
