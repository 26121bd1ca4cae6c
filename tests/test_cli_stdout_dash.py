"""``-`` names standard output for every option that writes a file (``-report``, ``-txt-*``, ``--warc``, ``--log``),
as for other command-line tools: never a file named ``-``. Where standard output is already taken (by ``-out``, a
one-off operation's answer, another ``-``), the command is refused with one line and exit status 2 before anything
runs; a directory option (``-out-tables``, ``--supplements``) given ``-`` is refused the same way."""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest

from support.cli import Cli, usage_error
from support.pubfetch_processes import REPO, pubfetch_cmd, service_env
from support.synthetic import SyntheticServices

ENTRIES = Path(__file__).parent / "data" / "cli" / "entries.json"


@pytest.fixture
def here(env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's directory as the working directory, where a file named ``-`` would appear."""
    monkeypatch.chdir(env)
    return env


def test_report_dash_writes_the_page_to_standard_output(here: Path, cli: Cli) -> None:
    pytest.importorskip("matplotlib", reason="the report needs matplotlib (the [report] extra, also in [test])")
    code, out, err = cli("-pub-json", ENTRIES, "-report", "-")
    assert (code, err) == (0, "")
    assert out.lstrip().lower().startswith("<!doctype html>") and out.rstrip().endswith("</html>")
    assert "<table" in out
    assert not (here / "-").exists()


def test_log_dash_writes_the_log_to_standard_output(here: Path, cli: Cli) -> None:
    code, out, err = cli("-pub-json", ENTRIES, "-txt-pub", here / "pubs.json", "--format", "json", "--log", "-")
    assert (code, err) == (0, "")
    assert " DEBUG   pubfetch.cli.logsetup: pubfetch -pub-json " in out  # the log's format: time, level, logger
    assert len(json.loads((here / "pubs.json").read_text())["publications"]) == 3
    assert not (here / "-").exists()


def test_warc_dash_writes_the_records_to_standard_output(services: SyntheticServices, tmp_path: Path) -> None:
    """In a process of its own: the WARC records are bytes on the real standard output."""
    from warcio.archiveiterator import ArchiveIterator

    pmid = services.pmids()[0]
    run = subprocess.run(pubfetch_cmd("-pub", pmid, "-db-fetch-end", tmp_path / "pubs.db", "--warc", "-",
                                      "--allow-private-addresses", "--no-javascript"),
                         capture_output=True, cwd=tmp_path, env=service_env(services), timeout=300, check=False)
    assert run.returncode == 0, run.stderr.decode()
    records = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI"))
               for r in ArchiveIterator(io.BytesIO(run.stdout))]
    assert records[0][0] == "warcinfo"
    assert any(kind == "response" and uri.startswith(services.base) for kind, uri in records[1:]), records
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["-pub-json", ENTRIES, "-out", "-report", "-"],
     "option -report writes to standard output ('-'), where -out already writes: give -report a file name"),
    (["-pub-json", ENTRIES, "-out", "-txt-pub", "-"],
     "option -txt-pub writes to standard output ('-'), where -out already writes: give -txt-pub a file name"),
    (["-pub-json", ENTRIES, "-txt-pub", "-", "-report", "-"],
     "options -txt-pub and -report both write to standard output ('-'): give all but one of them a file name"),
    (["-pub-json", ENTRIES, "-txt-pub", "-", "-txt-web", "-", "-report", "-"],
     "options -txt-pub, -txt-web and -report all write to standard output ('-'): give all but one of them a file "
     "name"),
    (["-is-pmid", "123", "-pub-json", ENTRIES, "--log", "-"],
     "option --log writes to standard output ('-'), where -is-pmid already writes: give --log a file name"),
    (["-pub-json", ENTRIES, "-out-tables", "-"],
     "option -out-tables writes a directory of files, which standard output ('-') cannot hold: give it a directory"),
    (["-pub-json", ENTRIES, "--supplements", "-"],
     "option --supplements writes a directory of files, which standard output ('-') cannot hold: give it a directory"),
])
def test_standard_output_taken_twice_is_refused_before_anything_runs(here: Path, cli: Cli, argv: list[object],
                                                                      message: str) -> None:
    assert usage_error(cli, *argv, "-db-fetch-end", here / "new.db") == f"pubfetch: error: {message}"
    assert not (here / "new.db").exists()  # refused before the fetch step's database was made
    assert not (here / "-").exists()


def test_a_search_alone_prints_its_ids_so_its_log_cannot_go_there(here: Path, cli: Cli) -> None:
    assert usage_error(cli, "-search-europepmc", "protein", "--log", "-") == (
        "pubfetch: error: option --log writes to standard output ('-'), where the search (its IDs, printed when no "
        "later step takes them) already writes: give --log a file name")


def test_a_streaming_fetch_s_report_goes_to_standard_output_and_its_summary_to_stderr(
        services: SyntheticServices, tmp_path: Path, cli: Cli) -> None:
    pytest.importorskip("matplotlib", reason="the report needs matplotlib (the [report] extra, also in [test])")
    ids = tmp_path / "ids.txt"
    ids.write_text("".join(p + "\n" for p in services.pmids()))
    code, out, err = cli("-pub-file", ids, "-db-fetch-end", tmp_path / "pubs.db", "-report", "-",
                         "--allow-private-addresses", "--no-javascript")
    assert (code, err.splitlines()[-1]) == (0, "pubfetch: 3 publications: 3 fetched, 0 skipped; 2 final, 1 partial, "
                                               "0 failed")
    assert out.lstrip().lower().startswith("<!doctype html>") and "database " in out


def _env() -> dict[str, str]:
    """This checkout's pubfetch, whatever is installed."""
    return {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_log_dash_on_a_full_standard_output_is_one_error_line_not_a_traceback_a_record(tmp_path: Path) -> None:
    """``--log -`` to a device that takes nothing (a full disk): said once on stderr, and the exit status tells, as
    for a log file that cannot be written."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full (not Linux)")
    with open("/dev/full", "w") as full:
        run = subprocess.run(pubfetch_cmd("-l", "-", "-db-init", tmp_path / "new.db"), stdout=full,
                             stderr=subprocess.PIPE, text=True, cwd=REPO, env=_env(), timeout=120, check=False)
    assert run.stderr.splitlines() == ["pubfetch: error: cannot write the log to standard output: No space left on "
                                       "device; no more is written to it"], run.stderr
    assert run.returncode == 2
    assert (tmp_path / "new.db").exists()  # the run went on


def test_log_dash_whose_reader_went_away_ends_quietly(tmp_path: Path) -> None:
    """As for ``-out | head``: the reader's choice, neither an error nor a traceback."""
    run = subprocess.Popen(pubfetch_cmd("-l", "-", "-db-init", tmp_path / "new.db"), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, cwd=REPO, env=_env())
    assert run.stdout is not None
    run.stdout.close()  # the reader is gone before the first record
    _, err = run.communicate(timeout=120)
    assert (run.returncode, err) == (0, "")
    assert (tmp_path / "new.db").exists()


def test_log_dash_lines_print_above_the_progress_bar_not_glued_to_it(services: SyntheticServices,
                                                                    tmp_path: Path) -> None:
    """``--log -`` with the progress bar on one terminal (here one file for both streams, as ``2>&1`` makes): each
    log line clears the bar and is printed whole, as the console's warnings are."""
    ids = tmp_path / "ids.txt"
    ids.write_text("".join(p + "\n" for p in services.pmids()))
    run = subprocess.run(pubfetch_cmd("-pub-file", ids, "-db-fetch-end", tmp_path / "pubs.db", "-l", "-", "--progress",
                                      "--allow-private-addresses", "--no-javascript"),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                         env=service_env(services), timeout=300, check=False)
    assert run.returncode == 0, run.stdout
    pieces = run.stdout.replace("\r", "\n").splitlines()
    bars = [p for p in pieces if p.startswith("publications:")]
    logged = [p for p in pieces if " DEBUG   pubfetch." in p or " INFO    pubfetch." in p]
    assert bars and logged
    assert not [p for p in bars if " pubfetch." in p], bars
    assert all(p[:4].isdigit() for p in logged), [p for p in logged if not p[:4].isdigit()][:3]


def test_warc_dash_on_a_full_standard_output_names_standard_output_not_a_file(services: SyntheticServices,
                                                                              tmp_path: Path) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full (not Linux)")
    with open("/dev/full", "wb") as full:
        run = subprocess.run(pubfetch_cmd("-pub", services.pmids()[0], "-db-fetch-end", tmp_path / "pubs.db", "--warc",
                                          "-", "--allow-private-addresses", "--no-javascript"),
                             stdout=full, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=service_env(services),
                             timeout=300, check=False)
    assert (run.returncode, run.stderr.splitlines()) == (2, [
        "pubfetch: error: cannot write the WARC records to standard output: No space left on device"])


@pytest.mark.parametrize("argv", [["-pub-json", ENTRIES, "-out"], ["-pub-json", ENTRIES, "-txt-pub", "-"],
                                  ["-is-pmid", "123"]])
def test_a_full_standard_output_is_one_error_line_not_an_internal_error(argv: list[object]) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full (not Linux)")
    with open("/dev/full", "w") as full:
        run = subprocess.run(pubfetch_cmd(*argv), stdout=full, stderr=subprocess.PIPE, text=True, cwd=REPO,
                             env=_env(), timeout=120, check=False)
    assert (run.returncode, run.stderr.splitlines()) == (
        2, ["pubfetch: error: cannot write standard output: No space left on device"])
