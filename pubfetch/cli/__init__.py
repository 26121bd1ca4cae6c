"""The ``pubfetch`` command line: PubFetcher's one-off operations and its fixed-order pipeline (see main.py).

The entry point is :func:`pubfetch.cli.main.main`. Exported here is what scripts calling the command rely on: its
exit statuses and the errors it reports on one line (cheap to import; the command's modules are loaded only when an
operation needs them).
"""

from pubfetch.cli.errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_JOB_CANCELLED,
    EXIT_JOB_RUNNING,
    EXIT_NETWORK,
    EXIT_OK,
    EXIT_SOME_FAILED,
    EXIT_USAGE,
    CliError,
    InputError,
    Unavailable,
    UsageError,
)

__all__ = ["EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_JOB_CANCELLED", "EXIT_JOB_RUNNING", "EXIT_NETWORK", "EXIT_OK",
           "EXIT_SOME_FAILED", "EXIT_USAGE", "CliError", "InputError", "Unavailable", "UsageError"]
