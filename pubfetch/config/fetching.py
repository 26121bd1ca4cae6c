"""PubFetcher's fetching parameters as text: their names as PubFetcher, an option or a field gives them
(``emptyCooldown``, ``--emptyCooldown``, ``empty_cooldown``), and their values as its command line writes them (a
time interval with a unit suffix, ``true``/``yes``/``on``/``1``), read into the values the ``fetching`` record
(:class:`~pubfetch.config.defaults.FetcherArgs`, where each is declared) holds.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Mapping
from typing import Any, Final

from pubfetch.config.defaults import MINUTE_MS, FetcherArgs
from pubfetch.config.values import Declared, declared, field_type, setting_value

__all__ = ["FETCHING_FIELDS", "FetchingValueError", "UnknownFetchingParameter", "fetching_field",
           "parse_fetcher_option"]

#: The fields of the fetching parameters by PubFetcher's name, in PubFetcher's order.
FETCHING_FIELDS: Final[Mapping[str, dataclasses.Field[Any]]] = {
    declared(f).key: f for f in dataclasses.fields(FetcherArgs)}

_BY_FIELD_NAME: Final = {f.name: f for f in FETCHING_FIELDS.values()}
_UNIT_MS: Final = {"ms": 1, "min": MINUTE_MS}
_UNIT_NAME: Final = {"ms": "milliseconds", "min": "minutes"}
_SUFFIX_MS: Final = {"ms": 1, "s": 1000, "m": MINUTE_MS, "h": 60 * MINUTE_MS, "d": 24 * 60 * MINUTE_MS,
                     "w": 7 * 24 * 60 * MINUTE_MS, "y": 365 * 24 * 60 * MINUTE_MS}
_INTERVAL: Final = re.compile(r"([+-]?[0-9]+)(ms|[smhdwy])?", re.IGNORECASE)
_INTEGER: Final = re.compile(r"[+-]?[0-9]+")
_SWITCH: Final = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False,
                  "0": False}


class UnknownFetchingParameter(ValueError):
    """A name that is none of PubFetcher's fetching parameters (a typo is better reported than ignored)."""


class FetchingValueError(ValueError):
    """A fetching parameter's text that does not read as its value; the message names the parameter, the text and
    the form expected, since the user wrote the text on a command line or in a config file."""

    def __init__(self, key: str, text: str, expected: str) -> None:
        super().__init__(f"invalid value {text!r} for parameter {key}: expected {expected}")


def fetching_field(name: str) -> dataclasses.Field[Any]:
    """The field of a fetching parameter named as PubFetcher (``emptyCooldown``), as an option (``--emptyCooldown``)
    or as a field (``empty_cooldown``); :class:`UnknownFetchingParameter` otherwise, with the closest name."""
    bare = name.lstrip("-")
    found = FETCHING_FIELDS.get(bare) or _BY_FIELD_NAME.get(bare.replace("-", "_"))
    if found is not None:
        return found
    close = difflib.get_close_matches(bare, [*FETCHING_FIELDS, *_BY_FIELD_NAME], n=1, cutoff=0.7)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UnknownFetchingParameter(f"unknown fetching parameter {name!r}{hint}; known: {', '.join(FETCHING_FIELDS)}")


def parse_fetcher_option(name: str, text: str) -> tuple[str, Any]:
    """One fetching parameter from text, as a command line or a config file gives it: ``("--emptyCooldown", "12h")``
    -> ``("empty_cooldown", 720)``, the field's name and its checked value (for ``FetchConfig.with_changes``)."""
    f = fetching_field(name)
    decl = declared(f)
    expected = field_type(FetcherArgs, f.name)
    value = _read(decl, text, expected)
    try:
        return f.name, setting_value(decl.key, value, expected, decl)
    except ValueError:
        raise FetchingValueError(decl.key, text, _bounds(decl)) from None


def _read(decl: Declared, text: str, expected: object) -> object:
    if expected is bool:
        if text.lower() not in _SWITCH:
            raise FetchingValueError(decl.key, text, "true, yes, on, 1, false, no, off or 0")
        return _SWITCH[text.lower()]
    if expected is int and decl.unit:
        return _interval(decl, text)
    if expected is int:
        if not _INTEGER.fullmatch(text):
            raise FetchingValueError(decl.key, text, "a whole number such as 7")
        return int(text)
    return text


def _interval(decl: Declared, text: str) -> int:
    """A time interval in the parameter's unit: a plain number is in it, a suffixed one is converted and refused
    unless whole (a 30 s cooldown rounded to 0 minutes would mean "always refetch")."""
    unit_ms, unit = _UNIT_MS[decl.unit], _UNIT_NAME[decl.unit]
    match = _INTERVAL.fullmatch(text)
    if not match:
        examples = "30s, 5m, 12h, 1d" if unit_ms == 1 else "30m, 12h, 1d"  # seconds make sense for milliseconds
        raise FetchingValueError(decl.key, text, f"a time interval such as {examples} (a plain number is {unit})")
    number, suffix = int(match.group(1)), match.group(2)
    if suffix is None:
        return number
    value, remainder = divmod(number * _SUFFIX_MS[suffix.lower()], unit_ms)
    if remainder:
        raise FetchingValueError(decl.key, text, f"a whole number of {unit}")
    return value


def _bounds(decl: Declared) -> str:
    unit = f" {_UNIT_NAME[decl.unit]}" if decl.unit else ""
    if decl.low == 0 and decl.high is None:
        return f"a value of at least 0{unit}"
    low = 0 if decl.low is None else int(decl.low)
    high = 2**31 - 1 if decl.high is None else int(decl.high)
    return f"a value between {low} and {high}{unit}"
