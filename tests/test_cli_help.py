"""``--help``: generated from the option table, so it lists exactly the options the parser accepts, in the groups'
pipeline order, and ends with the environment and the config file in use."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pubfetch.cli.help import COLUMN, ENVIRONMENT, USAGE, WIDTH, format_help
from pubfetch.cli.options import BY_NAME, GROUPS
from pubfetch.config import Endpoints
from pubfetch.config.defaults import PROCESS_VARIABLES
from pubfetch.config.environment import variables
from pubfetch.config.registry import setting_field
from pubfetch.config.values import declared
from support.cli import Cli


def test_help_lists_the_groups_in_pipeline_order(cli: Cli) -> None:
    code, out, err = cli("--help")
    assert code == 0 and err == ""
    titles = ["General:", "Fetching parameters:", "Fetching private parameters:", "One-off: database:",
              "One-off: print a web page (network):", "One-off: scrape rules:", "One-off: publication IDs:",
              "One-off: miscellaneous:", "One-off: metadata records (pubfetch):", "Pipeline 1: add IDs:",
              "Pipeline 2: filter IDs:",
              "Pipeline 3: sort, limit and remove IDs:", "Pipeline 4: output IDs:", "Pipeline 5: get content:",
              "Get content modifiers:", "Snowball:", "Pipeline 6: filter content:", "Filter publications:",
              "Filter publication parts:", "Filter webpages and docs:", "Pipeline 7: sort and limit content:",
              "Pipeline 8: update, put and remove:", "Pipeline 9: output:", "Output modifiers:",
              "Test operations (network):", "Test operations: rule tests and resource tests:"]
    lines = out.splitlines()
    positions = [lines.index(t) for t in titles]
    assert positions == sorted(positions)
    assert [g.title + ":" for g in GROUPS] == titles


def test_help_lists_every_option(cli: Cli) -> None:
    _, out, _ = cli("-h")
    listed = {word.rstrip(",") for line in out.splitlines() if line.startswith("  -") for word in line.split()
              if word.startswith("-")}
    assert set(BY_NAME) <= listed
    assert "  -pub-file FILE ...                Add publication IDs from text files of 'pmid<TAB>pmcid<TAB>doi' " \
           "lines (a line" in out
    assert "  --format FORMAT                   text (default), html, json, jsonl (one JSON entry per line for " \
           "pipelines), metadata" in out


def test_help_wins_over_other_options(cli: Cli) -> None:
    code, out, _ = cli("-pubb", "--help")
    assert code == 0 and out.startswith("usage: pubfetch ")


def test_help_lines_fit_the_width_and_descriptions_line_up(env: Path) -> None:
    text = format_help()
    assert text.startswith(USAGE + "\n")
    lines = text.splitlines()
    assert max(len(line) for line in lines if not line.startswith("Config file: ")) <= WIDTH  # a path is as long as it is
    entries = [line for line in lines if line.startswith("  -")]
    described = [line for line in entries if len(line) > COLUMN and line[COLUMN - 1] == " " and line[COLUMN] != " "]
    assert len(described) > len(entries) // 2  # most options fit their names left of the description column


def test_an_option_too_long_for_the_column_has_its_description_on_the_next_line(env: Path) -> None:
    long = [o for g in GROUPS for o in g.options if len("  " + ", ".join(o.names) + " " + o.metavar) >= COLUMN - 1]
    assert long, "the option table has an option with a long left column"
    lines = format_help().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("  " + ", ".join(long[0].names)))
    assert lines[first + 1].startswith(" " * COLUMN) and not lines[first + 1][COLUMN].isspace()


def test_help_names_the_config_file_in_use(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = env / "pubfetch.yaml"
    config.write_text("threads: 2\n", encoding="utf-8")
    monkeypatch.setenv("PUBFETCH_CONFIG", str(config))
    assert format_help().rstrip().splitlines()[-1] == f"Config file: {config} (in use)"
    for name, _ in ENVIRONMENT:
        assert name in format_help()


def test_help_ends_with_the_environment_and_the_config_file(cli: Cli, env: Path) -> None:
    code, out, _ = cli("--help")
    assert code == 0
    tail = out[out.index("\nEnvironment"):]
    for name in ("NCBI_API_KEY", "PUBFETCH_NCBI_EMAIL", "PUBFETCH_UNPAYWALL_EMAIL", "PUBFETCH_EUROPEPMC_EMAIL",
                 "HTTPS_PROXY"):
        assert name in tail
    assert out.rstrip().splitlines()[-1] == ("Config file: $PUBFETCH_CONFIG, else ~/.config/pubfetch/config.yaml "
                                             "(none found)")
    assert "--ncbi-api-key KEY" in out and "--ncbi-email EMAIL" in out
    assert "-print-europepmc-html" not in out and "-print-pmc-html" not in out


def test_the_environment_section_names_every_declared_variable_with_its_doc(env: Path) -> None:
    tail = " ".join(format_help().split("\nEnvironment", 1)[1].split())
    names = [name for names in variables().values() for name in names if not name.endswith("_URL")]
    assert [name for name in [*names, *PROCESS_VARIABLES] if name not in tail] == []
    services = ", ".join(f.name.upper() for f in dataclasses.fields(Endpoints))
    assert f"PUBFETCH_<SERVICE>_URL base URL of a service: {services}" in tail
    assert "PUBFETCH_NCBI_API_KEY, else NCBI_API_KEY NCBI API key: E-utilities allow 10 instead of 3 requests/s" in tail
    assert "PUBFETCH_UNPAYWALL_EMAIL e-mail to send to the Unpaywall (oaDOI) API" in tail
    threads = declared(setting_field("run", "threads")).doc
    assert f"PUBFETCH_THREADS {threads}" in tail
    assert [name for name, _ in ENVIRONMENT].count("PUBFETCH_THREADS") == 1
