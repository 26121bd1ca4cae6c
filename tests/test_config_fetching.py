"""PubFetcher's fetching parameters: their declarations (PubFetcher's names, order, defaults and bounds), the reading of
PubFetcher's forms (plain numbers in PubFetcher's units, suffixed intervals, negative cooldowns), the names each may
be given by, and :class:`FetcherArgs` checking every value it is built with."""

from __future__ import annotations

import dataclasses

import pytest

from pubfetch.config.defaults import MINUTE_MS
from pubfetch.config.fetching import (
    FETCHING_FIELDS,
    FetchingValueError,
    UnknownFetchingParameter,
    fetching_field,
)
from pubfetch.config.values import declared
from pubfetch.fetcher_args import FetcherArgs, parse_fetcher_option

DEFAULTS = {
    "empty_cooldown": 720, "non_final_cooldown": 10080, "fetch_exception_cooldown": 1440, "retry_limit": 3,
    "title_min_length": 4, "keywords_min_size": 2, "mined_terms_min_size": 1, "abstract_min_length": 200,
    "fulltext_min_length": 2000, "webpage_min_length": 50, "webpage_min_length_javascript": 200, "timeout": 15000,
    "quick": False, "europepmc_email": "", "oadoi_email": "@",
    "user_agent": "Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0",
    "journals_yaml": "", "webpages_yaml": "",
}


def value_of(name: str, text: str) -> object:
    attribute, value = parse_fetcher_option(name, text)
    return getattr(FetcherArgs(**{attribute: value}), attribute)


# --- the declarations -------------------------------------------------------------------------------------------------


def test_the_defaults_are_pubfetchers() -> None:
    assert FetcherArgs().to_dict() == DEFAULTS


def test_the_declarations_are_the_fields_in_pubfetchers_order() -> None:
    """What a UI such as EDAMmap's shows of each: PubFetcher's name, label, default, bounds and description."""
    fields = list(FETCHING_FIELDS.values())
    assert [f.name for f in fields] == list(DEFAULTS)
    assert [f.default for f in fields] == list(DEFAULTS.values())
    assert FetcherArgs().to_dict(camel_case=True) == {key: f.default for key, f in FETCHING_FIELDS.items()}
    assert list(FETCHING_FIELDS)[:4] == ["emptyCooldown", "nonFinalCooldown", "fetchExceptionCooldown", "retryLimit"]
    for key, f in FETCHING_FIELDS.items():
        assert declared(f).label != key or key == "timeout"
        assert declared(f).doc
    assert declared(FETCHING_FIELDS["webpageMinLengthJavascript"]).label == "Webpage min. length JS"


def test_lengths_sizes_and_the_timeout_have_a_floor_of_zero_and_cooldowns_none() -> None:
    for key in ("titleMinLength", "keywordsMinSize", "minedTermsMinSize", "abstractMinLength", "fulltextMinLength",
                "webpageMinLength", "webpageMinLengthJavascript", "timeout"):
        assert declared(FETCHING_FIELDS[key]).low == 0, key
        with pytest.raises(FetchingValueError, match=f"parameter {key}:"):
            parse_fetcher_option(key, "-1")
        assert parse_fetcher_option(key, "0")[1] == 0
    for key in ("emptyCooldown", "nonFinalCooldown", "fetchExceptionCooldown", "retryLimit"):
        assert declared(FETCHING_FIELDS[key]).low == -(2**31)


# --- PubFetcher's forms ----------------------------------------------------------------------------------------------


def test_a_cooldown_is_minutes_or_a_suffixed_interval() -> None:
    assert value_of("emptyCooldown", "720") == 720
    assert value_of("emptyCooldown", "12h") == 720
    assert value_of("fetchExceptionCooldown", "1d") == 1440
    assert value_of("nonFinalCooldown", "1w") == 10080
    assert value_of("emptyCooldown", "120s") == 2


def test_a_cooldown_under_a_whole_minute_is_refused_not_rounded_to_always() -> None:
    with pytest.raises(FetchingValueError, match="parameter emptyCooldown.*whole number of minutes"):
        parse_fetcher_option("emptyCooldown", "30s")


def test_negative_cooldowns_mean_never_and_a_negative_retry_limit_no_limit() -> None:
    assert value_of("emptyCooldown", "-1") == -1
    assert value_of("nonFinalCooldown", "-1d") == -1440
    args = FetcherArgs(empty_cooldown=-1, fetch_exception_cooldown=-5, retry_limit=-1)
    assert (args.cooldown_ms("emptyCooldown"), args.cooldown_ms("fetch_exception_cooldown")) == (-MINUTE_MS,
                                                                                                  -5 * MINUTE_MS)
    assert args.retry_limit == -1
    assert FetcherArgs().cooldown_ms("empty_cooldown") == 720 * MINUTE_MS


def test_the_timeout_is_milliseconds_or_a_suffixed_interval() -> None:
    assert value_of("timeout", "30") == 30
    assert value_of("timeout", "30s") == 30000
    assert value_of("timeout", "1m") == 60000


def test_a_negative_or_wordy_timeout_is_refused_naming_the_parameter() -> None:
    with pytest.raises(FetchingValueError, match="parameter timeout") as info:
        parse_fetcher_option("timeout", "-1")
    assert "-1" in str(info.value)
    with pytest.raises(FetchingValueError, match="parameter timeout: expected a time interval"):
        parse_fetcher_option("--timeout", "abc")


def test_quick_and_texts() -> None:
    assert value_of("--quick", "true") is True and value_of("quick", "false") is False
    with pytest.raises(FetchingValueError, match="parameter quick"):
        parse_fetcher_option("quick", "maybe")
    assert value_of("--journalsYaml", "my.yaml") == "my.yaml"
    assert value_of("europepmc_email", "") == ""


# --- names -----------------------------------------------------------------------------------------------------------


def test_a_parameter_is_named_as_pubfetcher_an_option_or_a_field_names_it() -> None:
    for name in ("--emptyCooldown", "emptyCooldown", "--empty-cooldown", "empty_cooldown"):
        assert parse_fetcher_option(name, "5") == ("empty_cooldown", 5)
    assert fetching_field("--retryLimit") is fetching_field("retry_limit") is FETCHING_FIELDS["retryLimit"]


def test_an_unknown_parameter_is_refused_with_the_known_ones() -> None:
    with pytest.raises(UnknownFetchingParameter) as info:
        parse_fetcher_option("emptyCoolDown", "5")
    assert str(info.value).startswith("unknown fetching parameter 'emptyCoolDown' (did you mean 'emptyCooldown'?); "
                                      "known: emptyCooldown, ")
    with pytest.raises(UnknownFetchingParameter):
        parse_fetcher_option("--threads", "8")
    with pytest.raises(ValueError, match="'timeout' is not a cooldown"):
        FetcherArgs().cooldown_ms("timeout")


# --- FetcherArgs -----------------------------------------------------------------------------------------------------


def test_every_value_is_checked_on_construction_and_replacement() -> None:
    with pytest.raises(ValueError, match="^quick must"):
        FetcherArgs(quick=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^titleMinLength must"):
        FetcherArgs(title_min_length=-4)
    with pytest.raises(ValueError, match="^userAgent must"):
        FetcherArgs(user_agent=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^timeout must"):
        FetcherArgs(timeout=-1)
    with pytest.raises(ValueError, match="^timeout must"):
        dataclasses.replace(FetcherArgs(), timeout=-1)


def test_fetcher_args_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        FetcherArgs().timeout = 5  # type: ignore[misc]
