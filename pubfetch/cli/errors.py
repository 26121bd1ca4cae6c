"""The command's exit statuses, and the errors the command line turns into one line on stderr and an exit status.

Every error a user can fix (a mistyped option, an unreadable file, a bad regex, a database that cannot be opened) exits
with status 2 and a single line, so scripts can tell "you asked wrongly" from "pubfetch broke" (status 1, see main.py).
The statuses are defined here, in one place, because a fetch run, ``-job-status`` and a submitter waiting for its job
all answer with them (the table is in docs/command-line.md, "Exit statuses").
"""

from __future__ import annotations

#: the run did what was asked: every publication final, or partial only in parts no service had (a job: done)
EXIT_OK = 0
#: pubfetch broke (a bug): the traceback goes to the --log file
EXIT_INTERNAL = 1
#: the user asked wrongly (option, file, database that cannot be opened): one line on stderr
EXIT_USAGE = 2
#: the run finished but some publications failed: nothing usable was found, or a request failed that a later run
#: retries (a job: done, with failed batches)
EXIT_SOME_FAILED = 3
#: a job asked about with -job-status is still running (or waiting for a worker): ask again later. 4 because it is
#: neither a success nor a failure, is the next status free after the run's own, and stays clear of sysexits' 64-78
#: and the shell's 126 and up (75 would say "the network is down", which a running job does not mean)
EXIT_JOB_RUNNING = 4
#: sysexits' EX_TEMPFAIL: the network or the proxy seems down; running the same command later should work
EXIT_NETWORK = 75
#: 128 + SIGINT, as shells report it: interrupted by Ctrl-C (or SIGINT); what was fetched before is kept
EXIT_INTERRUPTED = 130
#: a cancelled job (-job-cancel) answers as an interrupted run does: stopped before the end, what was done is kept
EXIT_JOB_CANCELLED = EXIT_INTERRUPTED


class CliError(Exception):
    """An error whose message is meant for the user as is; exits with status 2."""

    exit_status = EXIT_USAGE


class UsageError(CliError):
    """The command line itself is wrong: unknown option, missing or malformed argument, conflicting options."""


class InputError(CliError):
    """An input named on the command line cannot be used: a missing or unreadable file, JSON that does not parse."""


class Unavailable(CliError):
    """An operation whose implementation (network layer, scraping rules) is not part of this installation."""

    def __init__(self, option: str, needs: str) -> None:
        super().__init__(f"operation {option} needs {needs}, which is not available in this version")
        self.option = option
        self.needs = needs
