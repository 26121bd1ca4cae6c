"""PubFetcher's fetching parameters: their descriptors (PubFetcher's names, order, defaults and bounds), the parsing of
PubFetcher's forms (plain numbers in PubFetcher's units, suffixed intervals, negative cooldowns), the names each may
be given by, and :class:`FetcherArgs` checking every value it is built with."""

from __future__ import annotations

import dataclasses

import pytest

from pubfetch.fetcher_args import FETCHER_DESCRIPTORS, FetcherArgs, fetcher_descriptor, parse_fetcher_option
from pubfetch.params import MINUTE_MS, InvalidParamValue, UnknownParameter

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


# --- the descriptors -------------------------------------------------------------------------------------------------


def test_the_defaults_are_pubfetchers() -> None:
    assert FetcherArgs().to_dict() == DEFAULTS


def test_the_descriptors_are_the_fields_in_pubfetchers_order() -> None:
    descriptors = FetcherArgs.descriptors()
    assert [d.key for d in descriptors] == list(FETCHER_DESCRIPTORS)
    assert [d.default for d in descriptors] == list(DEFAULTS.values())
    assert FetcherArgs().to_dict(camel_case=True) == {d.key: d.default for d in descriptors}
    assert list(FETCHER_DESCRIPTORS)[:4] == ["emptyCooldown", "nonFinalCooldown", "fetchExceptionCooldown", "retryLimit"]
    for descr in descriptors:
        assert descr.display_name != descr.key or descr.key == "timeout"
        assert descr.description
    assert FETCHER_DESCRIPTORS["webpageMinLengthJavascript"].display_name == "Webpage min. length JS"


def test_lengths_sizes_and_the_timeout_have_a_floor_of_zero_and_cooldowns_none() -> None:
    for key in ("titleMinLength", "keywordsMinSize", "minedTermsMinSize", "abstractMinLength", "fulltextMinLength",
                "webpageMinLength", "webpageMinLengthJavascript", "timeout"):
        assert FETCHER_DESCRIPTORS[key].min == 0, key
        with pytest.raises(InvalidParamValue, match=f"parameter {key}:"):
            parse_fetcher_option(key, "-1")
        assert parse_fetcher_option(key, "0")[1] == 0
    for key in ("emptyCooldown", "nonFinalCooldown", "fetchExceptionCooldown", "retryLimit"):
        assert FETCHER_DESCRIPTORS[key].min is None


# --- PubFetcher's forms ----------------------------------------------------------------------------------------------


def test_a_cooldown_is_minutes_or_a_suffixed_interval() -> None:
    assert value_of("emptyCooldown", "720") == 720
    assert value_of("emptyCooldown", "12h") == 720
    assert value_of("fetchExceptionCooldown", "1d") == 1440
    assert value_of("nonFinalCooldown", "1w") == 10080
    assert value_of("emptyCooldown", "120s") == 2


def test_a_cooldown_under_a_whole_minute_is_refused_not_rounded_to_always() -> None:
    with pytest.raises(InvalidParamValue, match="parameter emptyCooldown.*whole number of minutes"):
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
    assert FetcherArgs(timeout=5000).timeout_seconds == 5.0


def test_a_negative_or_wordy_timeout_is_refused_naming_the_parameter() -> None:
    with pytest.raises(InvalidParamValue, match="parameter timeout") as info:
        parse_fetcher_option("timeout", "-1")
    assert "-1" in str(info.value)
    with pytest.raises(InvalidParamValue, match="parameter timeout: expected a time interval"):
        parse_fetcher_option("--timeout", "abc")


def test_quick_and_texts() -> None:
    assert value_of("--quick", "true") is True and value_of("quick", "false") is False
    with pytest.raises(InvalidParamValue, match="parameter quick"):
        parse_fetcher_option("quick", "maybe")
    assert value_of("--journalsYaml", "my.yaml") == "my.yaml"
    assert value_of("europepmc_email", "") == ""


# --- names -----------------------------------------------------------------------------------------------------------


def test_a_parameter_is_named_as_pubfetcher_an_option_or_a_field_names_it() -> None:
    for name in ("--emptyCooldown", "emptyCooldown", "--empty-cooldown", "empty_cooldown"):
        assert parse_fetcher_option(name, "5") == ("empty_cooldown", 5)
    assert fetcher_descriptor("--retryLimit") is fetcher_descriptor("retry_limit") is FETCHER_DESCRIPTORS["retryLimit"]


def test_an_unknown_parameter_is_refused_with_the_known_ones() -> None:
    with pytest.raises(UnknownParameter) as info:
        parse_fetcher_option("emptyCoolDown", "5")
    assert str(info.value).startswith("unknown fetching parameter 'emptyCoolDown' (did you mean 'emptyCooldown'?); "
                                      "known: emptyCooldown, ")
    with pytest.raises(UnknownParameter):
        parse_fetcher_option("--threads", "8")
    with pytest.raises(UnknownParameter, match="'timeout' is not a cooldown"):
        FetcherArgs().cooldown_ms("timeout")


# --- FetcherArgs -----------------------------------------------------------------------------------------------------


def test_every_value_is_checked_on_construction_and_replacement() -> None:
    with pytest.raises(InvalidParamValue, match="parameter quick"):
        FetcherArgs(quick=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidParamValue, match="parameter titleMinLength"):
        FetcherArgs(title_min_length=-4)
    with pytest.raises(InvalidParamValue, match="parameter userAgent"):
        FetcherArgs(user_agent=None)  # type: ignore[arg-type]
    with pytest.raises(InvalidParamValue, match="parameter timeout"):
        FetcherArgs(timeout=-1)
    with pytest.raises(InvalidParamValue, match="parameter timeout"):
        dataclasses.replace(FetcherArgs(), timeout=-1)


def test_fetcher_args_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        FetcherArgs().timeout = 5  # type: ignore[misc]
