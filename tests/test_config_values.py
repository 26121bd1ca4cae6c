"""The check of a setting's value against its declaration (pubfetch/config/values.py): the one place where a value from
code, a config file, the environment or the command line gets its type, so a wrong one is a ValueError naming the
setting and what it must be, never a value that truthiness or a silent cut would turn into something else."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from pubfetch.config.defaults import HttpSettings, RunSettings
from pubfetch.config.values import Declared, check_record, setting_value
from pubfetch.model.part_type import PartName

BOUNDED = Declared("a bounded number", low=1, high=10)


@pytest.mark.parametrize("value", ["false", "true", 0, 1, None])
def test_a_boolean_takes_only_true_or_false(value: object) -> None:
    """The text "false" is truthy: taken as it is, it would turn a guard on where the user meant it off."""
    with pytest.raises(ValueError) as caught:
        setting_value("allow_private_addresses", value, bool)
    assert str(caught.value) == f"allow_private_addresses must be true or false, got {value!r}"


def test_a_boolean_keeps_its_value() -> None:
    assert setting_value("javascript", False, bool) is False
    assert setting_value("javascript", True, bool) is True


@pytest.mark.parametrize(("value", "message"), [
    (0, "threads must be between 1 and 10, got 0"),
    (11, "threads must be between 1 and 10, got 11"),
    (2.5, "threads must be a whole number, got 2.5"),
    ("4", "threads must be a whole number, got '4'"),
    (True, "threads must be a whole number, got True"),
])
def test_a_whole_number_out_of_bounds_or_of_another_type_is_named(value: object, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        setting_value("threads", value, int, BOUNDED)
    assert str(caught.value) == message


def test_a_number_within_its_bounds_is_kept_bounds_included() -> None:
    assert [setting_value("threads", n, int, BOUNDED) for n in (1, 5, 10)] == [1, 5, 10]
    assert setting_value("ratio", 2, float, Declared("a ratio", low=1)) == 2
    assert setting_value("ratio", 1.5, float, Declared("a ratio", low=1)) == 1.5


def test_an_undeclared_bound_is_zero_below_and_a_32_bit_integer_above() -> None:
    with pytest.raises(ValueError, match="^retries must be between 0 and 2147483647, got -1$"):
        setting_value("retries", -1, int, Declared("retries"))
    with pytest.raises(ValueError, match="^retries must be between 0 and 2147483647, got 2147483648$"):
        setting_value("retries", 2**31, int, Declared("retries"))


def test_a_fractional_bound_is_shown_as_declared() -> None:
    with pytest.raises(ValueError, match="^backoff must be between 0.5 and 2, got 3.0$"):
        setting_value("backoff", 3.0, float, Declared("backoff", low=0.5, high=2))


def test_an_optional_setting_takes_none_or_its_type() -> None:
    assert setting_value("chromium", None, str | None) is None
    assert setting_value("chromium", "/usr/bin/chromium", str | None) == "/usr/bin/chromium"
    with pytest.raises(ValueError, match="^chromium must be a string, got 3$"):
        setting_value("chromium", 3, str | None)


def test_a_list_of_names_becomes_a_set_and_names_of_an_enumeration_its_members() -> None:
    assert setting_value("unlimited_hosts", ["doi.org", "doi.org"], frozenset[str]) == frozenset({"doi.org"})
    assert setting_value("parts", ("title", "doi"), frozenset[PartName]) == frozenset({PartName.title, PartName.doi})
    with pytest.raises(ValueError, match=r"^parts must name some of pmid, .*, got \['titel'\]$"):
        setting_value("parts", ["titel"], frozenset[PartName])
    with pytest.raises(ValueError, match="^unlimited_hosts must be a list, got 'doi.org'$"):
        setting_value("unlimited_hosts", "doi.org", frozenset[str])


def test_a_mapping_s_values_are_checked_under_their_key() -> None:
    assert setting_value("host_connections", {"ebi.ac.uk": 4}, Mapping[str, int], BOUNDED) == {"ebi.ac.uk": 4}
    with pytest.raises(ValueError, match="^host_connections.ebi.ac.uk must be between 1 and 10, got 0$"):
        setting_value("host_connections", {"ebi.ac.uk": 0}, Mapping[str, int], BOUNDED)
    with pytest.raises(ValueError, match="^host_connections must be a mapping of names to values, got"):
        setting_value("host_connections", ["ebi.ac.uk"], Mapping[str, int], BOUNDED)


def test_a_record_checks_and_normalises_its_settings_when_made() -> None:
    """check_record runs in each record's __post_init__: a list of hosts is kept as a set, a bad value refused."""
    assert HttpSettings(unlimited_hosts=["example.org"]).unlimited_hosts == frozenset({"example.org"})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^threads must be between 1 and 1024, got 0$"):
        RunSettings(threads=0)
    record = RunSettings()
    check_record(record)
    assert record == RunSettings()
