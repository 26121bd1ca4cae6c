"""The names of the settings: which record of a :class:`~pubfetch.config.tree.FetchConfig` holds each (names are
unique across the records, so a setting is changed by its name alone), which a queued job carries, which have a
command-line option, and the check of a value given by name, as a value or as text.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, Final

from pubfetch.config.defaults import Batching, BulkImport, Endpoints, FetcherArgs, HttpSettings, RunSettings
from pubfetch.config.values import declared, field_type, setting_value

__all__ = ["GROUPS", "JOB_SETTINGS", "SETTINGS", "WORKER_SETTINGS", "checked", "cli_options", "from_text",
           "setting_field"]

#: The records of a configuration, by the name of its field.
GROUPS: Final[Mapping[str, type]] = {"fetching": FetcherArgs, "endpoints": Endpoints, "http": HttpSettings,
                                     "batching": Batching, "run": RunSettings,
                                     "bulk": BulkImport}

#: The group of every setting, by its field name (unique across the groups).
SETTINGS: Final[Mapping[str, str]] = {f.name: group for group, record in GROUPS.items()
                                      for f in dataclasses.fields(record)}
assert len(SETTINGS) == sum(len(dataclasses.fields(r)) for r in GROUPS.values()), "a setting's name is taken twice"


def _declared_where(test: str) -> tuple[str, ...]:
    return tuple(name for name, group in SETTINGS.items() if group != "fetching"
                 and getattr(declared(setting_field(group, name)), test))


def setting_field(group: str, name: str) -> dataclasses.Field[Any]:
    """The field declaring setting ``name`` of record ``group``."""
    return next(f for f in dataclasses.fields(GROUPS[group]) if f.name == name)


#: The settings a queued job carries to its workers (besides the fetching thresholds and the parts, which its message
#: carries in fields of their own): how to batch and how far to follow links.
JOB_SETTINGS: Final = _declared_where("job")
#: The settings a queued job cannot carry, and the records holding some: each worker's own (its options, environment
#: and config file). PubFetcher's parameters a worker keeps are named by :mod:`pubfetch.distributed.message`.
WORKER_SETTINGS: Final = ("endpoints", "http", "run") + tuple(
    name for name, group in SETTINGS.items()
    if group != "fetching" and name not in JOB_SETTINGS + ("parts", "batch_size"))


def cli_options() -> list[tuple[str, str, object]]:
    """(setting, command-line option, default) of every setting that has an option."""
    found: list[tuple[str, str, object]] = []
    for name, group in SETTINGS.items():
        if group == "fetching":
            continue
        f = setting_field(group, name)
        option = declared(f).cli
        if option is not None:
            default = f.default if f.default is not dataclasses.MISSING else None
            found.append((name, option, default))
    return found


def checked(name: str, value: object) -> object:
    """``value`` checked as the type and bounds of setting ``name`` declare (a config file's, a job's)."""
    group = SETTINGS[name]
    if group == "fetching":
        return value
    return setting_value(name, value, field_type(GROUPS[group], name), declared(setting_field(group, name)))


def from_text(name: str, text: str, *, given_as: str = "") -> object:
    """The value of setting ``name`` that ``text`` gives (an environment variable's, a command-line option's): a
    number read as one when it looks like one, then :func:`checked`, so that a bad value has the one message it has
    in a config file (``threads must be between 1 and 1024, got 0``). Raises ValueError naming the setting, or
    ``given_as`` (what the user wrote: ``--batch-size``) instead."""
    group = SETTINGS[name]
    if group == "fetching":
        raise ValueError(f"{name} is one of PubFetcher's parameters, read by pubfetch.config.fetching")
    expected = _bare(field_type(GROUPS[group], name))
    value: object = ([part.strip() for part in text.split(",") if part.strip()]  # a set of names: comma-separated
                     if typing.get_origin(expected) is frozenset else _number(text.strip(), expected))
    return setting_value(given_as or name, value, field_type(GROUPS[group], name),
                         declared(setting_field(group, name)))


def _bare(expected: object) -> object:
    """``int`` of ``int | None``: the type a text is read as."""
    if typing.get_origin(expected) in (typing.Union, types.UnionType):
        kinds = [a for a in typing.get_args(expected) if a is not type(None)]
        return kinds[0] if len(kinds) == 1 else expected
    return expected


#: A switch's texts in the environment and on the command line, as a YAML config file's booleans
_SWITCH = {"true": True, "false": False, "yes": True, "no": False, "on": True, "off": False, "1": True, "0": False}


def _number(text: str, expected: object) -> object:
    """A number's text as the number a config file would give (``2.5`` for a whole number is refused as 2.5); a
    switch's as the boolean (``false``, ``0``, ``off``)."""
    if expected is bool:
        return _SWITCH.get(text.lower(), text)
    if expected is int and re.fullmatch(r"[+-]?[0-9]+", text):
        return int(text)
    if expected in (int, float):
        try:
            return float(text)
        except ValueError:
            return text
    return text
