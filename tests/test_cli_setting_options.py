"""The options that set settings are made from the declarations: each sets the setting that declares it, states the
declared default, bounds and variables in --help, and refuses a bad value with the config file's message as a one-line
usage error; PubFetcher's fetching parameters are options with their descriptors' help, forms and checks."""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from pathlib import Path

import pytest

from pubfetch.cli.errors import UsageError
from pubfetch.cli.fetching import fetch_config
from pubfetch.cli.help import format_help
from pubfetch.cli.options import BY_NAME
from pubfetch.cli.parser import parse_args
from pubfetch.cli.setting_options import (
    FETCHING,
    FETCHING_PRIVATE,
    MIN_TIMEOUT_MS,
    command_line_settings,
    setting_option,
)
from pubfetch.config import SETTINGS, FetchConfig, cli_options
from pubfetch.config.fetching import FETCHING_FIELDS
from pubfetch.config.registry import GROUPS, setting_field
from pubfetch.config.values import declared, field_type
from support.cli import Cli
from support.cli import usage_error as error

#: (setting, option, default) of every setting that declares an option.
DECLARED = cli_options()


def _field(name: str) -> dataclasses.Field[object]:
    return setting_field(SETTINGS[name], name)


def _number(bound: float) -> str:
    """A bound as the help writes it: a whole number without decimals, a fraction as it is."""
    return f"{bound:.0f}" if float(bound).is_integer() else str(bound)


def _bare_type(name: str) -> object:
    expected = field_type(GROUPS[SETTINGS[name]], name)
    if typing.get_origin(expected) in (typing.Union, types.UnionType):
        return next(a for a in typing.get_args(expected) if a is not type(None))
    return expected


def _other_value(name: str) -> tuple[list[str], object]:
    """The words after the option that give setting ``name`` a value other than its default, and that value."""
    decl, default = declared(_field(name)), _field(name).default
    kind = _bare_type(name)
    if kind is bool:
        return [], not default
    if kind is int:
        assert isinstance(default, int)
        value = default + 1 if decl.high is None or default < decl.high else default - 1
        return [str(value)], value
    if kind is float:
        assert isinstance(default, float)
        value = default + 1 if decl.high is None or default + 1 <= decl.high else default / 2
        return [str(value)], value
    if typing.get_origin(kind) is frozenset:  # a set of names (annotation types): one name of those not in it
        [member_type] = typing.get_args(kind)
        other = next(m for m in member_type if m not in default)
        return [other.value], frozenset({other})
    assert kind is str, f"a test value for a {kind} setting is missing"
    return [f"value-of-{name}"], f"value-of-{name}"


def test_some_settings_declare_options_and_each_is_on_the_command_line_once() -> None:
    assert {"threads", "batch_size", "per_host_connections", "rate_limits", "ncbi_api_key"} <= {
        name for name, _, _ in DECLARED}
    options = [option for _, option, _ in DECLARED]
    assert len(options) == len(set(options))
    for name, option, _ in DECLARED:
        assert option in BY_NAME, f"{name} declares {option}, which the command line does not have"
        assert BY_NAME[option].role == "modifier" and BY_NAME[option].dest == option.lstrip("-")


@pytest.mark.parametrize(("name", "option"), [(name, option) for name, option, _ in DECLARED])
def test_each_option_sets_the_setting_that_declares_it(name: str, option: str, env: Path) -> None:
    words, value = _other_value(name)
    parsed = parse_args([option, *words])
    assert command_line_settings(parsed.values) == {name: value}
    config = fetch_config(parsed.values)
    assert getattr(getattr(config, SETTINGS[name]), name) == value
    assert getattr(getattr(FetchConfig(), SETTINGS[name]), name) != value


def test_the_command_line_wins_over_the_config_file_and_the_environment(env: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    config = env / "config.yaml"
    config.write_text("threads: 5\nbatch_size: 9\nncbi_email: file@example.org\n", encoding="utf-8")
    monkeypatch.setenv("PUBFETCH_THREADS", "6")
    parsed = parse_args(["--config", str(config), "--threads", "3", "--ncbi-api-key", " k "])
    cfg = fetch_config(parsed.values)
    assert (cfg.run.threads, cfg.batching.batch_size, cfg.run.ncbi_email, cfg.run.ncbi_api_key) == (
        3, 9, "file@example.org", "k")


def test_an_empty_value_leaves_the_setting_as_it_was(env: Path) -> None:
    parsed = parse_args(["--chromium", "", "--ncbi-email", " "])
    assert command_line_settings(parsed.values) == {}


@pytest.mark.parametrize(("name", "option"), [(name, option) for name, option, default in DECLARED
                                              if not isinstance(default, bool)])
def test_help_states_the_declared_doc_default_bounds_and_variables(name: str, option: str, env: Path) -> None:
    decl, default = declared(_field(name)), _field(name).default
    help = BY_NAME[option].help
    doc = decl.doc.replace("`", "")
    assert help.startswith(doc[0].upper() + doc[1:] + " (")
    stated = re.search(r"\(default ([^;)]+)", help)
    shown = ",".join(sorted(m.value for m in default)) if isinstance(default, frozenset) else str(default)
    assert (stated.group(1) if stated else None) == (shown if default not in (None, "") else None)
    if decl.high is not None:
        assert f"; {_number(decl.low if decl.low is not None else 0)} to {_number(decl.high)}" in help
    for variable in decl.env:
        assert variable in help
    assert " ".join(help.split()[:4]) in " ".join(format_help().split())


def test_a_flag_says_what_it_turns_on_or_off() -> None:
    assert BY_NAME["--no-rate-limit"].help == (
        "Do not wait for the services' documented rate limits, shared with every pubfetch process of the user "
        "(pubfetch)")
    assert BY_NAME["--references"].help.startswith("Ask Europe PMC's references endpoint ")
    assert BY_NAME["--no-javascript"].arity == 0 and BY_NAME["--allow-private-addresses"].arity == 0


def test_pubfetchers_own_option_is_not_marked_as_an_addition_and_a_note_follows_the_facts() -> None:
    assert not BY_NAME["--threads"].help.endswith("(pubfetch)")
    assert BY_NAME["--batch-size"].help.endswith("; with --queue, IDs per task: default 50, at most 1000, larger "
                                                 "sizes are split) (pubfetch)")
    assert "else NCBI_API_KEY; on the command line it is visible to other users" in BY_NAME["--ncbi-api-key"].help


@pytest.mark.parametrize(("option", "value", "file_line"), [
    ("--threads", "0", "threads: 0"),
    ("--threads", "many", "threads: many"),
    ("--connections-per-host", "2000", "per_host_connections: 2000"),
    ("--batch-size", "2.5", "batch_size: 2.5"),
])
def test_a_bad_value_is_a_one_line_usage_error_with_the_config_files_message(
        option: str, value: str, file_line: str, cli: Cli, env: Path) -> None:
    """The config file's words, with the option as the user wrote it where the file names the setting."""
    config = env / "config.yaml"
    config.write_text(file_line + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as from_file:
        FetchConfig.from_env({}, config_file=config)
    setting = file_line.split(":")[0]
    message = str(from_file.value).removeprefix(f"config file {config}: {setting} ")
    assert error(cli, "-pub", "1", "-out", option, value) == f"pubfetch: error: option {option} {message}"


def test_an_option_no_setting_declares_is_refused_when_the_table_is_built() -> None:
    with pytest.raises(ValueError, match="no setting declares the option --thread "):
        setting_option("--thread", "N")


# --- PubFetcher's fetching parameters --------------------------------------------------------------------------------


def test_every_fetching_parameter_is_an_option_in_pubfetchers_order_with_its_default() -> None:
    options = FETCHING.options + FETCHING_PRIVATE.options
    assert sorted(o.name for o in options) == sorted(f"--{key}" for key in FETCHING_FIELDS)
    assert [o.name for o in FETCHING.options] == [f"--{k}" for k in FETCHING_FIELDS if f"--{k}" in
                                                  {o.name for o in FETCHING.options}]
    assert {o.name for o in FETCHING_PRIVATE.options} == {"--europepmcEmail", "--oadoiEmail", "--userAgent",
                                                          "--journalsYaml", "--webpagesYaml"}
    assert BY_NAME["--emptyCooldown"].help.endswith("(default 720)")
    assert BY_NAME["--timeout"].help.endswith("(default 15000)") and BY_NAME["--timeout"].metavar == "MS"
    assert BY_NAME["--europepmcEmail"].help.endswith("(default empty)")
    assert BY_NAME["--quick"].help.endswith("(default false)") and BY_NAME["--quick"].arity == "?"


def test_fetching_options_take_pubfetchers_forms() -> None:
    parsed = parse_args(["--emptyCooldown", "12h", "--nonFinalCooldown", "-1", "--fetchExceptionCooldown", "1d",
                         "--timeout", "30s", "--quick", "--retryLimit", "-1"])
    args = FetchConfig().with_changes(**parsed.fetcher).fetching
    assert (args.empty_cooldown, args.non_final_cooldown, args.fetch_exception_cooldown) == (720, -1, 1440)
    assert (args.timeout, args.quick, args.retry_limit) == (30000, True, -1)
    assert FetchConfig().with_changes(**parse_args(["--quick", "false"]).fetcher).fetching.quick is False


def test_a_timeout_too_short_for_any_server_is_taken_for_seconds_given_as_milliseconds() -> None:
    with pytest.raises(UsageError) as info:
        parse_args(["--timeout", str(MIN_TIMEOUT_MS - 1)])
    assert str(info.value) == (f"option --timeout: {MIN_TIMEOUT_MS - 1} ms is too short for any server to answer; "
                               f"the timeout is in milliseconds (e.g. {(MIN_TIMEOUT_MS - 1) * 1000} for "
                               f"{MIN_TIMEOUT_MS - 1} s; 0 for none)")
    assert FetchConfig().with_changes(**parse_args(["--timeout", "0"]).fetcher).fetching.timeout == 0
    assert FetchConfig().with_changes(**parse_args(["--timeout", str(MIN_TIMEOUT_MS)]).fetcher).fetching.timeout == MIN_TIMEOUT_MS


def test_a_bad_fetching_value_names_the_option_and_the_parameter() -> None:
    with pytest.raises(UsageError) as info:
        parse_args(["--emptyCooldown", "30s"])
    assert str(info.value).startswith("option --emptyCooldown: invalid value '30s' for parameter emptyCooldown: ")
    with pytest.raises(UsageError, match="^option --titleMinLength: invalid value '-1' for parameter titleMinLength"):
        parse_args(["--titleMinLength", "-1"])
