"""The settings tree of a fetch run: :class:`FetchConfig`, one value record per concern, changed by field name.

Every setting has a name unique across the records, so ``config.with_changes(threads=4, busy_retries=0)`` finds the
record holding each (the keyword options of the library calls, the config file and the command line all go through
it). The precedence is one: environment < config file < command line or keywords (:meth:`FetchConfig.from_env`).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pubfetch.config.defaults import Batching, BulkImport, Endpoints, FetcherArgs, HttpSettings, RunSettings
from pubfetch.config.environment import (
    default_file,
    environment_proxies,
    environment_settings,
    process_environment,
)
from pubfetch.config.files import settings_from_file
from pubfetch.config.registry import GROUPS, JOB_SETTINGS, SETTINGS, checked

__all__ = ["FetchConfig"]


@dataclass(frozen=True)
class FetchConfig:
    """How to fetch, whom to ask and how hard to push them: a tree of value records.

    Attributes:
        fetching: PubFetcher's fetching parameters (finality thresholds, cooldowns, timeout, e-mails, user agent).
        endpoints: base URLs of the services (tests and mirrors replace them).
        http: how the HTTP client treats hosts and answers (connections per host, the address guard, caps, retries).
        batching: publications per batch and IDs per request of the batched services.
        run: threads, parts, links, the browser, the shared rate limits, NCBI's credentials.
        bulk: how bulk files (PubMed's baseline and updates, open-access packages) are imported.

    Build one with :meth:`from_env` (environment < config file < keywords) or ``FetchConfig().with_changes(...)``.
    """

    fetching: FetcherArgs = field(default_factory=FetcherArgs)
    endpoints: Endpoints = field(default_factory=Endpoints)
    http: HttpSettings = field(default_factory=HttpSettings)
    batching: Batching = field(default_factory=Batching)
    run: RunSettings = field(default_factory=RunSettings)
    bulk: BulkImport = field(default_factory=BulkImport)

    def with_changes(self, **changes: object) -> FetchConfig:
        """A copy with settings changed by name (``threads=4``, ``busy_retries=0``, ``timeout=5000``), or whole
        records by group name (``endpoints=Endpoints(...)``). An unknown name is a TypeError naming it; a bad value a
        ValueError naming the setting."""
        return self.with_options(changes, "FetchConfig.with_changes")

    def with_options(self, options: Mapping[str, object], caller: str, *, none_keeps: bool = False) -> FetchConfig:
        """A copy with ``options`` applied (see :meth:`with_changes`); ``caller`` names the call in the TypeError of an
        unknown name (``fetch_many() got an unknown option 'thread'``). With ``none_keeps`` (the keyword options of a
        library call), ``None`` leaves a setting as it is."""
        for name in options:
            if name not in SETTINGS and name not in GROUPS:
                known = [*GROUPS, *SETTINGS]
                close = difflib.get_close_matches(name, known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise TypeError(f"{caller}() got an unknown option {name!r}{hint}; see docs/configuration.md for the "
                                "settings")
        if none_keeps:
            options = {name: value for name, value in options.items() if value is not None}
        whole = {name: value for name, value in options.items() if name in GROUPS}
        config = dataclasses.replace(self, **whole) if whole else self  # type: ignore[arg-type]
        by_group: dict[str, dict[str, object]] = {}
        for name, value in options.items():
            if name in SETTINGS:
                by_group.setdefault(SETTINGS[name], {})[name] = value
        records = {group: dataclasses.replace(getattr(config, group), **values) for group, values in by_group.items()}
        return dataclasses.replace(config, **records) if records else config

    def job_settings(self) -> dict[str, Any]:
        """The settings a queued job carries to the workers (:data:`JOB_SETTINGS`), as JSON; the message carries the
        fetching thresholds and the parts in fields of their own, and everything else is each worker's own. A set (the
        annotation types) goes as a sorted list of its names."""
        values = {name: getattr(getattr(self, SETTINGS[name]), name) for name in JOB_SETTINGS}
        return {name: sorted(str(v) for v in value) if isinstance(value, frozenset) else value
                for name, value in values.items()}

    def with_job_settings(self, values: Mapping[str, Any]) -> FetchConfig:
        """This (a worker's) configuration with a job's settings (from :meth:`job_settings`) applied, each checked as
        a config file's setting is; a setting not of a job is a ValueError."""
        unknown = set(values) - set(JOB_SETTINGS)
        if unknown:
            raise ValueError(f"a job names settings a worker does not take from a job: {', '.join(sorted(unknown))}")
        return self.with_changes(**{name: checked(name, value) for name, value in values.items()})

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, config_file: str | os.PathLike[str] | None = None,
                 **changes: object) -> FetchConfig:
        """Defaults, then the environment (``environ``, else the process's), then the config file (``config_file``,
        else ``$PUBFETCH_CONFIG``, else ``~/.config/pubfetch/config.yaml`` when it exists), then ``changes``: the more
        deliberate the choice, the later it applies. A setting the file leaves out keeps its value from the
        environment. This is the one way settings come from the environment (:mod:`pubfetch.config.environment`)."""
        env = process_environment() if environ is None else environ
        config = cls().with_changes(**environment_settings(env), environment_proxies=environment_proxies(environ))
        path = config_file if config_file is not None else default_file(env)
        if path:
            config = config.with_changes(**settings_from_file(path))
        return config.with_changes(**changes)
