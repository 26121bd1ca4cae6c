"""The ``pubfetch`` command's outcome: each kind of failure becomes one line on stderr and its exit status (2 the
user can fix, 75 the network seems down, 130 interrupted, 1 pubfetch's own fault), never a traceback; help, version
and completion answer before anything is set up; ``pubfetch worker`` is the worker's own command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch._version import __version__
from pubfetch.cli import main as main_module
from pubfetch.cli.help import USAGE
from pubfetch.net.reachability import NetworkUnreachable
from pubfetch.store import StoreError
from support.cli import Cli


def failing_run(monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    """The run of the operations raises ``error`` (as a part deep inside it would)."""

    def run(*args: object, **kwargs: object) -> int:
        raise error

    monkeypatch.setattr(main_module, "run", run)


def test_no_arguments_print_the_usage_and_one_error_line(cli: Cli) -> None:
    assert cli() == (2, "", f"{USAGE}\npubfetch: error: no operation given; see pubfetch --help\n")


def test_modifiers_without_an_operation_are_a_usage_error(cli: Cli) -> None:
    assert cli("--plain") == (2, "", "pubfetch: error: no operation given (operations are the single-dash options); "
                                     "see pubfetch --help\n")


def test_version_and_help_answer_at_once(cli: Cli) -> None:
    assert cli("--version") == (0, f"pubfetch {__version__}\n", "")
    code, out, err = cli("-pub", "1", "--no-such-option", "--help")
    assert (code, err) == (0, "") and out.startswith(USAGE)


@pytest.mark.parametrize(("error", "status", "line"), [
    (StoreError("the database x.db cannot be opened: locked"), 2,
     "pubfetch: error: the database x.db cannot be opened: locked"),
    (NetworkUnreachable(["a.example", "b.example"], ["refused"]), 75,
     "pubfetch: error: network unreachable: a.example, b.example did not answer (refused); check your connection or "
     "HTTPS_PROXY"),
    (KeyboardInterrupt(), 130, "pubfetch: error: interrupted"),
    (RuntimeError("a bug"), 1,
     "pubfetch: error: internal error: RuntimeError: a bug (please report it; run with --log FILE to record the "
     "details)"),
])  # fmt: skip
def test_each_failure_is_one_line_and_its_status(monkeypatch: pytest.MonkeyPatch, cli: Cli, error: BaseException,
                                                 status: int, line: str) -> None:
    failing_run(monkeypatch, error)
    code, _, lines = cli.lines("-is-pmid", "1")
    assert (code, lines) == (status, [line])


def test_an_internal_errors_traceback_goes_to_the_log_file(monkeypatch: pytest.MonkeyPatch, cli: Cli,
                                                           tmp_path: Path) -> None:
    failing_run(monkeypatch, RuntimeError("a bug"))
    log = tmp_path / "run.log"
    assert cli("-is-pmid", "1", "--log", log).code == 1
    assert "Traceback" in log.read_text(encoding="utf-8")


def test_a_reader_that_went_away_is_no_error(monkeypatch: pytest.MonkeyPatch, cli: Cli) -> None:
    failing_run(monkeypatch, BrokenPipeError())
    monkeypatch.setattr(main_module, "_quiet_broken_pipe", lambda: None)  # keep the test's own stdout
    assert cli("-is-pmid", "1") == (0, "", "")


def test_worker_is_the_workers_command_line(cli: Cli) -> None:
    pytest.importorskip("celery", reason='the worker needs celery (pip install ".[test]")')
    assert cli("worker", "--broker", "redis://127.0.0.1:1/0", "--db", "p.db", "--concurrency", "0") == (
        2, "", "pubfetch: error: --concurrency must be at least 1\n")


def test_an_operation_runs_and_exits_with_0(cli: Cli) -> None:
    assert cli("-is-pmid", "31114920") == (0, "true\n", "")


def test_cli_reports_a_bad_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("threds: 3\n")
    code = main_module.main(["-fetch-document", "http://127.0.0.1:9/", "--config", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"pubfetch: error: config file {path}: unknown setting 'threds' (did you mean 'threads'?); "
                          "the settings are listed in docs/configuration.md")
    assert err.count("\n") == 1
