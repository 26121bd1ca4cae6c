"""The command line as a whole: the version, error handling (one line, exit 2), logging and the module entry point."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pubfetch.model import PartType
from support.cli import Cli
from support.cli import usage_error as error
from support.depwords import re_error

REPO = Path(__file__).resolve().parents[1]


def test_version(cli: Cli) -> None:
    assert cli("--version") == (0, "pubfetch 0.1.0\n", "")


# --- errors ------------------------------------------------------------------------------------------------------------


def test_unknown_option(cli: Cli) -> None:
    assert error(cli, "-pubb", "1") == (
        "pubfetch: error: unknown option '-pubb' (did you mean -pub?); see pubfetch --help")
    assert error(cli, "--formatt=json", "-out") == (
        "pubfetch: error: unknown option '--formatt=json' (did you mean --format?); see pubfetch --help")
    assert error(cli, "-zzz") == "pubfetch: error: unknown option '-zzz'; see pubfetch --help"


def test_unknown_option_inside_a_list(cli: Cli) -> None:
    assert error(cli, "-pub", "1", "-outt") == (
        "pubfetch: error: unknown option '-outt' (did you mean -out?); see pubfetch --help")


def test_stray_argument(cli: Cli) -> None:
    assert error(cli, "-out", "31114920") == (
        "pubfetch: error: unexpected argument '31114920': it follows no option that takes it; see pubfetch --help")


def test_missing_arguments(cli: Cli) -> None:
    assert error(cli, "-pub", "1", "-db") == "pubfetch: error: option -db needs an argument (DATABASE)"
    assert error(cli, "-db", "-out") == (
        "pubfetch: error: option -db needs an argument (DATABASE) but is followed by option -out")
    assert error(cli, "-pub", "-out") == "pubfetch: error: option -pub needs at least one argument (ID ...)"
    assert error(cli, "-check-publication-ids", "1", "PMC1") == (
        "pubfetch: error: option -check-publication-ids needs 3 arguments (PMID PMCID DOI), got 2")


def test_bad_values(cli: Cli) -> None:
    assert error(cli, "-pub", "1", "-pmid", "(") == (
        f"pubfetch: error: option -pmid: invalid regular expression '(': {re_error('(')}")
    assert error(cli, "-pub", "1", "-fetch-time-more", "yesterday") == (
        "pubfetch: error: option -fetch-time-more: invalid time 'yesterday': expected an ISO-8601 instant such as "
        "2024-01-31T12:00:00Z")
    assert error(cli, "-pub", "1", "-head", "-3") == (
        "pubfetch: error: option -head: invalid value '-3': expected a whole number >= 0")
    assert error(cli, "-pub", "1", "--threads", "0") == (
        "pubfetch: error: option --threads must be between 1 and 1024, got 0")
    assert error(cli, "-pub", "1", "-out", "--format", "xml") == (
        "pubfetch: error: option --format: unknown format 'xml': expected one of text, html, json, jsonl, metadata, "
        "metadata-jsonl, csljson, bibtex, ris, chunks, edges, markdown")
    assert error(cli, "-pub", "1", "-out", "--out-part", "abstrct") == (
        "pubfetch: error: option --out-part: unknown publication part 'abstrct': expected one of pmid, pmcid, doi, "
        "title, keywords, mesh, efo, go, abstract, fulltext")
    types = ", ".join(t.value for t in PartType)
    assert error(cli, "-pub", "1", "-part-type", "doi", "-part-type-part", "title", "-part-type", "pdf") == (
        f"pubfetch: error: option -part-type: unknown publication part type 'pdf': expected one of {types}")


def test_bad_fetching_parameter(cli: Cli) -> None:
    assert error(cli, "-pub", "1", "-out", "--timeout", "-5") == (
        "pubfetch: error: option --timeout: invalid value '-5' for parameter timeout: expected a value of at least "
        "0 milliseconds")
    assert error(cli, "-pub", "1", "-out", "--emptyCooldown", "30s").startswith(
        "pubfetch: error: option --emptyCooldown: invalid value '30s' for parameter emptyCooldown: expected ")
    assert error(cli, "-pub", "1", "-out", "--retryLimit", "2", "--retryLimit", "3") == (
        "pubfetch: error: option --retryLimit given more than once")


def test_conflicting_and_incomplete_options(cli: Cli) -> None:
    assert error(cli, "-pub", "1", "-part-content", "x") == (
        "pubfetch: error: option -part-content needs -part-content-part (the publication parts to test)")
    assert error(cli, "-pub", "1", "-not-part-size-part", "title") == (
        "pubfetch: error: option -not-part-size-part needs -not-part-size (the test to apply to the parts)")
    assert error(cli, "-pub", "1", "--fetch-part", "title", "--not-fetch-part", "abstract") == (
        "pubfetch: error: options --fetch-part and --not-fetch-part can't be used together")
    assert error(cli, "-pub", "1", "-db", "a.db", "-db", "b.db") == "pubfetch: error: option -db given more than once"
    assert error(cli, "-out", "--plain=yes") == "pubfetch: error: option --plain takes no argument (given '--plain=yes')"


def test_no_operation(cli: Cli) -> None:
    code, out, err = cli()
    assert (code, out) == (2, "")
    assert err == ("usage: pubfetch [-OPERATION [ARG ...] ...] [--MODIFIER [ARG ...] ...]\n"
                   "pubfetch: error: no operation given; see pubfetch --help\n")
    assert error(cli, "--plain", "--format", "json") == (
        "pubfetch: error: no operation given (operations are the single-dash options); see pubfetch --help")


def test_network_steps_without_ids_do_nothing(cli: Cli) -> None:
    """As in PubFetcher, a content step with no IDs to work on is skipped (so nothing asks for the network)."""
    assert cli("-fetch", "-count") == (0, "", "")


def test_one_session_per_command_and_no_module_global(monkeypatch: pytest.MonkeyPatch,
                                                      cli: Cli) -> None:
    """main() creates the session once and passes it down; the fetching module keeps no session of its own."""
    from pubfetch.cli import fetching

    opened: list[fetching.Session] = []
    real = fetching.Session.__init__

    def record(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        real(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(fetching.Session, "__init__", record)
    assert cli("-fetch", "-count", "--threads", "2") == (0, "", "")
    assert len(opened) == 1 and opened[0].config.run.threads == 2
    assert not [name for name, value in vars(fetching).items() if isinstance(value, fetching.Session)]


# --- logging -----------------------------------------------------------------------------------------------------------


def test_log_file_gets_debug_lines_and_errors(cli: Cli, tmp_path: Path) -> None:
    log_file = tmp_path / "logs" / "run.log"
    code, out, err = cli("-l", str(log_file), "-pub", "31114920", "xyz", "-out-ids", "--plain")
    assert (code, out) == (0, "31114920\t\t\n")
    assert err == ("pubfetch: warning: -pub: unknown publication ID 'xyz': expected a PMID (31114920), a PMCID "
                   "(PMC6198355) or a DOI (10.1093/nar/gkz369)\n"
                   "pubfetch: warning: -pub: 1 of 2 publication IDs invalid, 1 skipped\n")
    text = log_file.read_text(encoding="utf-8")
    assert f"DEBUG   pubfetch.cli.logsetup: pubfetch -l {log_file} -pub 31114920 xyz -out-ids --plain" in text
    assert "INFO    pubfetch.cli.logsetup: This is pubfetch 0.1.0" in text
    assert "WARNING pubfetch.cli.idsource: -pub: 1 of 2 publication IDs invalid, 1 skipped" in text
    cli("--log", str(log_file), "-is-pmid", "1")
    assert log_file.read_text(encoding="utf-8").startswith(text), "the log is appended to"


def test_verbose_shows_info_with_counts_that_agree_with_their_nouns(cli: Cli) -> None:
    _, _, err = cli("--verbose", "-pub", "31114920", "-count-ids")
    assert "pubfetch: info: This is pubfetch 0.1.0\n" in err
    assert "pubfetch: info: -pub: 1 publication ID OK\n" in err
    assert "pubfetch: info: Got 1 new distinct publication ID from the command line\n" in err
    _, _, err = cli("--verbose", "-pub", "31114920", "PMC6198355", "-count-ids")
    assert "pubfetch: info: -pub: 2 publication IDs OK\n" in err
    assert "pubfetch: info: Got 2 new distinct publication IDs from the command line\n" in err


def test_unwritable_log(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    assert error(cli, "-l", str(tmp_path / "f" / "x.log"), "-is-pmid", "1").startswith(
        f"pubfetch: error: cannot write log file '{tmp_path / 'f' / 'x.log'}' (--log): ")


# --- through a real process ------------------------------------------------------------------------------------------


def _subprocess(*argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "pubfetch", *argv], check=False, capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=60)


def test_module_entry_point_answers() -> None:
    done = _subprocess("-is-doi", "10.1093/nar/gkz369", "-normalise-doi", "doi:10.1093/nar/gkz369")
    assert (done.returncode, done.stdout, done.stderr) == (0, "true\n10.1093/NAR/GKZ369\n", "")


def test_module_entry_point_help_and_errors() -> None:
    done = _subprocess("--help")
    assert done.returncode == 0 and "Pipeline 1: add IDs:" in done.stdout and "Output modifiers:" in done.stdout
    done = _subprocess("-pub", "1", "-pmid", "[")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"pubfetch: error: option -pmid: invalid regular expression '[': {re_error('[')}\n"

