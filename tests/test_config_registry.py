"""The names of the settings (pubfetch/config/registry.py): each names one setting of one record, so a setting is
changed by name alone; which have a command-line option, which a queued job carries; and a value given as text (a
variable's, an option's) read as the type the setting declares, with the message a config file's bad value has."""

from __future__ import annotations

import dataclasses

import pytest

from pubfetch.config import FetchConfig
from pubfetch.config.defaults import Batching, BulkImport, Endpoints, HttpSettings, RunSettings
from pubfetch.config.registry import (
    GROUPS,
    JOB_SETTINGS,
    SETTINGS,
    WORKER_SETTINGS,
    checked,
    cli_options,
    from_text,
    setting_field,
)
from pubfetch.config.values import declared
from pubfetch.fetcher_args import FetcherArgs


def test_the_groups_are_the_records_of_a_configuration() -> None:
    assert dict(GROUPS) == {"fetching": FetcherArgs, "endpoints": Endpoints, "http": HttpSettings,
                            "batching": Batching, "run": RunSettings, "bulk": BulkImport}
    assert [f.name for f in dataclasses.fields(FetchConfig)] == list(GROUPS)


def test_every_setting_is_found_in_its_group() -> None:
    assert (SETTINGS["threads"], SETTINGS["busy_retries"], SETTINGS["eutils"], SETTINGS["timeout"]) == (
        "run", "http", "endpoints", "fetching")
    assert all(setting_field(group, name).name == name for name, group in SETTINGS.items())


def test_cli_options_give_each_option_with_its_setting_s_default() -> None:
    options = cli_options()
    assert ("threads", "--threads", 8) in options and ("javascript", "--no-javascript", True) in options
    assert all(default == getattr(getattr(FetchConfig(), SETTINGS[name]), name) for name, _, default in options)
    assert all(SETTINGS[name] != "fetching" for name, _, _ in options)
    assert len({option for _, option, _ in options}) == len(options)


def test_a_job_carries_its_settings_and_a_worker_keeps_the_rest() -> None:
    assert JOB_SETTINGS and all(declared(setting_field(SETTINGS[name], name)).job for name in JOB_SETTINGS)
    assert not set(JOB_SETTINGS) & set(WORKER_SETTINGS)
    assert {"threads", "endpoints", "http", "run"} <= set(WORKER_SETTINGS)


@pytest.mark.parametrize(("name", "text", "value"), [
    ("threads", "4", 4), ("threads", " +4 ", 4), ("max_compression_ratio", "2.5", 2.5),
    ("max_compression_ratio", "3", 3.0), ("total_timeout_ms", "5000", 5000), ("ncbi_tool", " mytool ", "mytool"),
    ("rate_db", "redis://127.0.0.1:6379/1", "redis://127.0.0.1:6379/1"),
    ("ask_crossref", "false", False), ("ask_crossref", "0", False), ("javascript", "Off", False),
    ("follow_published", "yes", True), ("follow_published", "1", True),
])
def test_text_is_read_as_the_setting_s_type(name: str, text: str, value: object) -> None:
    got = from_text(name, text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(("name", "text", "message"), [
    ("threads", "2.5", "threads must be a whole number, got 2.5"),
    ("threads", "four", "threads must be a whole number, got 'four'"),
    ("threads", "2000", "threads must be between 1 and 1024, got 2000"),
    ("max_compression_ratio", "0.5", "max_compression_ratio must be between 1 and 2147483647, got 0.5"),
    ("javascript", "maybe", "javascript must be true or false, got 'maybe'"),
    ("timeout", "5000", "timeout is one of PubFetcher's parameters, read by pubfetch.config.fetching"),
])
def test_bad_text_is_refused_naming_the_setting(name: str, text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        from_text(name, text)
    assert str(caught.value) == message


def test_checked_refuses_a_bad_value_and_leaves_pubfetcher_s_parameters_to_their_own_reader() -> None:
    assert checked("linger_ms", 10) == 10
    with pytest.raises(ValueError, match="^linger_ms must be a whole number, got '10'$"):
        checked("linger_ms", "10")
    assert checked("empty_cooldown", "12h") == "12h"


def test_a_setting_s_name_is_unique_across_the_records():
    import dataclasses

    from pubfetch.config import SETTINGS

    names = [f.name for record in (FetchConfig().fetching, FetchConfig().endpoints, FetchConfig().http,
                                   FetchConfig().batching, FetchConfig().run, FetchConfig().bulk)
             for f in dataclasses.fields(record)]
    assert len(names) == len(set(names)) == len(SETTINGS)
