"""The one reader of the process environment: the settings its variables give (each setting declares its variables in
:mod:`pubfetch.config.defaults`), the config file it names, the proxies its variables name
(:mod:`pubfetch.config.proxies`), and the few process variables that are not settings of a run (a store's, a
queue's).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

from pubfetch.config.defaults import RATE_DB_FILE
from pubfetch.config.proxies import EnvironmentProxies
from pubfetch.config.registry import GROUPS, SETTINGS, from_text
from pubfetch.config.values import declared

__all__ = ["default_file", "environment_proxies", "environment_settings", "environment_value", "process_environment",
           "rate_db_default", "result_backend_default"]


def process_environment() -> Mapping[str, str]:
    """The environment of this process (what :meth:`FetchConfig.from_env` reads when given none)."""
    return os.environ


def environment_proxies(environ: Mapping[str, str] | None = None) -> EnvironmentProxies:
    """The proxies ``environ`` names, else those of this process and its platform."""
    return EnvironmentProxies.read(os.environ if environ is None else environ, platform=environ is None)


def variables() -> dict[str, tuple[str, ...]]:
    """The environment variables of each setting that has some, by field name, the first one set winning."""
    found: dict[str, tuple[str, ...]] = {}
    for record in GROUPS.values():
        for f in dataclasses.fields(record):
            if declared(f).env:
                found[f.name] = declared(f).env
    return found


def environment_settings(env: Mapping[str, str]) -> dict[str, object]:
    """The settings the variables of ``env`` give, checked, by field name (an empty variable gives none)."""
    values: dict[str, object] = {}
    for name, names in variables().items():
        var = next((v for v in names if env.get(v, "").strip()), None)
        if var is None:
            continue
        text = env[var].strip()
        if SETTINGS[name] == "fetching":
            values[name] = text
            continue
        try:
            values[name] = from_text(name, text)
        except ValueError as e:
            raise ValueError(f"{var}: {e}") from None
    return values


def _xdg_dir(env: Mapping[str, str], variable: str, default: str) -> str:
    """A base directory of the XDG specification: ``$variable``, else ``~/default`` (an empty variable counts as
    unset, as the specification says)."""
    return env.get(variable) or os.path.join(os.path.expanduser("~"), default)


def default_file(environ: Mapping[str, str] | None = None) -> str | None:
    """``$PUBFETCH_CONFIG``, else ``$XDG_CONFIG_HOME/pubfetch/config.yaml`` (``~/.config``) when it exists."""
    env = os.environ if environ is None else environ
    if env.get("PUBFETCH_CONFIG"):
        return env["PUBFETCH_CONFIG"]
    path = os.path.join(_xdg_dir(env, "XDG_CONFIG_HOME", ".config"), "pubfetch", "config.yaml")
    return path if os.path.exists(path) else None


def rate_db_default(environ: Mapping[str, str] | None = None) -> str:
    """Where the shared rate limits are kept when the configuration names no place (a configuration built in code
    has no ``rate_db``): ``$PUBFETCH_RATE_DB``, else ``pubfetch/rate-limits.sqlite`` in the user's cache
    (``$XDG_CACHE_HOME``, else ``~/.cache``). The limits are the user's, whoever built the configuration."""
    env = os.environ if environ is None else environ
    if env.get("PUBFETCH_RATE_DB"):
        return env["PUBFETCH_RATE_DB"]
    return os.path.join(_xdg_dir(env, "XDG_CACHE_HOME", ".cache"), *RATE_DB_FILE)


def environment_value(name: str) -> str:
    """A process variable that is no setting of a run (a store's or a queue's own, listed in
    :data:`~pubfetch.config.defaults.PROCESS_VARIABLES`); "" when unset."""
    return os.environ.get(name, "")


def result_backend_default(environ: Mapping[str, str] | None = None) -> str | None:
    """Where a queue keeps its jobs' results when none is given: ``$PUBFETCH_RESULT_BACKEND`` (a Redis URL)."""
    env = os.environ if environ is None else environ
    return env.get("PUBFETCH_RESULT_BACKEND") or None
