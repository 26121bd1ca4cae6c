"""The declaration of one setting (:func:`setting`) and the check of a value against it (:func:`setting_value`).

A setting is a field of one of the value records of :mod:`pubfetch.config.defaults`; its name and type are the
field's, and the rest of its declaration (bounds, environment variables, command-line option, one line of doc) rides
in the field's metadata, so that the checks, the environment, the config file, the command line and
docs/configuration.md all read the one declaration.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Declared", "check_record", "declared", "field_type", "setting", "setting_value"]


@dataclass(frozen=True)
class Declared:
    """What a setting's field declares besides its name, type and default.

    Attributes:
        doc: one line for docs/configuration.md and error messages.
        low, high: the bounds of a number (inclusive).
        env: environment variables giving the setting, the first one set wins (:meth:`FetchConfig.from_env`).
        cli: the command-line option setting it; a flag sets a boolean to the opposite of its default. Its ``--help``
            is ``doc`` with the default, bounds and variables (:mod:`pubfetch.cli.setting_options`), after "Do not"
            when the flag turns the setting off, so ``doc`` reads as what the setting does when on.
        in_file: whether a config file may give it (not: values of a call, such as the parts to fetch).
        job: whether a queued job carries it to the workers (the others are each worker's own).
        key: PubFetcher's name of one of its fetching parameters (``emptyCooldown``): its option (``--key``), its
            name under ``fetching`` in a config file, and the name its errors give.
        label: PubFetcher's label of such a parameter, as its UIs show it (``Empty cooldown``).
        unit: ``min`` or ``ms`` for a time interval, whose text may carry a suffix converted to the unit (``12h``).
    """

    doc: str
    low: float | None = None
    high: float | None = None
    env: tuple[str, ...] = ()
    cli: str | None = None
    in_file: bool = True
    job: bool = False
    key: str = ""
    label: str = ""
    unit: str = ""


def setting(default: Any = dataclasses.MISSING, *, doc: str, factory: Any = dataclasses.MISSING,
            low: float | None = None, high: float | None = None, env: str | tuple[str, ...] = (),
            cli: str | None = None, in_file: bool = True, job: bool = False, key: str = "", label: str = "",
            unit: str = "") -> Any:
    """A dataclass field declaring a setting (see :class:`Declared`)."""
    envs = (env,) if isinstance(env, str) else env
    meta = {"setting": Declared(doc, low, high, envs, cli, in_file, job, key, label, unit)}
    if factory is not dataclasses.MISSING:
        return dataclasses.field(default_factory=factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def declared(field: dataclasses.Field[Any]) -> Declared:
    """The declaration of a setting's field."""
    return typing.cast(Declared, field.metadata["setting"])


@functools.cache
def _hints(record: type) -> dict[str, Any]:
    return typing.get_type_hints(record)


def field_type(record: type, name: str) -> Any:
    """The type of field ``name`` of the value record ``record`` (annotations resolved)."""
    return _hints(record)[name]


def check_record(record: object) -> None:
    """Check (and normalise: a list of hosts becomes a frozenset) every setting of a frozen value record; the first
    bad value is a ValueError naming it (by PubFetcher's name for one of its parameters)."""
    for f in dataclasses.fields(record):  # type: ignore[arg-type]
        value = getattr(record, f.name)
        decl = declared(f)
        checked = setting_value(decl.key or f.name, value, field_type(type(record), f.name), decl)
        if checked is not value:
            object.__setattr__(record, f.name, checked)


def setting_value(key: str, value: object, expected: object, decl: Declared | None = None) -> object:
    """``value`` checked against the type ``expected`` of setting ``key`` (the one place where settings from code, a
    config file, the environment or the command line are typed): a boolean must be a YAML boolean (the string
    ``"false"`` is NOT false: it is an error, since truthiness would turn a guard off), a whole number an integer
    within the declared bounds, text a string. Raises ValueError naming the key."""
    union = typing.get_origin(expected) in (typing.Union, types.UnionType)
    if union and type(None) in typing.get_args(expected):
        if value is None:
            return None
        expected = next(a for a in typing.get_args(expected) if a is not type(None))
    origin = typing.get_origin(expected) or expected
    if expected is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{key} must be true or false, got {value!r}")
        return value
    if expected is int or expected is float:
        return _number(key, value, expected, decl)
    if expected is str:
        if not isinstance(value, str):
            raise ValueError(f"{key} must be a string, got {value!r}")
        return value
    if origin is frozenset:
        return _set(key, value, typing.get_args(expected)[0])
    if origin is Mapping:
        if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
            raise ValueError(f"{key} must be a mapping of names to values, got {value!r}")
        item = typing.get_args(expected)[1]
        for k, v in value.items():
            setting_value(f"{key}.{k}", v, item, decl)
        return value
    return value


def _set(key: str, value: object, item: object) -> frozenset[Any]:
    """A list given for a set of names (the hosts, the parts); names of an enumeration become its members."""
    if isinstance(value, str) or not isinstance(value, list | tuple | set | frozenset):
        raise ValueError(f"{key} must be a list, got {value!r}")
    if isinstance(item, type) and issubclass(item, enum.Enum) and not all(isinstance(v, item) for v in value):
        try:
            return frozenset(item(v) for v in value)
        except ValueError:
            known = ", ".join(str(m.value) for m in item)
            raise ValueError(f"{key} must name some of {known}, got {sorted(map(str, value))}") from None
    return value if isinstance(value, frozenset) else frozenset(value)


def _shown(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def _number(key: str, value: object, expected: object, decl: Declared | None) -> object:
    whole = expected is int
    if isinstance(value, bool) or not isinstance(value, int if whole else int | float):
        raise ValueError(f"{key} must be a {'whole ' if whole else ''}number, got {value!r}")
    low = decl.low if decl is not None and decl.low is not None else 0
    high = decl.high if decl is not None and decl.high is not None else 2**31 - 1
    if not low <= value <= high:
        raise ValueError(f"{key} must be between {_shown(low)} and {_shown(high)}, got {value}")
    return value
