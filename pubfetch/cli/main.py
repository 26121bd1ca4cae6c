"""The ``pubfetch`` command: parse, run the one-off operations, the pipeline and the test operations, report.

Exit status (the constants of ``cli/errors.py``; docs/command-line.md, "Exit statuses"): 0 when the run did what was
asked; 3 when some publications (webpages, rule test entries) failed; 2 when the user can fix the problem (unknown
option, missing argument, unreadable file, bad regex or time, invalid ID with ``--strict``, a database that cannot be
opened, an operation not available), with one line on stderr and never a traceback; 1 for an internal error (its
traceback goes to the ``--log`` file); 75 when the network seems down; 130 when interrupted.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
from collections.abc import Sequence
from typing import Literal, TextIO, cast

from pubfetch import interrupts
from pubfetch._version import __version__
from pubfetch.cli import testops
from pubfetch.cli.emit import StandardOutput
from pubfetch.cli.errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NETWORK,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    UsageError,
)
from pubfetch.cli.fetching import Session, open_session, test_operation
from pubfetch.cli.help import USAGE, format_help
from pubfetch.cli.logsetup import LogSetup, configure
from pubfetch.cli.oneoff import run_oneoff
from pubfetch.cli.options import TESTS
from pubfetch.cli.parser import ParsedArgs, parse_args
from pubfetch.cli.pipeline import Pipeline
from pubfetch.cli.preflight import check_standard_output
from pubfetch.cli.testops import run_test_operations
from pubfetch.net.reachability import NetworkUnreachable
from pubfetch.output.common import Format
from pubfetch.output.writer import EntryWriter
from pubfetch.store import StoreError

log = logging.getLogger("pubfetch.cli")

__all__ = ["EXIT_INTERRUPTED", "main", "run"]


def _say(message: str) -> None:
    print(f"pubfetch: error: {message}", file=sys.stderr)


def run_tests(args: ParsedArgs, out: TextIO, argv: Sequence[str], sess: Session) -> None:
    """The test operations (``-print-*``): fetch from one resource alone and print the result."""
    for opt in TESTS.options:
        if opt.dest not in args:
            continue
        kind: Literal["webpage", "publication"] = "webpage" if opt.dest == "print-webpage" else "publication"
        entry = test_operation(sess, opt.dest, args.get(opt.dest))
        with EntryWriter(out, args.get("format", Format.text), args=sess.args, plain=args.flag("plain"),
                         argv=argv, kinds=(kind,)) as writer:
            writer.write_all([entry], kind)


def run(args: ParsedArgs, argv: Sequence[str], out: TextIO, setup: LogSetup | None = None) -> int:
    """Everything the options ask for, in PubFetcher's order: one-off operations, the pipeline, test operations.

    The command's one session is created here and passed down. Returns 0, or 3 when some fetched entry failed (with a
    summary line on stderr, after the run's warnings; also when interrupted, for what was stored by then)."""
    with open_session(args.values, dict(args.fetcher), warc=args.get("warc"), quiet=args.flag("quiet")) as sess:
        try:
            run_oneoff(args, out, list(argv), sess)
            if args.has_role("pipeline"):
                Pipeline(args, argv, out, sess).run()
            run_tests(args, out, argv, sess)
            failed_tests = run_test_operations(args, out, sess) if testops.wanted(args) else 0
            out.flush()
        except KeyboardInterrupt:
            if setup is not None:
                setup.flush_warnings()
            sess.report()
            raise
        if setup is not None:
            setup.flush_warnings()
        return max(sess.exit_status(), failed_tests, sess.job_exit, sess.search_exit)


def _quiet_broken_pipe() -> None:
    """After the reader of stdout went away (``pubfetch ... | head``), stop Python complaining at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _early_answer(args: ParsedArgs) -> int | None:
    """Help, version and completion scripts answer before any logging or configuration is set up."""
    if args.flag("help"):
        sys.stdout.write(format_help())
        return EXIT_OK
    if args.flag("version"):
        print(f"pubfetch {__version__}")
        return EXIT_OK
    if "print-completion" in args:
        from pubfetch.cli.completion import completion_script

        try:
            sys.stdout.write(completion_script(args.get("print-completion")))
        except CliError as e:
            _say(str(e))
            return e.exit_status
        return EXIT_OK
    return None


def _guarded_run(args: ParsedArgs, words: list[str]) -> int:
    """Run the operations, turning each kind of failure into its one-line message and exit status."""
    try:
        if not args.has_role("oneoff", "pipeline", "test"):
            raise UsageError("no operation given (operations are the single-dash options); see pubfetch --help")
        check_standard_output(args)
        setup = configure(args.get("log"), args.flag("verbose"), words)
    except CliError as e:
        _say(str(e))
        return e.exit_status
    try:
        with interrupts.sigint_marked():  # Ctrl-C stops the fetching threads at once, not only the main thread
            status = run(args, words, cast(TextIO, StandardOutput(sys.stdout)), setup)
        sys.stdout.flush()
    except CliError as e:
        log.error("%s", e)
        return e.exit_status
    except StoreError as e:
        log.error("%s", e)
        return EXIT_USAGE
    except NetworkUnreachable as e:
        log.error("%s", e)
        return EXIT_NETWORK
    except BrokenPipeError:
        _quiet_broken_pipe()
        return EXIT_OK
    except KeyboardInterrupt:
        log.error("interrupted")
        return EXIT_INTERRUPTED
    except Exception as e:
        log.debug("internal error", exc_info=True)
        log.error("internal error: %s: %s (please report it; run with --log FILE to record the details)",
                  type(e).__name__, e)
        return EXIT_INTERNAL
    finally:
        # what the run left for the garbage collector is collected while the log setup still routes it: after a
        # Ctrl-C, Playwright's lost driver leaves a future whose unread exception asyncio reports when it is freed
        gc.collect()
        setup.close()
    return EXIT_USAGE if setup.failed and status == EXIT_OK else status


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``) and return the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["worker"]:  # a Celery worker, with options of its own (pubfetch.distributed.worker)
        from pubfetch.distributed.worker import main as worker_main

        return worker_main(words[1:])
    if not words:
        print(USAGE, file=sys.stderr)
        _say("no operation given; see pubfetch --help")
        return EXIT_USAGE
    asks_help = "-h" in words or "--help" in words
    try:
        args = parse_args(words)
    except CliError as e:
        if asks_help:  # help is shown even when the rest of the command line is wrong
            sys.stdout.write(format_help())
            return EXIT_OK
        _say(str(e))
        return e.exit_status
    early = _early_answer(args)
    if early is not None:
        return early
    return _guarded_run(args, words)
