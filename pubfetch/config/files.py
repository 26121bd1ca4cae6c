"""The YAML config file: read safely, checked setting by setting, given as changes by field name.

A file names settings as the keyword options do (``threads: 8``), or under their group (``http: {busy_retries: 0}``);
PubFetcher's fetching parameters go under ``fetching`` with PubFetcher's names and units (``emptyCooldown: 12h``).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import stat
from typing import Final

from pubfetch.config.fetching import parse_fetcher_option
from pubfetch.config.registry import GROUPS, SETTINGS, checked
from pubfetch.config.values import declared

__all__ = ["MAX_CONFIG_BYTES", "settings_from_file"]

#: A config file is a few settings; anything bigger is not one (``/dev/zero`` as a config file).
MAX_CONFIG_BYTES: Final = 1024 * 1024


def settings_from_file(path: str | os.PathLike[str]) -> dict[str, object]:
    """The settings a config file names, checked, by field name (for :meth:`FetchConfig.with_changes`); every
    problem is a ValueError of one line naming the file and the setting."""
    data = _read_yaml(path)
    if not isinstance(data, dict):
        raise ValueError(f"config file {path} must be a mapping of settings")  # noqa: TRY004 - user input
    values: dict[str, object] = {}
    for key, value in data.items():
        if key == "fetching":
            values.update(_fetching(path, value))
        elif key in GROUPS:
            if not isinstance(value, dict):
                raise ValueError(f"config file {path}: '{key}' must be a mapping of settings")
            for name, item in value.items():
                if SETTINGS.get(name) != key:
                    known = [n for n, group in SETTINGS.items() if group == key and declared_in_file(n)]
                    raise ValueError(f"config file {path}: {key} has no setting '{name}'{_hint(name, known)}; "
                                     "see docs/configuration.md")
                values[name] = _checked(path, name, item)
        elif key in SETTINGS and SETTINGS[key] != "fetching":
            values[key] = _checked(path, key, value)
        else:
            known = [*GROUPS, *(n for n, group in SETTINGS.items() if group != "fetching" and declared_in_file(n))]
            raise ValueError(f"config file {path}: unknown setting '{key}'{_hint(str(key), known)}; the settings are "
                             "listed in docs/configuration.md")
    return values


def _hint(name: str, known: list[str]) -> str:
    """What to say after a misspelt key: the known key it is closest to (``busy-retries`` too: an option's
    spelling), or where a setting of another group belongs; "" when nothing is close."""
    group = SETTINGS.get(name)
    if group is not None and group != "fetching":
        return f" (it is a setting of '{group}', or given alone)"
    close = difflib.get_close_matches(name.replace("-", "_"), known, n=1, cutoff=0.7)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _checked(path: str | os.PathLike[str], name: str, value: object) -> object:
    if not declared_in_file(name):
        raise ValueError(f"config file {path}: '{name}' is not a setting of a config file")
    try:
        return checked(name, value)
    except ValueError as e:
        raise ValueError(f"config file {path}: {e}") from None


def declared_in_file(name: str) -> bool:
    """Whether a config file may give setting ``name`` (the parts to fetch belong to a call)."""
    group = SETTINGS[name]
    record = GROUPS[group]
    return group == "fetching" or declared(next(f for f in dataclasses.fields(record) if f.name == name)).in_file


def _fetching(path: str | os.PathLike[str], value: object) -> dict[str, object]:
    """PubFetcher's parameters of the ``fetching`` mapping, parsed as the command line parses them."""
    if not isinstance(value, dict):
        raise ValueError(f"config file {path}: 'fetching' must be a mapping of PubFetcher parameters")
    parsed: dict[str, object] = {}
    for name, item in value.items():
        try:
            if isinstance(item, bool):
                text = "true" if item else "false"
            elif isinstance(item, int | str):
                text = str(item)
            else:
                raise ValueError(f"fetching parameter {name} must be a number, text or true/false, got {item!r}")
            attribute, parsed_value = parse_fetcher_option(str(name), text)
        except ValueError as e:
            raise ValueError(f"config file {path}: {e}") from None
        if attribute in parsed:
            raise ValueError(f"config file {path}: fetching parameter {name} given more than once")
        parsed[attribute] = parsed_value
    return parsed


def _read_config_text(path: str | os.PathLike[str]) -> str:
    """The text of a config file: a regular file (a FIFO or a device would block or never end) of at most
    :data:`MAX_CONFIG_BYTES` (a longer one is refused, not cut: a setting past the cut would be lost unseen)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once, and is then refused
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"config file {path} is not a regular file")
        data = f.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(f"config file {path} is over {MAX_CONFIG_BYTES // 1024} kB: a config file is a few settings")
    return data.decode("utf-8")


def _read_yaml(path: str | os.PathLike[str]) -> object:
    """The YAML document of a config file (empty: ``{}``); every problem a ValueError of one line."""
    import yaml

    from pubfetch import yamlsafe

    try:
        return yamlsafe.load(_read_config_text(path)) or {}
    except OSError as e:
        raise ValueError(f"cannot read config file {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"config file {path} is not UTF-8 text: {e.reason}") from None
    except yaml.YAMLError as e:
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ValueError(f"config file {path} is not valid YAML{where}: {problem}") from None
