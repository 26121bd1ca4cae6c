"""The errors the command line turns into one line on stderr and an exit status.

Every error a user can fix (a mistyped option, an unreadable file, a bad regex, a database that cannot be opened) exits
with status 2 and a single line, so scripts can tell "you asked wrongly" from "pubfetch broke" (status 1, see main.py).
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
#: sysexits' EX_TEMPFAIL: the network or the proxy seems down; running the same command later should work
EXIT_NETWORK = 75


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
