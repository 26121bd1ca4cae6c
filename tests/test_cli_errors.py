"""The errors the command line turns into one line and an exit status: those a user can fix exit with 2, a network
that seems down with 75 (try again later), pubfetch's own failures with 1."""

from __future__ import annotations

import pytest

from pubfetch.cli.errors import (
    EXIT_INTERNAL,
    EXIT_NETWORK,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    InputError,
    Unavailable,
    UsageError,
)
from support.cli import Cli


def test_the_exit_statuses_tell_scripts_what_happened() -> None:
    assert (EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_NETWORK) == (0, 1, 2, 75)


@pytest.mark.parametrize("kind", [CliError, UsageError, InputError])
def test_every_error_a_user_can_fix_exits_with_2(kind: type[CliError]) -> None:
    error = kind("the message as the user sees it")
    assert isinstance(error, CliError)
    assert error.exit_status == EXIT_USAGE
    assert str(error) == "the message as the user sees it"


def test_an_unavailable_operation_says_what_it_needs() -> None:
    error = Unavailable("-print-site", "the browser")
    assert str(error) == "operation -print-site needs the browser, which is not available in this version"
    assert (error.option, error.needs, error.exit_status) == ("-print-site", "the browser", EXIT_USAGE)


def test_the_command_line_prints_a_usage_error_as_one_line(cli: Cli) -> None:
    assert cli("-is-pmid") == (2, "", "pubfetch: error: option -is-pmid needs an argument (STRING)\n")
