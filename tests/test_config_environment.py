"""The one reader of the environment (pubfetch/config/environment.py): the settings a given mapping of variables
gives, checked, with an empty variable giving none and a bad value a one-line error naming the variable; and the
config file, rate-limit file and result backend the variables name."""

from __future__ import annotations

from pathlib import Path

import pytest

from pubfetch.config import FetchConfig
from pubfetch.config.environment import (
    default_file,
    environment_settings,
    rate_db_default,
    result_backend_default,
    variables,
)


def test_no_variables_give_no_settings() -> None:
    assert environment_settings({"HOME": "/home/someone", "PATH": "/usr/bin"}) == {}


def test_variables_give_their_settings_typed() -> None:
    """A number's variable gives a number, text gives text, and PubFetcher's parameters give their text as it is."""
    given = environment_settings({"PUBFETCH_THREADS": " 4 ", "PUBFETCH_EUTILS_URL": "http://127.0.0.1:8080/e/",
                                  "PUBFETCH_UNPAYWALL_EMAIL": "curator@example.org"})
    assert given == {"threads": 4, "eutils": "http://127.0.0.1:8080/e/", "oadoi_email": "curator@example.org"}


def test_an_empty_variable_gives_no_setting() -> None:
    assert environment_settings({"PUBFETCH_THREADS": "", "PUBFETCH_CHROMIUM": "   "}) == {}


def test_the_first_variable_set_of_a_setting_wins() -> None:
    """PUBFETCH_NCBI_API_KEY before NCBI_API_KEY; an empty first one leaves the second to give the key."""
    assert environment_settings({"PUBFETCH_NCBI_API_KEY": "mine", "NCBI_API_KEY": "shared"}) == {
        "ncbi_api_key": "mine"}
    assert environment_settings({"PUBFETCH_NCBI_API_KEY": "", "NCBI_API_KEY": "shared"}) == {
        "ncbi_api_key": "shared"}


@pytest.mark.parametrize(("value", "message"), [
    ("many", "PUBFETCH_THREADS: threads must be a whole number, got 'many'"),
    ("2.5", "PUBFETCH_THREADS: threads must be a whole number, got 2.5"),
    ("0", "PUBFETCH_THREADS: threads must be between 1 and 1024, got 0"),
])
def test_a_bad_number_is_one_line_naming_the_variable(value: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        environment_settings({"PUBFETCH_THREADS": value})
    assert str(caught.value) == message


def test_every_variable_belongs_to_one_setting() -> None:
    owners: dict[str, str] = {}
    for name, names in variables().items():
        for var in names:
            assert var not in owners, f"{var} gives both {owners[var]} and {name}"
            owners[var] = name
    assert owners["PUBFETCH_THREADS"] == "threads" and owners["NCBI_API_KEY"] == "ncbi_api_key"


def test_pubfetch_config_names_the_file_whether_or_not_it_exists(tmp_path: Path) -> None:
    named = str(tmp_path / "elsewhere.yaml")
    assert default_file({"PUBFETCH_CONFIG": named, "XDG_CONFIG_HOME": str(tmp_path)}) == named
    assert default_file({"PUBFETCH_CONFIG": "", "XDG_CONFIG_HOME": str(tmp_path)}) is None  # empty names no file


def test_the_rate_limit_file_is_the_variable_s_else_in_the_cache(tmp_path: Path) -> None:
    assert rate_db_default({"PUBFETCH_RATE_DB": "redis://127.0.0.1:6379/2"}) == "redis://127.0.0.1:6379/2"
    assert rate_db_default({"XDG_CACHE_HOME": str(tmp_path)}) == str(tmp_path / "pubfetch" / "rate-limits.sqlite")


def test_the_result_backend_is_the_variable_s_or_none() -> None:
    assert result_backend_default({"PUBFETCH_RESULT_BACKEND": "redis://127.0.0.1:6379/1"}) == (
        "redis://127.0.0.1:6379/1")
    assert result_backend_default({"PUBFETCH_RESULT_BACKEND": ""}) is None
    assert result_backend_default({}) is None


def test_default_file_location(tmp_path):
    assert default_file({"XDG_CONFIG_HOME": str(tmp_path)}) is None
    (tmp_path / "pubfetch").mkdir()
    (tmp_path / "pubfetch" / "config.yaml").write_text("threads: 2\n")
    assert default_file({"XDG_CONFIG_HOME": str(tmp_path)}) == str(tmp_path / "pubfetch" / "config.yaml")
    assert FetchConfig.from_env({"XDG_CONFIG_HOME": str(tmp_path)}).run.threads == 2


def test_the_environment_gives_settings_of_every_record():
    env = {"PUBFETCH_RATE_DB": "redis://127.0.0.1:6379/3", "REQUESTS_CA_BUNDLE": "/etc/ca.pem",
           "PUBFETCH_CHROMIUM": "/usr/bin/chromium", "PUBFETCH_NCBI_API_KEY": " key ", "NCBI_API_KEY": "other"}
    cfg = FetchConfig.from_env(env, config_file="")
    assert (cfg.run.rate_db, cfg.http.ca_bundle, cfg.run.chromium, cfg.run.ncbi_api_key) == (
        "redis://127.0.0.1:6379/3", "/etc/ca.pem", "/usr/bin/chromium", "key")
    with pytest.raises(ValueError, match="PUBFETCH_THREADS: threads must be a whole number, got 'many'"):
        FetchConfig.from_env({"PUBFETCH_THREADS": "many"}, config_file="")
    with pytest.raises(ValueError, match="PUBFETCH_THREADS: threads must be between 1 and 1024, got 0"):
        FetchConfig.from_env({"PUBFETCH_THREADS": "0"}, config_file="")
